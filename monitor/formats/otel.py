"""OpenTelemetry GenAI spans -> TurnEvents (the OTLP receiver's conversion, no I/O).

A span counts as a GenAI chat span when it has `gen_ai.*` attributes or events. Its
conversation is `gen_ai.conversation.id`; its messages are, in order:

* `gen_ai.system_instructions` (a `system` turn), then `gen_ai.input.messages`, then
  `gen_ai.output.messages` (current semantic conventions: JSON arrays of
  `{"role", "parts": [{"type": "text", "content"}, {"type": "tool_call", "name"},
  {"type": "tool_call_response", "id", "response"}]}`; messages in OpenAI shape,
  `{"role", "content"}`, are read too);
* or, from older instrumentations, the per-message span events
  `gen_ai.system.message`, `gen_ai.user.message`, `gen_ai.assistant.message`,
  `gen_ai.tool.message` and `gen_ai.choice` (content in the event attribute `content` or
  as a JSON body in `gen_ai.event.content`), or the events `gen_ai.content.prompt` /
  `gen_ai.content.completion` (attributes `gen_ai.prompt` / `gen_ai.completion`).

Like every instrumentation's default, the input messages must hold the conversation so far
(the history sent to the model): turn indices count the turns of that list
(`monitor.formats.messages`), so the turns a span repeats from earlier spans are skipped as
duplicates and only the new ones are scored. Every turn carries the span's ids in
`metadata.otel` (`trace_id`, `span_id`, hex), so evaluation results can point back at it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from monitor.contracts import TurnEvent
from monitor.formats.messages import ChatMessage, join_text, turn_events
from monitor.formats.models import GenAIMessage, read_model
from monitor.formats.openai import chat_message
from monitor.inputs import InputError

CONVERSATION_ID = "gen_ai.conversation.id"
EVENT_ROLES = {"gen_ai.system.message": "system", "gen_ai.user.message": "user",
               "gen_ai.assistant.message": "assistant", "gen_ai.tool.message": "tool",
               "gen_ai.choice": "assistant"}


@dataclass(frozen=True)
class SpanTurns:
    """What one span gave: its turns, or why it gave none (`reason`: a metric label)."""

    turns: list[TurnEvent]
    reason: str | None = None
    detail: str = ""


def any_value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [any_value(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return attributes(value.kvlist_value.values)
    return getattr(value, kind)


def attributes(kvs: Iterable[KeyValue]) -> dict[str, Any]:
    return {kv.key: any_value(kv.value) for kv in kvs}


def is_genai(span: Span) -> bool:
    return (any(kv.key.startswith("gen_ai.") for kv in span.attributes)
            or any(e.name.startswith("gen_ai.") for e in span.events))


def _json(value: Any, what: str) -> Any:
    if isinstance(value, str | bytes):
        try:
            return json.loads(value)
        except (ValueError, RecursionError) as exc:
            raise InputError("bad_messages", f"{what} is not JSON: {exc}"[:500]) from exc
    return value


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True,
                                                           default=str)


def semconv_message(message: Any, position: int, where: str) -> ChatMessage:
    """One message of gen_ai.input/output.messages (parts) or in OpenAI shape, typed
    (`monitor.formats.models.GenAIMessage` / `OpenAIMessage`)."""
    if not isinstance(message, Mapping) or "parts" not in message:
        return chat_message(message, position, where)
    typed = read_model(GenAIMessage, dict(message), where, "bad_messages")
    role = typed.role
    texts: list[str] = []
    calls: list[str] = []
    call_id: str | None = None
    for part in typed.parts or ():
        if part.type == "text":
            texts.append(_text(part.content))
        elif part.type == "tool_call" and part.name is not None:
            calls.append(part.name)
        elif part.type == "tool_call_response":
            texts.append(_text(part.response))
            call_id = part.id if part.id is not None else call_id
    if call_id is not None and role != "tool":
        role = "tool"
    return ChatMessage(role=role, text=join_text(texts), tool_calls=tuple(calls),
                       tool_call_id=call_id)


def _message_list(value: Any, what: str) -> list[ChatMessage]:
    data = _json(value, what)
    if data is None:
        return []
    if not isinstance(data, list):
        raise InputError("bad_messages", f"{what}: expected a JSON array of messages")
    return [semconv_message(m, i, f"{what}[{i}]") for i, m in enumerate(data)]


def _instructions(value: Any) -> list[ChatMessage]:
    data = _json(value, "gen_ai.system_instructions")
    if isinstance(data, str):
        return [ChatMessage(role="system", text=data)]
    if isinstance(data, list):  # a list of parts
        texts = [_text(p.get("content")) for p in data
                 if isinstance(p, Mapping) and p.get("type") == "text"]
        return [ChatMessage(role="system", text=join_text(texts))]
    return []


def _event_messages(span: Span) -> list[ChatMessage]:
    """Messages from the older per-message span events, in event order."""
    messages: list[ChatMessage] = []
    for event in span.events:
        attrs = attributes(event.attributes)
        if event.name == "gen_ai.content.prompt":
            messages.extend(_message_list(attrs.get("gen_ai.prompt"), "gen_ai.prompt"))
        elif event.name == "gen_ai.content.completion":
            messages.extend(_message_list(attrs.get("gen_ai.completion"),
                                          "gen_ai.completion"))
        elif event.name in EVENT_ROLES:
            body = _json(attrs.get("gen_ai.event.content"), event.name) or {}
            body = {**attrs, **(body if isinstance(body, Mapping) else {})}
            if event.name == "gen_ai.choice" and isinstance(body.get("message"), Mapping):
                body = {**body, **body["message"]}
            if isinstance(body.get("message"), str):
                body = {**body, "content": body["message"]}
            role = EVENT_ROLES[event.name]
            messages.append(chat_message({**body, "role": role}, len(messages)))
    return messages


def span_messages(span: Span) -> list[ChatMessage]:
    attrs = attributes(span.attributes)
    if "gen_ai.input.messages" in attrs or "gen_ai.output.messages" in attrs:
        return (_instructions(attrs.get("gen_ai.system_instructions"))
                + _message_list(attrs.get("gen_ai.input.messages"), "gen_ai.input.messages")
                + _message_list(attrs.get("gen_ai.output.messages"),
                                "gen_ai.output.messages"))
    return _event_messages(span)


def span_turns(span: Span) -> SpanTurns:
    """The TurnEvents of one GenAI span, or the reason it has none (never raises)."""
    cid = next((kv.value.string_value for kv in span.attributes if kv.key == CONVERSATION_ID),
               "")
    if not cid:
        return SpanTurns([], "no_conversation_id", f"span {span.name!r} has no "
                         f"{CONVERSATION_ID} attribute")
    ids = {"otel": {"trace_id": span.trace_id.hex(), "span_id": span.span_id.hex()}}
    try:
        turns = turn_events(cid, span_messages(span), ids)
    except InputError as exc:
        return SpanTurns([], exc.kind if exc.kind == "bad_messages" else "invalid_turn",
                         f"span {span.name!r}: {exc}")
    except Exception as exc:  # a reader bug drops this span only, with its reason
        return SpanTurns([], "bad_messages", f"span {span.name!r}: unreadable: "
                         f"{type(exc).__name__}: {exc}"[:500])
    if not turns:
        return SpanTurns([], "no_content", f"span {span.name!r} of conversation {cid!r} "
                         "has no message text (content capture off?)")
    return SpanTurns(turns)
