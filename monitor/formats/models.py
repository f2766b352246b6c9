"""Typed wire shapes of the chat formats: OpenAI `messages` and GenAI semconv messages.

Every field a reader uses is declared with its type and checked (strictly: a number is not
a string, `true` is not a list), so a malformed message is an `InputError` naming the field,
never a `TypeError` half-way through a file or an OTLP request. Fields a reader does not use
are ignored, as request bodies and spans carry many (`model`, `arguments`, `finish_reason`).

`read_model` is the one way in: it validates and turns pydantic's report into the
one-line reason of `monitor.inputs` ("messages[2].tool_calls: Input should be a valid list").
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from monitor.inputs import InputError

M = TypeVar("M", bound=BaseModel)


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True, frozen=True)


# --- OpenAI Chat Completions / Responses -------------------------------------------------

class OpenAIFunction(_Wire):
    """`tool_calls[].function` or the legacy `function_call`: only the name is read."""

    name: str | None = None


class OpenAIToolCall(_Wire):
    function: OpenAIFunction | None = None


class OpenAIPart(_Wire):
    """A content part: `text` / `input_text` / `output_text` carry `text`, `refusal` its
    `refusal`; other types (images, audio, files) are skipped."""

    type: str = "text"
    text: str | None = None
    refusal: str | None = None


def _parts(value: Any) -> Any:
    """`content` as a list of parts: a string is one text part, null none."""
    if value is None:
        return []
    if isinstance(value, str):
        return [{"type": "text", "text": value}]
    if not isinstance(value, list):
        raise ValueError(f"expected a string, null or a list of parts, got "
                         f"{type(value).__name__}")
    return [{"type": "text", "text": p} if isinstance(p, str) else p for p in value]


class OpenAIMessage(_Wire):
    role: str
    content: list[OpenAIPart] = Field(default_factory=list)
    tool_calls: list[OpenAIToolCall] | None = None
    function_call: OpenAIFunction | None = None
    tool_call_id: str | None = None
    name: str | None = None

    @field_validator("content", mode="before")
    @classmethod
    def _as_parts(cls, value: Any) -> Any:
        return _parts(value)

    def texts(self) -> list[str]:
        out = []
        for part in self.content:
            value = part.refusal if part.type == "refusal" else (
                part.text if part.type in ("text", "input_text", "output_text") else None)
            if value is not None:
                out.append(value)
        return out

    def tool_names(self) -> tuple[str, ...]:
        calls = [c.function for c in self.tool_calls or ()] + [self.function_call]
        return tuple(f.name for f in calls if f is not None and f.name is not None)


class OpenAIRecord(_Wire):
    """One line of the OpenAI format; `messages` are read one by one (OpenAIMessage), so a
    bad one is named by its position."""

    conversation_id: str = Field(min_length=1, max_length=256)
    messages: list[Any]
    metadata: dict[str, Any] | None = None


# --- OpenTelemetry GenAI semantic conventions ---------------------------------------------

class GenAIPart(_Wire):
    """A part of gen_ai.input/output.messages: text, tool_call or tool_call_response."""

    type: str | None = None
    content: Any = None
    name: str | None = None
    id: str | None = None
    response: Any = None


class GenAIMessage(_Wire):
    role: str
    parts: list[GenAIPart] | None = None


# --- validation with readable reasons ------------------------------------------------------

def _where(prefix: str, loc: tuple[int | str, ...]) -> str:
    out = prefix
    for item in loc:
        out += f"[{item}]" if isinstance(item, int) else (f".{item}" if out else str(item))
    return out or "message"


def describe(error: ValidationError, prefix: str = "") -> str:
    """'messages[2].tool_calls: Input should be a valid list; ...' (at most three)."""
    parts = []
    for item in error.errors()[:3]:
        message = str(item["msg"]).removeprefix("Value error, ")
        if item["type"] == "missing":
            message = "field required"
        parts.append(f"{_where(prefix, tuple(item['loc']))}: {message}")
    return "; ".join(parts)


def read_model(model: type[M], data: Any, where: str = "", kind: str = "schema") -> M:
    """`model` validated from plain JSON data, or InputError(kind) naming the field."""
    if not isinstance(data, dict):
        raise InputError(kind, f"{where or 'record'}: expected an object, got "
                         f"{type(data).__name__}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InputError(kind, describe(exc, where)) from exc
