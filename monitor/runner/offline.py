"""Reading and scoring files of turns: what `skg-monitor score` and every benchmark run.

`parse_lines` turns input lines into events or `invalid` records (never raising),
`score_events` scores them in order with the same engine call the worker makes, and
`write_result` is how a benchmark prints and stores its numbers.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.progress import Progress

from monitor.config import EngineConfig
from monitor.contracts import (
    ContradictionCertificate,
    InvalidInput,
    SessionSummary,
    TurnEvent,
    TurnScore,
)
from monitor.formats import LineReader
from monitor.inputs import InputError, decode_line

if TYPE_CHECKING:
    from monitor.engine.state import ConversationState
    from monitor.runner.build import ModelOptions

BATCH = 64
err = Console(stderr=True)


def _raw(line: str | bytes) -> str:
    text = line[:1000]
    if isinstance(text, bytes):
        return text.decode("utf-8", errors="replace")
    return text.encode("utf-8", errors="replace").decode("utf-8")


def parse_lines(lines: Sequence[str | bytes], input_format: str = "turns",
                ) -> Iterator[tuple[int, TurnEvent | InvalidInput]]:
    """(line number, event or invalid record) for every non-blank line; never raises. An
    OpenAI-format line (`input_format` openai or auto) gives one event per turn of its
    conversation."""
    reader = LineReader(input_format)
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            events = reader.read(decode_line(line) if isinstance(line, bytes) else line)
        except InputError as exc:
            yield number, InvalidInput(line=number, reason=str(exc), raw=_raw(line))
            continue
        for event in events:
            yield number, event


def reject_misordered(
    chunk: list[tuple[int, TurnEvent | InvalidInput]], states: dict[str, ConversationState]
) -> list[tuple[int, TurnEvent | InvalidInput]]:
    """Turns that reuse an index with other text, or arrive after later turns, become
    `invalid` records (a redelivered identical turn stays a silent duplicate)."""
    from monitor.engine import order  # the engine (networkx and all) only where it runs

    events = [e for _, e in chunk if isinstance(e, TurnEvent)]
    verdicts = iter(order.classify(events, states))
    out: list[tuple[int, TurnEvent | InvalidInput]] = []
    for number, item in chunk:
        if isinstance(item, TurnEvent):
            verdict, reason = next(verdicts)
            if verdict in ("conflict", "out_of_order"):
                item = InvalidInput(line=number, reason=reason,
                                    raw=_raw(item.model_dump_json(exclude_none=True)))
        out.append((number, item))
    return out


ScoreRecord = TurnScore | ContradictionCertificate | SessionSummary | InvalidInput


def score_events(
    items: list[tuple[int, TurnEvent | InvalidInput]],
    config: EngineConfig,
    progress: bool = False,
    batch: int = BATCH,
    models: ModelOptions | None = None,
) -> list[ScoreRecord]:
    """Score parsed input in order, `batch` events per engine call (the output does not
    depend on it); the same function the tests compare the worker with."""
    from monitor.runner.build import build_engine

    engine = build_engine(config, models=models)
    states: dict[str, ConversationState] = {}
    out: list[ScoreRecord] = []
    with Progress(console=err, disable=not progress, transient=True) as bar:
        task = bar.add_task("scoring", total=len(items))
        for start in range(0, len(items), batch):
            chunk = reject_misordered(items[start : start + batch], states)
            events = [e for _, e in chunk if isinstance(e, TurnEvent)]
            outcomes = iter(engine.process_batch(events, states))
            for _, item in chunk:
                if isinstance(item, InvalidInput):
                    out.append(item)
                else:
                    out.extend(next(outcomes).records())
            bar.advance(task, len(chunk))
    out.extend(engine.summary(state) for state in states.values())
    return out


def write_result(name: str, result: dict[str, Any], path: Path | None) -> None:
    """Benchmarks print their numbers and write them as JSON (default benchmarks/results/)."""
    target = path or Path("benchmarks/results") / f"{name}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    typer.echo(json.dumps(result, indent=2, sort_keys=True))
    typer.echo(f"written to {target}")
