"""The contradiction cascade: is a new claim incompatible with an earlier one?

Each new asserted claim is compared only with the live facts on the same subject node
(the graph is the index), in priority order; the first decisive finding wins:

1. negation   - same relation and object, opposite polarity (polarity read from the parse).
2. antonym    - opposite predicates (WordNet + curated) with the same object and polarity.
3. numeric    - same relation, quantities of one dimension with different values.
4. exclusive  - a single-valued relation or attribute given a different value.

A finding whose earlier claim is the user's statement about themselves is reported as
`user_fact`; an answer that opens by saying the previous answer was wrong gets
`self_correction` at reduced confidence for its conflicts with that answer, and never
pages (the pipeline relabels them once they are certified). Scope rules keep
precision: only asserted claims (not questions, hypotheticals or reported speech) with
the same time scope are ever compared, and properties with no known opposite (spicy and
warm) can co-hold.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from monitor.config import RULE_CONFIDENCE
from monitor.contracts import Detector
from monitor.engine import aligned, amounts, lexicon, purpose, quantities
from monitor.engine.extract import Triple
from monitor.engine.graph import Fact, head_word
from monitor.engine.verifier import PairVerdict

_APPROX = re.compile(r"\b(about|around|roughly|approximately|approx|nearly|almost|some|~)\b")
_UNCOMPARED_DIMENSIONS = frozenset({"number"})
"""A bare number ("3D", "rows 3 and 4", "Day 2") says too little about what it counts."""
_CURRENCY_RELATIONS = frozenset({"be", "cost", "be for", "come to", "total"})
@dataclass(frozen=True)
class Finding:
    detector: Detector
    confidence: float
    claim: Fact
    prior: Fact
    detail: str
    verdict: PairVerdict | None = None
    """The verifier's judgement of the two sentences, once the verdict stage has run."""
    doubt: str | None = None
    """Why the finding may not be a conflict after all, said for a reader, where the stage
    that made it knows: only a phrase of the claim's sentence was compared (its opening,
    `aligned.premise`, or an amount given as the user's own, `aligned.possessed`), so the
    rest may speak of something else; or the answer steers around the food it names
    elsewhere and may be warning about it. Never sure enough to page."""


def index_subject(triple: Triple) -> Triple:
    """"Paris is the capital of France" -> (capital of france, be, paris).

    Single-valued attributes are indexed by the attribute holder, so that "Lyon is the
    capital of France" lands on the same node as the first claim and the exclusive
    detector can compare the two values. The engine and the ConflictScore labeller both
    index facts this way.
    """
    if triple.relation != "be" or " of " not in triple.object:
        return triple
    if not lexicon.is_functional_attribute(head_word(triple.object)):
        return triple
    return replace(triple, subject=triple.object, object=triple.subject,
                   object_text=triple.subject)


def comparable(a: Fact, b: Fact) -> bool:
    """Scope rules: both asserted, live, and about the same time."""
    return (
        a.modality == "asserted"
        and b.modality == "asserted"
        and not b.quarantined
        and b.superseded_at is None
        and a.time_scope == b.time_scope
    )


def _core_words(label: str) -> set[str]:
    return set(label.split(" of ")[0].split())


def _same_object(a: Fact, b: Fact) -> bool:
    """Same object, or one names it more specifically ("monthly fee of 3 pound")."""
    if a.object == b.object:
        return True
    if not a.object or not b.object:
        return False
    wa, wb = _core_words(a.object), _core_words(b.object)
    return bool(wa) and bool(wb) and (wa <= wb or wb <= wa)


def check_negation(new: Fact, old: Fact) -> str | None:
    if not new.object and not old.object and lexicon.is_light_verb(new.relation):
        return None  # "Here you go" / "we never go out"
    if new.relation == old.relation and _same_object(new, old) and new.negated != old.negated:
        return "negation"
    return None


