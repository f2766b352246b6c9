"""bench human: the two formats are read as conversations and correlations are computed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from monitor.bench.human import correlate, load_fed, load_usr, run_human_bench, to_events

FED = [
    {"context": "User: Hi!\nSystem: Hello! How are you?\nUser: I just got a new puppy",
     "response": "System: Congratulations! What breed is your new puppy?",
     "system": "Meena", "annotations": {"Overall": [4, 5, 4], "Relevant": [2, 2, 2]}},
    {"context": "User: Hi!\nSystem: Hello! How are you?\nUser: I just got a new puppy",
     "response": "System: The stock market closed lower on Tuesday.",
     "system": "Mitsuku", "annotations": {"Overall": [1, 1, 2], "Relevant": [0, 0, 1]}},
    {"context": "User: Hi!\nSystem: Hi there", "system": "Human",
     "annotations": {"Overall": [3]}},  # dialogue level: not a turn item
]
USR = [{
    "context": "do you like to cook ?\ni love cooking italian food , pasta is my favourite",
    "fact": "",
    "responses": [
        {"response": "pasta is great , i make fresh pasta with tomato sauce every sunday",
         "model": "Original Ground Truth", "Overall": [5, 4, 5],
         "Maintains Context": [3, 3, 3]},
        {"response": "my car is red", "model": "KV-MemNN", "Overall": [1, 2, 1],
         "Maintains Context": [1, 1, 1]},
        {"response": "i love italian food too , especially pasta with tomato sauce",
         "model": "Seq2Seq", "Overall": [4, 4, 3], "Maintains Context": [3, 2, 3]},
    ],
}]


def test_fed_turn_items_and_roles(tmp_path: Path) -> None:
    path = tmp_path / "fed.json"
    path.write_text(json.dumps(FED), encoding="utf-8")
    items = load_fed(path)
    assert len(items) == 2
    assert [r for r, _ in items[0].turns] == ["user", "assistant", "user", "assistant"]
    assert items[0].turns[-1][1].startswith("Congratulations")
    assert items[0].human["Overall"] == pytest.approx(13 / 3)
    events = to_events(items[0])
    assert [e.turn_index for e in events] == [0, 1, 2, 3]


def test_usr_speakers_alternate_back_from_the_response(tmp_path: Path) -> None:
    path = tmp_path / "usr.json"
    path.write_text(json.dumps(USR), encoding="utf-8")
    items = load_usr(path)
    assert len(items) == 3
    assert [r for r, _ in items[1].turns] == ["assistant", "user", "assistant"]
    assert items[1].reference is not None and items[1].reference.startswith("pasta is great")


def test_correlate_reports_spearman_and_kendall() -> None:
    out = correlate([1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 40.0, 30.0])
    assert out["spearman"] == pytest.approx(0.8)
    assert out["kendall"] == pytest.approx(4 / 6, abs=1e-4)  # published with 4 decimals
    assert correlate([1.0, 1.0], [1.0, 2.0])["spearman"] is None


def test_bench_runs_end_to_end_and_relevance_follows_people(tmp_path: Path) -> None:
    fed, usr = tmp_path / "fed.json", tmp_path / "usr.json"
    fed.write_text(json.dumps(FED), encoding="utf-8")
    usr.write_text(json.dumps(USR), encoding="utf-8")
    result = run_human_bench(fed, usr)
    usr_overall = result["usr_personachat"]["correlations"]["Overall"]
    assert result["usr_personachat"]["correlations"]["items"] == 3
    # the off-topic reply is rated worst by people and scored least relevant here
    assert usr_overall["relevance"]["spearman"] >= 0.5
    assert result["fed"]["correlations"]["items"] == 2
    assert result["fed"]["published"]
