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


def test_assistant_pairs_read_a_users_premise_in_the_assistants_voice(tmp_path: Path) -> None:
    from monitor.bench.verifier import ASSISTANT_SOURCE, load_assistant_pairs

    rows = [
        '{"premise": "I haven\'t run since March.", "premise_speaker": "user", '
        '"hypothesis": "Great that you kept up your weekly runs.", "label": "contradiction", '
        '"kind": "user_fact", "domain": "fitness"}',
        '{"premise": "I like it.", "premise_speaker": "assistant", "hypothesis": "Good.", '
        '"label": "neutral", "kind": "hypothetical", "domain": "x"}',
    ]
    data = tmp_path / "pairs.jsonl"
    data.write_text("\n".join([*rows, rows[0]]) + "\n")  # the copy is read once
    user, assistant = load_assistant_pairs(data)
    assert user.premise == "You haven't run since March."
    assert assistant.premise == "I like it."  # the assistant's own words stay as written
    assert {user.source, assistant.source} == {ASSISTANT_SOURCE}


def test_the_shipped_assistant_pairs_are_well_formed_and_split_by_premise() -> None:
    from monitor.bench.verifier import ASSISTANT_DEV_PERCENT, load_assistant_pairs, split

    data = Path(__file__).resolve().parent.parent / "training" / "data" / "assistant_pairs.jsonl"
    pairs = load_assistant_pairs(data)
    assert len(pairs) >= 3000
    assert {p.label for p in pairs} == {"contradiction", "entailment", "neutral"}
    train, dev = split(pairs, ASSISTANT_DEV_PERCENT)
    assert 0.15 < len(dev) / len(pairs) < 0.25
    assert not {p.premise for p in train} & {p.premise for p in dev}


def test_a_flipped_pair_stays_a_contradiction_and_anything_else_says_only_not_one() -> None:
    pair = Pair("The museum shuts at 5.", "It stays open until 9.", "contradiction", "s")
    assert tv.flipped(pair) == Pair(pair.hypothesis, pair.premise, "contradiction", "s")
    entailed = Pair("It is 90 minutes.", "It is an hour and a half.", "entailment", "s")
    assert tv.flipped(entailed).label == "not_contradiction"


def test_a_planted_contradiction_is_found_in_the_engines_pair_in_either_order() -> None:
    import harvest_chat_pairs as harvest

    planted = ("Top it with a spoon of **Greek yoghurt**.", "You're vegan.")
    assert harvest.is_planted(("You're vegan.", "Top it with a spoon of Greek yoghurt."), planted)
    # the engine may keep only part of a bullet item
    assert harvest.is_planted(("Top it with a spoon of Greek yoghurt", "You're vegan"), planted)
    assert not harvest.is_planted(("You're vegan.", "Serve it warm."), planted)
    assert not harvest.is_planted(("", "You're vegan."), planted)


def test_a_users_planted_sentence_is_given_in_the_assistants_voice() -> None:
    import harvest_chat_pairs as harvest

    chat = {"turns": [{"role": "user", "text": "I'm vegan."},
                      {"role": "assistant", "text": "Top it with Greek yoghurt."}],
            "contradiction": {"turn": 1, "earlier_turn": 0,
                              "sentence": "Top it with Greek yoghurt.",
                              "earlier_sentence": "I'm vegan."}}
    assert harvest.planted_pair(chat) == ("Top it with Greek yoghurt.", "You're vegan.")
    assert harvest.planted_pair({"turns": chat["turns"]}) is None


def test_the_written_chats_pairs_hold_back_whole_chats() -> None:
    from monitor.bench.verifier import CHAT_SOURCE, chat_split

    data = Path(__file__).resolve().parent.parent / "training" / "data" / "chat_pairs.jsonl"
    train, dev = chat_split(data)
    assert {p.source for p in train + dev} == {CHAT_SOURCE}
    assert {p.label for p in dev} == {"contradiction", "not_contradiction"}
    assert 0.1 < len(dev) / (len(train) + len(dev)) < 0.3
