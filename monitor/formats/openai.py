"""OpenAI chat format: `{"conversation_id", "messages": [{"role", "content"}, ...]}`.

The `messages` array is the one the Chat Completions API takes (and most tracing tools
store): `content` is a string, null, or a list of parts (`{"type": "text", "text"}`; the
Responses API's `input_text` / `output_text`, and `refusal`, are read too; image, audio
and file parts are skipped). Assistant `tool_calls` (and the legacy `function_call`) give
the tool names; `tool` / `function` messages are tool results. Other top-level keys of a
request body (`model`, `tools`, `temperature`, ...) are ignored, so a logged request with a
`conversation_id` added is valid input; an optional `metadata` object is copied into every
turn. How messages become turns: `monitor.formats.messages`. Every field read is
type-checked (`monitor.formats.models`): a malformed message makes its line one `invalid`
record, never a crash.
"""

from __future__ import annotations

from monitor.contracts import TurnEvent
from monitor.formats.messages import ChatMessage, join_text, turn_events
from monitor.formats.models import OpenAIMessage, OpenAIRecord, read_model
from monitor.inputs import InputError


def is_openai_record(data: object) -> bool:
    """A JSON object with a `messages` list and no TurnEvent fields (auto-detection)."""
    return (isinstance(data, dict) and isinstance(data.get("messages"), list)
            and "turn_index" not in data and "role" not in data)


def content_text(content: object, where: str) -> str:
    """The text of a `content` value: a string, null, or a list of parts."""
    message = read_model(OpenAIMessage, {"role": "user", "content": content}, where)
    return join_text(message.texts())


def chat_message(message: object, position: int, where: str | None = None,
                 kind: str = "schema") -> ChatMessage:
    """One OpenAI message, type-checked (`monitor.formats.models.OpenAIMessage`)."""
    typed = read_model(OpenAIMessage, message, where or f"messages[{position}]", kind)
    call_id = typed.tool_call_id or typed.name
    return ChatMessage(role=typed.role, text=join_text(typed.texts()),
                       tool_calls=typed.tool_names(), tool_call_id=call_id)


def openai_events(data: object) -> list[TurnEvent]:
    """Every turn of one OpenAI-format record, or InputError naming what is wrong (and
    nothing else: a reader bug is an InputError too, so one line never ends a file)."""
    try:
        record = read_model(OpenAIRecord, data)
        return turn_events(record.conversation_id,
                           [chat_message(m, i) for i, m in enumerate(record.messages)],
                           record.metadata)
    except InputError:
        raise
    except Exception as exc:  # pragma: no cover - a bug; still one invalid record
        raise InputError("schema", f"unreadable OpenAI record: {type(exc).__name__}: "
                         f"{exc}"[:500]) from exc
