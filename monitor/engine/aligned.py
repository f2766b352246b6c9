"""Amount conflicts between aligned sentences, whatever their grammatical subjects.

Real assistants rarely restate a number with the same subject and verb: "the ride takes
around 40 minutes" comes back as "it's roughly an hour and a half each way", and "£600 max
for flights + hotel" as "with your budget of around £1,000 for flights and hotel". The
graph's subject index misses these. Here two *sentences* are compared when they are about
the same thing (the engine checks embedding similarity and scope) and share content words;
their amounts then conflict when, for one dimension, every pairing of the two sentences'
values is incompatible (see `amounts.incompatible`). Sentences that name different things
("Hotel Alma costs £120" / "Hotel Sol costs £90") are never compared.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache

from monitor import data
from monitor.engine import amounts, cues, purpose, quantities
from monitor.engine.amounts import Amount
from monitor.engine.quantities import Quantity

MAX_AMOUNTS = 3
"""A sentence listing more values than this is a list of different things."""
_UNCOMPARED = frozenset({"number"})
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-zA-Z]+\b")
_NUMBERISH = re.compile(r"\d")


@dataclass(frozen=True)
class Statement:
    """An asserted sentence that carries amounts, remembered for later comparison."""

    turn: int
    speaker: str
    sentence: str
    context: str


@lru_cache(maxsize=4096)
def measured(sentence: str) -> tuple[Amount, ...]:
    """The comparable amounts of a sentence; none for a list of values or a calculation.

    Cached: the same remembered sentences are measured again at every later turn."""
    found = [a for a in amounts.amounts(sentence) if a.quantity.dimension not in _UNCOMPARED
             and not _AGE_AFTER.match(sentence, a.quantity.end)]
    return tuple(found) if len(found) <= MAX_AMOUNTS and not derived(sentence) else ()


_AGE_AFTER = re.compile(r"(?:-|\s+)olds?\b", re.IGNORECASE)
"""A "6-year-old" names who is meant, as "a 4-month-old puppy" and "my 7 year old" do:
no duration."""


@lru_cache(maxsize=8192)
def _measures(sentence: str) -> frozenset[tuple[str, str | None]]:
    """What the sentence's comparable amounts measure (`amounts.measure`)."""
    return frozenset(amounts.measure(a) for a in measured(sentence))


def may_conflict(new: str, old: str) -> bool:
    """Some amount of each sentence measures the same kind of thing: without one,
    `conflicts` finds nothing. A cheap test first: an answer's sentence is set against
    every remembered statement, and most pairs measure different things (a price against
    a duration)."""
    return not _measures(new).isdisjoint(_measures(old))


@lru_cache(maxsize=8192)
def _names(sentence: str) -> frozenset[str]:
    """Capitalised words inside the sentence; not a function word in title case, which
    opens a clause after a label, a dash or a title ("Meals: Since ...", "Tip: You ...",
    "Monthly cost for walks At roughly $30 ..."): "ChatGPT Plus" and "IT" stay names.
    Cached: a remembered sentence is set against every new one."""
    text = sentence.strip(" *-#>")
    return frozenset(m.group(0).lower() for m in _NAME.finditer(text)
                     if not _function_word(m.group(0)))


@lru_cache(maxsize=8192)
def _spelled(sentence: str) -> frozenset[str]:
    """The words a sentence spells, in lower case, whatever their case there. Cached as
    `_names` is."""
    return frozenset(_LETTERS.findall(sentence.lower()))


def _function_word(word: str) -> bool:
    return word[1:].islower() and word.lower() in cues.clause_words()


_ARITHMETIC = re.compile(
    r"[=÷]|\d\s*[+*/]\s*\d|\d\s+[-x×]\s+\d|\d\S*\s+minus\s|\bminus\b(?!\s*[^\s\w]?\d)|"
    r"(?-i:\bplus\b)|\btimes\s+[^\s\w]?\d|"
    r"(?:\d\S*|\b(?:two|three|four|five|six|seven|eight|nine|ten))\s+times\b"
    r"(?!\s+(?:a|an|per|each|every|in|daily|weekly|monthly|as)\b)|"
    r"\b(?:equals?|divided?|multipl(?:y|ied)|subtract|add up|sum of|quotient|product of|"
    r"remainder)\b", re.IGNORECASE)
"""Signs and words of a worked calculation ("5 times 12", "3 x 4", "the museum plus the
audio guide"); not a size ("a 10x10 unit"), a frequency ("three times a day"), a noun
("wait times"), a name ("the Plus plan") or a value below zero ("minus 5 degrees")."""
_OTHER_ONE = re.compile(r"(?<![\w-])(?:previous|former|older|(?<!year )(?<!years )old|other|"
                        r"earlier|newer|last-gen|predecessor|successor)\b", re.IGNORECASE)


_NUMBERED = re.compile(r"\b[A-Z][a-zA-Z]*\s+\d+(?:[-.]\d+)?\b")
_ORDINAL = re.compile(r"\b(first|second|third|fourth|fifth|sixth|final|last|1st|2nd|3rd|4th|"
                      r"5th|6th)\s+(?!(?:the|and|you|this|that|for|with|from)\b)([a-z]{3,})\b",
                      re.IGNORECASE)