def _same_frame(new: Fact, old: Fact) -> bool:
    """Two properties are about the same thing: same complement, or one is bare.

    "The batter is thick" and "the batter is thin, like single cream" frame the same
    property even though only one carries a complement.
    """
    if new.prep == old.prep and _same_object(new, old):
        return True
    return (not new.object) != (not old.object)


def check_antonym(new: Fact, old: Fact) -> str | None:
    if (
        _same_frame(new, old)
        and new.negated == old.negated
        and new.predicate != old.predicate
        and lexicon.are_antonyms(new.predicate, old.predicate)
    ):
        return "antonym"
    return None


def _relation_key(fact: Fact, quantity: quantities.Quantity) -> str:
    if quantity.dimension.startswith("currency") and fact.relation in _CURRENCY_RELATIONS:
        return "cost"
    return relation_key(fact.relation)


_WHEN_RELATIONS = frozenset(
    f"{verb} {prep}" for verb in ("be", "scheduled", "booked", "planned", "set", "moved")
    for prep in ("at", "on", "for")
)


def relation_key(relation: str) -> str:
    """Relations that all say when something happens ("is on", "is scheduled for")."""
    return "when" if relation in _WHEN_RELATIONS else relation


def _amounts_of(fact: Fact) -> list[amounts.Amount]:
    """The fact's amounts; a hedged sentence widens its exact values."""
    # "I'm 52": a bare number the user is, is an age
    users_own = fact.subject.split(" ")[0] == "user" and fact.relation == "be"
    found = [a for a in amounts.amounts(fact.object_text)
             if users_own or a.quantity.dimension not in _UNCOMPARED_DIMENSIONS]
    if _APPROX.search(fact.sentence.lower()):
        found = [replace(a, low=min(a.low, a.quantity.value * (1 - amounts.APPROX_TOLERANCE)),
                         high=max(a.high, a.quantity.value * (1 + amounts.APPROX_TOLERANCE)))
                 if a.shape == "point" else a for a in found]
    return found


def check_numeric(new: Fact, old: Fact) -> tuple[str, quantities.Quantity,
                                                 quantities.Quantity] | None:
    """Amounts of one dimension for the same relation that cannot both hold, unless they
    are for two kinds of thing ("20 euros for adults" / "10 euros for children") or
    counted against two spans ("per day" / "a week", "daily" / "weekly")."""
    if new.negated or old.negated or not new.object_text or not old.object_text:
        return None
    clashes = []
    for a in _amounts_of(new):
        for b in _amounts_of(old):
            if not amounts.comparable(a, b):
                continue
            if _relation_key(new, a.quantity) != _relation_key(old, b.quantity):
                continue
            ours, theirs = (aligned.in_sentence(new.sentence, a.surface),
                            aligned.in_sentence(old.sentence, b.surface))
            if ours and theirs and aligned.two_prices(new.sentence, ours, old.sentence, theirs):
                continue  # "20 euros for adults" / "10 for children"; "daily" / "weekly"
            if not amounts.incompatible(a, b):
                return None
            clashes.append((a.quantity, b.quantity))
    if not clashes or _keeps_value(new.sentence, [b for _, b in clashes]):
        return None
    return "numeric", *clashes[0]


def _keeps_value(sentence: str, values: list[quantities.Quantity]) -> bool:
    """The new sentence also gives the earlier value, for another case: "Charge to 80% for
    daily use; 100% only for road trips" keeps "Charge to 100% the night before"."""
    said = [a.quantity for a in amounts.amounts(sentence)
            if not _SET_ASIDE_BEFORE.search(sentence, 0, a.quantity.start)]
    return any(q.unit == v.unit and q.value == v.value for q in said for v in values)


_SET_ASIDE_BEFORE = re.compile(r"\b(?:not|n't|instead\s+of|rather\s+than|no\s+longer|from|was|"
                               r"were|than)\s*$", re.I)
"""Words that set a value aside ("9:00, not 8:00", "moved from 8:00"): the old value is
then what the sentence corrects, not a case it keeps."""


