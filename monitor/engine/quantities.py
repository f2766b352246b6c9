"""Pure, deterministic quantity normaliser for the numeric contradiction detector.

The detector needs to decide whether two statements about "the same number" agree
("1,000 GBP" vs "£1000", "90 minutes" vs "an hour and a half", "half past seven" vs
"7:30") or disagree ("8:15" vs "9:40"). That only works if every surface form is
mapped to one canonical value in one canonical unit per *dimension*, and if values of
different dimensions are never compared. This module does exactly that and nothing
else: no I/O, no model loading, no global mutable state except the lazily built pint
registry and a conversion-factor cache (both are pure functions of constants).

Why hand-written tables instead of a library
--------------------------------------------
Candidates exist (``word2number``, ``text2num``, ``number-parser``, ``numerizer``,
``quantulum3``, ``dateparser``), but none is in the pinned stack and the brief forbids
adding dependencies. They would not fit anyway: ``word2number`` only converts a whole
string (no character offsets, raises on "a dozen"), ``quantulum3`` ships its own
classifier and unit ontology (slow import, non-canonical units), ``dateparser`` does
fuzzy, locale- and clock-dependent parsing (non-deterministic w.r.t. "today"). We need
offsets, deterministic behaviour and contradiction-oriented choices (ambiguity flags),
so number words, clock times, dates and money are regexes here over small word tables
(``monitor/data/quantities.toml``); only the physical unit *conversion* is delegated to
pint.

Representation choices (all documented where they are implemented)
-------------------------------------------------------------------
* Physical units go through pint; the value is stored in the canonical unit of the
  dimension (mass -> gram, length -> metre, time -> second, volume -> litre,
  temperature -> kelvin, speed -> metre_per_second, data -> byte, ...).
* Currencies never convert: dimension ``currency:EUR``, unit ``EUR``.
* ``clock`` values are minutes after midnight. A time without am/pm and with an hour
  1..12 ("at 7", "7:30", "half past seven") is ``ambiguous``; ``same_value`` then
  compares modulo 12 hours, so "7:30" agrees with both "7:30 am" and "19:30" (we cannot
  prove a contradiction) but "8:15" vs "9:40" still differ.
* ``date`` values are proleptic Gregorian ordinals (``date.toordinal()``). A date
  without a year ("March 3") is stored as the ordinal of that day in the leap reference
  year 2000 with ``ambiguous=True``; ``same_value`` then compares (month, day) only.
* ``year`` is a calendar year ("in 2019"); only recognised after a year-ish
  preposition so that "2000 people" stays a count.
* ``count``: a number followed by a noun; unit is the singular lemma ("people" ->
  "person"). Counts compare only when the nouns match.
* ``ordinal``: "2nd floor" -> value 2, dimension ``ordinal``, unit = noun lemma
  ("floor"), so it is never confused with a count of floors. Word ordinals ("first",
  "second") are not recognised at all: they are far too often discourse markers.
* ``number``: a bare number with nothing countable after it ("the answer is 42").
* Not quantities: model numbers ("iPhone 15", "GPT-4", "Windows 11", "version 2"),
  ranges ("2-3 people", "between 5 and 10"), vague plurals ("hundreds of"), the pronoun
  "one" ("the one I like"), a bare "a"/"an" ("a day" is usually a rate: "twice a day").
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from monitor import data

__all__ = ["Quantity", "parse_number", "parse_quantities", "same_value"]


@dataclass(frozen=True)
class Quantity:
    """One normalised quantity found in a text.

    ``ambiguous`` marks values whose comparison must be relaxed because information is
    missing in the surface form: clock times without am/pm (compare modulo 12 h) and
    dates without a year (compare month/day only).
    """

    value: float
    unit: str
    dimension: str
    surface: str
    start: int
    end: int
    ambiguous: bool = False


# --------------------------------------------------------------------------- number words

_TABLES = data.tables("quantities.toml")
"""The word tables (monitor/data/quantities.toml); the patterns stay here."""
_SMALL: dict[str, int] = dict(_TABLES["numbers"]["small"])
_TENS: dict[str, int] = dict(_TABLES["numbers"]["tens"])
_SCALES: dict[str, int] = dict(_TABLES["numbers"]["scales"])
_NUMBER_WORDS = frozenset(
    [*_SMALL, *_TENS, *_SCALES, "hundred", "dozen", "couple", "half"]
)

_WORD_ALT = "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))
# A run of number words; "a"/"an" may only lead when a multiplier follows ("a dozen",
# "a hundred"), otherwise every indefinite article would become the number one.
_WORD_NUM_RE = re.compile(
    rf"\b(?:an?[ \t]+(?=(?:hundred|thousand|million|billion|dozen|couple|half)\b))?"
    rf"(?:{_WORD_ALT})(?:(?:[ \t]+|-)(?:{_WORD_ALT}|and|a|of(?=[ \t]+(?:a[ \t]+)?dozen)))*\b",
    re.IGNORECASE,
)
_TOKEN_RE = re.compile(r"[A-Za-z]+")

# Digits: thousands separated by "," or a (thin/no-break) space, optional decimals,
# optional attached k/M suffix or a scale word, optional "and a half".
_DIGITS = r"(?:\d{1,3}(?:,\d{3})+|\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?!\d)|\d+)(?:\.\d+)?"
_DIGIT_NUM_RE = re.compile(
    rf"(?<![\w.,\-−])(?P<neg>[-−])?(?<![\w.,])(?P<num>{_DIGITS})"
    r"(?:(?P<suf>k|K|M|bn|mn)\b|[ \t]+(?P<scale>hundred|thousand|million|billion|trillion)\b)?"
    r"(?P<half>[ \t]+and[ \t]+a[ \t]+half\b)?"
)
_SUFFIX = {"k": 1e3, "K": 1e3, "M": 1e6, "bn": 1e9, "mn": 1e6}
_SCALE_WORD = {"hundred": 100.0, **{k: float(v) for k, v in _SCALES.items()}}


def _digits_value(m: re.Match[str]) -> float:
    """Value of a ``_DIGIT_NUM_RE`` match (separators dropped, suffixes applied)."""
    v = float(re.sub(r"[,\s\u00a0\u202f]", "", m.group("num")))
    if m.group("suf"):
        v *= _SUFFIX[m.group("suf")]
    if m.group("scale"):
        v *= _SCALE_WORD[m.group("scale").lower()]
    if m.group("half"):
        v += 0.5
    if m.group("neg"):
        v = -v
    return v


_HALF_PHRASES: tuple[tuple[tuple[str, ...], float], ...] = (
    (("half", "a", "dozen"), 6.0), (("half", "dozen"), 6.0), (("a", "half"), 0.5),
    (("half",), 0.5),
)


def _eval_words(words: list[str]) -> tuple[float, int] | None:
    """Longest valid number prefix of lower-cased ``words``: (value, tokens consumed).

    A tiny left-to-right grammar (units, teens, tens, "hundred", scale words, "and",
    "dozen", "a couple", "and a half") rather than "sum everything", so "two three"
    stops after "two" and "twenty five hundred" is 2500.
    """
    if not words:
        return None
    for phrase, value in _HALF_PHRASES:
        if tuple(words[: len(phrase)]) == phrase:
            return value, len(phrase)
    best = _NumberReader().longest(words)
    if best is not None and words[best[1] : best[1] + 3] == ["and", "a", "half"]:
        return best[0] + 0.5, best[1] + 3
    return best


@dataclass
class _NumberReader:
    """The running state of `_eval_words`' grammar: what was read so far and the kind of
    the last word, which decides what may follow it."""

    total: int = 0
    current: int = 0
    last: str = ""
    last_scale: int = 10**18
    ended_at: float = 0.0
    """The value of a word that ends a number ("a dozen", "a couple")."""

    def longest(self, words: list[str]) -> tuple[float, int] | None:
        best: tuple[float, int] | None = None
        i = 0
        if words[0] in ("a", "an"):
            self.current, self.last, i = 1, "a", 1
        while i < len(words):
            kind = self.take(words[i], words[i + 1] if i + 1 < len(words) else "")
            if kind == "stop":
                break
            i += 1
            if kind == "end":
                return self.ended_at, i
            if kind == "more":
                best = (float(self.total + self.current), i)
        return best

    def take(self, word: str, following: str) -> str:
        """Read one word: "more" (part of the number), "join" ("and" between parts),
        "end" (the number ends with it) or "stop" (not part of it)."""
        if word in _SMALL:
            return self._small(_SMALL[word])
        if word in _TENS:
            return self._tens(_TENS[word])
        if word == "hundred":
            return self._hundred()
        if word in _SCALES:
            return self._scale(_SCALES[word])
        if word == "dozen" and self.last in ("small", "tens", "tensunit", "a"):
            self.ended_at = float(self.total + self.current * 12)
            return "end"
        if word == "couple" and self.last == "a":
            self.ended_at = 2.0
            return "end"
        if word == "and" and self.last in ("hundred", "scale") and (
                following in _SMALL or following in _TENS):  # "and a half": see caller
            self.last = "and"
            return "join"
        return "stop"

    def _small(self, value: int) -> str:
        if not (self.last in ("", "hundred", "scale", "and")
                or (self.last == "tens" and 1 <= value <= 9)):
            return "stop"
        self.current += value
        self.last = "small" if self.last != "tens" else "tensunit"
        return "more"

    def _tens(self, value: int) -> str:
        if self.last not in ("", "hundred", "scale", "and"):
            return "stop"
        self.current += value
        self.last = "tens"
        return "more"

    def _hundred(self) -> str:
        if self.last not in ("small", "tens", "tensunit", "a") or not 0 < self.current < 100:
            return "stop"
        self.current *= 100
        self.last = "hundred"
        return "more"

    def _scale(self, scale: int) -> str:
        if (self.last not in ("small", "tens", "tensunit", "hundred", "a")
                or self.current <= 0 or scale >= self.last_scale):
            return "stop"
        self.total += self.current * scale
        self.current, self.last, self.last_scale = 0, "scale", scale
        return "more"


_WHOLE_DIGIT_RE = re.compile(rf"\s*{_DIGIT_NUM_RE.pattern}\s*")


def parse_number(text: str) -> float | None:
    """Value of a phrase that is *only* a number, else None.

    Accepts digits ("1,000", "1 000", "-2.5", "3k", "1.2 million") and number words
    ("twenty-five", "one hundred and five", "a dozen", "half a dozen", "a couple of",
    "two and a half", "half"). Used by callers that already isolated a span.
    """
    m = _WHOLE_DIGIT_RE.fullmatch(text)
    if m:
        return _digits_value(m)
    words = [w.lower() for w in _TOKEN_RE.findall(text)]
    if not words or re.search(r"[^A-Za-z\s\-]", text):
        return None
    if len(words) >= 2 and words[-1] == "of" and words[-2] in ("couple", "dozen"):
        words = words[:-1]
    r = _eval_words(words)
    if r is None or r[1] != len(words):
        return None
    return r[0]


# --------------------------------------------------------------------------- units

# surface (lower-case unless case matters) -> (pint unit, dimension, multiplier)
_UnitSpec = tuple[str, str, float]
_UNITS: dict[str, _UnitSpec] = {}
_UNITS_CS: dict[str, _UnitSpec] = {  # case-sensitive surfaces (bits vs bytes)
    surface: (pint_unit, dim, float(mult))
    for surface, (pint_unit, dim, mult) in _TABLES["units_case_sensitive"].items()
}


def _add(pint_unit: str, dim: str, *surfaces: str, mult: float = 1.0) -> None:
    """Register surface spellings for one unit."""
    for s in surfaces:
        _UNITS[s] = (pint_unit, dim, mult)


for _unit in _TABLES["units"]:
    _add(_unit["pint"], _unit["dimension"], *_unit["surfaces"],
         mult=float(_unit.get("multiplier", 1.0)))

# canonical unit per dimension: (name stored in Quantity.unit, pint target)
_CANON: dict[str, tuple[str, str]] = {
    dim: (name, target) for dim, (name, target) in _TABLES["canonical"].items()
}

# A one-letter unit glued to a number is only accepted for some ("5m", "2g", "3h"), and not
# as some capitals ("1.5T", "5G", "2H", "3M"), and some units never after a space (the
# reasons are in the data file).
_GLUE_OK_SINGLE = frozenset(_TABLES["unit_rules"]["glue_ok_single"])
_GLUE_NOT_CAPITAL = frozenset(_TABLES["unit_rules"]["glue_not_capital"])
_NEVER_SPACED = frozenset(_TABLES["unit_rules"]["never_spaced"])


def _unit_alternation(keys: list[str]) -> str:
    """Regex alternation of unit surfaces, longest first, spaces matching any blank."""
    parts = []
    for k in sorted(keys, key=len, reverse=True):
        p = re.escape(k).replace(r"\ ", r"\s*" if k.startswith("°") else r"\s+")
        parts.append(p)
    return "|".join(parts)


_UNIT_RE = re.compile(
    rf"(?P<sp>[ \t]*-?[ \t]*)(?P<u>{_unit_alternation([*_UNITS, *_UNITS_CS])})(?![A-Za-z0-9²])",
    re.IGNORECASE,
)

_CURRENCY_WORDS: dict[str, str] = dict(_TABLES["currency"]["words"])
_CURRENCY_WORD_RE = re.compile(
    r"[ \t]*(?P<c>"
    + "|".join(re.escape(k).replace(r"\ ", r"\s+")
               for k in sorted(_CURRENCY_WORDS, key=len, reverse=True))
    + r")(?![A-Za-z])",
    re.IGNORECASE,
)
_CURRENCY_PREFIX: dict[str, str] = dict(_TABLES["currency"]["prefix"])
_CURRENCY_PREFIX_RE = re.compile(
    r"(?:(?P<sym>US\$|A\$|C\$|\$|€|£|¥)[ \t]?|\b(?P<code>USD|EUR|GBP|JPY|CHF|CAD|AUD|INR)[ \t]?)"
    rf"(?P<neg>-)?(?P<num>{_DIGITS})"
    r"(?:(?P<suf>k|K|M|m|bn|mn)\b|[ \t]+(?P<scale>hundred|thousand|million|billion)\b)?"
)
_PERCENT_RE = re.compile(r"[ \t]*(?:%|percent\b|per[ \t]+cent\b|pct\b)", re.IGNORECASE)


@functools.cache
def _ureg() -> Any:
    """The single pint registry, built on first use (construction costs ~0.2 s)."""
    import pint

    return pint.UnitRegistry()


_FACTORS: dict[tuple[str, str], tuple[float, float]] = {
    (unit, target): (float(factor), float(offset))
    for target, units in data.tables("unit_factors.toml")["factors"].items()
    for unit, (factor, offset) in units.items()
}


@functools.cache
def _conversion(pint_unit: str, target: str) -> tuple[float, float]:
    """(factor, offset) with canonical = value * factor + offset; cached per unit.

    Every supported unit is affine in its canonical unit (temperatures have an offset),
    so two pint conversions per unit and then plain arithmetic keep parsing fast. pint's
    answers for the units of the table are in `unit_factors.toml`, written by
    `scripts/gen_unit_factors.py` (a test holds it equal to pint): importing pint and
    building its registry cost 0.45-0.55 s on the first unit of every process. A unit
    the file lacks is asked of pint.
    """
    known = _FACTORS.get((pint_unit, target))
    return known if known is not None else pint_conversion(pint_unit, target)


def pint_conversion(pint_unit: str, target: str) -> tuple[float, float]:
    """(factor, offset) of `pint_unit` in `target`, computed by pint."""
    ureg = _ureg()
    zero = float(ureg.Quantity(0.0, pint_unit).to(target).magnitude)
    one = float(ureg.Quantity(1.0, pint_unit).to(target).magnitude)
    return one - zero, zero


def _to_canonical(value: float, spec: _UnitSpec) -> tuple[float, str]:
    """Convert ``value`` in the spec's unit to (canonical value, canonical unit name)."""
    pint_unit, dim, mult = spec
    name, target = _CANON[dim]
    factor, offset = _conversion(pint_unit, target)
    return value * mult * factor + offset, name