def numbered_names_differ(a: str, b: str) -> bool:
    """ "Class 4-2" / "Class 4-1", "Box 1" / "Box 2", "the first set" / "the final set",
    "a 5x10 unit" / "a 10x15 unit": numbered, ordered or sized things that are not the
    same."""
    na, nb = _numbered(a), _numbered(b)
    heads_a = {n.split()[0] for n in na}
    if any(n.split()[0] in heads_a and n not in na for n in nb):
        return True
    sizes_a, sizes_b = _sizes(a), _sizes(b)
    if sizes_a and sizes_b and not sizes_a & sizes_b:
        return True  # "a 5x10 unit" / "a 10x15 unit"
    ranks_a, ranks_b = _ranks(a), _ranks(b)
    return any(not ranks_a[noun] & ranks_b[noun] for noun in ranks_a.keys() & ranks_b.keys())


def _numbered(sentence: str) -> set[str]:
    """The numbered names of a sentence ("Class 4", "Box 1"); not an amount written with
    its currency code first ("CAD 140", "CHF 92"), which is the value compared, not a
    name."""
    named = list(_NUMBERED.finditer(sentence))
    if not named:
        return set()  # cheap first: most sentences number nothing
    codes = {a.quantity.start for a in amounts.amounts(sentence)
             if a.quantity.dimension.startswith("currency")}
    return {m.group(0).lower() for m in named if m.start() not in codes}


_SIZE = re.compile(r"\b(\d+(?:\.\d+)?)[xX×](\d+(?:\.\d+)?)\b")
"""Written without spaces: "3 x 4" with spaces is a calculation (`derived`)."""


def _sizes(sentence: str) -> set[tuple[float, ...]]:
    """The sizes a sentence names by their sides, in either order ("a 10x10 unit",
    "5x8 ft" is "8x5 ft")."""
    return {tuple(sorted((float(m.group(1)), float(m.group(2)))))
            for m in _SIZE.finditer(sentence)}


def _ranks(sentence: str) -> dict[str, set[str]]:
    """The ordinals each noun carries in a sentence ("first set" -> {"set": {"first"}})."""
    out: dict[str, set[str]] = {}
    for m in _ORDINAL.finditer(sentence):
        out.setdefault(m.group(2).lower(), set()).add(m.group(1).lower())
    return out


@lru_cache(maxsize=4096)
def amounts_in(sentence: str) -> bool:
    """Any number at all (a list or a calculation included)."""
    return bool(amounts.amounts(sentence))


def crowded(sentence: str) -> bool:
    """More values than one claim holds: a list or a table row in prose."""
    return len(amounts.amounts(sentence)) > MAX_AMOUNTS


def derived(sentence: str) -> bool:
    """A worked calculation ("6 plus 5 equals 11"): its numbers are steps, not claims."""
    return any(not _lists_on(sentence, m) for m in _ARITHMETIC.finditer(sentence))


def _lists_on(sentence: str, sign: re.Match[str]) -> bool:
    """A "plus" between amounts of two kinds, or counted against two spans, adds an item
    to a list, not a term to a sum: "use 400 g of tomatoes, plus 2 garlic cloves", "$145
    per credit plus a $95 tech fee per semester"."""
    if sign.group(0) != "plus":
        return False
    found = amounts.amounts(sentence)
    before = [a for a in found if a.quantity.end <= sign.start()]
    after = [a for a in found if a.quantity.start >= sign.end()]
    if not (before and after):
        return False
    first, then = before[-1].quantity, after[0].quantity
    return (first.dimension, first.unit) != (then.dimension, then.unit) or (
        _per(sentence, first) != _per(sentence, then))


def _per(sentence: str, amount: Quantity) -> str | None:
    """What the amount is counted against by "per", whatever the noun ("per credit")."""
    found = _PER.search(_STOP.split(sentence[amount.end:])[0])
    return found.group(1).lower() if found else None


def other_one(a: str, b: str) -> bool:
    """One sentence is about another model, version or edition than the other."""
    return {m.lower() for m in _OTHER_ONE.findall(a)} != {m.lower() for m in
                                                          _OTHER_ONE.findall(b)}


def names_differ(a: str, b: str, values: str = "") -> bool:
    """The sentences do not name the same things (values being compared aside): one names
    something the other does not say in any case. Users write names and units in lower
    case ("300 mbps", "16gb ram"), answers capitalise them ("100 Mbps", "8 GB RAM")."""
    ignore = set(values.lower().split())
    return bool(_unsaid_names(a, b) - ignore or _unsaid_names(b, a) - ignore)


def _unsaid_names(sentence: str, other: str) -> frozenset[str]:
    return _names(sentence) - _spelled(other)


def different_names(a: str, b: str, values: str = "") -> bool:
    """Each sentence names something the other does not ("Hotel Alma" / "Hotel Sol").

    Names inside `values` (the two values being compared, "Lisbon" / "Madrid") are the
    point of the comparison, not a sign of different subjects.
    """
    ignore = set(values.lower().split())
    na, nb = _names(a) - ignore, _names(b) - ignore
    return bool(na - nb) and bool(nb - na)


def no_shared_name(a: str, b: str) -> bool:
    """Both sentences name things and none of them is the same ("the capital of France is
    Paris" / "the capital of Italy is Rome"): two facts about different things."""
    na, nb = _names(a), _names(b)
    return bool(na) and bool(nb) and not na & nb


def shared_words(a: str, b: str) -> set[str]:
    """Content words both sentences use, numbers and units aside."""
    words = cues.content_words(a) & cues.content_words(b)
    return {w for w in words if not _NUMBERISH.search(w)}


_STOP = re.compile(r"[,;:()\[\]|—–•]|\s-\s|\d")
_WINDOW = 5


