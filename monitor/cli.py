"""`skg-monitor`: the offline scorer, schemas, benchmarks, and the streaming commands."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress
from rich.table import Table

from monitor.config import EngineConfig
from monitor.contracts import (
    SCHEMA_MODELS,
    ContradictionCertificate,
    InvalidInput,
    SessionSummary,
    TurnEvent,
    TurnScore,
    dump_record,
)
from monitor.engine import order
from monitor.engine.state import ConversationState
from monitor.formats import INPUT_FORMATS, LineReader
from monitor.inputs import InputError, check_input_file, decode_line, read_input_file

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Real-time dialogue quality monitor (SKG-Eval, MFSS, ConflictScore).")
bench_app = typer.Typer(no_args_is_help=True, help="Benchmarks: each prints and writes JSON.")
app.add_typer(bench_app, name="bench")

PROGRESS_MIN_LINES = 300
BATCH = 64
err = Console(stderr=True)


def load_config(path: Path | None) -> EngineConfig:
    if path is None:
        return EngineConfig()
    return EngineConfig.model_validate_json(path.read_text(encoding="utf-8"))


def read_lines(source: str) -> list[bytes]:
    """The input's lines as bytes: each line is decoded on its own, so one line that is
    not UTF-8 is one `invalid` record, not the end of the run."""
    # a file that cannot be read: InputFileError, one line and exit 2 (guard_file_errors)
    data = sys.stdin.buffer.read() if source == "-" else read_input_file(source)
    return [line.removesuffix(b"\r") for line in data.split(b"\n")]


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
) -> list[ScoreRecord]:
    """Score parsed input in order; the same function the tests compare the worker with."""
    from monitor.engine import build_engine

    engine = build_engine(config)
    states: dict[str, ConversationState] = {}
    out: list[ScoreRecord] = []
    with Progress(console=err, disable=not progress, transient=True) as bar:
        task = bar.add_task("scoring", total=len(items))
        for start in range(0, len(items), BATCH):
            chunk = reject_misordered(items[start : start + BATCH], states)
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


@app.command()
def score(
    input: Annotated[str, typer.Argument(help="JSON Lines of TurnEvent, or - for stdin")],
    output: Annotated[Path | None, typer.Option(help="write here instead of stdout")] = None,
    format: Annotated[str, typer.Option(help="jsonl or table")] = "jsonl",
    config: Annotated[Path | None, typer.Option(help="EngineConfig JSON")] = None,
    input_format: Annotated[str, typer.Option(
        help="turns (TurnEvent), openai (conversation_id + messages) or auto (per line)")
    ] = "auto",
) -> None:
    """Score conversations offline: one turn_score per assistant turn, certificates,
    one session record per conversation, and an invalid record per bad line (exit 1)."""
    if format not in {"jsonl", "table"}:
        raise typer.BadParameter("--format must be jsonl or table")
    if input_format not in INPUT_FORMATS:
        raise typer.BadParameter(f"--input-format must be one of {', '.join(INPUT_FORMATS)}")
    lines = read_lines(input)
    items = list(parse_lines(lines, input_format))
    records = score_events(items, load_config(config), progress=len(lines) > PROGRESS_MIN_LINES)
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


@app.command()
def schemas(out: Annotated[Path, typer.Option(help="directory")] = Path("schemas")) -> None:
    """Write the JSON Schema of every message to OUT/<name>.schema.json."""
    out.mkdir(parents=True, exist_ok=True)
    for name, model in SCHEMA_MODELS.items():
        text = json.dumps(model.model_json_schema(mode="serialization"), indent=2,
                          sort_keys=True)
        (out / f"{name}.schema.json").write_text(text + "\n", encoding="utf-8")
    typer.echo(f"wrote {len(SCHEMA_MODELS)} schemas to {out}")


def write_result(name: str, result: dict[str, Any], path: Path | None) -> None:
    """Benchmarks print their numbers and write them as JSON (default benchmarks/results/)."""
    target = path or Path("benchmarks/results") / f"{name}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    typer.echo(json.dumps(result, indent=2, sort_keys=True))
    typer.echo(f"written to {target}")


@bench_app.command("engine")
def bench_engine(
    conversations: int = 200,
    turns: int = 40,
    real: Annotated[str | None, typer.Option(
        help="also time real conversations: MT-Bench-101's mtbench101.jsonl")] = None,
    output: Path | None = None,
) -> None:
    """Throughput, latency at turn 10 vs 200, state size at 100 and 1,000 turns, and
    (with --real) throughput on real GPT-4 answers."""
    from monitor.bench.engine import run_engine_bench

    if real is not None:
        check_input_file(real)  # before the minutes of the synthetic part
    write_result("engine", run_engine_bench(conversations, turns, real), output)


@bench_app.command("probe")
def bench_probe(
    turns: Path = Path("benchmarks/probe/turns.jsonl"),
    labels: Path = Path("benchmarks/probe/labels.jsonl"),
    output: Path | None = None,
) -> None:
    """Precision, recall and F1 per category on the labelled probe suite."""
    from monitor.bench.probe import run_probe_bench

    write_result("probe", run_probe_bench(turns, labels), output)


@bench_app.command("pairs")
def bench_pairs(
    file: Annotated[Path, typer.Argument(help="ProSeCCo_final.jsonl")],
    limit: int = 0,
    output: Path | None = None,
) -> None:
    """ProSeCCo self-contradiction pairs: precision, recall, F1, MCC."""
    from monitor.bench.pairs import run_pairs_bench

    write_result("pairs", run_pairs_bench(file, limit), output)


@bench_app.command("real")
def bench_real(
    file: Annotated[Path, typer.Argument(help="mtbench101.jsonl (MT-Bench-101)")],
    certificates: Path = Path("benchmarks/results/real-certificates.jsonl"),
    judgements: Path = Path("benchmarks/real/judgements.jsonl"),
    task: Annotated[list[str] | None, typer.Option(help="only these tasks")] = None,
    limit: int = 0,
    output: Path | None = None,
) -> None:
    """Pages per 100 assistant turns on real GPT-4 conversations, and judged precision."""
    from monitor.bench.real import run_real_bench

    write_result("real", run_real_bench(file, certificates, judgements,
                                        set(task) if task else None, limit), output)


@bench_app.command("blind")
def bench_blind(
    turns: Path = Path("benchmarks/probe_blind/turns.jsonl"),
    labels: Path = Path("benchmarks/probe_blind/labels.jsonl"),
    split: Annotated[str, typer.Option(help="test, dev or all")] = "test",
    output: Path | None = None,
) -> None:
    """Precision and recall on the blind natural-style probe (report the test split)."""
    from monitor.bench.blind import run_blind_bench

    name = "blind" if split == "test" else f"blind-{split}"
    write_result(name, run_blind_bench(turns, labels, split), output)


@bench_app.command("trend")
def bench_trend(
    file: Annotated[Path, typer.Argument(help="MT-Bench-101 mtbench101.jsonl")],
    limit: Annotated[int, typer.Option(help="score a fixed random subset of N dialogues")] = 0,
    swaps: Annotated[int, typer.Option(help="dialogues copied with one answer swapped")] = 100,
    output: Path | None = None,
) -> None:
    """Share of conversations ending DEGRADING, drift per 100 turns (topic-shift task and
    the rest), recall on constructed assistant drift, and a sample of DEGRADING ones."""
    from monitor.bench.mtbench import run_trend_bench

    write_result("trend", run_trend_bench(file, limit, swaps), output)


@bench_app.command("human")
def bench_human(
    fed: Annotated[Path | None, typer.Option(help="FED fed_data.json")] = None,
    usr: Annotated[Path | None, typer.Option(help="USR pc_usr_data.json (PersonaChat)")] = None,
    output: Path | None = None,
) -> None:
    """Spearman and Kendall correlation of quality and each signal with human turn ratings
    (FED, USR-PersonaChat), beside published and word-overlap baselines."""
    from monitor.bench.human import run_human_bench

    write_result("human", run_human_bench(fed, usr), output)


def _register_commands() -> None:
    """The streaming and quality commands live beside the code they drive."""
    from monitor.quality import commands as quality_commands
    from monitor.report import commands as report_commands
    from monitor.stream import commands as stream_commands

    stream_commands.register(app, bench_app)
    quality_commands.register(app, bench_app)
    report_commands.register(app, bench_app)
    stream_commands.guard_file_errors(app)  # a file it cannot read: one line, exit 2


_register_commands()

if __name__ == "__main__":
    app()
