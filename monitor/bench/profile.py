"""Where a benchmark's time goes: a sampling profile of this process, summarised.

py-spy (a dev extra) samples every thread of this process from outside, 100 times a
second, without pausing it (`--nonblocking`): the embedder's and the verifier's thread
pools are seen, and the profiled code runs at nearly full speed. Where py-spy cannot run
(not installed, or not allowed to attach), cProfile is used instead: it sees the calling
thread only and slows pure-Python code more than native calls, so its shares lean
towards Python; the summary says which profiler produced it.

The summary is what a reader needs to decide what to optimise: the functions with the
most self time (the innermost Python frame of a sample: time inside a C extension called
from it counts there), the engine's own functions by inclusive time, and the shares of
the three models (spaCy, the embedder, the verifier) against everything else.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

_FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^()]*?)(?::\d+)?\)$")
Stages = dict[str, tuple[str, ...]]
"""Stage name -> frames (as `_short` writes them, or a part of one) that mark it; a
sample belongs to the first stage one of whose frames is in its stack, else to "rest"."""
_PY_SPY_RATE = 100
_HARNESS = ("monitor/bench/", "monitor/cli/")


def _py_spy() -> str | None:
    here = Path(sys.executable).with_name("py-spy")
    return str(here) if here.exists() else shutil.which("py-spy")


def _short(frame: str) -> str:
    """`func (path/to/file.py:12)` -> `func (to/file.py)`: a function, not one line of it."""
    match = _FRAME.match(frame.strip())
    if not match:
        return frame.strip()
    parts = match["file"].replace("\\", "/").split("/")
    return f"{match['func']} ({'/'.join(parts[-3:])})"


def summarise_stacks(stacks: Iterable[tuple[list[str], int]], top: int = 15,
                     stages: Stages | None = None) -> dict[str, Any]:
    """Summary of collapsed stacks (outermost frame first, with their sample counts): the
    top self entries of all samples and of the samples outside every stage (what is left
    to optimise when the models are not), the project's functions by inclusive share (the
    benchmark's and the command line's own frames left out: they hold every sample), and
    each stage's share."""
    self_time: Counter[str] = Counter()
    rest_self: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    shares: Counter[str] = Counter()
    total = 0
    for frames, count in stacks:
        if not frames:
            continue
        total += count
        names = [_short(f) for f in frames]
        self_time[names[-1]] += count
        for name in set(names):
            if "monitor/" in name and not any(skip in name for skip in _HARNESS):
                inclusive[name] += count
        joined = ";".join(names)
        stage = next((s for s, marks in (stages or {}).items()
                      if any(m in joined for m in marks)), "rest")
        shares[stage] += count
        if stage == "rest":
            rest_self[names[-1]] += count

    def share(counter: Counter[str]) -> list[dict[str, Any]]:
        return [{"function": name, "share": round(n / total, 4), "samples": n}
                for name, n in counter.most_common(top)] if total else []

    return {
        "samples": total,
        "stages": {s: round(n / total, 4) for s, n in shares.most_common()} if total else {},
        "top_self": share(self_time),
        "top_self_rest": share(rest_self),
        "top_inclusive_monitor": share(inclusive),
    }


def _read_collapsed(path: Path) -> list[tuple[list[str], int]]:
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            out.append((stack.split(";"), int(count)))
    return out


def _with_py_spy(binary: str, run: Callable[[], Any], top: int,
                 stages: Stages | None) -> dict[str, Any] | None:
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "stacks.txt"
        proc = subprocess.Popen(
            [binary, "record", "--pid", str(os.getpid()), "--rate", str(_PY_SPY_RATE),
             "--format", "raw", "--nonblocking", "--output", str(raw)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(1.0)  # attached and sampling; this thread sleeps (idle: not sampled)
        if proc.poll() is not None:
            return None
        started = time.perf_counter()
        try:
            run()
        finally:
            seconds = time.perf_counter() - started
            proc.send_signal(signal.SIGINT)  # py-spy writes what it sampled and exits
            try:
                proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
        if not raw.exists():
            return None
        summary = summarise_stacks(_read_collapsed(raw), top, stages)
    return {"profiler": f"py-spy {_PY_SPY_RATE} Hz, all threads, idle excluded",
            "seconds": round(seconds, 2), **summary}


def _with_cprofile(run: Callable[[], Any], top: int) -> dict[str, Any]:
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.runcall(run)
    seconds = time.perf_counter() - started
    stats = pstats.Stats(profiler)
    entries = stats.stats  # type: ignore[attr-defined]
    total = sum(tt for (_, _, tt, _, _) in entries.values()) or 1.0

    def name(key: tuple[str, int, str]) -> str:
        file, _, func = key
        return _short(f"{func} ({file})")

    by_self = sorted(entries.items(), key=lambda kv: -kv[1][2])[:top]
    by_cum = sorted(((k, v) for k, v in entries.items() if "monitor/" in k[0]),
                    key=lambda kv: -kv[1][3])[:top]
    return {
        "profiler": "cProfile (calling thread only; py-spy could not run)",
        "seconds": round(seconds, 2),
        "top_self": [{"function": name(k), "share": round(v[2] / total, 4),
                      "seconds": round(v[2], 3)} for k, v in by_self],
        "top_inclusive_monitor": [{"function": name(k), "share": round(v[3] / total, 4),
                                   "seconds": round(v[3], 3)} for k, v in by_cum],
    }


def profile(run: Callable[[], Any], top: int = 15, stages: Stages | None = None,
            ) -> dict[str, Any]:
    """Run `run()` once under py-spy (or cProfile where py-spy cannot run); its summary
    (`stages`: py-spy only)."""
    binary = _py_spy()
    if binary is not None:
        summary = _with_py_spy(binary, run, top, stages)
        if summary is not None:
            return summary
    return _with_cprofile(run, top)
