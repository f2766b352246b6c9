"""Reading TurnEvents from bytes or lines, with errors a person can act on.

Shared by the offline CLI (a bad line becomes an `invalid` record) and the worker (a bad
message goes to the dead-letter topic); both must say exactly what is wrong, naming the
field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from monitor.contracts import MAX_JSON_DEPTH, TurnEvent, json_problem

MAX_MESSAGE_BYTES = 256 * 1024


@dataclass(frozen=True)
class InputError(Exception):
    """Why an input could not become a TurnEvent; `kind` is a bounded metric label."""

    kind: str
    reason: str

    def __str__(self) -> str:
        return self.reason


class InputFileError(Exception):
    """An input file that cannot be read, said in one line ("input file not found: x")."""


def read_input_file(path: str | Path) -> bytes:
    """The bytes of an input file, or InputFileError naming the file and the problem."""
    path = Path(path)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise InputFileError(f"input file not found: {path}") from None
    except IsADirectoryError:
        raise InputFileError(f"input file is a directory: {path}") from None
    except PermissionError:
        raise InputFileError(f"input file not readable (permission denied): {path}"
                             ) from None
    except OSError as exc:
        raise InputFileError(f"input file not readable: {path}: {exc.strerror or exc}"
                             ) from None


def check_input_file(path: str | Path) -> None:
    """InputFileError unless the file can be opened for reading (nothing is read)."""
    try:
        with Path(path).open("rb"):
            pass
    except OSError:
        read_input_file(path)  # the same one-line reason
        raise


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


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_event_text(text: str) -> TurnEvent:
    """Parse one JSON document into a TurnEvent or raise InputError (and nothing else)."""
    data = load_json_object(text)
    try:
        return TurnEvent.model_validate(data)
    except ValidationError as exc:
        raise InputError("schema", describe_validation_error(exc)) from exc


def load_json_object(text: str) -> dict[str, Any]:
    """One JSON object within the input limits, or InputError (and nothing else).

    Every way the standard parser can fail is an InputError: syntax, nesting deep enough
    to exhaust Python's stack (RecursionError), integers of more than 4,300 digits
    (ValueError), and the non-standard NaN/Infinity it would otherwise accept. A leading
    UTF-8 byte-order mark (as Windows editors write at the start of a file) is not part
    of the document and is skipped.
    """
    text = text.removeprefix("\ufeff")
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InputError("invalid_json", f"invalid JSON: {exc.msg} at column {exc.colno}") from exc
    except RecursionError as exc:
        raise InputError("too_deep", f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from exc
    except ValueError as exc:
        raise InputError("invalid_json", f"invalid JSON: {str(exc)[:200]}") from exc
    if not isinstance(data, dict):
        raise InputError("schema", f"expected a JSON object, got {type(data).__name__}")
    problem = json_problem(data, MAX_JSON_DEPTH)
    if problem is not None:
        raise InputError("surrogate" if "surrogate" in problem else "too_deep", problem)
    return data


def decode_line(raw: bytes, max_bytes: int = MAX_MESSAGE_BYTES) -> str:
    """The text of one message or input line: size and encoding checked."""
    if len(raw) > max_bytes:
        raise InputError("oversized", f"message is {len(raw)} bytes, limit is {max_bytes}")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        reason = f"value is not UTF-8: {exc.reason} at byte {exc.start}"
        raise InputError("not_utf8", reason) from exc


def parse_event_bytes(raw: bytes | None, max_bytes: int = MAX_MESSAGE_BYTES) -> TurnEvent:
    """Parse a Kafka message value: size, encoding, JSON and schema, in that order."""
    if raw is None:
        raise InputError("schema", "message has no value")
    return parse_event_text(decode_line(raw, max_bytes))


def decode_message(key: bytes | None, value: bytes | None,
                   max_bytes: int = MAX_MESSAGE_BYTES) -> TurnEvent:
    """A Kafka message as the worker reads it: the value, keyed by its conversation_id."""
    if not key:
        raise InputError("missing_key", "message has no key (expected conversation_id)")
    turn = parse_event_bytes(value, max_bytes)
    key_text = key.decode("utf-8", errors="replace")
    if key_text != turn.conversation_id:
        raise InputError("key_mismatch", f"key {key_text[:256]!r} is not the event's "
                         f"conversation_id {turn.conversation_id!r}")
    return turn
