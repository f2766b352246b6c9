"""`skg-monitor bench stream`: end-to-end throughput and produce->score latency.

One local broker; in the same run:
* ceiling: a forward-only Faust agent (`monitor.bench.ceiling`) moves the same number of
  messages; its messages/s is the most any Faust agent could do here;
* monitor, max rate: the whole replay is produced at once; throughput = assistant turns
  scored / (last score - first produce); latency = score record timestamp - turn record
  timestamp (both Kafka CreateTime, same clock);
* monitor, half rate: a shorter replay (new conversations) paced at half the measured
  maximum turn rate, its conversations arriving independently (`independent_arrivals`);
  its p99 is the latency target's number. The same, in lockstep (every conversation's turn
  k, then every turn k+1), is reported beside it: the worst bursts a round of answers makes.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

from monitor.bench import machine
from monitor.bench.ceiling import CEILING_IN, CEILING_OUT
from monitor.bench.engine import generate_workload
from monitor.contracts import TurnEvent
from monitor.kafka.settings import StreamSettings
from monitor.stream.admin import ensure_topics
from monitor.stream.broker import stop_process
from monitor.stream.clients import consume, replay
from monitor.stream.local import LOCAL_ENV, LocalWorker, local_broker


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _spawn(cmd: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(cmd, stdout=log.open("wb"), stderr=subprocess.STDOUT, env=env)


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far (Linux /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cpu_used(pids: dict[str, int], before: dict[str, float | None]) -> dict[str, float]:
    used: dict[str, float] = {}
    for name, pid in pids.items():
        start, now = before.get(name), _cpu_seconds(pid)
        if start is not None and now is not None:
            used[name] = round(now - start, 2)
    return used


def start_workers(settings: StreamSettings, tmp: Path, count: int,
                  wait_s: float) -> list[LocalWorker]:
    """`count` workers (`monitor.stream.local`) of one group on free web ports, each with
    its own data directory, once every one scores and the partitions are spread over
    them. Several workers share the cores: each runs cores // count model threads."""
    env = ({} if count == 1 else
           {"SKG_MODEL_THREADS": str(max(1, (os.cpu_count() or 1) // count))})
    workers = [LocalWorker(settings.broker, tmp / f"data-{i}", tmp / f"worker-{i}.log",
                           extra_env=env).start() for i in range(count)]
    share = settings.partitions // count
    try:
        for worker in workers:
            worker.wait_ready(wait_s, partitions=share if share * count ==
                              settings.partitions else None)
    except AssertionError as exc:
        for worker in workers:
            worker.kill(signal.SIGTERM)
        raise RuntimeError(f"worker did not start: {exc}") from None
    return workers


async def _collect(settings: StreamSettings, topic: str, expected: int, timeout: float,
                   ) -> dict[bytes, int]:
    """key+value-derived id -> record timestamp, until `expected` records or timeout.

    One reader follows the topic until it has been idle for 5 s (the timestamps are the
    records' own, so waiting costs no accuracy); it starts over only if the topic went idle
    early. Re-reading the whole topic every second would take CPU from the worker.
    """
    seen: dict[bytes, int] = {}
    deadline = time.monotonic() + timeout
    while len(seen) < expected and time.monotonic() < deadline:
        got: dict[bytes, int] = {}

        def on_record(key: bytes | None, value: bytes | None, ts: int,
                      got: dict[bytes, int] = got) -> None:
            if value is not None:
                got.setdefault(value[:4096], ts)

        await consume(settings, topic, until_idle=5.0, on_record=on_record)
        seen = got
        if len(seen) < expected:
            await asyncio.sleep(1.0)
    return seen


def _turn_key(raw: bytes) -> tuple[str, int]:
    import json

    d = json.loads(raw)
    return d["conversation_id"], d["turn_index"]


async def _latencies(settings: StreamSettings, events: list[TurnEvent], timeout: float,
                     ) -> tuple[list[float], float]:
    """(produce->score latencies in s, seconds from first produce to last score)."""
    assistant = sum(1 for e in events if e.role == "assistant")
    scores = await _collect(settings, settings.topic_scores, assistant, timeout)
    inputs: dict[tuple[str, int], int] = {}

    def on_input(key: bytes | None, value: bytes | None, ts: int) -> None:
        if value is not None:
            inputs.setdefault(_turn_key(value), ts)

    await consume(settings, settings.topic_turns, until_idle=1.0, on_record=on_input)
    wanted = {(e.conversation_id, e.turn_index) for e in events}
    lat: list[float] = []
    first = min(ts for k, ts in inputs.items() if k in wanted)
    last = first
    for value, ts in scores.items():
        k = _turn_key(value)
        if k in wanted:
            lat.append((ts - inputs[k]) / 1000.0)
            last = max(last, ts)
    return lat, (last - first) / 1000.0


def independent_arrivals(events: list[TurnEvent], seed: int) -> list[TurnEvent]:
    """The same turns in the order independent conversations send them: a seeded random
    interleaving that keeps each conversation's own order.

    `generate_workload` interleaves in lockstep, every conversation's turn k before any turn
    k+1, so a round's assistant turns all arrive together: paced at half the mean rate, a
    round of answers still comes in faster than the worker scores answers, and the latency
    measured is that queue's (stop 47: a batch of 22 answers, its oldest 265 ms waiting).
    """
    queues: dict[str, deque[TurnEvent]] = {}
    for event in events:
        queues.setdefault(event.conversation_id, deque()).append(event)
    slots = [event.conversation_id for event in events]
    random.Random(seed).shuffle(slots)
    return [queues[cid].popleft() for cid in slots]


def encoded(events: list[TurnEvent]) -> tuple[list[bytes], list[bytes | None]]:
    """The records to produce and their keys (the conversation id)."""
    return ([e.model_dump_json(exclude_none=True).encode() for e in events],
            [e.conversation_id.encode() for e in events])


def _ceiling(settings: StreamSettings, events: list[TurnEvent], tmp: Path) -> dict[str, Any]:
    """The forward-only agent's messages/s on the same records."""
    lines, keys = encoded(events)
    ceiling = _spawn([sys.executable, "-m", "monitor.bench.ceiling", "--broker",
                      settings.broker], tmp / "ceiling.log", {**os.environ, **LOCAL_ENV})
    try:
        time.sleep(8.0)  # group join
        t0 = time.time()
        asyncio.run(replay(settings, lines, topic=CEILING_IN, keys=keys))
        out = asyncio.run(_collect(settings, CEILING_OUT, len(lines), timeout=300))
    finally:
        stop_process(ceiling)
    ceiling_s = max(out.values()) / 1000.0 - t0 if out else float("nan")
    return {"messages": len(out), "messages_per_s": round(len(out) / ceiling_s, 1)}


def _max_rate(settings: StreamSettings, events: list[TurnEvent],
              pids: dict[str, int]) -> tuple[dict[str, Any], float]:
    """The whole replay produced at once: throughput, latency and where the CPU went;
    and the turns/s reached, which paces the half-rate run."""
    lines, keys = encoded(events)
    cpu_before = {name: _cpu_seconds(pid) for name, pid in pids.items()}
    clients_before = time.process_time()
    asyncio.run(replay(settings, lines, keys=keys))
    lat, elapsed = asyncio.run(_latencies(settings, events, timeout=1800))
    cpu = _cpu_used(pids, cpu_before)
    cpu["bench_clients"] = round(time.process_time() - clients_before, 2)
    worker_cpu = sum(v for k, v in cpu.items() if k.startswith("worker"))
    return {
        "assistant_turns_scored": len(lat),
        "seconds": round(elapsed, 2),
        "assistant_turns_per_s": round(len(lat) / elapsed, 1),
        "turns_per_s": round(len(events) / elapsed, 1),
        "latency_p50_ms": round(_pct(lat, 0.5) * 1000, 1),
        "latency_p99_ms": round(_pct(lat, 0.99) * 1000, 1),
        # where the machine's cores went, from the first produce to the last score
        "cpu_seconds": cpu,
        "assistant_turns_per_worker_cpu_s": round(len(lat) / worker_cpu, 1)
        if worker_cpu else None,
    }, len(events) / elapsed


def _half_rate(settings: StreamSettings, events: list[TurnEvent],
               rate: float) -> dict[str, Any]:
    """A replay paced at `rate` turns/s: the latency at a load the worker keeps up with."""
    lines, keys = encoded(events)
    asyncio.run(replay(settings, lines, rate=rate, keys=keys))
    lat_half, _ = asyncio.run(_latencies(settings, events, timeout=900))
    return {
        "turns": len(events), "rate_turns_per_s": round(rate, 1),
        "latency_p50_ms": round(_pct(lat_half, 0.5) * 1000, 1),
        "latency_p99_ms": round(_pct(lat_half, 0.99) * 1000, 1),
        "latency_mean_ms": round(statistics.fmean(lat_half) * 1000, 1) if lat_half
        else None,
    }


def run_stream_bench(turns: int = 10_000, conversations: int = 250,
                     workers: int = 1) -> dict[str, Any]:
    """The ceiling, then `workers` worker processes of one group at full and at half
    rate (several workers: the combined rate of one host; one per core is the
    documented layout)."""
    per_conv = max(2, turns // conversations)
    events = generate_workload(conversations, per_conv, seed=21)
    assistant = sum(1 for e in events if e.role == "assistant")
    result: dict[str, Any] = {"workload": {"turns": len(events), "assistant_turns": assistant,
                                           "conversations": conversations},
                              "workers": workers}
    with local_broker("skg-bench-stream-") as local:
        settings = local.settings
        ensure_topics(settings, [*settings.all_topics(), CEILING_IN, CEILING_OUT])
        result["ceiling"] = _ceiling(settings, events, local.tmp)
        started = start_workers(settings, local.tmp, workers, 180)
        try:
            pids = {f"worker-{i}": w.proc.pid for i, w in enumerate(started) if w.proc}
            pids["broker"] = local.proc.pid
            result["max_rate"], max_turns_per_s = _max_rate(settings, events, pids)
            result["monitor_over_ceiling"] = round(
                max_turns_per_s / result["ceiling"]["messages_per_s"], 4)
            half_convs = max(10, conversations // 5)
            half = [e.model_copy(update={"conversation_id": "half-" + e.conversation_id})
                    for e in generate_workload(half_convs, per_conv, seed=22)]
            result["half_rate"] = _half_rate(settings, independent_arrivals(half, seed=22),
                                             max_turns_per_s / 2)
            lockstep = [e.model_copy(update={"conversation_id": "step-" + e.conversation_id})
                        for e in generate_workload(half_convs, per_conv, seed=23)]
            result["half_rate_lockstep"] = _half_rate(settings, lockstep, max_turns_per_s / 2)
            result["targets"] = {"monitor_over_ceiling": ">= 0.3",  # issue 20's checks
                                 "half_rate_p99_ms": "<= 200"}
            result["machine"] = machine.describe()
        finally:
            for worker in started:
                worker.kill(signal.SIGTERM)
    return result