# --------------------------------------------------------------------------- nouns

def _wordset(words: str) -> frozenset[str]:
    """Frozen set of the whitespace-separated words (keeps long word lists readable)."""
    return frozenset(words.split())


_IRREGULAR_PLURALS: dict[str, str] = dict(_TABLES["plurals"])
_COUNTED_ALIKE: dict[str, str] = dict(_TABLES["counted_alike"])
HEAD_COUNTS = frozenset(_TABLES["head_counts"]["units"])
"""Units of counts of people ("person", "child", "player"): how many come to a thing."""
_STOP = _wordset(_TABLES["words"]["stop"])
_ADJ = _wordset(_TABLES["words"]["adjectives"])
_MONTHS: dict[str, int] = dict(_TABLES["months"])

_NOUN_RE = re.compile(r"(?:[ \t]+|-)(?:(?P<adj>[A-Za-z]+)[ \t]+)?(?P<n>[A-Za-z][A-Za-z']*)\b")
_OF_RE = re.compile(r"[ \t]+of(?:[ \t]+the)?(?=[ \t])", re.IGNORECASE)


def singular(word: str) -> str:
    """Crude English singular of a lower-case noun (irregular table + suffix rules).

    Good enough to make "people"/"person", "bedrooms"/"bedroom", "boxes"/"box" meet;
    a wrong lemma only makes two counts incomparable, never falsely equal.
    """
    w = word.lower()
    if w in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[w]
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if w.endswith(("sses", "shes", "ches", "xes", "zzes")):
        return w[:-2]
    if w.endswith(("ss", "us", "is")) or len(w) <= 2:
        return w
    if w.endswith("s"):
        return w[:-1]
    return w


