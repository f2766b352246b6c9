"""Format readers that cannot crash (issue 21 item 3): property-based tests of the OpenAI
reader, the GenAI span reader and the OTLP receiver (no broker: a stand-in client), plus
the malformed messages that used to end a whole file or request."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from monitor.contracts import TurnEvent
from monitor.formats import LineReader, turn_lines
from monitor.formats.otel import span_turns
from monitor.inputs import InputError

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10**20) | st.floats(allow_nan=False,
                                                                      allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=12)
ROLES = st.sampled_from(["system", "developer", "user", "assistant", "tool", "function",
                         "robot", ""])
FIELDS = ["role", "content", "tool_calls", "function_call", "tool_call_id", "name", "parts"]


def _value_for(field: str) -> st.SearchStrategy[Any]:
    typical = {
        "role": ROLES,
        "content": st.text(max_size=30) | st.lists(
            st.fixed_dictionaries({"type": st.sampled_from(["text", "refusal", "image_url",
                                                            "output_text"])},
                                  optional={"text": JSON, "refusal": JSON}), max_size=3),
        "tool_calls": st.lists(st.fixed_dictionaries(
            {}, optional={"id": JSON, "function": st.fixed_dictionaries(
                {}, optional={"name": JSON})}), max_size=2),
        "parts": st.lists(st.fixed_dictionaries(
            {"type": st.sampled_from(["text", "tool_call", "tool_call_response", "blob"])},
            optional={"content": JSON, "name": JSON, "id": JSON, "response": JSON}),
            max_size=3),
    }.get(field, JSON)
    return typical | JSON  # the right shape, or anything at all


MESSAGE = st.fixed_dictionaries({}, optional={f: _value_for(f) for f in FIELDS}) | JSON
RECORD = st.fixed_dictionaries(
    {"messages": st.lists(MESSAGE, max_size=5)},
    optional={"conversation_id": st.text(max_size=5) | JSON, "metadata": JSON}) | JSON


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(RECORD, st.sampled_from(["auto", "openai"]))
def test_the_openai_reader_never_raises_anything_but_input_error(record: Any,
                                                                 fmt: str) -> None:
    try:
        events = LineReader(fmt).read(json.dumps(record))
    except InputError:
        return
    assert all(isinstance(e, TurnEvent) for e in events)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(RECORD, min_size=1, max_size=4))
def test_replay_lines_never_raise(records: list[Any]) -> None:
    lines = [json.dumps(r).encode() for r in records]
    out = turn_lines(lines, "auto", lambda n, why: None)
    assert len(out) >= sum(bool(line.strip()) for line in lines) - len(lines)


def _kv(key: str, value: Any) -> KeyValue:
    kv = KeyValue(key=key)
    if isinstance(value, str):
        kv.value.string_value = value
    elif isinstance(value, bool):
        kv.value.bool_value = value
    elif isinstance(value, int):
        kv.value.int_value = max(-2**63, min(2**63 - 1, value))
    elif isinstance(value, float):
        kv.value.double_value = value
    return kv


SPAN_ATTRS = st.fixed_dictionaries(
    {"gen_ai.conversation.id": st.sampled_from(["c", ""]) | st.integers(0, 3)},
    optional={"gen_ai.input.messages": st.lists(MESSAGE, max_size=4).map(json.dumps)
              | st.text(max_size=10) | st.integers(),
              "gen_ai.output.messages": st.lists(MESSAGE, max_size=2).map(json.dumps),
              "gen_ai.system_instructions": JSON.map(json.dumps) | st.text(max_size=10)})
EVENTS = st.lists(st.tuples(
    st.sampled_from(["gen_ai.user.message", "gen_ai.choice", "gen_ai.content.prompt",
                     "gen_ai.tool.message", "other"]),
    st.dictionaries(st.sampled_from(["content", "gen_ai.event.content", "gen_ai.prompt",
                                     "message"]),
                    JSON.map(json.dumps) | st.text(max_size=10), max_size=2)), max_size=3)


def _span(attrs: dict[str, Any], events: list[tuple[str, dict[str, Any]]]) -> Span:
    span = Span(trace_id=b"\x01" * 16, span_id=b"\x02" * 8, name="chat")
    span.attributes.extend(_kv(k, v) for k, v in attrs.items())
    for name, ev_attrs in events:
        event = span.events.add(name=name)
        event.attributes.extend(_kv(k, v) for k, v in ev_attrs.items())
    return span


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SPAN_ATTRS, EVENTS)
def test_the_span_reader_never_raises(attrs: dict[str, Any],
                                      events: list[tuple[str, dict[str, Any]]]) -> None:
    got = span_turns(_span(attrs, events))
    assert (got.reason is None) == bool(got.turns)
    assert got.reason in {None, "no_conversation_id", "no_content", "bad_messages",
                          "invalid_turn"}


# --- the crashers of issue 21 ---------------------------------------------------------------

VALID_CHAT = {"conversation_id": "ok", "messages": [
    {"role": "user", "content": "Is the museum open on Mondays?"},
    {"role": "assistant", "content": "Yes, from nine."}]}


@pytest.mark.parametrize("bad_message", [
    {"role": "assistant", "content": "x", "tool_calls": 5},
    {"role": "assistant", "content": "x", "tool_calls": True},
    {"role": "assistant", "content": "x", "tool_calls": [5]},
    {"role": "assistant", "content": "x", "function_call": "f"},
    {"role": "assistant", "content": [{"type": "text", "text": 5}]},
    {"role": "assistant", "content": "x", "tool_call_id": 7},
])
def test_a_malformed_openai_message_is_one_invalid_record(bad_message: dict[str, Any]
                                                          ) -> None:
    from monitor.runner.offline import parse_lines

    bad = json.dumps({"conversation_id": "bad", "messages": [bad_message]})
    lines = [json.dumps(VALID_CHAT), bad, json.dumps({**VALID_CHAT, "conversation_id": "ok2"})]
    items = [item for _, item in parse_lines(lines, "auto")]
    assert [type(i).__name__ for i in items] == ["TurnEvent", "TurnEvent", "InvalidInput",
                                                 "TurnEvent", "TurnEvent"]
    assert "messages[0]" in items[2].reason  # type: ignore[union-attr]


@pytest.mark.parametrize("parts", ["5", "true", '"text"', '[5, {"type": 7}]'])
def test_a_malformed_genai_message_drops_its_span_only(parts: str) -> None:
    messages = f'[{{"role": "user", "parts": {parts}}}]'
    got = span_turns(_span({"gen_ai.conversation.id": "c",
                            "gen_ai.input.messages": messages}, []))
    assert got.reason == "bad_messages" and "parts" in got.detail


# --- the receiver ---------------------------------------------------------------------------

class _Sink:
    """Stands in for AsyncTurnClient: records what would be produced."""

    def __init__(self) -> None:
        self.sent: list[TurnEvent] = []

    def check_size(self, turns: list[TurnEvent]) -> None:
        pass

    async def start(self) -> None:
        pass

    async def stop(self) -> None:
        pass

    async def send_new_turns(self, turns: list[TurnEvent]) -> list[TurnEvent]:
        self.sent.extend(turns)
        return list(turns)


def _receiver(**settings: Any) -> Any:
    from monitor.kafka.settings import StreamSettings
    from monitor.stream.otlp_receiver import OtlpReceiver

    receiver = OtlpReceiver(StreamSettings(broker="kafka://127.0.0.1:1", **settings))
    receiver.client = _Sink()  # type: ignore[assignment]
    return receiver


def _export(spans: list[Span]) -> ExportTraceServiceRequest:
    request = ExportTraceServiceRequest()
    request.resource_spans.add().scope_spans.add().spans.extend(spans)
    return request


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(SPAN_ATTRS, EVENTS), max_size=4))
def test_the_receiver_reads_any_spans_without_raising(
        spans: list[tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]]) -> None:
    receiver = _receiver()
    rejected, reasons = asyncio.run(receiver.export(_export(
        [_span(a, e) for a, e in spans])))
    assert rejected == len(reasons) <= len(spans)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200) | JSON.map(lambda v: json.dumps(v).encode()),
       st.sampled_from(["application/json", "application/x-protobuf"]))
def test_decode_request_raises_only_value_error(body: bytes, content_type: str) -> None:
    from monitor.stream.otlp_receiver import decode_request

    with contextlib.suppress(ValueError):
        decode_request(body, content_type)


def _span_json(cid: str, messages: str, span_id: str) -> dict[str, Any]:
    return {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": span_id,
            "name": "chat", "attributes": [
                {"key": "gen_ai.conversation.id", "value": {"stringValue": cid}},
                {"key": "gen_ai.input.messages", "value": {"stringValue": messages}}]}


def _post(receiver: Any, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    from aiohttp.test_utils import TestClient, TestServer

    async def go() -> tuple[int, bytes]:
        async with TestClient(TestServer(receiver.web_app())) as client:
            reply = await client.post("/v1/traces", data=body, headers=headers)
            return reply.status, await reply.read()

    return asyncio.run(go())


def test_over_http_a_bad_span_is_rejected_and_the_valid_one_kept() -> None:
    receiver = _receiver()
    good = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Hi"}]},
                       {"role": "assistant", "parts": [{"type": "text", "content": "Hello"}]}])
    bad = json.dumps([{"role": "user", "parts": 5}])
    body = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [
        _span_json("good", good, "eee19b7ec3c1b174"),
        _span_json("bad", bad, "eee19b7ec3c1b175")]}]}]}).encode()
    status, reply = _post(receiver, body, {"Content-Type": "application/json"})
    assert status == 200
    partial = json.loads(reply)["partialSuccess"]
    assert partial["rejectedSpans"] == "1" and "parts" in partial["errorMessage"]
    assert [(t.conversation_id, t.role) for t in receiver.client.sent] == [
        ("good", "user"), ("good", "assistant")]
    deep = b'{"resourceSpans": ' + b"[" * 10_000 + b"]" * 10_000 + b"}"
    assert _post(_receiver(), deep, {"Content-Type": "application/json"})[0] == 400


def test_the_receiver_token_is_optional_and_its_scheme_case_insensitive() -> None:
    body = json.dumps({"resourceSpans": []}).encode()
    json_type = {"Content-Type": "application/json"}
    assert _post(_receiver(), body, json_type)[0] == 200
    locked = _receiver(otlp_token="t0k")
    assert _post(locked, body, json_type)[0] == 401
    assert _post(locked, body, {**json_type, "Authorization": "Bearer nope"})[0] == 401
    for scheme in ("Bearer", "bearer", "BEARER"):
        assert _post(locked, body, {**json_type, "Authorization": f"{scheme} t0k"})[0] == 200
