"""GenAI spans -> turns: semantic-convention parts, tools, older events, and drop reasons."""

from __future__ import annotations

import json
from typing import Any

from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from monitor.formats.otel import is_genai, span_turns

TRACE = bytes.fromhex("5b8efff798038103d269b633813fc60c")
SPAN = bytes.fromhex("eee19b7ec3c1b174")


def _kv(key: str, value: Any) -> KeyValue:
    v = AnyValue(string_value=value) if isinstance(value, str) else AnyValue(int_value=value)
    return KeyValue(key=key, value=v)


def _span(attrs: dict[str, Any], events: list[tuple[str, dict[str, Any]]] = ()) -> Span:
    span = Span(trace_id=TRACE, span_id=SPAN, name="chat m")
    span.attributes.extend(_kv(k, v) for k, v in attrs.items())
    for name, ev_attrs in events:
        event = span.events.add(name=name)
        event.attributes.extend(_kv(k, v) for k, v in ev_attrs.items())
    return span


def test_semconv_parts_system_instructions_and_tool_calls() -> None:
    inputs = [
        {"role": "user", "parts": [{"type": "text", "content": "Weather in Porto?"}]},
        {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1",
                                         "name": "get_weather", "arguments": {"c": "Porto"}}]},
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1",
                                    "response": {"sky": "sunny"}}]},
    ]
    outputs = [{"role": "assistant", "finish_reason": "stop",
                "parts": [{"type": "text", "content": "Sunny in Porto."}]}]
    got = span_turns(_span({
        "gen_ai.conversation.id": "c", "gen_ai.operation.name": "chat",
        "gen_ai.system_instructions": json.dumps([{"type": "text", "content": "Be brief."}]),
        "gen_ai.input.messages": json.dumps(inputs),
        "gen_ai.output.messages": json.dumps(outputs)}))
    assert got.reason is None
    assert [(t.turn_index, t.role, t.text) for t in got.turns] == [
        (0, "system", "Be brief."), (1, "user", "Weather in Porto?"),
        (2, "assistant", "Sunny in Porto.")]
    answer = got.turns[2]
    assert answer.documents is not None and answer.documents[0].id == "c1"
    assert json.loads(answer.documents[0].text) == {"sky": "sunny"}
    assert answer.metadata == {"otel": {"trace_id": TRACE.hex(), "span_id": SPAN.hex()},
                               "tool_calls": ["get_weather"]}


def test_older_event_forms() -> None:
    events = [("gen_ai.system.message", {"content": "Be brief."}),
              ("gen_ai.user.message", {"gen_ai.event.content": json.dumps({"content": "Hi"})}),
              ("gen_ai.choice", {"gen_ai.event.content": json.dumps(
                  {"index": 0, "message": {"role": "assistant", "content": "Hello!"}})})]
    got = span_turns(_span({"gen_ai.conversation.id": "c"}, events))
    assert [(t.role, t.text) for t in got.turns] == [
        ("system", "Be brief."), ("user", "Hi"), ("assistant", "Hello!")]
    legacy = span_turns(_span({"gen_ai.conversation.id": "c"}, [
        ("gen_ai.content.prompt", {"gen_ai.prompt": json.dumps(
            [{"role": "user", "content": "Hi"}])}),
        ("gen_ai.content.completion", {"gen_ai.completion": json.dumps(
            [{"role": "assistant", "content": "Hello!"}])})]))
    assert [(t.role, t.text) for t in legacy.turns] == [("user", "Hi"), ("assistant", "Hello!")]


def test_spans_without_id_content_or_valid_messages_are_dropped_with_a_reason() -> None:
    assert not is_genai(_span({"http.method": "GET"}))
    messages = json.dumps([{"role": "user", "content": "Hi"}])
    cases = {
        "no_conversation_id": {"gen_ai.input.messages": messages},
        "no_content": {"gen_ai.conversation.id": "c", "gen_ai.operation.name": "chat"},
        "bad_messages": {"gen_ai.conversation.id": "c", "gen_ai.input.messages": "[{oops"},
        "invalid_turn": {"gen_ai.conversation.id": "c", "gen_ai.input.messages":
                         json.dumps([{"role": "robot", "content": "x"}])},
    }
    for reason, attrs in cases.items():
        span = _span(attrs)
        assert is_genai(span)
        got = span_turns(span)
        assert (got.reason, got.turns) == (reason, []), got
        assert got.detail.startswith("span 'chat m'")