_LAST_WORD_RE = re.compile(r"[A-Za-z']+$")


def _counted_unit(lemma: str, text_to_noun: str, value: float) -> str:
    """The unit of a count: the noun's lemma, or the people it counts alike ("40 guests"
    and "60 people" are both persons). A singular after a number above one is a modifier,
    not what is counted ("3 guest speakers", "194 guest rooms"): it keeps its lemma."""
    last = _LAST_WORD_RE.search(text_to_noun)
    plural = last is not None and last.group(0).lower() != lemma
    return _COUNTED_ALIKE.get(lemma, lemma) if plural or value == 1 else lemma


def _is_noun_candidate(w: str) -> bool:
    """Could ``w`` be the counted noun? (not a function word, number word or month)."""
    lw = w.lower()
    return (
        lw not in _STOP
        and lw not in _NUMBER_WORDS
        and not (w[0].isupper() and lw in _MONTHS)
        and not lw.endswith("ly")
        and len(lw) > 1
    )


def _noun_after(text: str, pos: int, allow_of: bool) -> tuple[str, int] | None:
    """(singular lemma, end offset) of the counted noun right after ``pos``, if any."""
    if allow_of:
        m_of = _OF_RE.match(text, pos)
        if m_of:
            pos = m_of.end()
    m = _NOUN_RE.match(text, pos)
    if not m:
        return None
    adj, noun = m.group("adj"), m.group("n")
    if adj is not None:
        if adj.lower() not in _ADJ:
            # the first word is the noun itself ("4 people came")
            if not _is_noun_candidate(adj):
                return None
            return singular(adj), m.start("adj") + len(adj)
        if not _is_noun_candidate(noun):
            return None
        return singular(noun), m.end("n")
    if not _is_noun_candidate(noun):
        return None
    return singular(noun), m.end("n")


