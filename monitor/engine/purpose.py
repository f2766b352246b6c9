"""Who or what an amount is for, so that two prices of a price list are not one changed.

"The tour costs 20 euros for adults" and later "The tour costs 10 euros for children" are
one subject, one verb and two amounts: read by subject and verb they are one price that
changed, and the page is false. The amount's own "for ..." phrase says whom it is for.
Two amounts are for different things only when their phrases name kinds that exclude each
other (`monitor/data/purpose_kinds.tsv`): adults and children, seniors and students,
members and non-members, the day and the week, lunch and dinner. "For kids" and "for the
little ones" are one kind; "for adults and children" takes in both; "for 12 months" names
no span of its own, since it may be "for a year". (Spans said as rates, "per day" or "the
daily rate", are `engine.aligned`'s.)

Only kinds decide, because a wrong "different" loses a real page, and an assistant that
restates a price rarely repeats its words ("for the hotel" comes back as "for
accommodation", "for the lesson" as "for the class"). Two blind reviews measured wider
tests: words and WordNet synonyms lost 28 of 52 real changes; the packaged embedder, at
any threshold, put real paraphrases ("ticket" / "entry", 0.45) below different things
("adult ticket" / "child ticket", 0.74). So "20 euros for the ticket" against "80 euros
for the tour" is still compared.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from functools import cache, lru_cache

from monitor import data
from monitor.engine import amounts, cues

Purpose = tuple[str, ...]
"""The words of a "for ..." (or "per ...") phrase that may name a kind: its content words,
counts and the "and"/"or" between them, in order; empty where there is none."""

MAX_GAP = 2
"""Words allowed between the amount and its "for" ("50 euros each for", "£20 extra for")."""
MAX_WORDS = 6
"""Words kept of a purpose: a longer phrase runs into what follows it."""

_CLAUSE_END = re.compile(r"[,;:.!?()\[\]|•—–]|\s-\s")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z\d'-]*|\d\S*|[^\sA-Za-z\d]+")
_FOR = re.compile(r"\bfor\b", re.IGNORECASE)
_INNER = data.words("purposes.tsv", "inner")
_FILLERS = data.words("purposes.tsv", "filler")
_JOINS = data.words("purposes.tsv", "joins")
_ALSO = data.words("purposes.tsv", "also")
_COUNTS = data.words("purposes.tsv", "count")
_QUALIFIERS = data.words("purposes.tsv", "qualifier")
_AGE_WORDS = 4
"""Words after a qualifier in which an age narrows adults ("over the age of 65")."""
_DETACH = (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("xes", "x"), ("zes", "z"),
           ("ses", "s"), ("men", "man"), ("s", ""))
"""WordNet's detachment rules for nouns (morphy), longest ending first."""


def purpose(text: str, end: int) -> Purpose:
    """The "for ..." phrase that follows an amount ending at `end` ("per ..." where no
    "for" follows: "25 euros per adult").

    The phrase lies in the amount's clause, at most `MAX_GAP` words after it (markup such
    as "**" or "/" aside). It reads on across "and"/"or" ("for adults and children") and
    keeps a leading count ("for 2 adults", "for 12 months"); it ends at a later number or
    at any other stop word but a determiner ("for the tour and 12 euros for ...", "for
    the room which ..."), or at a qualifier ("for kids under 12" are kids). Adults
    narrowed by an age ("for adults over 65", who may be the seniors of another price)
    and a filler ("for example") name nothing."""
    return _purpose(_clause_after(text, end))


def _clause_after(text: str, end: int) -> str:
    return _CLAUSE_END.split(text[end:].replace("’", "'"), maxsplit=1)[0]


