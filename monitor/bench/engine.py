"""Engine benchmark: throughput against the floor of its models, latency growth, state size.

Three workloads, each timed the same way (`run_workload`):

* generated: customer-support style conversations from a fixed seed, short turns whose
  sentences carry facts the extractor picks up (properties, prices, times, places);
* MT-Bench-101: real multi-turn conversations whose assistant turns GPT-4 wrote;
* long Markdown: generated answers of 500-1,500 words (`monitor.bench.longform`).

Beside throughput (assistant turns per second, median of repeats) each workload reports its
**floor**, measured in the same run: what the three models alone cost on exactly the work the
engine gave them. The run records the texts the extractor handed to spaCy, the texts the
embedder's cache passed to the model and the pairs sent to the verifier; afterwards spaCy
parses those texts once, the model embeds them once (one call, no cache) and a fresh
verifier judges those pairs once. engine seconds / floor seconds says how close the engine
is to what its models cost; a profile (`monitor.bench.profile`) of one more run says where
the rest goes. Medians are reported because the machine is shared and noisy; the latency
ratio compares two windows of the same run, and `monitor.bench.growth` the same real turns
early and late.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

from monitor.bench import machine
from monitor.bench.models import Models, default_models, fresh_verifier
from monitor.contracts import Role, TurnEvent
from monitor.engine.extract import PARSE_BATCH
from monitor.engine.protocols import Embedder, Vectors, Verifier

_ENTITIES = ["hotel", "museum", "restaurant", "train", "flight", "gym", "clinic", "library",
             "bakery", "pharmacy", "ferry", "tour", "gallery", "market", "pool", "spa",
             "theatre", "garage", "office", "school", "park", "bridge", "station", "shop"]
_ADJECTIVES = ["open", "busy", "quiet", "expensive", "cheap", "crowded", "clean", "new",
               "old", "large", "small", "popular", "modern", "warm", "bright", "safe"]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_CITIES = ["Lisbon", "Porto", "Madrid", "Seville", "Paris", "Lyon", "Rome", "Milan",
           "Berlin", "Munich", "Vienna", "Prague", "Dublin", "Oslo", "Bergen", "Faro"]
_USER_TEMPLATES = [
    "Is the {e} {a} on {d}?",
    "How much does the {e} in {c} cost?",
    "I live in {c} and I want to visit the {e} next week.",
    "My budget is {n} euros for the {e}.",
    "When does the {e} open on {d}?",
    "Can you tell me more about the {e} near the {e2}?",
]
_ASSISTANT_TEMPLATES = [
    "The {e} is {a} on {d}. You can also visit the {e2} in {c}, which is {a2} in the morning.",
    "The {e} in {c} costs {n} euros per person. The {e2} is usually {a2} at weekends.",
    "The {e} opens at {h}:{m:02d} on {d}. I recommend arriving early because it gets {a}.",
    "Since you live in {c}, the {e} is about {k} minutes away by train. "
    "The {e2} is {a2} and well reviewed.",
    "The {e} has {k} rooms and a small garden. It is {a} and close to the {e2}.",
    "You can book the {e} online. The price is {n} euros and the {e2} is {a2} on {d}.",
]


def _fill(template: str, rng: random.Random) -> str:
    return template.format(
        e=rng.choice(_ENTITIES), e2=rng.choice(_ENTITIES), a=rng.choice(_ADJECTIVES),
        a2=rng.choice(_ADJECTIVES), d=rng.choice(_DAYS), c=rng.choice(_CITIES),
        n=rng.randrange(20, 2000), h=rng.randrange(7, 21), m=rng.choice([0, 15, 30, 45]),
        k=rng.randrange(2, 60),
    )


def generate_conversation(cid: str, turns: int, seed: int) -> list[TurnEvent]:
    rng = random.Random(seed)
    events = []
    for i in range(turns):
        role: Role = "user" if i % 2 == 0 else "assistant"
        templates = _USER_TEMPLATES if role == "user" else _ASSISTANT_TEMPLATES
        events.append(TurnEvent(conversation_id=cid, turn_index=i, role=role,
                                text=_fill(rng.choice(templates), rng)))
    return events


def generate_workload(conversations: int, turns: int, seed: int = 7) -> list[TurnEvent]:
    """Conversations interleaved turn by turn, as they would arrive on a topic."""
    convs = [generate_conversation(f"bench-{i:04d}", turns, seed * 100_003 + i)
             for i in range(conversations)]
    return [conv[t] for t in range(turns) for conv in convs]


class TimedVerifier:
    """A verifier that adds up the seconds spent in it (to price it per assistant turn) and
    keeps the pairs it was asked to judge (the floor judges them again)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.pairs = 0
        self.judged: list[tuple[str, str]] = []

    @property
    def model_id(self) -> str:
        return str(self.inner.model_id)

    def judge(self, pairs: Any) -> Any:
        started = time.perf_counter()
        try:
            return self.inner.judge(pairs)
        finally:
            self.seconds += time.perf_counter() - started
            self.pairs += len(pairs)
            self.judged.extend(pairs)