# --------------------------------------------------------------------------- clock/date

_HOUR_WORDS = {k: v for k, v in _SMALL.items() if 1 <= v <= 12}
_HOUR_W = "|".join(sorted(_HOUR_WORDS, key=len, reverse=True))
_MIN_W = (
    rf"(?:(?:{'|'.join(_TENS)})(?:[- ](?:{'|'.join(k for k, v in _SMALL.items() if 1 <= v <= 9)}))?"
    rf"|{'|'.join(sorted((k for k, v in _SMALL.items() if 1 <= v <= 19), key=len, reverse=True))})"
)
_AMPM = r"(?P<ampm>a\.?m\.?|p\.?m\.?)(?![A-Za-z])"
_DAYPART = (
    r"(?:[ \t]+(?P<part>in[ \t]+the[ \t]+(?:morning|afternoon|evening)|at[ \t]+night"
    r"|tonight|this[ \t]+(?:morning|afternoon|evening)))?"
)

_CLOCK_COLON_RE = re.compile(
    rf"(?<![\d:.,])(?P<h>\d{{1,2}}):(?P<m>\d{{2}})(?![\d:])(?:[ \t]*{_AMPM})?{_DAYPART}",
    re.IGNORECASE,
)
_CLOCK_DOT_RE = re.compile(
    rf"(?<![\d:.,])(?P<h>\d{{1,2}})\.(?P<m>\d{{2}})[ \t]*{_AMPM}", re.IGNORECASE
)
_CLOCK_AMPM_RE = re.compile(
    rf"(?<![\w.,:])(?P<h>\d{{1,2}}|{_HOUR_W})[ \t]*{_AMPM}", re.IGNORECASE
)
_CLOCK_OCLOCK_RE = re.compile(
    rf"(?<![\w.,:])(?P<h>\d{{1,2}}|{_HOUR_W})[ \t]*o'?[ \t]?clock\b{_DAYPART}", re.IGNORECASE
)
_CLOCK_PART_RE = re.compile(
    rf"(?<![\w.,:])(?P<h>\d{{1,2}}|{_HOUR_W})(?=[ \t]+(?:in[ \t]+the|at[ \t]+night|tonight|this)\b)"
    rf"{_DAYPART}",
    re.IGNORECASE,
)
_CLOCK_NAMED_RE = re.compile(r"\b(?:12[ \t]+)?(?P<w>noon|midday|midnight)\b", re.IGNORECASE)
_CLOCK_PAST_RE = re.compile(
    rf"(?:(?P<prep>\b(?:at|by|until|till|before|after|around|about)[ \t]+))?"
    rf"\b(?P<mm>(?:a[ \t]+)?quarter|half|\d{{1,2}}|{_MIN_W})(?:[ \t]+minutes?)?[ \t]+"
    rf"(?P<rel>past|after|to|before)[ \t]+(?P<h>\d{{1,2}}|{_HOUR_W})\b"
    rf"(?:[ \t]*{_AMPM})?{_DAYPART}",
    re.IGNORECASE,
)
_WE_ARE_RE = re.compile(r"\bwe(?:'re|’re| are)(?:[ \t]+now)?[ \t]+$", re.IGNORECASE)
"""Before "at N", a head count, not a time: "we're at 12 now", "we are now at 48"."""
_CLOCK_AT_RE = re.compile(
    rf"\b(?:at|by|until|till)[ \t]+(?:about[ \t]+|around[ \t]+)?"
    rf"(?P<h>\d{{1,2}}|{_HOUR_W})\b(?![.,:]\d){_DAYPART}",
    re.IGNORECASE,
)

_MONTH_ALT = "|".join(sorted((m.capitalize() for m in _MONTHS), key=len, reverse=True))
_MONTH_ALT_UP = "|".join(sorted((m.upper() for m in _MONTHS), key=len, reverse=True))
_MON = rf"(?P<mon>{_MONTH_ALT}|{_MONTH_ALT_UP})\.?"
_DAY = r"(?P<d>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?:,?[ \t]+(?P<y>\d{4})(?!\d))?"
_DATE_MD_RE = re.compile(rf"\b{_MON}[ \t]+(?:the[ \t]+)?{_DAY}\b(?![:.]\d){_YEAR}")
_DATE_DM_RE = re.compile(rf"\b(?:the[ \t]+)?{_DAY}[ \t]+(?:of[ \t]+)?{_MON}(?![a-z]){_YEAR}")
_DATE_ISO_RE = re.compile(r"(?<![\w\-])(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})(?![\w\-])")
_YEAR_CONTEXT_RE = re.compile(
    r"\b(?:in|since|by|from|until|till|before|after|during|year|of|circa|early|late|mid)"
    r"[ \t]+$",
    re.IGNORECASE,
)

