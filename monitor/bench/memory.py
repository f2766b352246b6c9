"""Worker memory over many conversations: RSS as the worker's per-batch state cycle runs.

`python -m monitor.bench.memory --turns 20000 --conversations 5000` replays the
worker's cycle of `monitor.stream.app` without a broker: per batch of 64 turns, each
conversation's state is taken from `LiveStates` (or decoded from the stored bytes), the
engine applies the turns, and the new state is encoded and kept. The stored bytes live in
a dict, as RocksDB would hold them off the Python heap only in part, so the figure is an
upper bound for the table's share. Prints RSS every `--every` turns and the sizes of the
bounded caches (decoded states: `SKG_LIVE_STATES`; the embedder's vector cache).

RSS at start is given by stage (the interpreter with the settings module, the engine's
modules imported, the models loaded, one warm-up batch scored: the last is what a worker
holds before its first record), and the peak (VmHWM) at the end. `--worker` also starts a
real `skg-monitor worker` on the local broker and reads its RSS once it is ready to score
(the process tree: Faust, the engine, the web views), the figure the 400 MB target is for.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from typing import Any

from monitor.kafka.settings import StreamSettings


def rss_mb(pid: int | str = "self", field: str = "VmRSS") -> float:
    """Resident set size (or another /proc status field in kB: VmHWM, the peak) of a
    process (Linux /proc), MB."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                    ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == pid:
                out.append(int(entry))
    return out


def tree_rss_mb(pid: int) -> float:
    """RSS of a process and all its descendants, MB (shared pages counted in each)."""
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            total += rss_mb(current)
        except OSError:
            continue
        todo.extend(_children(current))
    return total


def worker_rss_at_start(wait_s: float = 240.0) -> dict[str, Any]:
    """A real worker on a fresh local broker: its RSS once ready to score, then stopped."""
    import tempfile
    from pathlib import Path

    from monitor.stream.broker import free_port, start_broker, stop_process
    from monitor.stream.local import LocalWorker

    tmp = Path(tempfile.mkdtemp(prefix="skg-bench-memory-"))
    port = free_port()
    broker = start_broker(port, tmp / "tansu.log")
    worker = LocalWorker(f"kafka://127.0.0.1:{port}", tmp / "data", tmp / "worker.log")
    try:
        started = time.perf_counter()
        worker.start().wait_ready(wait_s)
        assert worker.proc is not None
        ready_s = time.perf_counter() - started
        time.sleep(2.0)  # settled after its first assignment
        return {"rss_mb": round(rss_mb(worker.proc.pid), 1),
                "tree_rss_mb": round(tree_rss_mb(worker.proc.pid), 1),
                "peak_mb": round(rss_mb(worker.proc.pid, "VmHWM"), 1),
                "ready_after_s": round(ready_s, 1)}
    finally:
        worker.kill(signal.SIGTERM)
        stop_process(broker)


_HEAVY = ("torch", "transformers", "spacy", "onnxruntime", "scipy", "networkx", "faust")


def run_memory_bench(turns: int, conversations: int, live_states: int,
                     every: int = 2_000, batch: int = 64) -> dict[str, Any]:
    at_start: dict[str, float] = {"interpreter_mb": round(rss_mb(), 1)}
    from monitor.bench.engine import generate_workload
    from monitor.engine.state import ConversationState
    from monitor.runner.build import build_engine, settle_after_warm_up
    from monitor.stream.app import LiveStates
    from monitor.stream.collector import FullCollections

    at_start["imported_mb"] = round(rss_mb(), 1)
    per_conversation = max(2, turns // conversations)
    events = generate_workload(conversations, per_conversation, seed=11)[:turns]
    # each model is a process-wide singleton: loaded one by one, then shared by the engine
    from monitor.engine.extract import default_extractor
    from monitor.engine.verifier import default_verifier
    from monitor.runner.build import build_embedder

    build_embedder()
    at_start["embedder_loaded_mb"] = round(rss_mb(), 1)
    default_extractor()
    at_start["spacy_loaded_mb"] = round(rss_mb(), 1)
    default_verifier()
    at_start["verifier_loaded_mb"] = round(rss_mb(), 1)
    engine = build_engine()
    at_start["engine_built_mb"] = round(rss_mb(), 1)
    engine.process_batch(generate_workload(2, 4, seed=1), {})  # lazily loaded parts too
    at_start["warmed_up_mb"] = round(rss_mb(), 1)
    settle_after_warm_up()  # as the worker does before its first record
    at_start["settled_mb"] = round(rss_mb(), 1)
    live = LiveStates(live_states)
    collections = FullCollections(StreamSettings().full_collection_every_s)
    stored: dict[str, bytes] = {}
    samples = [{"turns": 0, "rss_mb": round(rss_mb(), 1)}]
    started = time.perf_counter()
    for start in range(0, len(events), batch):
        chunk = events[start:start + batch]
        states: dict[str, ConversationState] = {}
        for event in chunk:
            cid = event.conversation_id
            if cid not in states and cid in stored:
                states[cid] = live.take(cid, stored[cid])
        engine.process_batch(chunk, states)
        for cid in {e.conversation_id for e in chunk}:
            blob = states[cid].to_bytes()
            stored[cid] = blob
            live.keep(cid, blob, states[cid])
        collections.after_batch()
        done = start + len(chunk)
        if done // every != (done - len(chunk)) // every or done == len(events):
            samples.append({"turns": done, "rss_mb": round(rss_mb(), 1),
                            "live_states": len(live._entries),
                            "seconds": round(time.perf_counter() - started, 1)})
            print(json.dumps(samples[-1]), file=sys.stderr, flush=True)  # progress
    cache = getattr(engine.embedder, "_cache", None)
    at_end = round(rss_mb(), 1)
    # what the worker's next periodic whole-heap pass frees (evicted states' cycles)
    full_pass_s = collections.collect_now()
    return {"turns": len(events), "conversations": conversations,
            "rss_at_start": at_start, "rss_at_end_mb": at_end,
            "rss_after_full_collection_mb": round(rss_mb(), 1),
            "full_collection_s": round(full_pass_s, 3),
            "heavy_modules_loaded": sorted(m for m in _HEAVY if m in sys.modules),
            "peak_mb": round(rss_mb(field="VmHWM"), 1),
            "target_at_start_mb": "<= 400",
            "live_states_bound": live_states, "seconds": round(time.perf_counter() - started, 1),
            "stored_state_bytes": sum(len(b) for b in stored.values()),
            "embedder_cache_entries": len(cache) if cache is not None else None,
            "samples": samples}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20_000)
    parser.add_argument("--conversations", type=int, default=5_000)
    parser.add_argument("--live-states", type=int, default=StreamSettings().live_states)
    parser.add_argument("--every", type=int, default=2_000)
    parser.add_argument("--worker", action="store_true",
                        help="also a real worker's RSS once ready (starts the local broker)")
    parser.add_argument("--output", default=None,
                        help="also write the JSON here (e.g. benchmarks/results/memory.json)")
    args = parser.parse_args()
    result = run_memory_bench(args.turns, args.conversations, args.live_states, args.every)
    if args.worker:
        result["worker_at_start"] = worker_rss_at_start()
    text = json.dumps(result, indent=2)
    print(text)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text + "\n")


if __name__ == "__main__":
    main()