_CLAUSE_STOP = re.compile(r"(?<!\d)[,:]|[,:](?!\d)|[;()\[\]|•]")
"""Where a clause ends: not inside a number ("60,000 miles", "10:30")."""


def phrase(sentence: str, amount: Amount, surface: str | None = None) -> str:
    """The amount with the words of its own clause on both sides (with `surface` written
    in the amount's place, where given)."""
    q = amount.quantity
    return (_CLAUSE_STOP.split(sentence[: q.start])[-1]
            + (q.surface if surface is None else surface)
            + _CLAUSE_STOP.split(sentence[q.end:])[0])


_FRONTED = re.compile(
    r"^\s*(?:for|with|on|in|at|during|over|under|after|before|from|by|without|including|"
    r"excluding|outside|inside|between|among|throughout|until|till)\b", re.IGNORECASE)
_FRONTED_WORDS = 8
_LIST_LINE_WORDS = 8
"""A line of a list ("2 cloves garlic, minced") has at most this many words."""
_RELATIVE = re.compile(r"^\s*(?:which|who|that)\b", re.IGNORECASE)


_PREMISE_WORDS = 14
_SLOTS = frozenset({"percent", "clock", "year", "date"})
"""Dimensions a lead phrase sets as a case, not as a value said again: a scenario's rate
("At 7% a year, ..."), a time of day ("At 5 pm, ..."), a year ("Since 2019, ..."), a
date ("On 14 June, ...")."""
_AT = re.compile(r"^(?:so,?\s+)?at\b", re.IGNORECASE)
_YOURS = re.compile(r"\byour\b", re.IGNORECASE)


def said_as_users(sentence: str, start: int) -> bool:
    """The amount starting at `start` is given as the user's own (`_YOUR`), an approximation
    aside: "a cushion under your $300", "your ~$300"."""
    return _YOUR.search(_APPROX_LEAD.sub("", sentence[:start])) is not None


_APPROX_LEAD = re.compile(r"(?:~\s*|\b(?:about|roughly|around)\s+)$", re.IGNORECASE)


def premise(sentence: str) -> str | None:
    """The lead phrase of a sentence that works from a value said again: "At $45 per night
    for a medium-sized dog, 10 nights comes to $450", "With rent at 1,300 euros a month,
    I'd trim other costs first", "Since you're paying around 120 euros a month for
    electricity, ...".

    Answers often restate a figure this way on their way to something else, and it is
    where a misremembered figure shows. The sentence as a whole is a calculation, a list
    or advice whose other numbers and names are its own (`derived`, `crowded`, names the
    earlier sentence never had), so it is not compared as a whole; the lead phrase alone
    claims the value and is compared like any sentence. None where there is no such lead,
    where the lead compares values ("Since $1,800 is below your deductible"), where the
    sentence offers its value as an alternative ("..., saving you $600"), where the lead
    states a goal ("With your 10,000 steps a day target"), or where it sets a case rather
    than a value: a scenario's rate, a time of day, a year or a date (`_SLOTS`), or a
    stage "at" an age or a duration ("At 6 months old, ...", "At 12 weeks, ...", not "At
    $95 per hour for 48 hours, ...")."""
    opened = _LEAD_LABEL.sub("", _LIST_MARK.sub("", sentence, count=1), count=1)
    parts = _CLAUSE_STOP.split(opened, maxsplit=1)
    if len(parts) < 2 or not parts[1].strip():
        return None
    lead = parts[0].strip(" *_\"'”’")
    if (len(lead.split()) > _PREMISE_WORDS or not cues.opens_premise(lead)
            or cues.compares(lead) or cues.states_goal(lead)
            or cues.offers_alternative(opened)):
        return None  # "With your 10,000 steps a day target, ...": a goal, not a value
    found = measured(lead)
    if not found or any(a.quantity.dimension in _SLOTS for a in found):
        return None
    if _AT.match(lead) and found[0].quantity.dimension == "time":
        return None  # "At 6 months old, babies nap 3 times a day": a stage, not a value
    return lead


_YOUR = re.compile(r"\byour\s+(?:[*_]+\s*)?(?:(?:current|usual|regular|own)\s+)?[*_]*$",
                   re.IGNORECASE)
"""What comes right before an amount the answer gives as the user's own ("your 144 sq ft
deck", "your **$30,000** budget", "your usual 10 ml")."""


_EMPHASIS = re.compile(r"\*+")


def possessed(sentence: str) -> tuple[str, ...]:
    """Each phrase that gives an amount as the user's own thing, from "your" to the end of
    its clause: "For your 144 sq ft deck, that means about 1 gallon per coat" -> "your 144
    sq ft deck". The answer says the value again in passing, inside a sentence whose
    other numbers are its own (`crowded`, `derived`); the phrase alone claims it. None in
    a sentence that offers an alternative ("your new $66,000 salary"), states a goal
    ("your 10 km long run by week 8") or is an item of a plan ("Month 2: your $6,000 in
    savings ..."); no year, date, time of day or rate in percent (`_SLOTS`); and the
    phrase stops before the next amount ("your $800 budget to $1,000")."""
    if _YOURS.search(sentence) is None:
        return ()  # cheap first: reading the amounts of every sentence costs ~100 µs
    if (cues.offers_alternative(sentence) or cues.states_goal(sentence)
            or cues.opens_plan_item(sentence)):
        return ()  # "your new salary", "your 10 km long run by week 8": not the value now
    found: list[str] = []
    said_in = amounts.amounts(sentence)
    for amount in said_in:
        q = amount.quantity
        before = _YOUR.search(sentence, 0, q.start)
        if (before is None or q.dimension in _SLOTS or q.dimension in _UNCOMPARED
                or cues.years(q.surface)):
            continue  # not "your 2019 model": a model year counts nothing
        end = min([a.quantity.start for a in said_in if a.quantity.start >= q.end],
                  default=len(sentence))  # not across the next amount: "to $1,000"
        said = _EMPHASIS.sub("", before.group(0) + sentence[q.start:q.end]
                             + _CLAUSE_STOP.split(sentence[q.end:end])[0]).strip(" .!?")
        if measured(said):
            found.append(said)
    return tuple(found)