_TIME_UNIT_W = r"(?P<tu>hour|day|week|minute|month|year|second|fortnight)"
_HALF_AN_RE = re.compile(
    rf"\b(?P<f>half|(?:a[ \t]+)?quarter|three[ \t]+quarters)[ \t]+(?:of[ \t]+)?an?[ \t]+"
    rf"{_TIME_UNIT_W}\b",
    re.IGNORECASE,
)
_AN_AND_HALF_RE = re.compile(
    rf"\ban?[ \t]+{_TIME_UNIT_W}[ \t]+and[ \t]+a[ \t]+half\b", re.IGNORECASE
)
_UNIT_LONG_RE = re.compile(rf"(?<![\w-]){_TIME_UNIT_W}-long\b", re.IGNORECASE)
"""One unit said as an adjective: "an hour-long lesson" is a 60-minute one."""
_AND_HALF_RE = re.compile(r"[ \t]+and[ \t]+a[ \t]+half\b", re.IGNORECASE)
# no comma: "3 days, 72 hours" is a list of restatements, not one 3-day-72-hour span
_COMPOUND_SEP_RE = re.compile(r"[ \t]*(?:and[ \t]+)?", re.IGNORECASE)

NUMBER_WORD_RUN = rf"(?:{_WORD_ALT})(?:[- ](?:{_WORD_ALT}))*"
"""A number said in words ("three", "twenty-five", "one hundred"), as a pattern: the ends
of a range written in words ("three to four meals") are read by `amounts` too."""
_RANGE_RE = re.compile(
    rf"(?<![\w.,])(?:{_DIGITS})[ \t]*(?:-|–|—|to)[ \t]*-?(?:{_DIGITS})(?![\d])"
    rf"|\b{NUMBER_WORD_RUN}[ \t]+(?:to|or)[ \t]+{NUMBER_WORD_RUN}\b"
    rf"|(?<![\w.,])(?:{_DIGITS})[ \t]+or[ \t]+(?:{_DIGITS})(?![\d])"
    rf"|\bbetween[ \t]+(?:{_DIGITS}|{NUMBER_WORD_RUN})[ \t]+and[ \t]+"
    rf"(?:{_DIGITS}|{NUMBER_WORD_RUN})\b",
    re.IGNORECASE,
)


def says_number_words(text: str) -> bool:
    """Does the text write a number in words? A cheap test before a pattern that reads
    them: most sentences hold none."""
    return not _NUMBER_WORDS.isdisjoint(_TOKEN_RE.findall(text.lower()))


_ORDINAL_RE = re.compile(r"(?<![\w.,])(?P<n>\d+)(?P<sfx>st|nd|rd|th)\b", re.IGNORECASE)

# Words that turn the following number into an identifier, not an amount.
_LABEL_WORDS = _wordset(_TABLES["words"]["labels"])
_PREV_WORD_RE = re.compile(r"(?P<w>[A-Za-z][A-Za-z']*)(?P<sep>[ \t]*-?[ \t]*|[ \t]*#)$")


def _is_identifier(text: str, start: int) -> bool:
    """True when the digits at ``start`` are a model/version/label number.

    Rule: the previous word is a label noun ("version 2", "room 12"), has an inner
    capital or is all caps ("iPhone 15", "GPT-4", "RTX 4090"), or is capitalised in
    mid-sentence ("Windows 11", "Pixel 8"); or the number is glued to a word with a
    hyphen ("covid-19") or follows "#". Months never count (dates are parsed earlier).
    """
    if start > 0 and text[start - 1] == "#":
        return True
    m = _PREV_WORD_RE.search(text, max(0, start - 40), start)
    if not m:
        return False
    w = m.group("w")
    lw = w.lower()
    if m.group("sep").strip(" \t") == "-" and lw not in _STOP:
        return True
    if lw in _LABEL_WORDS:
        return True
    if lw in _STOP or lw in _MONTHS or lw in _CURRENCY_WORDS:
        return False
    if any(c.isupper() for c in w[1:]) and w != w.capitalize():
        return True
    if w[0].isupper() and w != "I":
        before = text[: m.start()].rstrip(" \t")
        sentence_start = before == "" or before[-1] in ".!?:;\n\"'(“"
        return not sentence_start
    return False


# --------------------------------------------------------------------------- parser

_AFTER_HOUR_OK = frozenset(_TABLES["words"]["after_hour"])
_AFTER_HOUR_RE = re.compile(r"[ \t]*(?:-[ \t]*)?(?P<w>[A-Za-z%°$€£]+|[\d.,:/%°]|$)")


def _bare_hour_ok(text: str, pos: int) -> bool:
    """Is "at 7" followed by something that lets 7 be a time of day?

    "at 7 people"/"at 7 percent"/"at 7 km/h" are amounts; "at 7 tonight", "at 7.", "at 7
    and leave" are times.
    """
    m = _AFTER_HOUR_RE.match(text, pos)
    if m is None:
        return True
    w = m.group("w")
    if w == "" or w in ".,;!?)":
        return True
    if not w[0].isalpha():
        return False
    lw = w.lower()
    if lw in _AFTER_HOUR_OK:
        return True
    if _UNIT_RE.match(text, pos) or _CURRENCY_WORD_RE.match(text, pos):
        return False
    return not _is_noun_candidate(w)



class _Spans:
    """Claimed character ranges, so that each character belongs to one quantity."""

    __slots__ = ("_mask",)

    def __init__(self, n: int) -> None:
        self._mask = bytearray(n)

    def free(self, start: int, end: int) -> bool:
        return self._mask.find(1, start, end) == -1

    def claim(self, start: int, end: int) -> None:
        self._mask[start:end] = b"\x01" * (end - start)


