"""`skg-monitor bench ...`: every benchmark (monitor.bench); each prints and writes JSON."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from monitor.runner.offline import write_result as _write_result

if TYPE_CHECKING:
    from monitor.engine.protocols import Verifier

app = typer.Typer(no_args_is_help=True, help="Benchmarks: each prints and writes JSON.")


def write_result(name: str, result: dict[str, Any], output: Path | None) -> None:
    """Every benchmark's JSON says which machine printed it (`monitor.bench.machine`):
    speed, and the verifier's last decimals, depend on the CPU's int8 instructions."""
    from monitor.bench import machine

    result.setdefault("machine", machine.describe())
    _write_result(name, result, output)


DevSplit = Annotated[str, typer.Option(help="dev (choose models here), test or all")]
ModelDir = Annotated[Path | None, typer.Option(
    help="a verifier folder (model, tokenizer, card) other than the shipped one")]


def _candidate(model_dir: Path | None) -> Verifier | None:
    """A verifier being chosen, loaded from its folder; None means the shipped one."""
    from monitor.engine.verifier import OnnxVerifier

    return OnnxVerifier(model_dir) if model_dir else None


_MTBENCH = Path("../shared/data/mtbench101/mtbench101.jsonl")


@app.command("engine")
def bench_engine(
    conversations: Annotated[int, typer.Option(help="generated: conversations")] = 100,
    turns: Annotated[int, typer.Option(help="generated: turns per conversation")] = 20,
    real: Annotated[str | None, typer.Option(
        help="MT-Bench-101's mtbench101.jsonl (default: ../shared/data/mtbench101/, "
             "skipped if absent)")] = None,
    real_limit: Annotated[int, typer.Option(help="MT-Bench-101: conversations")] = 300,
    long_conversations: Annotated[int, typer.Option(help="long Markdown: conversations")] = 40,
    long_answers: Annotated[int, typer.Option(help="long Markdown: answers each")] = 3,
    repeats: Annotated[int, typer.Option(help="timed runs per workload (median)")] = 3,
    long_turns: Annotated[int, typer.Option(help="turns of the latency-growth run")] = 2_000,
    workload: Annotated[list[str] | None, typer.Option(
        help="only these: generated, mtbench101, long_markdown")] = None,
    profile: Annotated[bool, typer.Option(help="profile one more run per workload")] = True,
    verifier_cost: Annotated[bool, typer.Option(
        help="MT-Bench-101: the verifier's ms per turn, one event at a time")] = True,
    quick: Annotated[bool, typer.Option(
        help="small sizes, one repeat (about a minute): replaces the size options")] = False,
    output: Path | None = None,
) -> None:
    """Three workloads (generated turns, MT-Bench-101, long Markdown answers): throughput,
    latency, the floor (the models alone on the same work), engine/floor and a profile;
    latency at turn 10 vs 200 and state size at 100 and 1,000 turns."""
    from monitor.bench.engine import WORKLOADS, BenchSizes, run_engine_bench
    from monitor.inputs import check_input_file

    if real is not None:
        check_input_file(real)  # before the minutes of the synthetic part
    elif _MTBENCH.is_file():
        real = str(_MTBENCH)
    chosen = tuple(workload) if workload else WORKLOADS
    unknown = [w for w in chosen if w not in WORKLOADS]
    if unknown:
        raise typer.BadParameter(f"unknown workload {unknown[0]!r}", param_hint="--workload")
    sizes = BenchSizes.quick() if quick else BenchSizes(
        conversations, turns, real_limit, long_conversations, long_answers, repeats, long_turns)
    sizes = replace(sizes, profile=profile, verifier_cost=verifier_cost and sizes.verifier_cost)
    write_result("engine", run_engine_bench(sizes, real, chosen), output)


@app.command("verifier")
def bench_verifier(
    data: Annotated[Path, typer.Argument(help="the NLI pairs (../shared/data/nli/pairs.jsonl)")]
    = Path("../shared/data/nli/pairs.jsonl"),
    limit: int = 0,
    assistant: Annotated[Path, typer.Option(
        help="assistant-style pairs; their held-back fifth is the source assistant_style")]
    = Path("training/data/assistant_pairs.jsonl"),
    chats: Annotated[Path, typer.Option(
        help="pairs of the written chats; their held-back fifth is the source assistant_chats")]
    = Path("training/data/chat_pairs.jsonl"),
    output: Path | None = None,
) -> None:
    """The shipped verifier on its held-back dev split: 3-way accuracy and contradiction
    precision/recall/F1 per source, the calibrated page threshold, cost per pair."""
    from monitor.bench.verifier import run_verifier_bench

    write_result("verifier", run_verifier_bench(data, limit, assistant, chats), output)


@app.command("probe")
def bench_probe(
    turns: Path = Path("benchmarks/probe/turns.jsonl"),
    labels: Path = Path("benchmarks/probe/labels.jsonl"),
    output: Path | None = None,
) -> None:
    """Precision, recall and F1 per category on the labelled probe suite."""
    from monitor.bench.probe import run_probe_bench

    write_result("probe", run_probe_bench(turns, labels), output)


@app.command("pairs")
def bench_pairs(
    file: Annotated[Path, typer.Argument(help="ProSeCCo_final.jsonl")],
    limit: int = 0,
    output: Path | None = None,
) -> None:
    """ProSeCCo self-contradiction pairs: precision, recall, F1, MCC."""
    from monitor.bench.pairs import run_pairs_bench

    write_result("pairs", run_pairs_bench(file, limit), output)


@app.command("real")
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


TestSplit = Annotated[str, typer.Option(help="test, dev or all")]


def _labelled(name: str, turns: Path, labels: Path, split: str, output: Path | None) -> None:
    """A set of labelled conversations scored as the blind probe is: `name` for the test
    split, `name-<split>` for another."""
    from monitor.bench.blind import run_blind_bench

    write_result(name if split == "test" else f"{name}-{split}",
                 run_blind_bench(turns, labels, split), output)


@app.command("blind")
def bench_blind(
    turns: Path = Path("benchmarks/probe_blind/turns.jsonl"),
    labels: Path = Path("benchmarks/probe_blind/labels.jsonl"),
    split: TestSplit = "test",
    output: Path | None = None,
) -> None:
    """Precision and recall on the blind natural-style probe (report the test split)."""
    _labelled("blind", turns, labels, split, output)


@app.command("amounts")
def bench_amounts(
    turns: Path = Path("benchmarks/amounts_blind/turns.jsonl"),
    labels: Path = Path("benchmarks/amounts_blind/labels.jsonl"),
    split: TestSplit = "test",
    output: Path | None = None,
) -> None:
    """Amounts said again differently, against amounts for different things: the blind
    probe's scoring on short conversations written blind (report the test split)."""
    _labelled("amounts", turns, labels, split, output)


