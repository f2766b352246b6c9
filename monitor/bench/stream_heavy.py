"""`skg-monitor bench heavy`: the heaviest admissible turn, offline and on a live worker.

Offline: the engine's wall and CPU time for the 238 KB turn of `monitor.bench.heavy`
(median of `repeats` fresh conversations, warm models). Online: a worker on the local
broker scores a steady stream of ordinary turns from other conversations; the heavy turn
is produced in the middle. Reported: its own produce->score latency and the latency of the
other conversations' turns before it and while it was being scored (the delay it caused).
The machine is shared, so its load average is reported with the numbers.
"""

from __future__ import annotations

import asyncio
import os
import signal
import statistics
import time
from typing import Any

from monitor.bench import machine
from monitor.bench.engine import generate_workload
from monitor.bench.heavy import heavy_turn, run_heavy_engine
from monitor.bench.stream import _turn_key, encoded, start_workers
from monitor.contracts import TurnEvent
from monitor.kafka.settings import StreamSettings
from monitor.stream.admin import ensure_topics
from monitor.stream.clients import consume, replay
from monitor.stream.local import local_broker


def run_heavy_offline(repeats: int = 3) -> dict[str, Any]:
    runs = [run_heavy_engine(seed=100 + i) for i in range(repeats)]  # fresh texts each
    return {
        "runs": runs,
        "seconds_median": statistics.median(r["seconds"] for r in runs),
        "cpu_seconds_median": statistics.median(r["cpu_seconds"] for r in runs),
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }


async def _times(settings: StreamSettings, topic: str, expected: int = 0,
                 timeout: float = 600.0) -> dict[tuple[str, int], int]:
    """(conversation_id, turn_index) -> record timestamp of the first record of each turn
    on `topic`, read until `expected` turns were seen (or `timeout`)."""
    times: dict[tuple[str, int], int] = {}

    def on_record(key: bytes | None, value: bytes | None, ts: int) -> None:
        if value is not None:
            times.setdefault(_turn_key(value), ts)

    deadline = time.monotonic() + timeout
    while True:
        await consume(settings, topic, until_idle=3.0, on_record=on_record)
        if len(times) >= expected or time.monotonic() > deadline:
            return times
        await asyncio.sleep(1.0)


async def _produce(settings: StreamSettings, others: list[TurnEvent], rate: float,
                   heavy: list[TurnEvent], heavy_after_s: float) -> None:
    """Two producers, as two applications would be: `others` paced at `rate`, and the
    heavy turn after `heavy_after_s`, whose own (slow) produce must not pause the others."""
    async def produce_heavy() -> None:
        await asyncio.sleep(heavy_after_s)
        lines, keys = encoded(heavy)
        await replay(settings, lines, keys=keys)

    lines, keys = encoded(others)
    await asyncio.gather(replay(settings, lines, rate=rate, keys=keys), produce_heavy())


def _delays(inputs: dict[tuple[str, int], int], scores: dict[tuple[str, int], int],
            heavy_key: tuple[str, int]) -> dict[str, Any]:
    """The heavy turn's latency, and the other turns' (those in flight with it apart)."""
    heavy_in = inputs[heavy_key]
    heavy_out = scores[heavy_key]
    latencies: list[float] = []
    in_flight: list[float] = []
    for key, ts in scores.items():
        if key == heavy_key or key not in inputs:
            continue
        latency = (ts - inputs[key]) / 1000.0
        latencies.append(latency)
        # produced before the heavy turn was scored and scored after it was produced
        if inputs[key] <= heavy_out and ts >= heavy_in:
            in_flight.append(latency)
    return {
        "heavy_turn_latency_s": round((heavy_out - heavy_in) / 1000.0, 3),
        "other_turns_scored": len(latencies),
        "others_latency_p50_s": round(statistics.median(latencies), 3),
        "others_latency_max_s": round(max(latencies), 3),
        "others_in_flight_with_heavy": len(in_flight),
        "others_in_flight_latency_max_s": round(max(in_flight), 3) if in_flight else None,
    }


def run_heavy_stream(rate: float = 10.0, seconds: float = 30.0) -> dict[str, Any]:
    with local_broker("skg-bench-heavy-") as local:
        settings = local.settings
        ensure_topics(settings)
        (worker,) = start_workers(settings, local.tmp, 1, 240)
        try:
            turns = int(rate * seconds)
            others = generate_workload(max(4, turns // 20), 20, seed=31)[:turns]
            question, answer = heavy_turn()
            asyncio.run(_produce(settings, others, rate, [question, answer], seconds / 2))
            assistant = sum(1 for e in [*others, question, answer] if e.role == "assistant")
            scores = asyncio.run(_times(settings, settings.topic_scores, assistant))
            inputs = asyncio.run(_times(settings, settings.topic_turns))
            return {
                "rate_turns_per_s": rate,
                **_delays(inputs, scores, (answer.conversation_id, answer.turn_index)),
                "load_avg_1m": round(os.getloadavg()[0], 2),
            }
        finally:
            worker.kill(signal.SIGTERM)


def run_heavy_bench(repeats: int = 3, stream: bool = True) -> dict[str, Any]:
    result: dict[str, Any] = {"offline": run_heavy_offline(repeats)}
    if stream:
        result["stream"] = run_heavy_stream()
    result["target"] = {"heavy_turn_seconds": "<= 1", "others_delay_seconds": "<= 1"}
    result["machine"] = machine.describe()
    return result