_Emit = Callable[..., None]
"""`emit(start, end, value, unit, dim, ambiguous=False)`: record a quantity, claim its span."""


def _ampm_adjust(hour: int, ampm: str | None, part: str | None) -> tuple[int, bool] | None:
    """24-h hour and ambiguity flag from an hour plus optional am/pm or day part."""
    if ampm:
        if not 1 <= hour <= 12:
            return None
        pm = ampm.lower().startswith("p")
        return (hour % 12) + (12 if pm else 0), False
    if part:
        p = part.lower()
        if "morning" in p:
            return (hour % 12 if hour <= 12 else hour), False
        return ((hour % 12) + 12 if hour <= 12 else hour), False
    if not 0 <= hour <= 23:
        return None
    return hour, 1 <= hour <= 12


def _hour_value(s: str) -> int:
    """Hour from digits or an hour word."""
    return int(s) if s.isdigit() else _HOUR_WORDS[s.lower()]


def _minute_value(s: str) -> int | None:
    """Minutes from digits, "quarter", "half" or a minute word (1..59)."""
    ls = s.lower()
    if ls.isdigit():
        return int(ls)
    if ls.endswith("quarter"):
        return 15
    if ls == "half":
        return 30
    r = _eval_words(re.split(r"[ \t\-]+", ls))
    return int(r[0]) if r else None


def parse_quantities(text: str) -> list[Quantity]:
    """All quantities in ``text``, in order of appearance, non-overlapping.

    Stages run from most to least specific (dates, clock times, fixed duration idioms,
    money, ranges, ordinals, then generic numbers), and each claims its characters, so
    "3 March 2024" is one date rather than a count of Marches plus a year.
    """
    out: list[Quantity] = []
    spans = _Spans(len(text))
    low = text.lower()  # for cheap substring prefilters: skip passes that cannot match

    def emit(start: int, end: int, value: float, unit: str, dim: str,
             ambiguous: bool = False) -> None:
        out.append(Quantity(float(value), unit, dim, text[start:end], start, end, ambiguous))
        spans.claim(start, end)

    for stage in _STAGES:
        stage(text, low, spans, emit)
    out.sort(key=lambda q: q.start)
    return out


def _dates(text: str, low: str, spans: _Spans, emit: _Emit) -> None:
    """ISO dates, then "March 3[, 2024]" and "3 March [2024]" (no year: ambiguous)."""
    for m in _DATE_ISO_RE.finditer(text):
        try:
            d = date(int(m.group("y")), int(m.group("m")), int(m.group("d")))
        except ValueError:
            continue
        emit(m.start(), m.end(), d.toordinal(), "date", "date")
    for rx in (_DATE_MD_RE, _DATE_DM_RE):
        for m in rx.finditer(text):
            s, e = m.start(), m.end()
            if not spans.free(s, e):
                continue
            mon = _MONTHS[m.group("mon").lower()]
            y = m.group("y")
            try:
                d = date(int(y) if y else 2000, mon, int(m.group("d")))
            except ValueError:
                continue
            emit(s, e, d.toordinal(), "date", "date", ambiguous=y is None)


def _clock_digits(text: str, low: str, spans: _Spans, emit: _Emit) -> None:
    """Clock times in digits: "7:30", "07:30" (24-hour), "7.30 pm"."""
    for m in _CLOCK_COLON_RE.finditer(text):
        if not spans.free(m.start(), m.end()):
            continue
        h, mi = int(m.group("h")), int(m.group("m"))
        if mi > 59:
            continue
        adj = _ampm_adjust(h, m.group("ampm"), m.group("part"))
        if adj is None:
            continue
        hh, amb = adj
        if m.group("h").startswith("0") and len(m.group("h")) == 2:
            amb = False  # "07:30" is 24-hour notation
        emit(m.start(), m.end(), hh * 60 + mi, "clock", "clock", amb)
    for m in _CLOCK_DOT_RE.finditer(text):
        if not spans.free(m.start(), m.end()):
            continue
        h, mi = int(m.group("h")), int(m.group("m"))
        adj = _ampm_adjust(h, m.group("ampm"), None)
        if adj is None or mi > 59:
            continue
        emit(m.start(), m.end(), adj[0] * 60 + mi, "clock", "clock", adj[1])


def _clock_relative(text: str, low: str, spans: _Spans, emit: _Emit) -> None:
    """"half past seven", "quarter to 8", "ten minutes after 3"."""
    has_rel = any(w in low for w in (" past ", " to ", " after ", " before "))
    for m in _CLOCK_PAST_RE.finditer(text) if has_rel else ():
        s = m.start("mm")
        if not spans.free(s, m.end()):
            continue
        rel = m.group("rel").lower()
        mm = m.group("mm").lower()
        if rel in ("to", "before") and not (mm.endswith("quarter") or m.group("prep")):
            continue  # "5 to 10 people" is a range, not 9:55
        if rel in ("after", "before") and not (mm.endswith(("quarter", "half")) or
                                               "minute" in m.group(0).lower()):
            continue  # "two weeks after 3" is not a clock time
        mins = _minute_value(mm)
        h = _hour_value(m.group("h"))
        if mins is None or not 1 <= mins <= 59 or not 1 <= h <= 12:
            continue
        total = h * 60 + (mins if rel in ("past", "after") else -mins)
        hour = total // 60
        minute = total % 60
        adj = _ampm_adjust(hour if hour > 0 else 12, m.group("ampm"), m.group("part"))
        if adj is None:
            continue
        emit(s, m.end(), (adj[0] % 24) * 60 + minute, "clock", "clock", adj[1])


