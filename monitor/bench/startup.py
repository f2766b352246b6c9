"""Start-up cost of the commands: wall time and peak RSS of fresh `skg-monitor` processes.

Each command runs `repeats` times as `python -m monitor.cli ...` (the same interpreter and
the same `monitor` package as this benchmark), after one untimed run that builds the ONNX
embedder into the cache if it is missing, so the figures are those of a machine whose models
are cached. The wall time counts the whole process (interpreter, imports, model loading,
the work, exit); the peak RSS is the child's own `ru_maxrss` from `wait4`.

* `score`: a file of one exchange (a user turn, then the assistant turn that is scored):
  every model is loaded (spaCy, the ONNX MiniLM, the verifier) and one turn is scored.
* `schemas`: writes the JSON Schemas; loads no model.
* `help`: `skg-monitor --help`.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ONE_EXCHANGE = [
    {"conversation_id": "startup", "turn_index": 0, "role": "user",
     "text": "Hi! I'm planning a weekend in Lisbon. My budget is 600 GBP max for the hotel."},
    {"conversation_id": "startup", "turn_index": 1, "role": "assistant",
     "text": "With a budget of 600 GBP for two nights you can stay central, in Baixa."},
]


def _load() -> list[float]:
    with open("/proc/loadavg", encoding="ascii") as fh:
        return [float(x) for x in fh.read().split()[:3]]


def _run_once(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of one `python -m monitor.cli ARGS` process."""
    with tempfile.TemporaryFile() as stderr:
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "monitor.cli", *args], env=env,
                                 stdout=subprocess.DEVNULL, stderr=stderr)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            stderr.seek(0)
            raise RuntimeError(f"skg-monitor {' '.join(args)} exited {child.returncode}: "
                               f"{stderr.read().decode(errors='replace')[-2000:]}")
    return seconds, usage.ru_maxrss / 1024.0  # Linux reports KB


def run_startup_bench(repeats: int = 5) -> dict[str, Any]:
    package_root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    load_before = _load()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="skg-startup-") as tmp:
        turns = Path(tmp) / "one-exchange.jsonl"
        turns.write_text("".join(json.dumps(t) + "\n" for t in ONE_EXCHANGE), encoding="utf-8")
        commands = {
            "score": ["score", str(turns), "--output", str(Path(tmp) / "scores.jsonl")],
            "schemas": ["schemas", "--out", str(Path(tmp) / "schemas")],
            "help": ["--help"],
        }
        _run_once(commands["score"], env)  # builds the ONNX file if the cache lacks it
        for name, args in commands.items():
            runs = [_run_once(args, env) for _ in range(repeats)]
            seconds = [s for s, _ in runs]
            rss = [r for _, r in runs]
            results[name] = {
                "seconds_median": round(statistics.median(seconds), 3),
                "seconds_min": round(min(seconds), 3),
                "seconds_max": round(max(seconds), 3),
                "peak_rss_mb_median": round(statistics.median(rss), 1),
                "peak_rss_mb_max": round(max(rss), 1),
                "runs": repeats,
            }
    return {
        "commands": results,
        "score_target_seconds": 2.0,
        "score_under_target": results["score"]["seconds_median"] < 2.0,
        "loadavg_before": load_before,
        "loadavg_after": _load(),
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
    }