@lru_cache(maxsize=16384)
def clause(sentence: str, amount: Amount, surface: str | None = None) -> str:
    """`phrase`, with the short qualifying phrases fronted before it ("For high school,
    tuition is $28,500 a year", "On the basic Kindle, the battery lasts 10 weeks") and,
    for a relative clause, the clause it hangs on ("She'd need a standard adult ticket,
    which is around £20"). What the amount is the value of is often said there, and a
    clause without it reads as any other thing's."""
    segments = _CLAUSE_STOP.split(sentence[: amount.quantity.start])
    own = phrase(sentence, amount, surface).strip()
    lead: list[str] = []
    if _RELATIVE.match(segments[-1]) and len(segments) > 1:
        lead.append(segments.pop(-2).strip())  # "a family ticket, which is around £58"
    for segment in reversed(segments[:-1]):
        if not _qualifies(segment):
            break
        lead.insert(0, segment.strip())
    return ", ".join([*lead, own])


def _qualifies(segment: str) -> bool:
    """A short phrase that says which case a clause is about ("For a couple", "On the
    basic Kindle", "During Carnival")."""
    return bool(_FRONTED.match(segment)) and len(segment.split()) <= _FRONTED_WORDS


def fronted(sentence: str) -> list[str]:
    """The qualifying phrases a sentence opens with, before its own clause ("For a
    couple, a moderate grocery budget is around $650" -> ["For a couple"]); not framing
    openings ("In total", "As a rule": `cues.frames_only`) nor a price that is the value
    itself ("At about $35 an hour, ...")."""
    lead: list[str] = []
    for segment in _CLAUSE_STOP.split(_LIST_MARK.sub("", sentence, count=1))[:-1]:
        if not _qualifies(segment):
            break
        segment = segment.strip(" *_\"'”’")
        if not (cues.frames_only(segment) or _AT_PRICE.match(segment)):
            lead.append(segment)
    return lead


_LEAD_LABEL = re.compile(r"^[^:;,.!?()\[\]|\d]{1,40}:[\s*_]*(?=\S)")
"""A label before the sentence proper ("Tuition: at $165 per credit, ...")."""
_LIST_MARK = re.compile(r"^[\s*#>\"'“‘(-]*(?:\d+[.)]\s+)?[\s*_\"'“‘]*")
"""What opens a list item or a quote before its words ("1. ", "> ", "**", a quote mark)."""
_AT_PRICE = re.compile(r"\s*at\s+(?:about\s+|around\s+|roughly\s+|just\s+|only\s+)?"
                       r"(?:[$€£¥]|(?-i:[A-Z]{3})\s?\d)", re.IGNORECASE)
"""A price that opens the sentence ("At about $35 an hour", "At CAD 55 per person")."""


def qualified_apart(new: str, old: str, new_value: str | None = None,
                    old_value: str | None = None) -> str | None:
    """What tells the things of two sentences apart, if anything, said for a reader: an
    opening qualifier one says and the other does not ("For a couple, a grocery budget is
    $650" / "For a single adult, ... $350"), or a noun both use with other modifiers ("an
    e-bike rental" / "a basic city bike rental") in the clauses of two amounts, where both
    values are amounts the sentences state (`new_value`, `old_value`, as a finding writes
    them: "about 90 euros a night"); a modifier elsewhere ("with free breakfast")
    qualifies something else, and a sentence whose value is no amount is not read for
    them. Values that differ under such sentences may be two variants' values, not one
    value said twice: too weak a sign to drop a finding (a restatement may add or drop a
    qualifier), enough to keep it from paging."""
    for ours, theirs, whose in ((new, old, "this"), (old, new, "the earlier")):
        for lead in fronted(ours):
            if _unrelated(cues.content_words(lead), cues.content_words(theirs)):
                return f'only {whose} sentence says "{lead}"'
    new_amount, old_amount = _stated(new, new_value), _stated(old, old_value)
    if new_amount is None or old_amount is None:
        return None
    new_clause, old_clause = phrase(new, new_amount), phrase(old, old_amount)
    things = shared_words(new_clause, old_clause) - _MEASURE_WORDS
    # what a clause says its thing includes ("a ticket that includes the towers") is read
    # only where the modifiers before the nouns tell nothing apart
    return (_modified_apart(new_clause, old_clause, things)
            or _modified_apart(new_clause, old_clause, things, after=True))


