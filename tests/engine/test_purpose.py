"""What an amount is for (`engine.purpose`): the phrase read, and when two differ."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
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
    # cut at "and": each amount keeps its own
    ("You pay 50 euros for the tour and 12 euros for the ticket.", [("tour",), ("ticket",)]),
    # cut at any other stop word, or a number
    ("Tickets are 15 euros for kids under 12.", [("kids",), ()]),
    ("It is 90 euros for the room which has a view.", [("room",)]),
    ("It costs 20 euros for 2 hours.", [(), ()]),
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


def far_apart(texts: Sequence[str]) -> np.ndarray:
    """A stand-in embedder for the words-only steps: any two phrases are far apart."""
    return np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)[: len(texts)]


@pytest.mark.parametrize("ours, theirs, different", [
    # kinds that exclude each other, by the phrase or any of its words
    (("adults",), ("children",), True),
    (("students",), ("seniors",), True),
    (("adult", "ticket"), ("child", "ticket"), True),
    (("day",), ("week",), True),
    # one kind, whatever the words
    (("kids",), ("little", "ones"), False),
    (("under-12s",), ("children",), False),
    (("seniors",), ("pensioners",), False),
    (("each", "person"), ("guest",), False),
    # a shared word, plurals folded as WordNet folds them
    (("tour",), ("tours",), False),
    (("ferries",), ("ferry",), False),
    (("lunches",), ("lunch",), False),
    (("women",), ("woman",), False),
    (("guided", "tour"), ("tour",), False),
    # WordNet synonyms
    (("taxi",), ("cab",), False),
    (("adults",), ("grown-ups",), False),
    # otherwise the embedder decides
    (("tour",), ("ticket",), True),
    (("flights",), ("hotel",), True),
    # only one says: compared as before
    (("tour",), (), False),
])
def test_different_by_kind_word_synonym_then_embedding(
        ours: tuple[str, ...], theirs: tuple[str, ...], different: bool) -> None:
    assert purpose.different(ours, theirs, far_apart) is different


def test_without_an_embedder_only_kinds_make_two_things() -> None:
    assert purpose.different(("tour",), ("ticket",)) is False
    assert purpose.different(("adults",), ("children",)) is True


@pytest.mark.parametrize("ours, theirs, different", [
    (("tour",), ("ticket",), True),
    (("flights",), ("hotel",), True),
    (("hotel",), ("accommodation",), False),
    (("flights",), ("airfare",), False),
    (("trip",), ("vacation",), False),
    (("car",), ("vehicle",), False),
])
def test_the_packaged_embedder_tells_paraphrases_from_other_things(
        ours: tuple[str, ...], theirs: tuple[str, ...], different: bool) -> None:
    from monitor.engine.embedder import default_embedder

    assert purpose.different(ours, theirs, default_embedder().embed) is different


def test_a_purpose_of_a_fact_is_read_where_its_amount_stands() -> None:
    sentence = "You pay 50 euros for the tour and 12 euros for the ticket."
    assert purpose.purpose_in(sentence, "12 euros") == ("ticket",)
    # the same surface twice with two purposes: unknown
    assert purpose.purpose_in("It is 5 euros for tea or 5 euros for coffee.", "5 euros") == ()


def test_a_noun_that_an_amount_is_for() -> None:
    assert purpose.is_purpose_of_an_amount(
        "The rental is 40 dollars per day for a compact car.", "car")
    assert not purpose.is_purpose_of_an_amount("The rental is for an SUV.", "SUV")


def test_the_word_tables_are_wordnets(tmp_path: Path) -> None:
    """noun_synonyms.tsv and noun_plurals.tsv are what scripts/gen_noun_synonyms.py
    writes from the installed WordNet: after a change to the script, run it again."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import gen_noun_synonyms
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    gen_noun_synonyms.main(["gen", str(tmp_path)])
    for name in ("noun_synonyms.tsv", "noun_plurals.tsv"):
        shipped = ROOT / "monitor" / "data" / name
        assert (tmp_path / name).read_text(encoding="utf-8") == shipped.read_text(
            encoding="utf-8"), f"{name}: run scripts/gen_noun_synonyms.py"
    assert any({"kid", "child"} <= set(row[0].split())
               for row in data.rows("noun_synonyms.tsv"))
    assert ("children", "child") in data.rows("noun_plurals.tsv")
