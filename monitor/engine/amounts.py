"""Amounts as intervals: a value, a range ("30-45 minutes") or a bound ("£600 max").

Two statements about one attribute contradict when the amounts they allow cannot both be
right. A single value is a point (widened by a tolerance when it is hedged with "about"),
a range is its interval, and a bound is a half-line: "£600 max" and "around £1,000" are
incompatible, "2-3 hours" and "about 2.5 hours" are not. `quantities` canonicalises each
number and unit; this module only adds the shape of the claim around it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from functools import lru_cache

from monitor.engine import quantities
from monitor.engine.quantities import Quantity

_NUM = r"\d+(?:[.,]\d+)*"
_RANGE = re.compile(
    rf"(?:\bbetween\s+|\bfrom\s+)?(?P<pre>[£$€¥])?(?P<a>{_NUM})(?:\s*(?:-|–|to|and)\s*|—)"
    rf"(?P<b>[^\s\d]{{0,3}}{_NUM})",
    re.IGNORECASE,
)
"""A range in digits: "£210–£260", "2 to 3". An em dash between spaces opens a new clause,
not the range's other end ("the MacBook Air M3 at $1,099 — 15+ hours of real use")."""
_AND_A_HALF = r"\s+and\s+a\s+half\b"
_WORD_RANGE = re.compile(
    rf"(?:\bbetween\s+(?P<a2>{quantities.NUMBER_WORD_RUN})\s+and\s+"
    rf"|(?:\bfrom\s+)?\b(?P<a>{quantities.NUMBER_WORD_RUN}(?:{_AND_A_HALF})?)\s+(?:to|or)\s+)"
    rf"(?P<b>{quantities.NUMBER_WORD_RUN})\b",
    re.IGNORECASE,
)
"""A range in words: "three to four small meals", "two or three hours", "between two and
three years", "one and a half to two hours". Written high to low it is no range: "ten to
five" is a clock time, "a nine to five job" a kind of job."""
_HALF_MORE = re.compile(_AND_A_HALF, re.IGNORECASE)
"""The high end goes on: "two to two and a half hours" ends at 2.5 hours, not 2."""
_SCALE_WORD = re.compile(r"\b(?:dozen|hundred|thousand|million|billion|trillion)\b",
                         re.IGNORECASE)
"""A scale said once for both ends ("one to two hundred") is not read: 100-200, not 1-200."""
_HEDGE = r"(?:\s+(?:about|around|roughly|approximately|approx\.?|~))?"
_UPPER_BEFORE = re.compile(
    r"\b(?:max(?:imum)?|at most|up to|no more than|not more than|under|less than|below|"
    r"within|maximum of|cap(?:ped)? at|tops)" + _HEDGE + r"\s*$", re.IGNORECASE)
_DENIED_LOWER_BEFORE = re.compile(
    r"\b(?:no|nothing|none)\b(?:\s+[\w'-]+){0,4}?\s+(?:longer|more|over|above|bigger|"
    r"further|farther)(?:\s+than)?" + _HEDGE + r"\s*$", re.IGNORECASE)
"""A lower bound denied is an upper one: "no hikes longer than about 2 hours", "nothing
over $50"."""
_UPPER_AFTER = re.compile(r"^\s*(?:(?:a|per|each)\s+(?:day|night|week|month|session|workout)"
                          r"\s*,?\s*)?(?:max(?:imum)?|at most|or less|or under|tops|or fewer)\b",
                          re.IGNORECASE)
"""After the amount, perhaps after its rate: "20 minutes max", "one hour a day at most"."""
_LOWER_BEFORE = re.compile(
    r"\b(?:at least|min(?:imum)?|over|more than|above|upwards of|no less than|from)"
    + _HEDGE + r"\s*$", re.IGNORECASE)
_LOWER_AFTER = re.compile(r"^\s*(?:or more|at least|min(?:imum)?|plus|\+)", re.IGNORECASE)
_PLUS_INSIDE = re.compile(r"\d\+")
"""A quantity read across its plus ("6+ years"): at least that much."""
_APPROX = re.compile(
    r"\b(?:about|around|roughly|approximately|approx\.?|nearly|almost|some|circa|ca\.|"
    r"~|usually|typically|generally|estimated)\s*$", re.IGNORECASE)
APPROX_TOLERANCE = 0.15
"""How far "about 25 minutes" reaches: 28 minutes is about 25."""
BOTH_APPROX_TOLERANCE = 0.10
"""How far each of two hedged values reaches against the other: "about 25 euros" and
"about 32 euros" are two prices, though each is within 15% of a value both could round."""
EXACT_TOLERANCE = 0.01


@dataclass(frozen=True)
class Amount:
    """The closed interval of values a statement allows, in the quantity's canonical unit."""

    low: float
    high: float
    quantity: Quantity
    shape: str
    """point | approx | range | upper | lower; limit: a bound read as its value
    (`as_thresholds`)"""

    @property
    def surface(self) -> str:
        return self.quantity.surface