def measured_apart(new: str, old: str, new_value: str, old_value: str) -> str | None:
    """Why two amounts compared by the words around them may measure different things, for
    a reader: those words share none that names a thing, only a measuring word or a name
    ("the typical wedding costs about $30,000 in the Midwest" / "the venue itself
    typically costs about $10,000 in the Midwest": "cost" and "Midwest"). Two things of
    one place are priced alike in words; one thing said twice shares what it is."""
    new_amount, old_amount = _stated(new, new_value), _stated(old, old_value)
    if new_amount is None or old_amount is None:
        return None
    shared = attribute(new, new_amount) & attribute(old, old_amount)
    if shared - _MEASURE_WORDS - _names(new) - _names(old):
        return None
    return ("the words around the two values name no thing they share" if not shared else
            f'the words around the two values share only "{", ".join(sorted(shared))}"')


def listed_apart(new: str, old: str) -> str | None:
    """Why two amounts may be two lists' items, for a reader: both sentences are list lines
    that open with their amount ("2 cloves garlic, minced" / "1 clove garlic, minced",
    "250g caster sugar"), as an ingredient or a shopping list writes them. Two answers
    often hold two such lists (the gravy's and the stuffing's, the sponge's and the
    icing's) under the same heading, and the line names only the item: a different
    amount is as likely another list's as the same list's changed. Enough to keep it from
    paging, not to drop it: a recipe given again with another amount is a real change."""
    if all(_amount_first(s) for s in (new, old)):
        return "both are list lines that open with their amounts: they may be two lists' items"
    return None


def _amount_first(sentence: str) -> bool:
    """A short line that opens with its amount: an item of a list, not a claim in prose."""
    text = sentence.strip()
    found = amounts.amounts(text)
    return bool(found) and found[0].quantity.start == 0 and len(text.split()) <= _LIST_LINE_WORDS


def counted_apart(new: str, old: str) -> str | None:
    """Why two sentences may give the values of two variants, for a reader: they count one
    thing differently and differ in another value as well ("a crew of three movers ...
    about $160 per hour" / "a crew of two movers ... about $120 per hour"). The other
    value is then likely each count's own, not one value changed."""
    found = conflicts(new, old)
    counted = next(((a, b) for a, b in found if a.quantity.dimension == "count"), None)
    if counted is None or all(a.quantity.dimension == "count" for a, _ in found):
        return None
    return f'"{counted[0].surface}" against "{counted[1].surface}", each with its own value'


def _stated(sentence: str, value: str | None) -> Amount | None:
    """The sentence's first amount that `value` states, if any."""
    if not value:
        return None
    return next((a for a in amounts.amounts(sentence) if a.surface in value), None)


def _modified_apart(ours: str, theirs: str, things: AbstractSet[str],
                    after: bool = False) -> str | None:
    """The first of `things` (content words both texts use) that each text modifies with
    other words ("a family ticket" / "a standard adult ticket"; with `after`, also what
    follows it: "a ticket that includes the towers" / "a basic ticket"), said as the two
    texts say it; words that reckon a value ("average", "typical") name no kind."""
    for word in sorted(things):
        mine = _modifiers(ours, word, after) - _VALUE_MODIFIERS
        other = _modifiers(theirs, word, after) - _VALUE_MODIFIERS
        if mine and other and not any(_related(w, o) for w in mine for o in other):
            return (f'"{_noun_phrase(ours, word, after)}" against '
                    f'"{_noun_phrase(theirs, word, after)}"')
    return None


_VALUE_MODIFIERS = data.words("value_modifiers.tsv")


def _unrelated(words: AbstractSet[str], others: AbstractSet[str]) -> bool:
    """Some of `words` has no form in `others`."""
    return any(not any(_related(w, o) for o in others) for w in words)


_ENDING = 3
"""The most letters a longer form of a word adds ("child" -> "children")."""


def _related(word: str, other: str) -> bool:
    """Forms of one word: `cues.content_words` folds "taxes" to "taxe" and "tax" to
    "tax", "children" to "children" and "child" to "child"; "business" is no form of
    "bus"."""
    short, long = sorted((word, other), key=len)
    return long.startswith(short) and len(long) - len(short) <= _ENDING


def _noun_phrase(text: str, word: str, after: bool = False) -> str:
    """`word` (a content word) with the modifiers before it, as `text` writes them, where
    it has any, and with `after` what follows it (`cues.post_modifier`)."""
    tokens = [token.strip("_") for token in _TOKEN.findall(text)]
    said = next((" ".join(tokens[start: i + 1]) for start, i in _modified_at(tokens, word)
                 if start < i), word)
    following = next(iter(_following(text, word)), None) if after else None
    return f"{said} {following[0]}" if following else said


def attribute(sentence: str, amount: Amount) -> set[str]:
    """What an amount measures: the content words right around it, within its phrase."""
    q = amount.quantity
    before = _label_of(sentence[: q.start]) or _STOP.split(sentence[: q.start])[-1]
    after = _STOP.split(sentence[q.end:])[0]
    words = cues.ordered_content_words(before)[-_WINDOW:]
    words += cues.ordered_content_words(after)[:_WINDOW]
    return set(words) - cues.content_words(q.surface) - _VAGUE


_LABELLED = re.compile(r"^[\s*_#>-]*(?P<label>[^:;.!?()\[\]|]{1,60}):(?P<gap>[^:;,()]*)$")
"""A label and its colon before an amount: "First checked bag: $35", "Rent: about $1,200"."""


def _label_of(before: str) -> str | None:
    """The label an amount is given under, where only vague words stand between its colon
    and the amount: the label says what the value is of."""
    found = _LABELLED.match(before)
    if found is None or cues.content_words(found["gap"]) - _VAGUE:
        return None
    return found["label"]


