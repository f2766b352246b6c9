"""Engine benchmark: throughput, latency growth with conversation length, state size.

The workload is generated from a fixed seed: customer-support style conversations whose
sentences carry facts the extractor picks up (properties, prices, times, places), so the
graph, the detectors and the embedder all do real work. Medians are reported because the
machine is shared and noisy; the latency ratio compares two windows of the same run.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from monitor.contracts import Role, TurnEvent

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


def real_throughput(path: str, limit: int = 300) -> dict[str, Any]:
    """Assistant turns per second on real GPT-4 conversations (MT-Bench-101): long Markdown
    answers cost more to parse and embed than the generated workload's short sentences."""
    from pathlib import Path

    from monitor.bench.real import load_rows, mtbench_events
    from monitor.engine.state import ConversationState
    from monitor.runner.build import build_engine

    engine = build_engine()
    engine.process_batch(generate_conversation("warmup", 6, 1), {})
    events = mtbench_events(load_rows(Path(path), limit=limit))
    states: dict[str, ConversationState] = {}
    started = time.perf_counter()
    for start in range(0, len(events), 64):
        engine.process_batch(events[start : start + 64], states)
    elapsed = time.perf_counter() - started
    assistant = [e for e in events if e.role == "assistant"]
    return {
        "conversations": len(states), "assistant_turns": len(assistant),
        "median_assistant_chars": statistics.median(len(e.text) for e in assistant),
        "assistant_turns_per_s": round(len(assistant) / elapsed, 1),
    }


class TimedVerifier:
    """A verifier that adds up the seconds spent in it (to price it per assistant turn)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.pairs = 0

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


def verifier_cost(path: str, limit: int = 200) -> dict[str, Any]:
    """Milliseconds the verifier adds to each assistant turn of MT-Bench-101 (cold cache,
    one event at a time so that each turn's share is its own)."""
    from pathlib import Path

    from monitor.bench.real import load_rows, mtbench_events
    from monitor.engine.state import ConversationState
    from monitor.engine.verifier import OnnxVerifier
    from monitor.runner.build import build_engine

    timed = TimedVerifier(OnnxVerifier())
    engine = build_engine(verifier=timed)
    engine.process_batch(generate_conversation("warmup", 6, 1), {})
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


def run_engine_bench(conversations: int = 200, turns: int = 40,
                     real: str | None = None) -> dict[str, Any]:
    from monitor.engine.state import ConversationState
    from monitor.runner.build import build_engine

    engine = build_engine()
    # warm the models so load time is not counted as throughput
    engine.process_batch(generate_conversation("warmup", 6, 1), {})

    events = generate_workload(conversations, turns)
    states: dict[str, ConversationState] = {}
    started = time.perf_counter()
    for start in range(0, len(events), 64):
        engine.process_batch(events[start : start + 64], states)
    elapsed = time.perf_counter() - started
    assistant = sum(1 for e in events if e.role == "assistant")

    long_conv = generate_conversation("bench-long", 2000, 99)
    state = engine.new_state("bench-long")
    per_turn: dict[int, float] = {}
    sizes: dict[int, dict[str, int]] = {}
    for event in long_conv:
        t0 = time.perf_counter()
        engine.process(state, event)
        per_turn[event.turn_index] = time.perf_counter() - t0
        if event.turn_index + 1 in (100, 1000, 2000):
            raw = len(state.to_bytes())
            plain = len(__import__("json").dumps(state.to_plain(), separators=(",", ":")))
            sizes[event.turn_index + 1] = {"stored_bytes": raw, "json_bytes": plain}

    def window(center: int, width: int = 20) -> float:
        samples = [per_turn[i] for i in range(center - width, center + width + 1)
                   if i in per_turn and long_conv[i].role == "assistant"]
        return statistics.median(samples) * 1000.0

    at10 = window(10, 9)
    at200 = window(200, 9)
    return {
        "workload": {"conversations": conversations, "turns": turns, "events": len(events),
                     "assistant_turns": assistant},
        "assistant_turns_per_s": round(assistant / elapsed, 1),
        "events_per_s": round(len(events) / elapsed, 1),
        "latency_ms": {"turn_10_median": round(at10, 3), "turn_200_median": round(at200, 3),
                       "turn_1000_median": round(window(1000), 3),
                       "ratio_200_over_10": round(at200 / at10, 3)},
        "state": sizes,
        "mtbench101": real_throughput(real) if real else None,
        "mtbench101_verifier": verifier_cost(real) if real else None,
        "targets": {"assistant_turns_per_s": ">= 100", "ratio_200_over_10": "<= 1.3",
                    "stored_bytes_at_1000": "<= 200000"},
    }