def _widen(value: float, tolerance: float) -> tuple[float, float]:
    spread = abs(value) * tolerance
    return value - spread, value + spread


def amounts(text: str) -> list[Amount]:
    """Every amount in a text, ranges first (their ends are not separate claims)."""
    return list(_amounts(text))


@lru_cache(maxsize=8192)
def _amounts(text: str) -> tuple[Amount, ...]:
    found: list[Amount] = []
    taken: list[tuple[int, int]] = []
    in_words = _WORD_RANGE.finditer(text) if quantities.says_number_words(text) else ()
    for match in (*_RANGE.finditer(text), *in_words):
        prefix = match.groupdict().get("pre") or ""
        if prefix and match.group("b")[:1].isdigit():
            upper = quantities.parse_quantities(prefix + text[match.start("b"):])
            upper = [replace(q, start=q.start - len(prefix), end=q.end - len(prefix))
                     for q in upper]
            if upper and upper[0].start == -len(prefix):
                upper[0] = replace(upper[0], start=0)
        else:
            upper = quantities.parse_quantities(text[match.start("b"):])
        if not upper or upper[0].start != 0:
            continue
        high_q = upper[0]
        raw_b = quantities.parse_number(
            match.group("b") if match.re is _WORD_RANGE  # digits after a sign: "to £40"
            else re.sub(r"^[^\d]+", "", match.group("b")))
        if raw_b is not None and _HALF_MORE.match(text, match.end("b")):
            raw_b += 0.5
        low_words = match.group("a") or match.group("a2")
        raw_a = quantities.parse_number(low_words)
        if match.re is _WORD_RANGE and (
                (_SCALE_WORD.search(match.group("b")) and not _SCALE_WORD.search(low_words))
                or raw_a is None or raw_b is None or raw_a >= raw_b):
            continue
        if raw_a is None or raw_b is None or raw_b == 0 or high_q.dimension in {
                "clock", "date", "year", "ordinal"}:
            continue
        scale = high_q.value / raw_b
        low, high = sorted((raw_a * scale, high_q.value))
        end = match.start("b") + high_q.end
        whole = replace(high_q, surface=text[match.start():end], start=match.start(), end=end)
        found.append(Amount(low, high, whole, "range"))
        taken.append((match.start(), end))
    for q in quantities.parse_quantities(text):
        if any(a <= q.start < b for a, b in taken):
            continue
        before, after = text[: q.start], text[q.end:]
        if (_UPPER_BEFORE.search(before) or _UPPER_AFTER.search(after)
                or _DENIED_LOWER_BEFORE.search(before)):
            found.append(Amount(-math.inf, q.value * (1 + EXACT_TOLERANCE), q, "upper"))
        elif (_LOWER_BEFORE.search(before) or _LOWER_AFTER.search(after)
              or _PLUS_INSIDE.search(q.surface)):
            found.append(Amount(q.value * (1 - EXACT_TOLERANCE), math.inf, q, "lower"))
        elif _APPROX.search(before):
            found.append(Amount(*_widen(q.value, APPROX_TOLERANCE), q, "approx"))
        else:
            found.append(Amount(*_widen(q.value, EXACT_TOLERANCE), q, "point"))
    return tuple(found)


def comparable(a: Amount, b: Amount) -> bool:
    """Same dimension and, for counts, the same counted thing."""
    return measure(a) == measure(b)


def measure(amount: Amount) -> tuple[str, str | None]:
    """What an amount measures, as `comparable` tells amounts apart: its dimension, and
    for counts and ordinals the counted thing."""
    q = amount.quantity
    return q.dimension, q.unit if q.dimension in {"count", "ordinal"} else None


def incompatible(a: Amount, b: Amount) -> bool:
    """Cannot both hold: disjoint intervals, or two ranges that barely touch.

    Exact kinds (clock times, dates, years) keep the quantities module's own rules.
    """
    if a.quantity.dimension in {"clock", "date", "year", "ordinal"}:
        return quantities.same_value(a.quantity, b.quantity) is False
    if a.shape == b.shape == "approx":
        a, b = (Amount(*_widen(x.quantity.value, BOTH_APPROX_TOLERANCE), x.quantity, "approx")
                for x in (a, b))
    overlap = min(a.high, b.high) - max(a.low, b.low)
    if overlap < 0:
        return True
    if a.shape == "range" and b.shape == "range":
        shorter = min(a.high - a.low, b.high - b.low)
        return shorter > 0 and overlap <= 0.25 * shorter
    return False


def as_thresholds(a: Amount, b: Amount) -> tuple[Amount, Amount]:
    """Two bounds in one direction compare by their limits; anything else unchanged."""
    if a.shape == b.shape and a.shape in {"upper", "lower"}:
        return _limit(a), _limit(b)
    return a, b


def _limit(bound: Amount) -> Amount:
    approx = APPROX_TOLERANCE
    return Amount(*_widen(bound.quantity.value, approx), bound.quantity, "limit")