def two_prices(new: str, a: Amount, old: str, b: Amount) -> bool:
    """The two amounts say they are for different kinds of thing ("20 euros for adults" /
    "10 euros for children") or are counted against different spans ("the daily rate is
    55 euros" / "the weekly rate is 300 euros"): two prices, not one price changed."""
    spans = span(new, a), span(old, b)
    return (None not in spans and spans[0] != spans[1]) or _for_two_kinds(new, a, old, b)


def _for_two_kinds(new: str, a: Amount, old: str, b: Amount) -> bool:
    """The amounts' "for ..." phrases name kinds that exclude each other, their sentences
    two variants of a thing ("you'd want a dedicated desk, which is closer to 320 euros"
    / "a hot desk runs about 200 euros"), or the new amount's clause holds for a time
    frame the old one's does not name ("on weekends, the ticket is 25 euros" / "the
    ticket is 20 euros"; the other way round it may be a restatement that drops its
    frame, and a frame in another clause may be the plan's: "start in early summer")."""
    return (purpose.different(purpose.purpose(new, a.quantity.end),
                              purpose.purpose(old, b.quantity.end))
            or _offset(new, a) != _offset(old, b)
            or _two_variants(new, old)
            or bool(cues.time_frames(clause(new, a)) - cues.time_frames(clause(old, b))))


def _offset(sentence: str, amount: Amount) -> bool:
    """A time that places something ("starting 30 minutes after you mix"), not a length
    ("bulk takes 4 to 5 hours"): the two are never one value changed."""
    return amount.quantity.dimension == "time" and cues.places_in_time(
        sentence, amount.quantity.end)


@lru_cache(maxsize=4096)
def _two_variants(ours: str, theirs: str) -> bool:
    """The two sentences name variants of a thing that exclude each other ("a single
    room" / "a double room", "one-way" / "return fares"): two things' values. Both must
    name one; a sentence that names two ("unlike a hot desk, a dedicated desk...") shares
    one with the other."""
    read = data.kinds_reader("variants.tsv")
    return purpose.exclusive(_by_category(read(ours)), _by_category(read(theirs)))


