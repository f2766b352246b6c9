"""What an amount is counted against (`aligned.rate`, `aligned.span`), and a fact's amount
in its sentence."""

from __future__ import annotations

import pytest

from monitor.engine import aligned, amounts


def spans(sentence: str) -> list[str | None]:
    return [aligned.span(sentence, a) for a in amounts.amounts(sentence)]


@pytest.mark.parametrize("sentence, expected", [
    ("It is 45 euros per day.", ["day"]),
    ("Three meals a day.", ["day"]),
    ("The daily rental rate is 55 euros.", ["day"]),
    ("Hourly hire of a Donkey Republic bike is 25 DKK.", ["hour"]),
    ("The annual premium for full coverage is $2,300.", ["year"]),
    ("Your rent is 1,100 euros monthly.", ["month"]),
    ("Parking is 20 euros nightly, with a view.", ["night"]),
    ("The room is €55/night.", ["night"]),
    ("The Starter plan is $19/mo.", ["month"]),
    ("Billed yearly, it is $190/yr.", ["year"]),
    ("A sitter charges about $25 per hr.", ["hour"]),
    ("The rent is 1,100 euros.", [None]),
    # the verb "costs" reads as the priced noun "cost" (see `aligned.span`)
    ("A daily pass costs 10 euros.", ["day"]),
    # an adjective of the thing priced, not of its price
    ("The daily special is 12 euros.", [None]),
    ("The hotel offers a weekly cooking class that costs 40 euros.", [None]),
    # a rate word of another clause
    ("Take it daily, and the pack costs 12 euros.", [None]),
    ("Take it daily and the pack costs 12 euros.", [None]),
])
def test_a_span_said_as_an_adjective_or_adverb(sentence: str,
                                               expected: list[str | None]) -> None:
    assert spans(sentence)[: len(expected)] == expected


def test_an_adjective_is_no_rate_where_the_other_amount_has_none() -> None:
    """Only `span` reads adjectives, and the amount alignment compares spans only where
    both amounts have one: "a daily pass costs 10 euros" against "the pass costs 14"."""
    sentence = "The annual premium is $2,300."
    assert aligned.rate(sentence, amounts.amounts(sentence)[0]) is None
    assert aligned.amount_conflict("The pass costs 14 euros.",
                                   "A daily pass costs 10 euros.") is not None


def test_a_facts_amount_is_found_where_it_is_written_once() -> None:
    found = aligned.in_sentence("You pay 50 euros for the tour and 12 euros for the ticket.",
                                "12 euros")
    assert found is not None and found.quantity.value == 12
    assert aligned.in_sentence("It is 5 euros for tea or 5 euros for coffee.", "5 euros") is None
    assert aligned.in_sentence("It is 5 euros.", "7 euros") is None
