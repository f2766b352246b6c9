"""JSON Lines, the format of every benchmark's data file: one loader for all of them.

Blank lines are skipped; any other line must be one JSON value (a bad line raises, naming
nothing: benchmark data is prepared, not user input; `monitor.inputs` is for that).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any


def parse_jsonl(lines: Iterable[str]) -> Iterator[Any]:
    """The JSON value of each non-blank line."""
    for line in lines:
        if line.strip():
            yield json.loads(line)


def iter_jsonl(path: Path) -> Iterator[Any]:
    """The rows of a JSON Lines file, in order, read one line at a time (some are large)."""
    with path.open(encoding="utf-8") as handle:
        yield from parse_jsonl(handle)


def read_jsonl(path: Path) -> list[Any]:
    """Every row of a JSON Lines file, in order."""
    return list(iter_jsonl(path))