@app.command("userfacts")
def bench_userfacts(
    turns: Path = Path("benchmarks/user_facts_blind/turns.jsonl"),
    labels: Path = Path("benchmarks/user_facts_blind/labels.jsonl"),
    split: TestSplit = "test",
    output: Path | None = None,
) -> None:
    """What users say of themselves, the rules they set and the updates they make, broken
    in passing by a later answer, against look-alikes that keep to them: the blind probe's
    scoring on sets written blind (report the test split)."""
    _labelled("userfacts", turns, labels, split, output)


@app.command("evidence")
def bench_evidence(
    turns: Path = Path("benchmarks/probe_blind/turns.jsonl"),
    labels: Path = Path("benchmarks/probe_blind/labels.jsonl"),
    split: DevSplit = "dev",
    model_dir: ModelDir = None,
    output: Path | None = None,
) -> None:
    """The verifier alone on the blind probe's sentences: labelled contradictions against
    the near pairs of clean conversations (ROC AUC, counts over thresholds)."""
    from monitor.bench.evidence import run_evidence_bench

    write_result(f"evidence-{split}",
                 run_evidence_bench(turns, labels, split, _candidate(model_dir)), output)


@app.command("funnel")
def bench_funnel(
    turns: Path = Path("benchmarks/probe_blind/turns.jsonl"),
    labels: Path = Path("benchmarks/probe_blind/labels.jsonl"),
    split: DevSplit = "dev",
    model_dir: ModelDir = None,
    output: Path | None = None,
) -> None:
    """Where the blind probe's labelled contradictions are lost: not asserted, vetoed, the
    candidate bounds, the verifier, or after it."""
    from monitor.bench.funnel import run_funnel_bench

    name = "funnel" if split == "test" else f"funnel-{split}"
    write_result(name, run_funnel_bench(turns, labels, split, _candidate(model_dir)), output)