class RecordingEmbedder:
    """Sits between the engine's text cache and the model: keeps the texts the model had to
    embed (the cache's misses) and the seconds spent in it."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.calls = 0
        self.texts: list[str] = []

    @property
    def dim(self) -> int:
        return self.inner.dim

    @property
    def name(self) -> str:
        return self.inner.name

    def embed(self, texts: Sequence[str]) -> Vectors:
        started = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - started
            self.calls += 1
            self.texts.extend(texts)


class RecordingNlp:
    """Stands in for the extractor's spaCy pipeline: parses, and keeps the texts and seconds.
    Any other attribute is the pipeline's own."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.texts: list[str] = []

    def pipe(self, texts: Any, **kwargs: Any) -> list[Any]:
        texts = list(texts)
        started = time.perf_counter()
        docs = list(self.inner.pipe(texts, **kwargs))
        self.seconds += time.perf_counter() - started
        self.texts.extend(texts)
        return docs

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@contextmanager
def recording_parse(extractor: Any) -> Iterator[RecordingNlp | None]:
    """Record what `extractor` parses, for the time of the block (the rule extractor's
    spaCy pipeline is its `nlp`); an extractor without one (a fake in tests) is run as it
    is and yields None."""
    inner = getattr(extractor, "nlp", None)
    if inner is None:
        yield None
        return
    recorder = RecordingNlp(inner)
    extractor.nlp = recorder
    try:
        yield recorder
    finally:
        extractor.nlp = inner


@dataclass
class Run:
    """One timed pass of a workload through a fresh engine, and what it asked of its models."""

    seconds: float
    assistant_turns: int
    batch_seconds: list[float]
    turn_seconds: list[float]
    """Each assistant turn's own time (TurnOutcome.seconds: the batch's shared parse and
    embedding excluded)."""
    parsed: list[str] = field(default_factory=list)
    embedded: list[str] = field(default_factory=list)
    judged: list[tuple[str, str]] = field(default_factory=list)
    in_models: dict[str, float] = field(default_factory=dict)
    cut_chars: int = 0


def timed_run(events: Sequence[TurnEvent], models: Models, batch: int = 64,
              verifier: Verifier | None = None) -> Run:
    """Events in batches of `batch` through an engine on fresh caches, as the worker does
    (`verifier`: a fresh one made beforehand, else one is made here)."""
    from monitor.engine.embedder import CachedEmbedder
    from monitor.engine.state import ConversationState
    from monitor.runner.build import build_engine

    recorded = RecordingEmbedder(models.embedder)
    timed = TimedVerifier(verifier or fresh_verifier(models))
    engine = build_engine(embedder=CachedEmbedder(recorded), extractor=models.extractor,
                          verifier=timed)
    states: dict[str, ConversationState] = {}
    batches: list[float] = []
    own: list[float] = []
    cut = 0
    with recording_parse(models.extractor) as parse:
        started = time.perf_counter()
        for start in range(0, len(events), batch):
            t0 = time.perf_counter()
            outcomes = engine.process_batch(events[start : start + batch], states)
            batches.append(time.perf_counter() - t0)
            own.extend(o.seconds for o in outcomes if o.event.role == "assistant")
            cut += sum(o.cut.get("text_chars", 0) for o in outcomes)
        seconds = time.perf_counter() - started
    return Run(
        seconds=seconds, assistant_turns=sum(1 for e in events if e.role == "assistant"),
        batch_seconds=batches, turn_seconds=own,
        parsed=parse.texts if parse is not None else [], embedded=recorded.texts,
        judged=timed.judged,
        in_models={"parse_s": parse.seconds if parse is not None else 0.0,
                   "embed_s": recorded.seconds, "verify_s": timed.seconds},
        cut_chars=cut,
    )


