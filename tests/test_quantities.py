"""Tests for the quantity normaliser used by the numeric contradiction detector."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.engine.quantities import (
    _CANON,
    _FACTORS,
    _UNITS,
    _UNITS_CS,
    Quantity,
    _conversion,
    _ureg,
    parse_number,
    parse_quantities,
    pint_conversion,
    same_value,
)


def one(text: str) -> Quantity:
    """The single quantity in ``text`` (fails loudly otherwise)."""
    qs = parse_quantities(text)
    assert len(qs) == 1, (text, qs)
    return qs[0]


def same(a: str, b: str) -> bool | None:
    return same_value(one(a), one(b))


# ------------------------------------------------------------------ parse_number

@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1,000", 1000), ("1 000", 1000), ("1000", 1000), ("1.5", 1.5), ("-3", -3),
        ("-2.25", -2.25), ("1,234,567.5", 1234567.5), ("3k", 3000), ("1.2 million", 1.2e6),
        ("2.5 billion", 2.5e9), ("twelve", 12), ("twenty-five", 25), ("twenty five", 25),
        ("one hundred and five", 105), ("three thousand", 3000),
        ("two million five hundred thousand", 2_500_000), ("a hundred", 100),
        ("a dozen", 12), ("half a dozen", 6), ("two dozen", 24), ("a couple", 2),
        ("a couple of", 2), ("two and a half", 2.5), ("one and a half", 1.5), ("half", 0.5),
        ("zero", 0), ("nineteen hundred", 1900), ("ninety-nine", 99),
    ],
)
def test_parse_number(text: str, value: float) -> None:
    assert parse_number(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["", "known", "two three", "a", "the", "12 eggs", "five cats",
                                  "1.2.3", "hundreds"])
def test_parse_number_rejects(text: str) -> None:
    assert parse_number(text) is None


# ------------------------------------------------------------------ parse_quantities


@pytest.mark.parametrize(
    ("text", "value", "unit", "dim"),
    [
        ("It costs $1,200.", 1200, "USD", "currency:USD"),
        ("It costs 1200 dollars.", 1200, "USD", "currency:USD"),
        ("only €50", 50, "EUR", "currency:EUR"),
        ("only 50 euros", 50, "EUR", "currency:EUR"),
        ("rent is £600", 600, "GBP", "currency:GBP"),
        ("rent is 600 GBP", 600, "GBP", "currency:GBP"),
        ("rent is 1,000 GBP", 1000, "GBP", "currency:GBP"),
        ("raised $1.2 million", 1.2e6, "USD", "currency:USD"),
        ("a $3k budget", 3000, "USD", "currency:USD"),
        ("three thousand dollars", 3000, "USD", "currency:USD"),
        ("a 15% tip", 15, "percent", "percent"),
        ("a 15 percent tip", 15, "percent", "percent"),
        ("2 kg", 2000, "gram", "mass"),
        ("2000 g", 2000, "gram", "mass"),
        ("5 km", 5000, "metre", "length"),
        ("5000 m", 5000, "metre", "length"),
        ("5km", 5000, "metre", "length"),
        ("3 miles", 4828.032, "metre", "length"),
        ("100 °C", 373.15, "kelvin", "temperature"),
        ("212 °F", 373.15, "kelvin", "temperature"),
        ("-5 °C outside", 268.15, "kelvin", "temperature"),
        ("2 litres", 2, "litre", "volume"),
        ("500 ml", 0.5, "litre", "volume"),
        ("10 MB", 10e6, "byte", "data"),
        ("60 mph", 26.8224, "metre_per_second", "speed"),
        ("3 days", 3 * 86400, "second", "time"),
        ("72 hours", 72 * 3600, "second", "time"),
        ("two weeks", 14 * 86400, "second", "time"),
        ("90 minutes", 5400, "second", "time"),
        ("1.5 h", 5400, "second", "time"),
        ("half an hour", 1800, "second", "time"),
        ("an hour and a half", 5400, "second", "time"),
        ("one and a half hours", 5400, "second", "time"),
        ("1 hour and 30 minutes", 5400, "second", "time"),
        ("a 10-minute walk", 600, "second", "time"),
        ("4 people", 4, "person", "count"),
        ("six guests", 6, "person", "count"),
        ("3 bedrooms", 3, "bedroom", "count"),
        ("a 3-bedroom flat", 3, "bedroom", "count"),
        ("twenty-five people", 25, "person", "count"),
        ("one hundred and five guests", 105, "person", "count"),
        ("a dozen eggs", 12, "egg", "count"),
        ("half a dozen eggs", 6, "egg", "count"),
        ("a couple of friends", 2, "friend", "count"),
        ("3 more people", 3, "person", "count"),
        ("6+ years", 6 * 31557600, "second", "time"),  # read across the plus
        ("10+ people", 10, "person", "count"),
        ("1.2 million people", 1.2e6, "person", "count"),
        ("5 boxes", 5, "box", "count"),
        ("the 14 basic consonants", 14, "consonant", "count"),
        ("3 important points", 3, "point", "count"),
        ("a 10W charger", 10, "watt", "power"),
        ("a 60w bulb", 60, "watt", "power"),
        ("48h delivery", 48 * 3600, "second", "time"),
        ("5t of sand", 5e6, "gram", "mass"),
        ("I have 1 key left", 1, "key", "count"),
        ("the answer is 42.", 42, "number", "number"),
        ("we met in 2019", 2019, "year", "year"),
        ("the 2nd floor", 2, "floor", "ordinal"),
        ("he came 21st", 21, "ordinal", "ordinal"),
    ],
)
def test_single_quantity(text: str, value: float, unit: str, dim: str) -> None:
    q = one(text)
    assert q.value == pytest.approx(value)
    assert (q.unit, q.dimension) == (unit, dim)
    assert text[q.start : q.end] == q.surface


@pytest.mark.parametrize(
    ("text", "minutes", "ambiguous"),
    [
        ("7:30", 450, True), ("19:30", 1170, False), ("07:30", 450, False),
        ("7:30 pm", 1170, False), ("7.30pm", 1170, False), ("8 am", 480, False),
        ("8pm", 1200, False), ("12 am", 0, False), ("12 pm", 720, False),
        ("noon", 720, False), ("midnight", 0, False), ("quarter past seven", 435, True),
        ("half past seven", 450, True), ("ten past 7", 430, True),
        ("at quarter to eight", 465, True), ("meet at 7", 420, True),
        ("at 7 tonight", 1140, False), ("seven o'clock", 420, True),
        ("8 in the evening", 1200, False), ("at ten to eight", 470, True),
    ],
)
def test_clock(text: str, minutes: int, ambiguous: bool) -> None:
    q = one(text)
    assert (q.dimension, q.unit) == ("clock", "clock")
    assert q.value == minutes
    assert q.ambiguous is ambiguous


def test_dates() -> None:
    full = one("on 3 March 2024")
    iso = one("on 2024-03-03")
    us = one("on March 3, 2024")
    bare = one("on March 3")
    assert full.dimension == iso.dimension == bare.dimension == "date"
    assert full.value == iso.value == us.value
    assert not full.ambiguous and bare.ambiguous
    assert same_value(full, iso) is True
    assert same_value(bare, full) is True  # month/day only when a year is missing
    assert same_value(one("on March 4"), full) is False
    assert same_value(one("the 3rd of March 2023"), full) is False
    assert parse_quantities("on February 30") == [] or all(
        q.dimension != "date" for q in parse_quantities("on February 30")
    )


def test_offsets_and_order() -> None:
    text = "We booked 4 rooms for 3 nights at $120 each, check-in at 3pm on March 3."
    qs = parse_quantities(text)
    assert [q.dimension for q in qs] == ["count", "count", "currency:USD", "clock", "date"]
    for q in qs:
        assert text[q.start : q.end] == q.surface
    assert [q.start for q in qs] == sorted(q.start for q in qs)


# ------------------------------------------------------------------ agreement


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("1,000 people", "1000 people"), ("2 kg", "2000 g"), ("5 km", "5000 m"),
        ("90 minutes", "an hour and a half"), ("half past seven", "7:30"),
        ("a dozen eggs", "12 eggs"), ("3 days", "72 hours"), ("two weeks", "14 days"),
        ("100 °C", "212 °F"), ("£600", "600 GBP"), ("$1,200", "1200 dollars"),
        ("€50", "50 euros"), ("15%", "15 percent"), ("six guests", "6 guests"),
        ("4 people", "four persons"), ("7:30", "19:30"), ("at 7", "7 pm"),
        ("half an hour", "30 minutes"), ("2 litres", "2000 ml"), ("midnight", "12:00"),
        ("5 km", "3.107 miles"), ("in 2019", "in 2019"),
        # one unit said as an adjective
        ("an hour-long lesson", "a 60-minute lesson"), ("a day-long tour", "24 hours"),
        # nouns that count the same people
        ("40 guests", "forty people"), ("12 kids", "twelve children"), ("1 guest", "one person"),
    ],
)
def test_restatements_agree(a: str, b: str) -> None:
    assert same(a, b) is True


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("8:15", "9:40"), ("600 GBP", "1,000 GBP"), ("4 people", "6 people"),
        ("2 kg", "3000 g"), ("7:30 am", "19:30"), ("in 2019", "in 2020"),
        ("a dozen eggs", "10 eggs"), ("15%", "20 percent"), ("2nd floor", "3rd floor"),
        ("at 7", "at 8"), ("100 °C", "100 °F"), ("40 guests", "60 attendees"),
        ("12 kids", "8 children"),
    ],
)
def test_conflicts_differ(a: str, b: str) -> None:
    assert same(a, b) is False


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("2 kg", "2 km"), ("€50", "$50"), ("4 people", "4 bedrooms"), ("7:30", "7.5 h"),
        ("in 2019", "2019 people"), ("2nd floor", "2 floors"), ("15%", "15 people"),
        ("2nd floor", "2nd attempt"),
        # a part of the people, not all of them
        ("40 guests", "40 customers"), ("12 kids", "12 adults"),
        # a singular after a number is a modifier: these count speakers and rooms
        ("3 guest speakers", "3 people"), ("194 guest rooms", "194 people"),
    ],
)
def test_incomparable(a: str, b: str) -> None:
    assert same(a, b) is None


# ------------------------------------------------------------------ near misses


@pytest.mark.parametrize(
    "text",
    [
        "It is well known.", "I bought the iPhone 15 yesterday.", "GPT-4 is a model.",
        "I run Windows 11 at home.", "See version 2 of the doc.", "Go to room 12.",
        "during the 1990s", "between 5 and 10 guests", "2-3 people", "from 5 to 10 people",
        "five to ten guests", "the one I like", "one of them", "half the guests",
        "someone often weighs it", "a day", "twice a day", "hundreds of people",
        # idioms whose number words count nothing
        "One-to-one maths tutoring", "one-on-one coaching", "1-on-1 sessions",
        "a one-to-many mapping", "They arrived one by one.",
    ],
)
def test_not_quantities(text: str) -> None:
    qs = [q for q in parse_quantities(text) if q.dimension != "ordinal"]
    assert qs == [], qs


@pytest.mark.parametrize("text", ["1:1 driving lessons", "a 16:9 screen", "mixed 2:1 with water"])
def test_a_ratio_counts_nothing(text: str) -> None:
    """Its terms are bare numbers: "1:1 driving lessons" are not 1 driving."""
    assert {q.dimension for q in parse_quantities(text)} == {"number"}


def test_ordinal_is_not_count() -> None:
    q = one("on the 2nd floor")
    assert q.dimension == "ordinal"
    assert same_value(q, one("2 floors")) is None


def test_iphone_count_vs_model() -> None:
    qs = parse_quantities("I bought 3 iPhones: two iPhone 15 and one iPhone 14.")
    counts = [(q.value, q.unit) for q in qs if q.dimension == "count"]
    assert (3.0, "iphone") in counts
    assert all(q.value not in (14.0, 15.0) for q in qs)


def test_we_are_at_a_number_is_a_head_count_not_a_time() -> None:
    assert one("so we're at 12 now").dimension == "number"
    assert one("we are now at 48").dimension == "number"
    assert one("We meet at 12 now").dimension == "clock"
    assert one("we're at 7 pm").dimension == "clock"


def test_at_number_with_noun_is_count() -> None:
    assert one("a table at 7 people max").dimension == "count"
    assert one("growing at 5 percent").dimension == "percent"


# ------------------------------------------------------------------ unit table sanity


def test_unit_table_dimensions_match_pint() -> None:
    ureg = _ureg()
    for surface, (pint_unit, dim, _mult) in {**_UNITS, **_UNITS_CS}.items():
        target = _CANON[dim][1]
        got = ureg.Quantity(1.0, pint_unit).to(target)  # raises if dimension is wrong
        assert got.magnitude > 0, surface


def test_the_stored_unit_factors_are_pints_own() -> None:
    """unit_factors.toml holds every unit, with pint's numbers; after a change to the units
    run `python scripts/gen_unit_factors.py`. The engine reads only the file, so its output
    does not move with pint's version; a later pint may round a derived factor in the last
    bit, hence the relative tolerance of 1e-12 (the file was written by pint 0.25.3)."""
    for surface, (pint_unit, dim, _mult) in {**_UNITS, **_UNITS_CS}.items():
        target = _CANON[dim][1]
        assert (pint_unit, target) in _FACTORS, f"{surface}: run scripts/gen_unit_factors.py"
        assert _FACTORS[(pint_unit, target)] == pytest.approx(
            pint_conversion(pint_unit, target), rel=1e-12, abs=1e-12), surface
    assert _conversion("fortnight", "second") == pint_conversion("fortnight", "second")


# ------------------------------------------------------------------ properties

_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
         "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
         "seventeen", "eighteen", "nineteen"]
_TENS_W = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty",
           "ninety"]


def to_words(n: int, and_style: bool) -> str:
    """English words for 0..999 ("one hundred and five" or "one hundred five")."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        t, u = divmod(n, 10)
        return _TENS_W[t] + ("-" + _ONES[u] if u else "")
    h, rest = divmod(n, 100)
    head = _ONES[h] + " hundred"
    if rest == 0:
        return head
    return head + (" and " if and_style else " ") + to_words(rest, and_style)


