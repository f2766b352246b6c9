"""The cheap test before two sentences' amounts are compared (`aligned.may_conflict`): it
may only rule out pairs that `aligned.conflicts` would find nothing in."""

from __future__ import annotations

from itertools import permutations

import pytest

from monitor.engine import aligned

SENTENCES = [
    "The tour costs 45 euros per person.",
    "The tour is 60 euros per person, lunch included.",
    "The tour takes about 3 hours.",
    "Allow 5 hours for the whole tour.",
    "We'll be 4 people on the boat.",
    "The boat takes up to 12 people.",
    "Book 2 rooms for the night.",
    "The flight leaves at 9:40 am.",
    "Your flight leaves at 11:15 am.",
    "The lake is 12 km long.",
    "The walk around the lake is about 20 miles.",
    "It has 3 bedrooms and 2 bathrooms.",
    "Mix 250 g of flour with 2 eggs.",
    "Use 400 g of flour.",
    "Tickets are 45 euros, and the tour takes 3 hours.",
]


@pytest.mark.parametrize("new, old, expected", [
    ("The tour costs 45 euros per person.", "The tour takes about 3 hours.", False),
    ("The tour costs 45 euros per person.", "The tour is 60 euros per person.", True),
    ("We'll be 4 people on the boat.", "Book 2 rooms for the night.", False),
    ("We'll be 4 people on the boat.", "The boat takes up to 12 people.", True),
    ("The lake is 12 km long.", "The walk around the lake is about 20 miles.", True),
])
def test_it_tells_what_the_amounts_measure(new: str, old: str, expected: bool) -> None:
    assert aligned.may_conflict(new, old) is expected


def test_it_rules_out_no_pair_that_conflicts() -> None:
    ruled_out = [(new, old) for new, old in permutations(SENTENCES, 2)
                 if not aligned.may_conflict(new, old)]
    assert ruled_out  # the test means something: most pairs measure different things
    assert [pair for pair in ruled_out if aligned.conflicts(*pair)] == []
    assert any(aligned.conflicts(new, old) for new, old in permutations(SENTENCES, 2))