def _clock_words(text: str, low: str, spans: _Spans, emit: _Emit) -> None:
    """"7 pm", "7 o'clock", "7 in the evening", "at 7" (where a bare hour may be one),
    noon and midnight."""
    for rx in (_CLOCK_AMPM_RE, _CLOCK_OCLOCK_RE, _CLOCK_PART_RE):
        for m in rx.finditer(text):
            if not spans.free(m.start(), m.end()):
                continue
            if rx is _CLOCK_PART_RE and not m.group("part"):
                continue
            adj = _ampm_adjust(_hour_value(m.group("h")), m.groupdict().get("ampm"),
                               m.groupdict().get("part"))
            if adj is None:
                continue
            emit(m.start(), m.end(), adj[0] * 60, "clock", "clock", adj[1])
    for m in _CLOCK_AT_RE.finditer(text):
        s = m.start("h")
        if not spans.free(s, m.end()):
            continue
        if not m.group("part") and (not _bare_hour_ok(text, m.end()) or (
                m.group(0)[:2].lower() == "at" and _WE_ARE_RE.search(text, 0, m.start()))):
            continue
        adj = _ampm_adjust(_hour_value(m.group("h")), None, m.group("part"))
        if adj is None:
            continue
        emit(s, m.end(), adj[0] * 60, "clock", "clock", adj[1])
    for m in _CLOCK_NAMED_RE.finditer(text) if "mid" in low or "noon" in low else ():
        if spans.free(m.start(), m.end()):
            minutes = 0 if m.group("w").lower() == "midnight" else 720
            emit(m.start(), m.end(), minutes, "clock", "clock")


def _duration_idioms(text: str, low: str, spans: _Spans, emit: _Emit) -> None:
    """"half an hour", "three quarters of an hour", "an hour and a half", "hour-long"."""
    for m in _UNIT_LONG_RE.finditer(text) if "-long" in low else ():
        if spans.free(m.start(), m.end()):
            v, u = _to_canonical(1, _UNITS[m.group("tu").lower()])
            emit(m.start(), m.end(), v, u, "time")
    has_frac = "half" in low or "quarter" in low
    for m in _HALF_AN_RE.finditer(text) if has_frac else ():
        if not spans.free(m.start(), m.end()):
            continue
        f = m.group("f").lower()
        frac = 0.5 if f == "half" else (0.75 if f.startswith("three") else 0.25)
        v, u = _to_canonical(frac, _UNITS[m.group("tu").lower()])
        emit(m.start(), m.end(), v, u, "time")
    for m in _AN_AND_HALF_RE.finditer(text) if has_frac else ():
        if not spans.free(m.start(), m.end()):
            continue
        v, u = _to_canonical(1.5, _UNITS[m.group("tu").lower()])
        emit(m.start(), m.end(), v, u, "time")


def _money(text: str, low: str, spans: _Spans, emit: _Emit) -> None:
    """Money with a symbol or ISO code in front ("£1,000", "USD 5k", "$2 million")."""
    for m in _CURRENCY_PREFIX_RE.finditer(text):
        if not spans.free(m.start(), m.end()):
            continue
        code = _CURRENCY_PREFIX[m.group("sym") or m.group("code")]
        v = float(re.sub(r"[,\s\u00a0\u202f]", "", m.group("num")))
        suf = m.group("suf")
        if suf:
            v *= 1e6 if suf == "m" else _SUFFIX[suf]
        if m.group("scale"):
            v *= _SCALE_WORD[m.group("scale").lower()]
        if m.group("neg"):
            v = -v
        emit(m.start(), m.end(), v, code, f"currency:{code}")


def _not_amounts(text: str, low: str, spans: _Spans, emit: _Emit) -> None:
    """Idioms whose number words are no amounts ("one-to-one tutoring", "one by one"):
    claim their characters and emit nothing."""
    _claim_all(_NOT_AMOUNTS_RE, text, spans)


def _claim_all(pattern: re.Pattern[str], text: str, spans: _Spans) -> None:
    """Claim every free match of `pattern`, so no later stage reads a number in it."""
    for m in pattern.finditer(text):
        if spans.free(m.start(), m.end()):
            spans.claim(m.start(), m.end())


_NOT_AMOUNTS_RE = re.compile(
    r"(?<![\w-])(?:" + "|".join(re.escape(p) for p in sorted(
        _TABLES["words"]["not_amounts"], key=len, reverse=True)) + r")(?![\w-])",
    re.IGNORECASE)


def _ranges(text: str, low: str, spans: _Spans, emit: _Emit) -> None:
    """Ranges are not point values: claim their characters and emit nothing."""
    _claim_all(_RANGE_RE, text, spans)


def _ordinals(text: str, low: str, spans: _Spans, emit: _Emit) -> None:
    """"2nd floor": the ordinal with the noun it numbers."""
    for m in _ORDINAL_RE.finditer(text):
        if not spans.free(m.start(), m.end()):
            continue
        noun = _noun_after(text, m.end(), allow_of=False)
        end = noun[1] if noun else m.end()
        emit(m.start(), end, int(m.group("n")), noun[0] if noun else "ordinal", "ordinal")


def _numbers(text: str, low: str, spans: _Spans, emit: _Emit) -> None:
    """Generic numbers, digits then words, classified by what follows them."""
    for m in _DIGIT_NUM_RE.finditer(text):
        s, e = m.start(), m.end()
        if not spans.free(s, e) or _is_identifier(text, s):
            continue
        if text.startswith(("s", "'s", "’s"), e) and not text[e + 1 : e + 2].isalpha():
            continue  # "the 1990s", "the 80's": decades, not numbers
        if text.startswith(("+ ", "+\t"), e):
            e += 1  # "6+ years": what follows the plus is what the number measures
        if s >= 2 and text[s - 1] == ":" and text[s - 2].isdigit():
            emit(s, e, _digits_value(m), "number", "number")
            continue  # "a 16:9 screen", "1:1 lessons": a ratio's second term counts nothing
        _classify(text, s, e, _digits_value(m), True, spans, emit)
    for m in _WORD_NUM_RE.finditer(text):
        s = m.start()
        toks = list(_TOKEN_RE.finditer(m.group(0)))
        r = _eval_words([t.group(0).lower() for t in toks])
        if r is None:
            continue
        value, used = r
        e = s + toks[used - 1].end()
        if not spans.free(s, e):
            continue
        words = [t.group(0).lower() for t in toks[:used]]
        if words == ["half"] or words == ["a", "half"]:
            continue  # "half the guests" is a proportion, not a number
        _classify(text, s, e, value, False, spans, emit, words=words)


