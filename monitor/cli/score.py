"""`skg-monitor score` (the offline scorer) and `skg-monitor schemas`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import IO, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from monitor.cli.options import CacheDirOpt, ConfigOpt, EmbedderOpt, engine_config, model_options
from monitor.contracts import (
    SCHEMA_MODELS,
    ContradictionCertificate,
    InvalidInput,
    SessionSummary,
    dump_record,
)
from monitor.formats import INPUT_FORMATS
from monitor.inputs import read_input_file
from monitor.runner.offline import ScoreRecord, err, parse_lines, score_events

PROGRESS_MIN_LINES = 300


def read_lines(source: str) -> list[bytes]:
    """The input's lines as bytes: each line is decoded on its own, so one line that is
    not UTF-8 is one `invalid` record, not the end of the run."""
    # a file that cannot be read: InputFileError, one line and exit 2 (guard_file_errors)
    data = sys.stdin.buffer.read() if source == "-" else read_input_file(source)
    return [line.removesuffix(b"\r") for line in data.split(b"\n")]


def _table(records: list[ScoreRecord], console: Console) -> None:
    sessions = Table(title="Conversations")
    for col in ("conversation", "assistant turns", "mean quality", "level", "slope", "trend",
                "certificates"):
        sessions.add_column(col)
    for r in records:
        if isinstance(r, SessionSummary):
            sessions.add_row(
                r.conversation_id, str(r.assistant_turns),
                f"{r.mean_quality:.3f}" if r.mean_quality is not None else "-",
                f"{r.level:.3f}" if r.level is not None else "-", f"{r.slope:+.4f}", r.trend,
                str(r.certificates),
            )
    console.print(sessions)
    certs = [r for r in records if isinstance(r, ContradictionCertificate)]
    if certs:
        table = Table(title="Contradiction certificates")
        for col in ("conversation", "turn", "vs", "detector", "conf", "explanation"):
            table.add_column(col)
        for c in certs:
            table.add_row(c.conversation_id, str(c.turn_index), str(c.conflicts_with),
                          c.detector, f"{c.confidence:.2f}", c.explanation)
        console.print(table)
    invalid = [r for r in records if isinstance(r, InvalidInput)]
    for r in invalid:
        console.print(f"[red]line {r.line}: {escape(r.reason)}[/red]")


def score(
    input: Annotated[str, typer.Argument(help="JSON Lines of TurnEvent, or - for stdin")],
    output: Annotated[Path | None, typer.Option(help="write here instead of stdout")] = None,
    format: Annotated[str, typer.Option(help="jsonl or table")] = "jsonl",
    config: ConfigOpt = None,
    input_format: Annotated[str, typer.Option(
        help="turns (TurnEvent), openai (conversation_id + messages) or auto (per line)")
    ] = "auto",
    embedder: EmbedderOpt = "onnx",
    cache_dir: CacheDirOpt = None,
) -> None:
    """Score conversations offline: one turn_score per assistant turn, certificates,
    one session record per conversation, and an invalid record per bad line (exit 1)."""
    if format not in {"jsonl", "table"}:
        raise typer.BadParameter("--format must be jsonl or table")
    if input_format not in INPUT_FORMATS:
        raise typer.BadParameter(f"--input-format must be one of {', '.join(INPUT_FORMATS)}")
    lines = read_lines(input)
    items = list(parse_lines(lines, input_format))
    records = score_events(items, engine_config(config), progress=len(lines) > PROGRESS_MIN_LINES,
                           models=model_options(embedder, cache_dir))
    invalid = [r for r in records if isinstance(r, InvalidInput)]
    sink: IO[str]
    with (output.open("w", encoding="utf-8") if output else _stdout()) as sink:
        if format == "jsonl":
            for record in records:
                sink.write(dump_record(record) + "\n")
        else:
            _table(records, Console(file=sink, width=160))
    for r in invalid:
        err.print(f"line {r.line}: {r.reason}", markup=False, highlight=False)
    if invalid:
        raise typer.Exit(code=1)


class _stdout:
    def __enter__(self) -> IO[str]:
        return sys.stdout

    def __exit__(self, *exc: object) -> None:
        sys.stdout.flush()


def schemas(out: Annotated[Path, typer.Option(help="directory")] = Path("schemas")) -> None:
    """Write the JSON Schema of every message to OUT/<name>.schema.json."""
    out.mkdir(parents=True, exist_ok=True)
    for name, model in SCHEMA_MODELS.items():
        text = json.dumps(model.model_json_schema(mode="serialization"), indent=2,
                          sort_keys=True)
        (out / f"{name}.schema.json").write_text(text + "\n", encoding="utf-8")
    typer.echo(f"wrote {len(SCHEMA_MODELS)} schemas to {out}")


def register(app: typer.Typer) -> None:
    app.command()(score)
    app.command()(schemas)