@given(st.integers(min_value=0, max_value=999), st.booleans())
def test_number_words_round_trip(n: int, and_style: bool) -> None:
    assert parse_number(to_words(n, and_style)) == n


@given(st.integers(min_value=1, max_value=999), st.sampled_from(["guests", "people", "eggs"]))
def test_word_counts_match_digit_counts(n: int, noun: str) -> None:
    a = one(f"We expect {to_words(n, True)} {noun} tonight.")
    b = one(f"We expect {n} {noun} tonight.")
    assert same_value(a, b) is True


@given(st.integers(min_value=0, max_value=10**9), st.sampled_from(["", "$", "€"]))
def test_thousands_separators(n: int, prefix: str) -> None:
    plain = parse_quantities(f"Total: {prefix}{n} units.")
    comma = parse_quantities(f"Total: {prefix}{n:,} units.")
    assert len(plain) == len(comma) == 1
    assert plain[0].value == comma[0].value == n
    assert parse_number(f"{n:,}") == parse_number(str(n)) == n


@given(st.integers(min_value=0, max_value=23), st.integers(min_value=0, max_value=59))
def test_24h_clock_round_trip(h: int, m: int) -> None:
    q = one(f"Meet me at {h:02d}:{m:02d}.")
    assert q.value == h * 60 + m
    # "10:00" could be 10 am or 10 pm; "07:00" and "19:00" are unambiguous 24-hour times
    assert q.ambiguous is (10 <= h <= 12)


@given(st.text(max_size=80))
def test_never_crashes_and_spans_are_consistent(text: str) -> None:
    qs = parse_quantities(text)
    for q in qs:
        assert text[q.start : q.end] == q.surface
    for a, b in itertools.pairwise(qs):
        assert a.end <= b.start


@pytest.mark.parametrize("text", ["a 1.5T parameter model", "a 3T MRI scanner", "a 5G phone",
                                  "a 2H pencil"])
def test_a_one_letter_unit_is_read_in_its_own_case(text: str) -> None:
    """A glued capital T, G or H is trillion, tesla, a network or a pencil, not tonnes,
    grams or hours."""
    assert [q.dimension for q in parse_quantities(text)] == ["number"]


def test_values_far_apart_measure_different_things() -> None:
    from monitor.engine.quantities import far_apart

    assert far_apart(4 * 3600, 4 * 30 * 86400)  # 4 hours / 4 months
    assert not far_apart(4 * 3600, 4 * 86400)  # hours and days: a mix-up to catch
    assert not far_apart(0, 10)