_PLACE_PREPS = frozenset({"in", "at"})


def _is_single_valued(fact: Fact) -> bool:
    relation = fact.relation
    if lexicon.is_functional(relation) or lexicon.is_functional(f"be {relation}"):
        return True
    if relation_key(relation) == "when":
        return True
    if relation == "be" and fact.object_type == "entity" and fact.subject.split()[0] in {
        "user", "assistant"
    }:
        return True  # "my GP is Dr. Alvarez": a named value of someone's own thing
    if relation in {f"be {p}" for p in _PLACE_PREPS}:
        # "the hotel is in Faro": single-valued only between named places
        return fact.object_type == "entity"
    if fact.relation == "be":
        return lexicon.is_functional_attribute(head_word(fact.subject))
    return False


_TITLES = frozenset({"dr", "dr.", "mr", "mr.", "mrs", "mrs.", "ms", "ms.", "prof", "prof.",
                     "st", "st.", "the", "a", "an", "of"})


def _objects_overlap(a: str, b: str) -> bool:
    """Shared words other than titles ("Dr. Novak" and "Dr. Alvarez" are two people)."""
    wa, wb = set(a.split()) - _TITLES, set(b.split()) - _TITLES
    return bool(wa & wb) or a in b or b in a


def check_exclusive(new: Fact, old: Fact) -> str | None:
    if new.negated or old.negated or relation_key(new.relation) != relation_key(old.relation):
        return None
    if not new.object or not old.object or _objects_overlap(new.object, old.object):
        return None
    if not _is_single_valued(new) or (new.object_type == "number") != (
        old.object_type == "number"
    ):
        return None
    if quantities.parse_quantities(new.object_text) and quantities.parse_quantities(
        old.object_text
    ):
        return None  # two numbers are the numeric detector's to judge
    if all(f.relation.endswith(" for") and purpose.is_purpose_of_an_amount(
            f.sentence, f.object_text) for f in (new, old)):
        # "The rental is 40 dollars per day for a compact car" also parses as "the rental
        # is for a compact car": with "65 dollars per day for an SUV", two prices
        return None
    return "exclusive"


def compare(new: Fact, old: Fact,
            confidence: Mapping[str, float] = RULE_CONFIDENCE) -> Finding | None:
    """Run the cascade on one pair; None when they are compatible or incomparable."""
    if not comparable(new, old):
        return None
    kind = check_negation(new, old) or check_antonym(new, old)
    detail = ""
    if kind is None:
        numeric = check_numeric(new, old)
        if numeric is not None:
            kind = numeric[0]
            detail = f"{numeric[1].surface} vs {numeric[2].surface}"
    if kind is None:
        kind = check_exclusive(new, old)
    if kind is None:
        return None
    detector: Detector = kind  # type: ignore[assignment]
    if old.speaker == "user" and old.subject.split()[0] == "user" and new.speaker != "user":
        detector = "user_fact"
    return Finding(detector, confidence.get(kind, RULE_CONFIDENCE[kind]), new, old, detail)


def explain(finding: Finding) -> str:
    """One line a person can check at a glance."""
    new, old = finding.claim, finding.prior
    who_old = f"the {old.speaker}"
    said_old = _quote(old)
    said_new = _quote(new)
    lead = {
        "negation": "negates",
        "antonym": "states the opposite of",
        "numeric": "gives a different number than",
        "exclusive": "gives a different value than",
        "user_fact": "contradicts what the user said about themselves:",
        "self_correction": "corrects itself against",
        "nli": "is incompatible with",
        "constraint": "breaks what the user asked for at",
    }[finding.detector]
    extra = f" ({finding.detail})" if finding.detail else ""
    return (
        f"turn {new.turn} says {said_new}; {lead} turn {old.turn}, where {who_old} said "
        f"{said_old}{extra}"
    )


def _quote(fact: Fact) -> str:
    text = fact.sentence if len(fact.sentence) <= 120 else fact.sentence[:117] + "..."
    return f'"{text}"'
