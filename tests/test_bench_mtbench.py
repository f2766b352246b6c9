"""bench trend: MT-Bench-101 dialogues become turn events; constructed drift swaps one answer."""

from __future__ import annotations

import random

from monitor.bench.mtbench import swapped, to_events

DIALOGUES = [
    {"task": "TS", "id": 1, "history": [{"user": "q1", "bot": "a1"}, {"user": "q2", "bot": "a2"}]},
    {"task": "FR", "id": 2, "history": [{"user": "r1", "bot": "b1"}, {"user": "r2", "bot": "b2"},
                                        {"user": "r3", "bot": "b3"}]},
    {"task": "GR", "id": 3, "history": [{"user": "s1", "bot": "c1"}]},
]


def test_user_turns_are_even_and_answers_odd() -> None:
    events = to_events("TS-1", DIALOGUES[0]["history"])  # type: ignore[arg-type]
    assert [(e.turn_index, e.role, e.text) for e in events] == [
        (0, "user", "q1"), (1, "assistant", "a1"), (2, "user", "q2"), (3, "assistant", "a2")]


def test_swap_replaces_one_later_answer_with_another_tasks_answer() -> None:
    rows = swapped(DIALOGUES, 10, random.Random(0))
    assert len(rows) == 2  # only dialogues with at least two turns
    for cid, history, turn in rows:
        task = cid.split("-")[1]
        original = next(d for d in DIALOGUES if f"swap-{d['task']}-{d['id']}" == cid)
        k = (turn - 1) // 2
        assert k >= 1 and turn % 2 == 1
        own = {p["bot"] for p in original["history"]}  # type: ignore[union-attr]
        assert history[k]["bot"] not in own
        others = [p["bot"] for d in DIALOGUES if d["task"] != task
                  for p in d["history"]]  # type: ignore[union-attr]
        assert history[k]["bot"] in others
        assert [p["bot"] for i, p in enumerate(history) if i != k] == [
            p["bot"] for i, p in enumerate(original["history"]) if i != k]  # type: ignore[arg-type]
