"""OpenAI chat format in: the mapping rules, prefix stability, errors, and scores identical
to the equivalent TurnEvent file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from monitor.contracts import TurnScore, dump_record
from monitor.formats import LineReader, turn_lines
from monitor.formats.openai import openai_events
from monitor.inputs import InputError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "conversations.jsonl"
OPENAI_EXAMPLE = ROOT / "examples" / "openai_chat.jsonl"
README_SCORE = "skg-monitor score examples/openai_chat.jsonl --format table"

TOOL_CHAT: dict[str, Any] = {
    "conversation_id": "weather", "model": "gpt-4o-mini", "temperature": 0,
    "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "developer", "content": [{"type": "text", "text": "Use the tool."}]},
        {"role": "user", "content": [{"type": "text", "text": "Rain in Porto?"},
                                     {"type": "image_url", "image_url": {"url": "x"}},
                                     {"type": "input_text", "text": "Tomorrow."}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_forecast", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "No rain, 21 degrees."},
        {"role": "assistant", "content": "No rain tomorrow, about 21 degrees."},
        {"role": "user", "content": "Thanks!"},
    ]}


def test_roles_parts_and_tools_map_to_turns() -> None:
    events = openai_events(TOOL_CHAT)
    assert [(e.turn_index, e.role) for e in events] == [
        (0, "system"), (1, "system"), (2, "user"), (3, "assistant"), (4, "user")]
    assert events[2].text == "Rain in Porto?\n\nTomorrow."  # the image part is skipped
    answer = events[3]
    assert answer.documents is not None
    assert [(d.id, d.text) for d in answer.documents] == [("call_1", "No rain, 21 degrees.")]
    assert answer.metadata == {"tool_calls": ["get_forecast"]}
    assert events[4].documents is None and events[4].metadata is None


def test_a_conversation_sent_again_keeps_its_turns_and_indices() -> None:
    full = openai_events(TOOL_CHAT)
    messages = TOOL_CHAT["messages"]
    for n in range(len(messages) + 1):
        prefix = openai_events({**TOOL_CHAT, "messages": messages[:n]})
        assert prefix == full[:len(prefix)], n


@pytest.mark.parametrize(("record", "reason"), [
    ({"messages": []}, "conversation_id: field required"),
    ({"conversation_id": "c", "messages": [{"role": "robot", "content": "x"}]},
     "messages[0].role: unknown role 'robot'"),
    ({"conversation_id": "c", "messages": [{"content": "x"}]}, "messages[0].role: field"),
    ({"conversation_id": "c", "messages": [{"role": "user", "content": 3}]},
     "messages[0].content: expected a string"),
    ({"conversation_id": "c", "messages": [{"role": "user", "content": "x" * 20_001}]},
     "messages[0]: text: String should have at most 20000 characters"),
])
def test_invalid_records_name_the_message(record: dict[str, Any], reason: str) -> None:
    with pytest.raises(InputError) as info:
        LineReader("openai").read(json.dumps(record))
    assert str(info.value).startswith(reason)


def test_auto_detection_and_forced_formats() -> None:
    turn = json.dumps({"conversation_id": "c", "turn_index": 0, "role": "user", "text": "hi"})
    chat = json.dumps({"conversation_id": "c", "messages": [{"role": "user", "content": "hi"}]})
    assert LineReader("auto").read(turn) == LineReader("auto").read(chat)
    with pytest.raises(InputError, match="unknown field"):
        LineReader("turns").read(chat)
    with pytest.raises(InputError, match="messages: field required"):
        LineReader("openai").read(turn)
    with pytest.raises(InputError, match="invalid JSON"):
        LineReader("openai").read("{nope")


def test_replay_lines_expand_chats_and_keep_the_rest_byte_for_byte() -> None:
    turn = b'{"conversation_id": "c", "turn_index": 0, "role": "user", "text": "hi"}'
    bad = b'{"conversation_id": "c", "messages": [{"role": "robot", "content": "x"}]}'
    warned: list[tuple[int, str]] = []
    out = turn_lines([turn, b"", json.dumps(TOOL_CHAT).encode(), bad], "auto",
                     lambda n, why: warned.append((n, why)))
    assert out[0] == turn and out[-1] == bad
    assert [json.loads(v)["turn_index"] for v in out[1:-1]] == [0, 1, 2, 3, 4]
    assert warned == [(4, "messages[0].role: unknown role 'robot' (expected one of system, "
                          "developer, user, assistant, tool, function)")]


def _as_chats(rows: list[dict[str, Any]]) -> list[str]:
    """Each conversation as two OpenAI lines: its first half, then all of it (a resend)."""
    chats: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        chats.setdefault(r["conversation_id"], []).append(
            {"role": r["role"], "content": r["text"]})
    lines = []
    for cid, messages in chats.items():
        half = messages[: len(messages) // 2]
        lines.append(json.dumps({"conversation_id": cid, "messages": half}))
        lines.append(json.dumps({"conversation_id": cid, "messages": messages}))
    return lines


def test_openai_file_scores_byte_identically_to_the_turn_event_file() -> None:
    from monitor.config import EngineConfig
    from monitor.runner.offline import parse_lines, score_events

    rows = [json.loads(line) for line in EXAMPLES.read_text().splitlines() if line.strip()]
    for r in rows:
        r.pop("timestamp")  # the OpenAI format has no per-message time
    turns = [json.dumps(r) for r in rows]
    by_turns = score_events(list(parse_lines(turns, "turns")), EngineConfig())
    by_chats = score_events(list(parse_lines(_as_chats(rows), "auto")), EngineConfig())
    want = [dump_record(r) for r in by_turns if isinstance(r, TurnScore)]
    got = [dump_record(r) for r in by_chats if isinstance(r, TurnScore)]
    assert len(want) == sum(r["role"] == "assistant" for r in rows)
    # the same bytes (the chat file orders turns by conversation, the turn file by time);
    # the resent halves add no second score
    assert sorted(got) == sorted(want)
    certs = [sorted(dump_record(r) for r in records if r.type == "certificate")
             for records in (by_turns, by_chats)]
    assert certs[0] and certs[0] == certs[1]


def test_readme_example_scores_the_bundled_chat_file() -> None:
    readme = (ROOT / "README.md").read_text()
    assert README_SCORE in readme
    args = README_SCORE.split()[1:]
    result = subprocess.run([sys.executable, "-m", "monitor.cli", *args],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "trip-lisbon" in result.stdout and "weather-porto" in result.stdout
    assert "negation" in result.stdout  # the parking contradiction, turn 8 vs 6


@pytest.mark.broker
def test_replay_produces_the_turns_of_an_openai_file(broker: str) -> None:
    from monitor.stream.clients import consume
    from tests.conftest import run, stream_settings

    result = subprocess.run([sys.executable, "-m", "monitor.cli", "replay", str(OPENAI_EXAMPLE),
                             "--broker", broker, "--local-broker"], capture_output=True,
                            text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    values = run(consume(stream_settings(broker), "skg.turns", until_idle=1.0))
    turns = [json.loads(v) for v in values]
    lisbon = [t["turn_index"] for t in turns if t["conversation_id"] == "trip-lisbon"]
    assert lisbon == [0, 1, 2, 3, 4, *range(9)]  # both lines; the worker skips repeats
    porto = [(t["role"], t.get("documents")) for t in turns
             if t["conversation_id"] == "weather-porto"]
    assert [r for r, _ in porto] == ["system", "user", "assistant", "user", "assistant"]
    assert porto[2][1] == [{"id": "call_1", "text": "Porto tomorrow: no rain, sunny, 21 degrees."}]