def _by_category(tags: frozenset[str]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for tag in tags:
        category, kind = tag.split(":")
        out.setdefault(category, set()).add(kind)
    return out


_VAGUE = frozenset({"about", "around", "roughly", "approximately", "max", "maximum",
                    "minimum", "least", "usually", "typically", "generally", "total"})


_SPAN_WORDS = {row[0]: row[2] for row in data.rows("rates.tsv") if row[1] in {"short", "alike"}}
_RATE = re.compile(
    r"(?:\b(?:per|a|an|each|every)\s+|/\s*)(day|week|month|year|hour|minute|night|person|"
    r"serving|portion|lesson|session|visit|trip|meal|kg|km|mile|unit|item|page|"
    + "|".join(_SPAN_WORDS) + r")\b", re.IGNORECASE)
_EVERY = re.compile(r"\bevery\s*$", re.IGNORECASE)
_PER = re.compile(r"\bper\s+([a-z]+)\b", re.IGNORECASE)
"""Any noun after "per" ("$145 per credit", "a $95 fee per semester")."""


def rate(sentence: str, amount: Amount) -> str | None:
    """ "5 g per week", "3 meals a day", "€55/night", "$19/mo": what the amount is counted
    against; "every 20 minutes" is a frequency."""
    if _EVERY.search(sentence[: amount.quantity.start]):
        return "every"
    match = _RATE.search(_STOP.split(sentence[amount.quantity.end:])[0])
    if match is None:
        return None
    word = match.group(1).lower()
    return _SPAN_WORDS.get(word, word)


_SPAN_OF = {row[0]: row[2] for row in data.rows("rates.tsv") if row[1] == "adjective"}
_PRICED = data.words("rates.tsv", "priced")
_ADJECTIVE_RATE = re.compile(
    r"\b(" + "|".join(_SPAN_OF) + r")\s+(?:[\w-]+\s+){0,2}?(" + "|".join(_PRICED) + r")s?\b",
    re.IGNORECASE)
_RATE_AFTER = re.compile(r"^\s*(" + "|".join(_SPAN_OF) + r")\b", re.IGNORECASE)


@lru_cache(maxsize=16384)
def span(sentence: str, amount: Amount) -> str | None:
    """`rate`, or a rate said as an adjective of the price in the amount's clause ("the
    daily rental rate is 55 euros", "an annual premium of $2,300", "55 euros nightly");
    not of the thing priced ("the daily special is 12 euros"). The verb "costs" reads as
    the noun "cost", so "a daily pass costs 10 euros" is counted per day: it keeps a
    daily and a weekly pass apart, which "a daily pass is 10 euros" does not."""
    found = rate(sentence, amount)
    if found:
        return found
    after = _RATE_AFTER.match(_STOP.split(sentence[amount.quantity.end:])[0])
    if after:
        return _SPAN_OF[after.group(1).lower()]
    before = _JOINED.split(_STOP.split(sentence[: amount.quantity.start])[-1])[-1]
    priced = list(_ADJECTIVE_RATE.finditer(before))
    return _SPAN_OF[priced[-1].group(1).lower()] if priced else None


_JOINED = re.compile(r"\b(?:and|or|but|then|so|while|whereas|because)\b", re.IGNORECASE)


def in_sentence(sentence: str, surface: str) -> Amount | None:
    """The amount written `surface` in `sentence`, where it is written there once: a fact
    keeps its amount's text, not its place in the sentence."""
    found = [a for a in amounts.amounts(sentence) if a.surface == surface]
    return found[0] if len(found) == 1 else None


def amount_conflict(new: str, old: str, min_shared: int = 1) -> tuple[Amount, Amount] | None:
    """Two amounts of one dimension that measure the same thing and cannot both hold.

    "The same thing": the words around them overlap (at least `min_shared` of them) and
    they are not for two kinds of thing ("for adults" / "for children").
    """
    for a, b in conflicts(new, old):
        if len(attribute(new, a) & attribute(old, b)) >= min_shared:
            return a, b
    return None


def conflicts(new: str, old: str) -> list[tuple[Amount, Amount]]:
    """Every pairing of the two sentences' amounts that cannot both hold, were they about
    the same thing: one dimension, not for two kinds of thing nor counted against two
    spans, and no value the new sentence also states. Whether they *are* about the same
    thing is the caller's question (the words around them, or the verifier).

    Two bounds in the same direction ("under 20-25 g" / "under about 50 g") state two
    thresholds for one limit, so they are compared as values.
    """
    return list(_conflicts(new, old))


@lru_cache(maxsize=4096)
def _conflicts(new: str, old: str) -> tuple[tuple[Amount, Amount], ...]:
    """Cached: both amount routes ask it of the same pair of sentences in one turn."""
    new_amounts, old_amounts = measured(new), measured(old)
    stated = {a.quantity.value for a in amounts.amounts(new)}
    bare_before = {a.quantity.value for a in amounts.amounts(old)
                   if a.quantity.dimension == "number"}
    found: list[tuple[Amount, Amount]] = []
    for a in new_amounts:
        if _written(a) in bare_before:
            continue  # "6 hrs on weeknights and then 9 on weekends": 9 was said there too
        if any(amounts.comparable(a, b) and not amounts.incompatible(*amounts.as_thresholds(
                a, b)) for b in old_amounts):
            continue  # the old sentence also states this value: they agree on it
        for b in old_amounts:
            if not amounts.comparable(a, b) or _schedule_edge(a) or _schedule_edge(b) or (
                    _scales_apart(a, b)):
                continue
            if b.quantity.value in stated:
                continue  # "two of the five books": the old value is restated here too
            if not amounts.incompatible(*amounts.as_thresholds(a, b)):
                continue
            if not (_counted_apart(new, a, old, b) or _for_two_kinds(new, a, old, b)):
                found.append((a, b))
    return tuple(found)


def _scales_apart(a: Amount, b: Amount) -> bool:
    """Both are times, far apart in size (`quantities.far_apart`)."""
    return a.quantity.dimension == b.quantity.dimension == "time" and quantities.far_apart(
        _size(a), _size(b))


def _size(amount: Amount) -> float:
    """A finite value the amount allows, in its canonical unit (0 where none is)."""
    ends = [v for v in (amount.low, amount.high) if math.isfinite(v) and v > 0]
    return sum(ends) / len(ends) if ends else 0.0


_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _written(amount: Amount) -> float | None:
    """The number as the sentence writes it ("9" of "9-hour"), before any unit scales it."""
    found = _DIGITS.search(amount.quantity.surface)
    return None if found is None else quantities.parse_number(found.group(0))


_MEASURE_WORDS = data.words("measure_words.tsv")
_LETTERS = re.compile(r"[a-z]+")


def restated_clause(new: str, a: Amount, old: str, b: Amount) -> tuple[str, str] | None:
    """(the old amount's clause with the new amount in its place, the new amount's
    clause): if the first entails the second, everything the new sentence says of its
    amount the old one said too, the value aside, so the two values are one thing's.

    "A crew of two movers with a truck typically charges about $150 per hour" entails "At
    $150 an hour for two movers and a truck"; "an adult ticket is 25 euros Monday to
    Friday" should not entail "on weekends the adult ticket is 25 euros". The clauses
    keep their fronted qualifiers (`clause`). None where the two clauses share no word
    that names a thing ("it's about 7 euros" is entailed by any clause with that value,
    "the ticket costs 20 euros" by "the tour costs 20 euros" as the verifier reads them),
    where one is an aggregate the other is not ("spent 49.4 yuan in total" / "the gloves
    cost 5.8 yuan"), or where the new sentence names anything the old one does not
    (another laptop's "Harman Kardon speakers", in whatever clause: the restatement of a
    value drops names, it does not add them).
    """
    if _names(new) - _spelled(old):
        return None  # a restatement drops names ("the tasting menu at Noma"), adds none
    premise, hypothesis = clause(old, b, a.surface), clause(new, a)
    things = shared_words(premise, hypothesis) - cues.content_words(a.surface) - _MEASURE_WORDS
    if not things or aggregates(premise) != aggregates(hypothesis):
        return None
    if _modified_apart(premise, hypothesis, things) is not None:
        return None  # "a family ticket" / "a standard adult ticket": two variants
    return premise, hypothesis


_MODIFIER_WINDOW = 2


def _modifiers(text: str, word: str, after: bool = False) -> set[str]:
    """The content words right before `word` (a content word, as `cues.content_words`
    writes it) wherever it stands in `text`, up to the first other word: what kind of
    it the text means ("a standard tent pitch" -> standard, tent); with `after`, also
    those of what follows it up to a number ("a ticket that includes the towers" ->
    tower)."""
    found: set[str] = set()
    tokens = _TOKEN.findall(text)
    for start, i in _modified_at(tokens, word):
        for before in tokens[start:i]:
            found |= cues.content_words(before)
    for _, words in _following(text, word) if after else ():
        for token in _TOKEN.findall(words):
            if _NUMBERISH.search(token):
                break
            found |= cues.content_words(token)
    return found - _MEASURE_WORDS


def _following(text: str, word: str) -> list[tuple[str, str]]:
    """What each `word` of `text` is said to include or come with (`cues.post_modifier`)."""
    return [said for token in _TOKEN.finditer(text)
            if cues.content_words(token.group(0)) == {word}
            and (said := cues.post_modifier(text, token.end())) is not None]


def _modified_at(tokens: Sequence[str], word: str) -> Iterator[tuple[int, int]]:
    """(where its modifiers start, where it stands) for each token that is `word`: the
    content words right before it, up to `_MODIFIER_WINDOW`, stop at the first other word
    ("trip to Santorini": "to" ends what modifies it) or number."""
    for i, token in enumerate(tokens):
        if cues.content_words(token) != {word}:
            continue
        start = i
        while start > max(0, i - _MODIFIER_WINDOW) and cues.content_words(
                tokens[start - 1]) and not _NUMBERISH.search(tokens[start - 1]):
            start -= 1
        yield start, i


_TOKEN = re.compile(r"[\w'$£€¥-]+")


def aggregates(text: str) -> frozenset[str]:
    """The kinds of aggregate a clause states ("in total" -> total, "averages" ->
    average): a total or an average of several things is not one of them."""
    return data.kinds_reader("aggregates.tsv")(text)


def _counted_apart(new: str, a: Amount, old: str, b: Amount) -> bool:
    """ "45 euros per day" against "315 euros" (a total): not the same amount. Where both
    say their span, an adjective counts ("the annual premium of $2,300" / "$1,900 per
    year" are one span)."""
    spans = span(new, a), span(old, b)
    if None not in spans:
        return spans[0] != spans[1]
    return rate(new, a) != rate(old, b)


def _schedule_edge(amount: Amount) -> bool:
    """ "from 7:45", "till 5:30": one end of a schedule, not the time of the thing."""
    return amount.quantity.dimension == "clock" and amount.shape in {"upper", "lower"}


def user_gave_amount(statements: Sequence[tuple[int, str, str, str]], after: int,
                     before: int, kind: Amount | None = None,
                     unless: Callable[[Amount], bool] | None = None) -> bool:
    """A user turn between the two gave a value of this kind: the situation changed.

    With no `kind` (against the assistant's own earlier numbers) any new user number
    counts, a bare one too ("what if 4 people come?" rescales a recipe's grams as well as
    its servings; "update: it's now 35" says 35 of what only by the question before it),
    and so does a changed plan without one ("update: we moved it to Lisbon"), but not a
    value `unless` says leaves the amount as it was. `statements` are the state's (turn,
    speaker, sentence, heading) rows; a user's question is speaker "user-question", a bare
    number the user states "user-number", a change of plan "user-revision".
    """
    return any(
        after < turn < before and speaker.startswith("user") and (
            (kind is None and speaker == "user-revision")
            or any((kind is None or amounts.comparable(kind, a))
                   and not (unless is not None and unless(a))
                   for a in (measured(sentence) if kind is not None
                             else amounts.amounts(sentence))))
        for turn, speaker, sentence, _ in statements
    )


TIME_SPANS = frozenset({"minute", "hour", "day", "night", "week", "month", "year"})
"""Spans a rate is counted against that a user's count of them leaves as it was
(`leaves_rate`): the nights of a stay. Not people: a head count may move a price per
guest (volume tiers, minimum spends, group packages)."""


def leaves_rate(value: Amount, span: str) -> bool:
    """A user's value that counts what a rate is counted against: "we're staying 7 nights"
    for a price per night, "I'm away for 8 days" for one per day rescale a total, not
    the rate. Any other value may change it: a count of kids for a babysitter's hourly
    rate, "a 4-month-old" for a puppy's daily food, "lifting for 5 years" for weekly
    sets."""
    q = value.quantity
    said = _LETTERS.findall(q.surface.lower())
    return (q.dimension == "count" and q.unit in {span, f"{span}s"}) or (
        q.dimension == "time" and any(w in {span, f"{span}s"} for w in said))


_YOUR_BUDGET = re.compile(r"\byour\b(?:\s+[^\s,;:.]+){0,3}?\s+budget\b", re.I)
"""The user's budget named in the amount's own clause: "your budget of around £600", "your
£450 budget"; not "the budget model costs £600" in a sentence that says "your" elsewhere."""


def budget_restated(new: str, old: str) -> tuple[Amount, Amount] | None:
    """The answer restates the user's spending cap as an amount the cap rules out.

    "max £450" (a user's cap, an upper bound in money) against "with your budget of around
    £600": the two sentences share no word and their embeddings are far apart, so the
    aligned-sentence test never compares them; but an answer that names *your budget*
    speaks of the same thing as any cap the user set in that currency.
    """
    if not _YOUR_BUDGET.search(new):
        return None  # cheap first: no amount's clause can name it either
    caps = [b for b in measured(old)
            if b.quantity.dimension.startswith("currency") and b.shape == "upper"]
    for a in measured(new):
        if not a.quantity.dimension.startswith("currency") or a.shape == "upper":
            continue  # "keep it under £500" restates a cap; it does not claim a budget
        if not _YOUR_BUDGET.search(phrase(new, a)):
            continue
        for b in caps:
            if amounts.comparable(a, b) and amounts.incompatible(*amounts.as_thresholds(a, b)):
                return a, b
    return None