_STAGES: tuple[Callable[[str, str, _Spans, _Emit], None], ...] = (
    _not_amounts, _dates, _clock_digits, _clock_relative, _clock_words, _duration_idioms,
    _money, _ranges, _ordinals, _numbers,
)
"""The stages of `parse_quantities`, most specific first."""


def _classify(text: str, s: int, e: int, value: float, is_digits: bool, spans: _Spans,
              emit: Any, words: list[str] | None = None) -> None:
    """Decide what the number at [s, e) measures from what follows it, and emit it."""
    # percent
    m = _PERCENT_RE.match(text, e)
    if m:
        emit(s, m.end(), value, "percent", "percent")
        return
    # currency word/code/postfix symbol
    m = _CURRENCY_WORD_RE.match(text, e)
    if m:
        code = _CURRENCY_WORDS[re.sub(r"\s+", " ", m.group("c")).lower()]
        emit(s, m.end(), value, code, f"currency:{code}")
        return
    # physical unit
    m = _UNIT_RE.match(text, e)
    if m and spans.free(m.start("u"), m.end("u")):
        surf = m.group("u")
        key = re.sub(r"\s+", " ", surf)
        spec = _UNITS_CS.get(key) or _UNITS.get(key.lower())
        glued = m.group("sp") == ""
        lk = key.lower()
        glued_letter_ok = lk in _GLUE_OK_SINGLE and key not in _GLUE_NOT_CAPITAL
        if spec is not None and not (
            (glued and len(key) == 1 and not glued_letter_ok)
            or (not glued and lk in _NEVER_SPACED)
        ):
            v, unit = _to_canonical(value, spec)
            end = m.end()
            dim = spec[1]
            if dim == "time":
                h = _AND_HALF_RE.match(text, end)
                if h:
                    v += _to_canonical(0.5, spec)[0]
                    end = h.end()
                else:
                    v, end = _compound_duration(text, end, v, spec)
            emit(s, end, v, unit, dim)
            return
    # calendar year
    if (
        is_digits
        and re.fullmatch(r"[12]\d{3}", text[s:e])
        and _YEAR_CONTEXT_RE.search(text, max(0, s - 12), s)
    ):
        emit(s, e, value, "year", "year")
        return
    # counted noun
    allow_of = words is not None and len(words) > 0 and words[-1] in ("couple", "dozen")
    noun = _noun_after(text, e, allow_of)
    if noun is not None:
        emit(s, noun[1], value, _counted_unit(noun[0], text[:noun[1]], value), "count")
        return
    if not is_digits and words == ["one"]:
        return  # "the one", "one of them": a pronoun far more often than a number
    emit(s, e, value, "number", "number")


_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 604800}


def _compound_duration(text: str, pos: int, value: float, spec: _UnitSpec) -> tuple[float, int]:
    """Extend "1 hour and 30 minutes" / "2 h 30 min": add a smaller time unit after."""
    sep = _COMPOUND_SEP_RE.match(text, pos)
    p = sep.end() if sep else pos
    m = _DIGIT_NUM_RE.match(text, p)
    if m is None or (p == pos and not text[pos : pos + 1].isspace()):
        return value, pos
    u = _UNIT_RE.match(text, m.end())
    if u is None:
        return value, pos
    spec2 = _UNITS.get(re.sub(r"\s+", " ", u.group("u")).lower())
    if spec2 is None or spec2[1] != "time":
        return value, pos
    if _SECONDS.get(spec2[0], 10**9) >= _SECONDS.get(spec[0], 10**9):
        return value, pos
    return value + _to_canonical(_digits_value(m), spec2)[0], u.end()


# --------------------------------------------------------------------------- comparison

_EXACT_DIMS = frozenset({"clock", "date", "year", "ordinal"})
_NOUN_DIMS = frozenset({"count", "ordinal"})


SCALES_APART = 30.0
"""Two values of one dimension this many times apart measure different things ("a puppy
of 4 months" / "4 hours at work"; "45 minutes a day" replaces no "3 months"); a mix-up of
hours and days (24) or days and weeks (7) stays within it."""


def far_apart(a: float, b: float) -> bool:
    """One value is more than `SCALES_APART` times the other (both non-zero)."""
    low, high = sorted((abs(a), abs(b)))
    return low > 0 and high / low > SCALES_APART


def same_value(a: Quantity, b: Quantity, rel_tol: float = 0.01) -> bool | None:
    """Do ``a`` and ``b`` state the same amount? None when they are not comparable.

    Not comparable: different dimensions (kg vs km, EUR vs USD) or counts/ordinals of
    different nouns (people vs bedrooms). Clock, date, year and ordinal values compare
    exactly (a relative tolerance on minutes-after-midnight would be meaningless),
    relaxed by the ambiguity rules in the module docstring. Temperatures compare with an
    absolute 0.5 K tolerance (rounded °F/°C restatements). Everything else uses
    ``rel_tol`` (1 % by default) so rounded conversions ("5 km" vs "3.1 miles") agree.
    """
    if a.dimension != b.dimension:
        return None
    if a.dimension in _NOUN_DIMS and a.unit != b.unit:
        return None
    if a.dimension == "clock":
        x, y = round(a.value) % 1440, round(b.value) % 1440
        if a.ambiguous or b.ambiguous:
            return x % 720 == y % 720
        return x == y
    if a.dimension == "date":
        if a.ambiguous or b.ambiguous:
            da, db = date.fromordinal(int(a.value)), date.fromordinal(int(b.value))
            return (da.month, da.day) == (db.month, db.day)
        return int(a.value) == int(b.value)
    if a.dimension in _EXACT_DIMS:
        return a.value == b.value
    if a.dimension == "temperature":
        return abs(a.value - b.value) <= 0.5
    return math.isclose(a.value, b.value, rel_tol=rel_tol, abs_tol=1e-9)
