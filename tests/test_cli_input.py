"""`skg-monitor score` keeps its promise: every bad line is an `invalid` record naming it,
every good line is scored, exit status 1, no traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _turn(index: int, role: str, text: str, cid: str = "a", **extra: Any) -> bytes:
    return json.dumps({"conversation_id": cid, "turn_index": index, "role": role,
                       "text": text, **extra}).encode()


def test_bad_lines_of_every_kind_cost_only_themselves(tmp_path: Path) -> None:
    deep = b"[" * 10_000 + b"]" * 10_000
    lines = [
        _turn(0, "user", "Is the museum open on Mondays?"),                       # 1
        b'{"conversation_id": "a", "turn_index": 1, "text": "caf\xe9"}',         # 2 latin-1
        _turn(1, "assistant", "The museum is open on Mondays from ten."),        # 3
        b'{"x": ' + deep + b"}",                                                  # 4 deep
        _turn(2, "user", "And on Sundays?", metadata={"n": "\ud800"}),          # 5 surrogate
        _turn(2, "user", "And on Sundays?", metadata={"a": {"b": {"c": {"d": {"e": {
            "f": {"g": {"h": {"i": 1}}}}}}}}}),                                   # 6 deep meta
        _turn(2, "user", "And on Sundays?"),                                      # 7
        _turn(3, "assistant", "It is closed on Sundays.", cid="b"),               # 8 other conv
        _turn(3, "assistant", "It is closed on Sundays."),                        # 9
        _turn(3, "assistant", "It is open on Sundays."),                          # 10 conflict
        _turn(3, "assistant", "It is closed on Sundays."),                        # 11 redelivery
        _turn(6, "user", "Thanks."),                                              # 12
        _turn(5, "assistant", "You are welcome."),                                # 13 late
        _turn("7", "user", "Bye."),                                              # 14 "7"
    ]
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    result = subprocess.run([sys.executable, "-m", "monitor.cli", "score", str(path)],
                            capture_output=True, cwd=ROOT, timeout=300)
    assert result.returncode == 1
    assert b"Traceback" not in result.stderr
    records = [json.loads(line) for line in result.stdout.decode().splitlines()]
    invalid = {r["line"]: r["reason"] for r in records if r["type"] == "invalid"}
    assert sorted(invalid) == [2, 4, 5, 6, 10, 13, 14]
    assert "not UTF-8" in invalid[2]
    assert "nested deeper" in invalid[4]
    assert "lone surrogate" in invalid[5]
    assert "metadata" in invalid[6]
    assert "already applied with a different role or text" in invalid[10]
    assert "arrived after turn 6" in invalid[13]
    assert "turn_index: Input should be a valid integer" in invalid[14]
    scored = sorted((r["conversation_id"], r["turn_index"]) for r in records
                    if r["type"] == "turn_score")
    assert scored == [("a", 1), ("a", 3), ("b", 3)]
    sessions = {r["conversation_id"]: r for r in records if r["type"] == "session"}
    assert sessions["a"]["last_turn_index"] == 6 and sessions["a"]["turns"] == 5
    for number in invalid:
        assert f"line {number}:".encode() in result.stderr