def measure_floor(run: Run, models: Models) -> dict[str, Any]:
    """The models alone on the run's work: spaCy parses the texts the extractor parsed, the
    model embeds each text it embedded once, in one call, and a fresh verifier judges each
    pair once, in one call. Nothing else runs."""
    nlp = getattr(models.extractor, "nlp", None)
    texts = list(dict.fromkeys(run.embedded))
    pairs = list(dict.fromkeys(run.judged))
    verifier = fresh_verifier(models)
    parse_s = 0.0
    if nlp is not None and run.parsed:
        started = time.perf_counter()
        list(nlp.pipe(run.parsed, batch_size=PARSE_BATCH))
        parse_s = time.perf_counter() - started
    started = time.perf_counter()
    if texts:
        models.embedder.embed(texts)
    embed_s = time.perf_counter() - started
    started = time.perf_counter()
    if pairs:
        verifier.judge(pairs)
    verify_s = time.perf_counter() - started
    return {"parse_s": parse_s, "embed_s": embed_s, "verify_s": verify_s,
            "total_s": parse_s + embed_s + verify_s, "texts_parsed": len(run.parsed),
            "texts_embedded": len(texts), "pairs_judged": len(pairs)}


def _ms(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return round(1000 * ordered[int(q * (len(ordered) - 1))], 3) if ordered else 0.0


def _median_of(rows: Sequence[dict[str, Any]], key: str) -> float:
    return round(statistics.median(float(r[key]) for r in rows), 4)


_PROFILE_STAGES = {
    # the wrappers above, and the pool threads that run the models' sessions
    "verifier": ("TimedVerifier.judge (monitor/bench/engine.py)",
                 "._run (monitor/engine/verifier.py)"),
    "embedder model": ("RecordingEmbedder.embed (monitor/bench/engine.py)",
                       "._run_batch (monitor/engine/embedder.py)"),
    "spacy parse": ("RecordingNlp.pipe (monitor/bench/engine.py)",),
}


def run_workload(events: Sequence[TurnEvent], models: Models, repeats: int = 3,
                 profiled: bool = True) -> dict[str, Any]:
    """Throughput, latency and the floor of `repeats` timed runs (medians), and a profile
    of one more run."""
    runs: list[Run] = []
    floors: list[dict[str, Any]] = []
    for _ in range(max(1, repeats)):
        runs.append(timed_run(events, models))
        floors.append(measure_floor(runs[-1], models))
    rates = [r.assistant_turns / r.seconds for r in runs]
    ratios = [r.seconds / f["total_s"] if f["total_s"] else float("inf")
              for r, f in zip(runs, floors, strict=True)]
    middle = sorted(range(len(runs)), key=lambda i: rates[i])[len(runs) // 2]
    run = runs[middle]
    assistant = [e for e in events if e.role == "assistant"]
    result: dict[str, Any] = {
        "workload": {
            "events": len(events), "assistant_turns": run.assistant_turns,
            "conversations": len({e.conversation_id for e in events}),
            "median_assistant_chars": statistics.median(len(e.text) for e in assistant)
            if assistant else 0,
            "chars_cut_by_bounds": run.cut_chars,
        },
        "assistant_turns_per_s": round(statistics.median(rates), 1),
        "repeats_assistant_turns_per_s": [round(r, 1) for r in rates],
        "engine_s_median": round(statistics.median(r.seconds for r in runs), 3),
        "latency_ms": {
            "batch_of_64_median": _ms(run.batch_seconds, 0.5),
            "batch_of_64_p90": _ms(run.batch_seconds, 0.9),
            "assistant_turn_own_median": _ms(run.turn_seconds, 0.5),
            "assistant_turn_own_p90": _ms(run.turn_seconds, 0.9),
        },
        "floor": {**{k: _median_of(floors, k) for k in
                     ("parse_s", "embed_s", "verify_s", "total_s")},
                  **{k: floors[middle][k] for k in
                     ("texts_parsed", "texts_embedded", "pairs_judged")}},
        "in_models_s": {k: round(v, 4) for k, v in run.in_models.items()},
        "engine_over_floor": round(statistics.median(ratios), 3),
        "repeats_engine_over_floor": [round(r, 3) for r in ratios],
    }
    # each repeat's ratio pairs a run with the floor measured right after it (the same
    # load); the ratio of the medians is given too, since the two can differ on a busy host
    floor_s = result["floor"]["total_s"]
    result["engine_over_floor_of_medians"] = (
        round(result["engine_s_median"] / floor_s, 3) if floor_s else None)
    result["engine_rest_s"] = round(run.seconds - sum(run.in_models.values()), 3)
    if profiled:
        from monitor.bench.profile import profile

        fresh = fresh_verifier(models)  # loaded outside the profile
        result["profile"] = profile(lambda: timed_run(events, models, verifier=fresh),
                                    top=15, stages=_PROFILE_STAGES)
    return result


def verifier_cost(path: str, models: Models, limit: int = 200) -> dict[str, Any]:
    """Milliseconds the verifier adds to each assistant turn of MT-Bench-101 (cold cache,
    one event at a time so that each turn's share is its own)."""
    from pathlib import Path

    from monitor.bench.real import load_rows, mtbench_events
    from monitor.engine.embedder import CachedEmbedder
    from monitor.engine.state import ConversationState
    from monitor.runner.build import build_engine

    timed = TimedVerifier(fresh_verifier(models))
    engine = build_engine(embedder=CachedEmbedder(models.embedder),
                          extractor=models.extractor, verifier=timed)
    states: dict[str, ConversationState] = {}
    per_turn: list[float] = []
    pairs: list[int] = []
    for event in mtbench_events(load_rows(Path(path), limit=limit)):
        before, calls = timed.seconds, timed.pairs
        engine.process_batch([event], states)
        if event.role == "assistant":
            per_turn.append(1000 * (timed.seconds - before))
            pairs.append(timed.pairs - calls)
    per_turn.sort()
    return {
        "assistant_turns": len(per_turn),
        "verifier_ms_per_turn_median": round(statistics.median(per_turn), 3),
        "verifier_ms_per_turn_p90": round(per_turn[int(0.9 * (len(per_turn) - 1))], 3),
        "verifier_ms_per_turn_mean": round(statistics.fmean(per_turn), 3),
        "verifier_calls_per_turn_median": statistics.median(pairs),
        "target_median_ms": "<= 20",
    }


def latency_growth(models: Models, turns: int = 2_000) -> dict[str, Any]:
    """One generated conversation of `turns` turns, one event at a time: the median time of
    the assistant turns around turn 10, 200 and 1,000, and the state's size on the way."""
    import json

    from monitor.engine.embedder import CachedEmbedder
    from monitor.runner.build import build_engine

    engine = build_engine(embedder=CachedEmbedder(models.embedder),
                          extractor=models.extractor, verifier=fresh_verifier(models))
    long_conv = generate_conversation("bench-long", turns, 99)
    state = engine.new_state("bench-long")
    per_turn: dict[int, float] = {}
    sizes: dict[int, dict[str, int]] = {}
    for event in long_conv:
        t0 = time.perf_counter()
        engine.process(state, event)
        per_turn[event.turn_index] = time.perf_counter() - t0
        if event.turn_index + 1 in (100, 1000, 2000):
            raw = len(state.to_bytes())
            plain = len(json.dumps(state.to_plain(), separators=(",", ":")))
            sizes[event.turn_index + 1] = {"stored_bytes": raw, "json_bytes": plain}

    def window(center: int, width: int = 20) -> float | None:
        samples = [per_turn[i] for i in range(center - width, center + width + 1)
                   if i in per_turn and long_conv[i].role == "assistant"]
        return round(statistics.median(samples) * 1000.0, 3) if samples else None

    at10, at200 = window(10, 9), window(200, 9)
    return {
        "latency_ms": {"turns": turns, "turn_10_median": at10, "turn_200_median": at200,
                       "turn_1000_median": window(1000),
                       "ratio_200_over_10": round(at200 / at10, 3) if at10 and at200 else None},
        "state": sizes,
    }


WORKLOADS = ("generated", "mtbench101", "long_markdown")


@dataclass(frozen=True)
class BenchSizes:
    """How much of each workload a run takes (`quick()`: a run of about a minute)."""

    conversations: int = 100
    turns: int = 20
    real_limit: int = 300
    long_conversations: int = 40
    long_answers: int = 3
    repeats: int = 3
    long_turns: int = 2_000
    verifier_cost: bool = True
    profile: bool = True
    growth_probes: int = 5
    """MT-Bench-101 probes timed early and late (`monitor.bench.growth`); 0: none."""

    @classmethod
    def quick(cls) -> BenchSizes:
        return cls(conversations=40, turns=20, real_limit=60, long_conversations=12,
                   long_answers=2, repeats=1, long_turns=240, verifier_cost=False,
                   growth_probes=1)


def workload_events(name: str, sizes: BenchSizes, real: str | None) -> list[TurnEvent]:
    """The events of one named workload."""
    if name == "generated":
        return generate_workload(sizes.conversations, sizes.turns)
    if name == "long_markdown":
        from monitor.bench.longform import generate_long_workload

        return generate_long_workload(sizes.long_conversations, sizes.long_answers)
    if name == "mtbench101":
        from pathlib import Path

        from monitor.bench.real import load_rows, mtbench_events

        if real is None:
            raise ValueError("the MT-Bench-101 workload needs its file (--real)")
        return mtbench_events(load_rows(Path(real), limit=sizes.real_limit))
    raise ValueError(f"unknown workload {name!r}; one of {', '.join(WORKLOADS)}")


def _summary(result: dict[str, Any]) -> dict[str, Any]:
    return {"assistant_turns_per_s": result["assistant_turns_per_s"],
            "engine_s": result["engine_s_median"], "floor_s": result["floor"]["total_s"],
            "engine_over_floor": result["engine_over_floor"]}


def run_engine_bench(sizes: BenchSizes | None = None, real: str | None = None,
                     workloads: Sequence[str] = WORKLOADS,
                     models: Models | None = None) -> dict[str, Any]:
    """Every workload (`run_workload`), the latency growth of one long conversation and,
    with MT-Bench-101, the verifier's cost per turn. A workload that needs a file that is
    not given is reported as skipped."""
    import os

    load_before = os.getloadavg()
    sizes = sizes or BenchSizes()
    models = models or default_models()
    timed_run(generate_conversation("warmup", 6, 1), models)  # models loaded and warm
    results: dict[str, Any] = {}
    for name in workloads:
        if name == "mtbench101" and real is None:
            results[name] = {"skipped": "no MT-Bench-101 file (--real)"}
            continue
        results[name] = run_workload(workload_events(name, sizes, real), models,
                                     sizes.repeats, sizes.profile)
    growth = latency_growth(models, sizes.long_turns)
    growth_real = None
    if real is not None and sizes.growth_probes:
        from pathlib import Path

        from monitor.bench.growth import real_latency_growth
        from monitor.bench.real import load_rows

        growth_real = real_latency_growth(models, load_rows(Path(real)), sizes.growth_probes)
    verifier = (verifier_cost(real, models)
                if real is not None and sizes.verifier_cost else None)
    return {
        "machine": machine.describe(load_before),
        "sizes": asdict(sizes),
        "summary": {name: _summary(r) for name, r in results.items() if "floor" in r},
        "workloads": results,
        **growth,
        "latency_real_text": growth_real,
        "mtbench101_verifier": verifier,
        "targets": {"mtbench101_assistant_turns_per_s": ">= 150",
                    "long_markdown_assistant_turns_per_s": ">= 40",
                    "engine_over_floor": "<= 1.5 on each workload",
                    "ratio_200_over_10": "<= 1.2", "stored_bytes_at_1000": "<= 200000"},
    }