@lru_cache(maxsize=8192)
def _purpose(rest: str) -> Purpose:
    tokens = [t.lower() for t in _TOKEN.findall(rest)]
    words = [t for t in tokens if t[0].isalpha()]
    near = words[: MAX_GAP + 1]
    marker = "for" if "for" in near else "per" if "per" in near else None
    if marker is None:
        return ()  # "per" only where no "for" follows: "per day for a compact car"
    at = tokens.index(marker)
    if any(t[0].isdigit() or t in _JOINS for t in tokens[:at]):
        return ()  # "20 euros and 10 for kids": the "for" is another amount's
    found: list[str] = []
    phrase = tokens[at + 1:]
    for i, token in enumerate(phrase):
        if token[0].isdigit():
            if found:
                break  # "for the tour and 12 euros for ...", "for kids 12 and under"
            found.append(token)  # a count: "for 2 adults", "for 12 months"
        elif not token[0].isalpha():
            continue  # "for **adults**"
        elif token in _QUALIFIERS:
            if "adult" in _kinds_of(tuple(found)).get("audience", ()) and any(
                    t[0].isdigit() for t in phrase[i + 1:i + 1 + _AGE_WORDS]):
                return ()  # "for adults over 65" may be the seniors' price
            break  # "for kids under 12" are kids, "for adults from the EU" adults
        elif token in _ALSO or token in _COUNTS:
            found.append(token)  # "for adults and children", "for two weeks"
        elif token in cues.stop_words() and token not in _INNER:
            break
        elif token not in _INNER:
            found.append(token.split("'")[0])
    while found and found[-1] in _ALSO:
        found.pop()
    if not found or found[0] in _FILLERS:
        return ()
    return tuple(found[:MAX_WORDS])


def different(ours: Purpose, theirs: Purpose) -> bool:
    """Both amounts say whom or what they are for, in kinds that exclude each other: "for
    adults" / "for children", "for an adult ticket" / "for a child ticket", "for the day"
    / "for the week". Not "for kids" / "for the children", and not two phrases without
    a kind, whatever their words."""
    return exclusive(_kinds_of(ours), _kinds_of(theirs))


def exclusive(kinds: Mapping[str, AbstractSet[str]],
              their_kinds: Mapping[str, AbstractSet[str]]) -> bool:
    """Both name kinds of one category (category -> kinds) and none of them in common:
    adults / children, a single / a double room."""
    return any(not kinds[category] & their_kinds[category]
               for category in kinds.keys() & their_kinds.keys())


def is_purpose_of_an_amount(sentence: str, object_text: str) -> bool:
    """The only "for <object_text>" of the sentence is an amount's own "for ..." phrase:
    "the rental is for a compact car" read out of "The rental is 40 dollars per day for a
    compact car", where the car is what the amount buys."""
    object_text = object_text.replace("’", "'").lower()
    if not object_text or sentence.replace("’", "'").lower().count(object_text) != 1:
        return False
    for amount in amounts.amounts(sentence):
        rest = _clause_after(sentence, amount.quantity.end)
        marker = _FOR.search(rest)
        if marker and _purpose(rest) and (
                object_text in rest[marker.end():].lower()):
            return True
    return False


def _kinds_of(words: Purpose) -> dict[str, set[str]]:
    """category -> the kinds a purpose names, by the whole phrase or any of its words. A
    counted span names no kind: "for 12 months" is "for a year", "for 7 nights" may be
    "for the week"."""
    table = _kinds()
    counted = any(w[0].isdigit() or w in _COUNTS for w in words)
    out: dict[str, set[str]] = defaultdict(set)
    for key in {" ".join(words), *words}:
        for form in _forms(key):
            for category, kind in table.get(form, ()):
                if not (counted and category == "span"):
                    out[category].add(kind)
    return out


@cache
def _kinds() -> dict[str, tuple[tuple[str, str], ...]]:
    """word -> its (category, kind) pairs: a toddler is an infant and a child."""
    out: dict[str, tuple[tuple[str, str], ...]] = {}
    for row in data.rows("purpose_kinds.tsv"):
        out[row[0]] = tuple((c, k) for c, k in (tag.split(":") for tag in row[1].split()))
    return out


@lru_cache(maxsize=4096)
def _forms(word: str) -> frozenset[str]:
    """The word and the singulars it may be (WordNet's irregular plurals and detachment
    rules: "children" -> "child", "ferries" -> "ferry", "women" -> "woman"), hyphens
    kept and removed ("grown-ups" -> "grownup")."""
    out: set[str] = set()
    for form in {word, word.replace("-", "")}:
        out.add(form)
        out.update(_plurals().get(form, ()))
        out.update(form[: -len(end)] + base for end, base in _DETACH
                   if form.endswith(end) and len(form) > len(end))
    return frozenset(out)


@cache
def _plurals() -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = defaultdict(list)
    for plural, singular in data.rows("noun_plurals.tsv"):
        out[plural].append(singular)
    return {plural: tuple(singulars) for plural, singulars in out.items()}
