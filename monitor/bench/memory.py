"""Worker memory over many conversations: RSS as the worker's per-batch state cycle runs.

`python -m monitor.bench.memory --turns 20000 --conversations 5000` replays the
worker's cycle of `monitor.stream.app` without a broker: per batch of 64 turns, each
conversation's state is taken from `LiveStates` (or decoded from the stored bytes), the
engine applies the turns, and the new state is encoded and kept. The stored bytes live in
a dict, as RocksDB would hold them off the Python heap only in part, so the figure is an
upper bound for the table's share. Prints RSS every `--every` turns and the sizes of the
bounded caches (decoded states: `SKG_LIVE_STATES`; the embedder's vector cache).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from monitor.kafka.settings import StreamSettings


def rss_mb() -> float:
    """Resident set size of this process (Linux /proc), MB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def run_memory_bench(turns: int, conversations: int, live_states: int,
                     every: int = 2_000, batch: int = 64) -> dict[str, Any]:
    from monitor.bench.engine import generate_workload
    from monitor.engine import ConversationState, build_engine
    from monitor.stream.app import LiveStates

    per_conversation = max(2, turns // conversations)
    events = generate_workload(conversations, per_conversation, seed=11)[:turns]
    engine = build_engine()
    engine.process_batch(generate_workload(2, 4, seed=1), {})  # models loaded
    live = LiveStates(live_states)
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
        done = start + len(chunk)
        if done // every != (done - len(chunk)) // every or done == len(events):
            samples.append({"turns": done, "rss_mb": round(rss_mb(), 1),
                            "live_states": len(live._entries),
                            "seconds": round(time.perf_counter() - started, 1)})
            print(json.dumps(samples[-1]), file=sys.stderr, flush=True)  # progress
    cache = getattr(engine.embedder, "_cache", None)
    return {"turns": len(events), "conversations": conversations,
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
    args = parser.parse_args()
    result = run_memory_bench(args.turns, args.conversations, args.live_states, args.every)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
