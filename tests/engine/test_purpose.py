"""What an amount is for (`engine.purpose`): the phrase read, and when two differ."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from monitor import data
from monitor.engine import amounts, purpose

ROOT = Path(__file__).resolve().parents[2]


def purposes(sentence: str) -> list[tuple[str, ...]]:
    return [purpose.purpose(sentence, a.quantity.end) for a in amounts.amounts(sentence)]


@pytest.mark.parametrize("sentence, expected", [
    ("You will pay 50 euros for the tour.", [("tour",)]),
    ("The rental is 40 dollars per day for a compact car.", [("compact", "car")]),
    ("It costs 80 euros in total for the museum ticket.", [("museum", "ticket")]),
    # markup and a rate between the amount and its "for"
    ("Entry is **22 euros** for adults.", [("adults",)]),
    ("The tour costs €20/person for the walking tour.", [("walking", "tour")]),
    ("Entry is 12 euros for under-12s.", [("under-12s",)]),
    ("Entry is 40 euros for 2 adults.", [("2", "adults"), ()]),
    ("The tour is 20 euros per adult.", [("adult",)]),
    ("Tickets cost 20 euros for adults and children.", [("adults", "and", "children")]),
    ("It’s 20 euros for the children’s menu.", [("children", "menu")]),
    # cut at "and": each amount keeps its own
    ("You pay 50 euros for the tour and 12 euros for the ticket.", [("tour",), ("ticket",)]),
    # cut at any other stop word, or a number
    # a qualifier ends the phrase; adults narrowed by one may be seniors: no kind
    ("Tickets are 15 euros for kids under 12.", [("kids",), ()]),
    ("Entry is 10 euros for adults from the EU.", [("adults",)]),
    ("Entry is 12 euros for adults over 65.", [(), ()]),
    ("It is 90 euros for the room which has a view.", [("room",)]),
    ("It costs 20 euros for 2 hours.", [("2", "hours"), ()]),
])
def test_the_phrase_is_read_at_the_amount(sentence: str,
                                          expected: list[tuple[str, ...]]) -> None:
    assert purposes(sentence) == expected


@pytest.mark.parametrize("sentence", [
    "You will pay 50 euros for example.",  # a filler
    "You will pay 50 euros for now.",
    "That is 50 euros, for a guided tour.",  # another clause
    "It costs 20 euros and 10 for kids.",  # the "for" is the other amount's
    "It is 50 euros which is enough for the tour.",
    "It is 20 euros for you.",  # names nothing
    "You will pay 50 euros on the day of the tour.",  # not "for"
])
def test_no_purpose(sentence: str) -> None:
    assert purposes(sentence)[0] == ()


@pytest.mark.parametrize("ours, theirs, different", [
    # kinds that exclude each other, by the phrase or any of its words
    (("adults",), ("children",), True),
    (("students",), ("seniors",), True),
    (("adult", "ticket"), ("child", "ticket"), True),
    (("day",), ("week",), True),
    (("lunch",), ("dinner",), True),
    # one kind, whatever the words
    (("kids",), ("little", "ones"), False),
    (("under-12s",), ("children",), False),
    (("seniors",), ("pensioners",), False),
    (("grown-ups",), ("adults",), False),
    (("adults", "and", "children"), ("children",), False),
    # words that take in every kind, and phrases without a kind: compared as before
    (("each", "person"), ("adults",), False),
    (("family",), ("children",), False),
    (("tour",), ("ticket",), False),
    (("hotel",), ("accommodation",), False),
    (("tour",), (), False),
    # two kinds joined, and counted spans
    (("12", "months"), ("year",), False),
    (("two", "weeks"), ("fortnight",), False),
    (("member",), ("non-member",), True),
])
def test_different_only_by_kinds_that_exclude_each_other(
        ours: tuple[str, ...], theirs: tuple[str, ...], different: bool) -> None:
    assert purpose.different(ours, theirs) is different
    assert purpose.different(theirs, ours) is different


def test_what_an_amount_is_for_by_its_place() -> None:
    assert purpose.is_purpose_of_an_amount(
        "The rental is 40 dollars per day for a compact car.", "a compact car")
    assert purpose.is_purpose_of_an_amount("It’s 20 euros for the driver’s tip.",
                                           "the driver's tip")
    assert not purpose.is_purpose_of_an_amount("The rental is for an SUV.", "an SUV")
    # "for adults" twice: the museum's own, and its price's
    assert not purpose.is_purpose_of_an_amount(
        "The museum is for adults only and costs 20 euros for adults.", "adults")


def test_the_plural_table_is_wordnets(tmp_path: Path) -> None:
    """noun_plurals.tsv is what scripts/gen_noun_plurals.py writes from the installed
    WordNet: after a change to the script, run it again."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import gen_noun_plurals
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    target = tmp_path / "noun_plurals.tsv"
    gen_noun_plurals.main(["gen", str(target)])
    shipped = ROOT / "monitor" / "data" / "noun_plurals.tsv"
    assert target.read_text(encoding="utf-8") == shipped.read_text(encoding="utf-8")
    assert ("children", "child") in data.rows("noun_plurals.tsv")
