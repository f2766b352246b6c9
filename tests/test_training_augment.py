"""The verifier training's generated pairs (training/train_verifier.py; never run in CI,
but its pair makers are plain functions and cheap to check)."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "training"))
import train_verifier as tv

from monitor.bench.verifier import Pair


def _written(*premises: str) -> list[Pair]:
    return [Pair(p, "x", "neutral", "felsal_snli") for p in premises]


def test_amounts_restated_inside_agree_and_outside_contradict() -> None:
    premise = "A woman in black is juggling 30 flaming bottles."
    made = tv.amount_pairs(_written(premise), 200, random.Random(7))
    assert made  # one per premise at most
    for seed in range(40):
        (pair,) = tv.amount_pairs(_written(premise), 1, random.Random(seed))
        values = [float(v) for v in re.findall(r"\d+", pair.hypothesis)]
        if pair.label == "entailment":
            assert min(values) <= 30 <= max(values)
        else:
            assert pair.label == "contradiction" and min(values) > 30


def test_count_words_become_digits_or_another_count() -> None:
    labels = set()
    for seed in range(20):
        (pair,) = tv.amount_pairs(_written("Two dogs run on the beach."), 1, random.Random(seed))
        labels.add(pair.label)
        if pair.label == "entailment":
            assert pair.hypothesis == "2 dogs run on the beach."
        else:
            assert pair.hypothesis.split()[0] in {w.capitalize() for w in tv._NUMBER_WORDS}
            assert not pair.hypothesis.startswith("Two")
    assert labels == {"entailment", "contradiction"}


@pytest.mark.parametrize("premise", ["Chapter 1 gives the background.",
                                     "The bridge opened in 1998 to traffic.",
                                     "She was thirty-seven then."])
def test_names_years_and_compound_numbers_are_left_alone(premise: str) -> None:
    assert tv.amount_pairs(_written(premise), 5, random.Random(1)) == []


def test_an_antonym_swap_contradicts_unless_both_words_are_there() -> None:
    made = tv.antonym_swaps(_written("A tall man carries a heavy box.",
                                     "One tall and one short man stand there."),
                            5, random.Random(3))
    assert [p.premise for p in made] == ["A tall man carries a heavy box."]
    assert made[0].label == "contradiction"
    assert made[0].hypothesis in {"A short man carries a heavy box.",
                                  "A tall man carries a light box."}
