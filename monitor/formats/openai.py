"""OpenAI chat format: `{"conversation_id", "messages": [{"role", "content"}, ...]}`.

The `messages` array is the one the Chat Completions API takes (and most tracing tools
store): `content` is a string, null, or a list of parts (`{"type": "text", "text"}`; the
Responses API's `input_text` / `output_text`, and `refusal`, are read too; image, audio
and file parts are skipped). Assistant `tool_calls` (and the legacy `function_call`) give
the tool names; `tool` / `function` messages are tool results. Other top-level keys of a
request body (`model`, `tools`, `temperature`, ...) are ignored, so a logged request with a
`conversation_id` added is valid input; an optional `metadata` object is copied into every
turn. How messages become turns: `monitor.formats.messages`.
"""

from __future__ import annotations

from typing import Any

from monitor.contracts import TurnEvent
from monitor.formats.messages import ChatMessage, join_text, turn_events
from monitor.inputs import InputError

TEXT_PART_TYPES = {"text": "text", "input_text": "text", "output_text": "text",
                   "refusal": "refusal"}


def is_openai_record(data: object) -> bool:
    """A JSON object with a `messages` list and no TurnEvent fields (auto-detection)."""
    return (isinstance(data, dict) and isinstance(data.get("messages"), list)
            and "turn_index" not in data and "role" not in data)


def content_text(content: object, where: str) -> str:
    """The text of a `content` value: a string, null, or a list of parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise InputError("schema", f"{where}.content: expected a string, null or a list of "
                         f"parts, got {type(content).__name__}")
    texts: list[str] = []
    for i, part in enumerate(content):
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict):
            key = TEXT_PART_TYPES.get(str(part.get("type", "text")))
            value = part.get(key) if key else None
            if isinstance(value, str):
                texts.append(value)
        else:
            raise InputError("schema", f"{where}.content[{i}]: expected an object, got "
                             f"{type(part).__name__}")
    return join_text(texts)


def tool_names(message: dict[str, Any]) -> tuple[str, ...]:
    names = []
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            names.append(function["name"])
    legacy = message.get("function_call")
    if isinstance(legacy, dict) and isinstance(legacy.get("name"), str):
        names.append(legacy["name"])
    return tuple(names)


def chat_message(message: object, position: int) -> ChatMessage:
    where = f"messages[{position}]"
    if not isinstance(message, dict):
        raise InputError("schema", f"{where}: expected an object, got {type(message).__name__}")
    role = message.get("role")
    if not isinstance(role, str):
        raise InputError("schema", f"{where}.role: field required (a string)")
    call_id = message.get("tool_call_id") or message.get("name")
    return ChatMessage(role=role, text=content_text(message.get("content"), where),
                       tool_calls=tool_names(message),
                       tool_call_id=call_id if isinstance(call_id, str) else None)


def openai_events(data: object) -> list[TurnEvent]:
    """Every turn of one OpenAI-format record, or InputError naming what is wrong."""
    if not isinstance(data, dict):
        raise InputError("schema", f"expected a JSON object, got {type(data).__name__}")
    cid = data.get("conversation_id")
    if not isinstance(cid, str) or not 1 <= len(cid) <= 256:
        raise InputError("schema", "conversation_id: field required (a string of 1 to 256 "
                         "characters)")
    messages = data.get("messages")
    if not isinstance(messages, list):
        raise InputError("schema", "messages: field required (a list of messages)")
    metadata = data.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise InputError("schema", "metadata: expected an object")
    return turn_events(cid, [chat_message(m, i) for i, m in enumerate(messages)], metadata)
