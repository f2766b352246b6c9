"""Input formats beside TurnEvent JSON Lines: each yields TurnEvents.

`LineReader` is what `score` and `replay` use to read one line in the chosen format
(`--input-format`): `turns` (TurnEvent, the default wire format), `openai` (a conversation
as OpenAI `messages`, see `monitor.formats.openai`), or `auto` (each line by its shape).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, get_args

from monitor.contracts import TurnEvent
from monitor.formats.openai import is_openai_record, openai_events
from monitor.inputs import InputError, load_json_object, parse_event_text

InputFormat = Literal["auto", "turns", "openai"]
INPUT_FORMATS: tuple[str, ...] = get_args(InputFormat)


class LineReader:
    """Reads one line of input as TurnEvents in a fixed format (or by its shape: auto)."""

    def __init__(self, input_format: str = "auto") -> None:
        if input_format not in INPUT_FORMATS:
            raise ValueError(f"input format must be one of {', '.join(INPUT_FORMATS)}, "
                             f"not {input_format!r}")
        self.input_format = input_format

    def converted(self, line: str) -> list[TurnEvent] | None:
        """The turns of an OpenAI-format line; None for a line to read as a TurnEvent.

        Raises InputError for a line that is in OpenAI format (or must be) but invalid.
        """
        if self.input_format == "turns":
            return None
        data = load_json_object(line)  # bad JSON, too deep, surrogates: InputError
        if self.input_format == "openai" or is_openai_record(data):
            return openai_events(data)
        return None

    def read(self, line: str) -> list[TurnEvent]:
        """The TurnEvents of one line, or InputError."""
        events = self.converted(line)
        return events if events is not None else [parse_event_text(line)]


def turn_lines(lines: list[bytes], input_format: str,
               warn: Callable[[int, str], None] | None = None) -> list[bytes]:
    """Kafka values for `replay`: each OpenAI-format line expanded into TurnEvent JSON.

    Blank lines are skipped; other lines go out byte for byte, and so does an OpenAI line
    that cannot be read (after `warn(line number, reason)`): the worker dead-letters it
    with its raw bytes, so nothing is lost.
    """
    reader = LineReader(input_format)
    out: list[bytes] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            events = reader.converted(raw.decode("utf-8"))
        except (InputError, UnicodeDecodeError) as exc:
            if warn:
                warn(number, str(exc))
            events = None
        if events is None:
            out.append(raw)
        else:
            out.extend(e.model_dump_json(exclude_none=True).encode("utf-8") for e in events)
    return out
