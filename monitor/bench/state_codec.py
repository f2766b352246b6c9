"""The stored conversation state's encoding: time and size of candidate codecs.

A worker decodes a conversation's state from its table, applies the turns and encodes it
back for every batch, so the codec is on the hot path. Today's form is the state's plain
form (`ConversationState.to_plain`) as compact, key-sorted JSON compressed with zlib level 6.
This benchmark builds real states (MT-Bench-101 conversations run through the engine to
their end, and generated conversations of 20 and 200 turns), then times, per state:

* `to_plain` and `from_plain` (the part every codec shares), and the whole of today's
  `ConversationState.to_bytes` / `from_bytes`;
* each codec's plain -> bytes and bytes -> plain, and the stored size.

Codecs: stdlib `json` or `orjson` (both key-sorted, compact), `ormsgpack` (its
OPT_SORT_KEYS) or `msgpack` (keys sorted in Python before packing, so equal states give
equal bytes), each raw, with zlib 6 or with zstd
(levels 1 and 3 to 6, the `zstandard` package). A codec whose package is not installed is
reported as missing. (orjson writes NaN and infinities as `null`: it does not round-trip
such a state, which the stored form must.) Each figure is the median of `repeats` passes
over all states, timed in the thread's CPU time (`time.thread_time`: on a shared, loaded
machine wall time mostly measures the other processes; every codec here runs on the
calling thread).
"""

from __future__ import annotations

import json
import statistics
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

Plain = dict[str, Any]
ZSTD_LEVELS = (1, 3, 4, 5, 6)


def _sorted_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list | tuple):
        return [_sorted_keys(v) for v in value]
    return value


def serialisers() -> dict[str, tuple[Callable[[Plain], bytes], Callable[[bytes], Any]] | None]:
    """name -> (dumps, loads), None where the package is missing."""
    out: dict[str, tuple[Callable[[Plain], bytes], Callable[[bytes], Any]] | None] = {
        "json": (lambda p: json.dumps(p, separators=(",", ":"), sort_keys=True).encode(),
                 lambda b: json.loads(b.decode("utf-8"))),
    }
    try:
        import orjson

        out["orjson"] = (lambda p: orjson.dumps(p, option=orjson.OPT_SORT_KEYS), orjson.loads)
    except ImportError:
        out["orjson"] = None
    try:
        import ormsgpack

        out["ormsgpack"] = (lambda p: ormsgpack.packb(p, option=ormsgpack.OPT_SORT_KEYS),
                            ormsgpack.unpackb)
    except ImportError:
        out["ormsgpack"] = None
    try:
        import msgpack

        out["msgpack"] = (lambda p: msgpack.packb(_sorted_keys(p), use_bin_type=True),
                          lambda b: msgpack.unpackb(b, raw=False))
    except ImportError:
        out["msgpack"] = None
    return out


def compressors() -> dict[str, tuple[Callable[[bytes], bytes], Callable[[bytes], bytes]] | None]:
    out: dict[str, tuple[Callable[[bytes], bytes], Callable[[bytes], bytes]] | None] = {
        "raw": (lambda b: b, lambda b: b),
        "zlib6": (lambda b: zlib.compress(b, 6), zlib.decompress),
        "zlib1": (lambda b: zlib.compress(b, 1), zlib.decompress),
    }
    try:
        import zstandard

        for level in ZSTD_LEVELS:
            compressor = zstandard.ZstdCompressor(level=level)
            decompressor = zstandard.ZstdDecompressor()
            out[f"zstd{level}"] = (compressor.compress, decompressor.decompress)
    except ImportError:
        out.update({f"zstd{level}": None for level in ZSTD_LEVELS})
    return out