@app.command("trend")
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


@app.command("human")
def bench_human(
    fed: Annotated[Path | None, typer.Option(help="FED fed_data.json")] = None,
    usr: Annotated[Path | None, typer.Option(help="USR pc_usr_data.json (PersonaChat)")] = None,
    output: Path | None = None,
) -> None:
    """Spearman and Kendall correlation of quality and each signal with human turn ratings
    (FED, USR-PersonaChat), beside published and word-overlap baselines."""
    from monitor.bench.human import run_human_bench

    write_result("human", run_human_bench(fed, usr), output)


@app.command("stream")
def bench_stream(
    turns: Annotated[int, typer.Option(help="total turns in the replay")] = 10_000,
    conversations: Annotated[int, typer.Option(help="conversations")] = 250,
    workers: Annotated[int, typer.Option(
        min=1, max=16, help="worker processes of one group (one per core: the combined "
                           "rate of a host; results in stream-workers-N.json)")] = 1,
    output: Path | None = None,
) -> None:
    """End-to-end throughput and produce->score latency vs a forward-only ceiling."""
    from monitor.bench.stream import run_stream_bench

    name = "stream" if workers == 1 else f"stream-workers-{workers}"
    write_result(name, run_stream_bench(turns, conversations, workers), output)


@app.command("heavy")
def bench_heavy(
    repeats: Annotated[int, typer.Option(help="offline runs (median reported)")] = 3,
    stream: Annotated[bool, typer.Option(help="also measure on a live worker")] = True,
    output: Path | None = None,
) -> None:
    """The 238 KB turn: engine time offline, and the delay it causes other conversations."""
    from monitor.bench.stream_heavy import run_heavy_bench

    write_result("heavy", run_heavy_bench(repeats, stream), output)


@app.command("report")
def bench_report(
    scores: Annotated[Path, typer.Argument(help="scored conversations to replicate")],
    events: Annotated[Path | None, typer.Option(help="their TurnEvents")] = None,
    conversations: int = 1000,
    output: Path | None = None,
) -> None:
    """Size and opening time in headless Chromium of a report of N conversations."""
    from monitor.bench.report import run_report_bench

    write_result("report", run_report_bench(scores, events, conversations), output)


@app.command("truthfulqa")
def bench_truthfulqa(
    file: Annotated[Path, typer.Argument(help="TruthfulQA.csv")],
    limit: int = 0,
    output: Path | None = None,
) -> None:
    """MFSS ROC AUC (correct vs incorrect answers) and ConflictScore label shares."""
    from monitor.bench.truthfulqa import run_truthfulqa_bench

    write_result("truthfulqa", run_truthfulqa_bench(file, limit), output)


@app.command("startup")
def bench_startup(repeats: int = 5, output: Path | None = None) -> None:
    """Wall time and peak RSS of fresh processes (median of REPEATS): `score` on a file of
    one exchange (every model loaded, one turn scored), `schemas` and `--help`."""
    from monitor.bench.startup import run_startup_bench

    write_result("startup", run_startup_bench(repeats), output)


@app.command("state-codec")
def bench_state_codec(
    mtbench: Annotated[Path, typer.Option(help="MT-Bench-101's mtbench101.jsonl (skipped "
                                                "where absent)")]
    = Path("../shared/data/mtbench101/mtbench101.jsonl"),
    limit: int = 60,
    repeats: int = 7,
    output: Path | None = None,
) -> None:
    """Time and size of the stored state's encodings (json/orjson/msgpack, raw/zlib/zstd) on
    real states: the longest MT-Bench-101 conversations and generated ones of 20 and 200
    turns."""
    from monitor.bench.state_codec import run_state_codec_bench

    write_result("state-codec", run_state_codec_bench(mtbench, limit, repeats), output)
