"""Chat messages (any wire format) -> TurnEvents: the one place that decides the mapping.

OpenAI `messages` (monitor.formats.openai) and OpenTelemetry GenAI spans
(monitor.formats.otel) are first read into `ChatMessage`s; `turn_events` then applies the
rules below, so both integrations number and shape turns the same way.

Rules (documented in the README, "OpenAI chat format"):

* `system` and `developer` messages become `system` turns; `user` and `assistant` keep
  their role.
* Only text is scored: text parts are joined with a blank line; images, audio and files
  are skipped. A message without text (an assistant message that only calls tools) makes
  no turn.
* A `tool` (or legacy `function`) message is the evidence the next answer was grounded
  in: it becomes a `document` of the next assistant turn (id = its tool_call_id), so
  ConflictScore checks the answer against what the tool returned. Tool results are not
  turns themselves.
* An assistant turn that follows tool calls names them in `metadata.tool_calls`.
* `turn_index` counts the turns made so far in the conversation. The mapping of a message
  depends only on the messages before it, so a conversation sent again with more messages
  yields the same turns with the same indices plus the new ones, and the engine's
  idempotence by `turn_index` skips the repeated ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from monitor.contracts import MAX_DOCUMENTS, MAX_TEXT_CHARS, TurnEvent
from monitor.inputs import InputError, describe_validation_error

#: wire role -> TurnEvent role; `tool` is handled apart (it becomes a document)
ROLES = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant",
         "tool": "tool", "function": "tool"}


@dataclass(frozen=True)
class ChatMessage:
    """One message of a chat, whatever format it came in."""

    role: str  # a key of ROLES
    text: str = ""
    tool_calls: tuple[str, ...] = ()  # names of the tools an assistant message called
    tool_call_id: str | None = None  # on a tool result: the call it answers
    metadata: dict[str, Any] = field(default_factory=dict)  # e.g. the span it came from


def join_text(parts: Sequence[str]) -> str:
    """The text parts of one message, in order, blank ones left out."""
    return "\n\n".join(p for p in parts if p.strip())


def turn_events(conversation_id: str, messages: Sequence[ChatMessage],
                metadata: dict[str, Any] | None = None) -> list[TurnEvent]:
    """The TurnEvents of a whole conversation (see the module docstring for the rules)."""
    events: list[TurnEvent] = []
    documents: list[dict[str, str]] = []
    called: list[str] = []
    for position, message in enumerate(messages):
        if message.role not in ROLES:
            raise InputError("schema", f"messages[{position}].role: unknown role "
                             f"{message.role!r} (expected one of {', '.join(ROLES)})")
        role = ROLES[message.role]
        if role == "tool":
            if message.text.strip():
                doc_id = (message.tool_call_id or f"message-{position}")[:256]
                documents.append({"id": doc_id, "text": message.text[:MAX_TEXT_CHARS]})
            continue
        if role == "assistant":
            called.extend(message.tool_calls)
        if not message.text.strip():
            continue
        extra: dict[str, Any] = {**(metadata or {}), **message.metadata}
        data: dict[str, Any] = {"conversation_id": conversation_id,
                                "turn_index": len(events), "role": role,
                                "text": message.text}
        if role == "assistant":
            if documents:
                data["documents"] = documents[-MAX_DOCUMENTS:]
            if called:
                extra["tool_calls"] = list(called)
            documents, called = [], []
        if extra:
            data["metadata"] = extra
        try:
            events.append(TurnEvent.model_validate(data))
        except ValidationError as exc:
            raise InputError("schema", f"messages[{position}]: "
                             f"{describe_validation_error(exc)}") from exc
    return events
