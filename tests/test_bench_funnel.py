"""`bench funnel`: the stage at which each labelled contradiction is lost.

The engine is the real one (spaCy, MiniLM); the verifier is scripted, since these are tests
of the accounting around it. The shipped verifier's figures are what the benchmark prints.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from monitor.bench.funnel import STAGES, run_funnel_bench, stage, unbounded
from monitor.bench.recording import RecordingVerifier, holds_pair
from monitor.config import EngineConfig
from monitor.engine.protocols import Judgement


class ScriptedVerifier:
    """P(contradiction) 0.99 for a pair holding both 'open' and 'closed', else 0.02."""

    model_id = "scripted-open-closed"

    def judge(self, pairs: Sequence[tuple[str, str]]) -> list[Judgement]:
        return [Judgement(0.0, 0.01, 0.99)
                if {"open", "closed"} <= set(f"{a} {b}".lower().replace(".", "").split())
                else Judgement(0.08, 0.9, 0.02) for a, b in pairs]


@pytest.mark.parametrize(("flags", "expected"), [
    ((True, False, False, False, None), "found"),  # a rule may find what was never judged
    ((False, False, False, False, None), "not_asserted"),
    ((False, True, False, False, None), "vetoed"),
    ((False, True, True, False, 0.99), "candidate_bounds"),
    ((False, True, True, True, 0.5), "verifier"),
    ((False, True, True, True, 0.95), "after_verifier"),
])
def test_a_contradiction_is_lost_at_the_first_stage_it_fails(
        flags: tuple[bool, bool, bool, bool, float | None], expected: str) -> None:
    assert stage(*flags, threshold=0.9) == expected


def test_lifting_the_bounds_keeps_every_other_setting() -> None:
    config = EngineConfig(verifier_certificate=0.8)
    lifted = unbounded(config)
    assert lifted.verifier_similarity < 0 and lifted.verifier_top_k >= 1000
    assert lifted.verifier_window >= 1000 and lifted.verifier_max_pairs >= 1000
    assert lifted.verifier_certificate == 0.8 and lifted.verifier_page == config.verifier_page


def test_a_pair_is_recognised_by_its_spans_in_either_order_through_markup() -> None:
    pair = ("Sadly the museum is closed on Mondays.", "Yes, the museum is open on Mondays.")
    assert holds_pair(pair, "is **closed** on Mondays", "is open")
    assert holds_pair(pair[::-1], "is **closed** on Mondays", "is open")
    assert not holds_pair(pair, "is closed on Sundays", "is open")
    assert not holds_pair(("", pair[1]), "", "is open")


def test_the_recording_verifier_passes_judgements_through_and_remembers_the_pairs() -> None:
    recorder = RecordingVerifier(ScriptedVerifier())
    out = recorder.judge([("It is open.", "It is closed.")])
    assert out[0].contradiction == 0.99
    assert recorder.seen == [("It is open.", "It is closed.")]
    assert recorder.model_id == "scripted-open-closed"


def test_the_funnel_accounts_for_every_labelled_contradiction(tmp_path: Path) -> None:
    said = [
        ("a", 0, "user", "Is the city museum open on Mondays?"),
        ("a", 1, "assistant", "Yes, the city museum is open on Mondays until six."),
        ("a", 2, "user", "Great, and what about parking?"),
        ("a", 3, "assistant", "Sadly the city museum is closed on Mondays until six."),
        # the earlier claim sits in a table row: never an assertion
        ("t", 0, "user", "When does the pool open?"),
        ("t", 1, "assistant", "Here are the hours:\n\n| day | hours |\n|---|---|\n"
                              "| Monday | 7:00-21:00 |\n"),
        ("t", 2, "user", "Thanks!"),
        ("t", 3, "assistant", "On Mondays the pool opens at 10:00 in the morning."),
        ("clean", 0, "user", "Hi"),
    ]
    turns = [dict(zip(("conversation_id", "turn_index", "role", "text"), row, strict=True))
             for row in said]
    labels = [
        {"conversation_id": "a", "contradiction": True, "turn_index": 3, "conflicts_with": 1,
         "kind": "polarity", "evidence_new": "is closed on Mondays",
         "evidence_old": "is open on Mondays", "split": "dev"},
        {"conversation_id": "t", "contradiction": True, "turn_index": 3, "conflicts_with": 1,
         "kind": "time_date", "evidence_new": "opens at 10:00",
         "evidence_old": "| Monday | 7:00-21:00 |", "split": "dev"},
        {"conversation_id": "clean", "contradiction": False, "split": "dev"},
    ]
    (tmp_path / "turns.jsonl").write_text("\n".join(json.dumps(t) for t in turns))
    (tmp_path / "labels.jsonl").write_text("\n".join(json.dumps(x) for x in labels))
    result = run_funnel_bench(tmp_path / "turns.jsonl", tmp_path / "labels.jsonl", "dev",
                              ScriptedVerifier())
    assert result["labelled"] == 2  # contradictions only
    assert sum(result["stages"].values()) == 2 and set(result["stages"]) == set(STAGES)
    rows = {row["conversation_id"]: row for row in result["contradictions"]}
    assert rows["a"]["stage"] == "found"
    assert rows["a"]["contradiction"] == 0.99  # the judged pair's score, both orders
    assert rows["t"]["stage"] == "not_asserted" and rows["t"]["pair"] is None
    assert result["kinds_per_stage"]["not_asserted"] == {"time_date": 1}
