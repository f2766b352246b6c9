"""State round trip, determinism, the offline CLI end to end, and the published schemas."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from monitor.contracts import TurnEvent, dump_record
from monitor.engine.state import ConversationState
from monitor.runner.build import build_engine

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "conversations.jsonl"

SENTENCES = [
    "The museum is open on Mondays.", "The museum does not open on Mondays.",
    "My budget is 600 GBP.", "Your budget is 1,000 GBP.", "The tour costs 50 euros.",
    "I live in Lisbon.", "Since you live in Madrid, take the train.", "The soup is spicy.",
    "Scratch that: make it 4 people instead of 6.", "The table is for 6 people.",
    "It is closed on Sundays.", "The flight leaves at 8:15.", "The hotel has an indoor pool.",
]


def _events(picks: list[int]) -> list[TurnEvent]:
    return [TurnEvent(conversation_id="rt", turn_index=i,
                      role="user" if i % 2 == 0 else "assistant", text=SENTENCES[p])
            for i, p in enumerate(picks)]


def _outputs(outcomes: list) -> list[str]:  # type: ignore[type-arg]
    return [dump_record(r) for o in outcomes for r in o.records()]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, len(SENTENCES) - 1), min_size=2, max_size=10))
def test_round_trip_after_every_turn_equals_uninterrupted_run(picks: list[int]) -> None:
    engine = build_engine()
    events = _events(picks)
    straight: dict[str, ConversationState] = {}
    expected = _outputs(engine.process_batch(events, straight))
    got: list[str] = []
    blob: bytes | None = None
    for event in events:
        state = ConversationState.from_bytes(blob) if blob else engine.new_state("rt")
        got.extend(_outputs([engine.process(state, event)]))
        blob = state.to_bytes()
    assert got == expected
    assert blob == straight["rt"].to_bytes()


def test_duplicates_change_nothing() -> None:
    engine = build_engine()
    events = _events([0, 1, 2, 3])
    state = engine.new_state("rt")
    engine.process_batch(events, {"rt": state})
    before = state.to_bytes()
    outcomes = engine.process_batch([events[1], events[3], events[3]], {"rt": state})
    assert all(o.duplicate and o.score is None and not o.certificates for o in outcomes)
    assert state.to_bytes() == before


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "monitor.cli", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_score_is_byte_identical_across_runs_and_batching(tmp_path: Path) -> None:
    from monitor.config import EngineConfig
    from monitor.runner.offline import parse_lines, score_events

    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert cli("score", str(EXAMPLES), "--output", str(first)).returncode == 0
    assert cli("score", str(EXAMPLES), "--output", str(second)).returncode == 0
    assert first.read_bytes() == second.read_bytes()
    # one event at a time (as a lightly loaded worker would) gives the same bytes
    items = list(parse_lines(EXAMPLES.read_text().splitlines()))
    single = [dump_record(r) for r in score_events(items, EngineConfig(), batch=1)]
    assert "\n".join(single) + "\n" == first.read_text()


def test_score_output_shape() -> None:
    result = cli("score", str(EXAMPLES))
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = {r["type"] for r in records}
    assert {"turn_score", "certificate", "session"} <= kinds
    scores = [r for r in records if r["type"] == "turn_score"]
    assistant_turns = sum(1 for line in EXAMPLES.read_text().splitlines()
                          if json.loads(line)["role"] == "assistant")
    assert len(scores) == assistant_turns
    for s in scores:
        for key in ("conversation_id", "turn_index", "local_relevance", "consistency", "logic",
                    "quality", "regime", "level", "slope", "trend"):
            assert key in s
    assert sum(r["type"] == "session" for r in records) == 5


def test_bad_lines_are_reported_and_the_rest_is_scored() -> None:
    good = [json.dumps({"conversation_id": "x", "turn_index": 0, "role": "user",
                        "text": "Is the museum open on Mondays?"}),
            json.dumps({"conversation_id": "x", "turn_index": 1, "role": "assistant",
                        "text": "The museum is open on Mondays from ten."})]
    bad = ['{"conversation_id": "x", "turn_index": 2, "role": "user"',          # invalid JSON
           json.dumps({"conversation_id": "x", "role": "user", "text": "hi"}),  # missing field
           json.dumps({"conversation_id": "x", "turn_index": 3, "role": "robot", "text": "x"}),
           json.dumps({"conversation_id": "x", "turn_index": 4, "role": "user", "text": "  "})]
    result = cli("score", "-", stdin="\n".join([good[0], *bad, good[1]]) + "\n")
    assert result.returncode == 1
    records = [json.loads(line) for line in result.stdout.splitlines()]
    invalid = {r["line"]: r["reason"] for r in records if r["type"] == "invalid"}
    assert set(invalid) == {2, 3, 4, 5}
    assert invalid[2].startswith("invalid JSON")
    assert "turn_index: field required" in invalid[3]
    assert invalid[4].startswith("role:")
    assert invalid[5].startswith("text:")
    assert "line 3" in result.stderr
    assert sum(r["type"] == "turn_score" for r in records) == 1


def test_checked_in_schemas_equal_generated(tmp_path: Path) -> None:
    result = cli("schemas", "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    generated = sorted(p.name for p in tmp_path.iterdir())
    checked_in = sorted(p.name for p in (ROOT / "schemas").iterdir())
    assert generated == checked_in
    for name in generated:
        assert (tmp_path / name).read_text() == (ROOT / "schemas" / name).read_text(), name