def build_states(mtbench: Path | None, mtbench_limit: int) -> dict[str, list[Any]]:
    """Workload name -> the conversation states at the end of it."""
    from monitor.bench.engine import generate_conversation, generate_workload
    from monitor.engine.state import ConversationState
    from monitor.runner.build import build_engine

    engine = build_engine()

    def run(events: list[Any]) -> list[ConversationState]:
        states: dict[str, ConversationState] = {}
        for start in range(0, len(events), 64):
            engine.process_batch(events[start : start + 64], states)
        return list(states.values())

    engine.process_batch(generate_conversation("warmup", 6, 1), {})
    workloads: dict[str, list[Any]] = {}
    if mtbench is not None and mtbench.exists():
        from monitor.bench.real import load_rows, mtbench_events

        rows = sorted(load_rows(mtbench), key=lambda r: (-len(r["history"]), r["id"]))
        workloads["mtbench101_longest"] = run(mtbench_events(rows[:mtbench_limit]))
    workloads["generated_20_turns"] = run(generate_workload(40, 20, seed=3))
    workloads["generated_200_turns"] = run(generate_workload(4, 200, seed=5))
    return workloads


def _median_seconds(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.thread_time()
        fn()
        times.append(time.thread_time() - start)
    return statistics.median(times)


def measure(states: list[Any], repeats: int = 7) -> dict[str, Any]:
    """Per-state microseconds and mean stored bytes of every codec on `states`."""
    from monitor.engine.state import ConversationState

    n = len(states)
    plains = [s.to_plain() for s in states]
    stored = [s.to_bytes() for s in states]
    per_state = 1e6 / n
    shared = {
        "to_plain_us": round(_median_seconds(lambda: [s.to_plain() for s in states],
                                             repeats) * per_state, 1),
        "from_plain_us": round(_median_seconds(
            lambda: [ConversationState.from_plain(p) for p in plains], repeats) * per_state, 1),
        # what the engine does now, plain form included: ConversationState.to/from_bytes
        "to_bytes_us": round(_median_seconds(lambda: [s.to_bytes() for s in states],
                                             repeats) * per_state, 1),
        "from_bytes_us": round(_median_seconds(
            lambda: [ConversationState.from_bytes(b) for b in stored], repeats) * per_state, 1),
        "stored_mean_bytes": round(sum(map(len, stored)) / n),
    }
    codecs: dict[str, Any] = {}
    for sname, ser in serialisers().items():
        for cname, comp in compressors().items():
            name = f"{sname}+{cname}"
            if ser is None or comp is None:
                codecs[name] = "missing"
                continue
            dumps, loads = ser
            pack, unpack = comp

            def encode(dumps: Any = dumps, pack: Any = pack) -> list[bytes]:
                return [pack(dumps(p)) for p in plains]

            blobs = encode()
            if any(loads(unpack(b)) != p for b, p in zip(blobs, plains, strict=True)):
                codecs[name] = "does not round-trip"
                continue
            if encode() != blobs:
                codecs[name] = "not deterministic"
                continue
            def decode(loads: Any = loads, unpack: Any = unpack,
                       blobs: list[bytes] = blobs) -> list[Any]:
                return [loads(unpack(b)) for b in blobs]

            enc = _median_seconds(encode, repeats) * per_state
            dec = _median_seconds(decode, repeats) * per_state
            codecs[name] = {"encode_us": round(enc, 1), "decode_us": round(dec, 1),
                            "encode_decode_us": round(enc + dec, 1),
                            "mean_bytes": round(sum(map(len, blobs)) / n)}
    base = codecs["json+zlib6"]
    for value in codecs.values():
        if isinstance(value, dict):
            value["speedup_vs_json_zlib6"] = round(base["encode_decode_us"]
                                                   / value["encode_decode_us"], 2)
            value["size_vs_json_zlib6"] = round(value["mean_bytes"] / base["mean_bytes"], 3)
    return {"states": n, "shared": shared, "codecs": codecs}


def run_state_codec_bench(mtbench: Path | None, mtbench_limit: int = 60,
                          repeats: int = 7) -> dict[str, Any]:
    with open("/proc/loadavg", encoding="ascii") as fh:
        load_before = fh.read().split()[:3]
    workloads = build_states(mtbench, mtbench_limit)
    result: dict[str, Any] = {name: measure(states, repeats) for name, states in workloads.items()}
    with open("/proc/loadavg", encoding="ascii") as fh:
        result["loadavg"] = {"before": load_before, "after": fh.read().split()[:3]}
    result["repeats"] = repeats
    return result
