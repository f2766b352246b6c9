"""Reading TurnEvents from bytes or lines, with errors a person can act on.

Shared by the offline CLI (a bad line becomes an `invalid` record) and the worker (a bad
message goes to the dead-letter topic); both must say exactly what is wrong, naming the
field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from pydantic import ValidationError

from monitor.contracts import TurnEvent

MAX_MESSAGE_BYTES = 256 * 1024


@dataclass(frozen=True)
class InputError(Exception):
    """Why an input could not become a TurnEvent; `kind` is a bounded metric label."""

    kind: str
    reason: str

    def __str__(self) -> str:
        return self.reason


def describe_validation_error(error: ValidationError) -> str:
    """'turn_index: Input should be greater than or equal to 0; role: ...'."""
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "event"
        message = item["msg"]
        if item["type"] == "missing":
            message = "field required"
        elif item["type"] == "extra_forbidden":
            message = "unknown field (put free-form data in 'metadata')"
        parts.append(f"{where}: {message}")
    return "; ".join(parts)


def parse_event_text(text: str) -> TurnEvent:
    """Parse one JSON document into a TurnEvent or raise InputError."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError("invalid_json", f"invalid JSON: {exc.msg} at column {exc.colno}") from exc
    if not isinstance(data, dict):
        raise InputError("schema", f"expected a JSON object, got {type(data).__name__}")
    try:
        return TurnEvent.model_validate(data)
    except ValidationError as exc:
        raise InputError("schema", describe_validation_error(exc)) from exc


def parse_event_bytes(raw: bytes | None, max_bytes: int = MAX_MESSAGE_BYTES) -> TurnEvent:
    """Parse a Kafka message value: size, encoding, JSON and schema, in that order."""
    if raw is None:
        raise InputError("schema", "message has no value")
    if len(raw) > max_bytes:
        raise InputError("oversized", f"message is {len(raw)} bytes, limit is {max_bytes}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        reason = f"value is not UTF-8: {exc.reason} at byte {exc.start}"
        raise InputError("not_utf8", reason) from exc
    return parse_event_text(text)
