"""The machine a benchmark ran on, written beside its numbers.

The models run int8 through onnxruntime, whose kernels are chosen by the CPU's
instruction sets: with AVX-512 VNNI (or AVX-VNNI) an int8 product is one instruction,
with AVX2 alone it takes three and saturates 16-bit sums, so the same verifier pair
costs about 4x more there (2.4 ms against 9.4 ms at issue 20's stop 17) and its
probabilities move in the second or third decimal. Figures from two machines are only
comparable with these fields beside them; `/proc/cpuinfo` is read directly (a few lines,
no subprocess, nothing to install), and elsewhere the fields are None.
"""

from __future__ import annotations

import os
import platform
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

INT8_FLAGS = ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8")
"""The instruction sets that pick onnxruntime's int8 kernels on x86-64, in order of speed."""

_CPUINFO = Path("/proc/cpuinfo")


def parse_cpuinfo(text: str) -> dict[str, Any]:
    """The first processor's model name and which of `INT8_FLAGS` it has."""
    model: str | None = None
    flags: set[str] = set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and model is None:
            model = value.strip()
        elif key in {"flags", "Features"} and not flags:
            flags = set(value.split())
        if model is not None and flags:
            break
    return {"cpu_model": model, "int8_instructions": [f for f in INT8_FLAGS if f in flags]}


def describe(load_before: tuple[float, float, float] | None = None) -> dict[str, Any]:
    """CPU model, core count, int8 instruction sets, onnxruntime version and the load
    average (before the run when given, and now): what a reader needs to compare runs."""
    try:
        cpu = parse_cpuinfo(_CPUINFO.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        cpu = {"cpu_model": platform.processor() or None, "int8_instructions": None}
    try:
        runtime: str | None = version("onnxruntime")
    except PackageNotFoundError:
        runtime = None
    now = round(os.getloadavg()[0], 2)
    return {
        **cpu,
        "cpus": os.cpu_count(),
        "onnxruntime": runtime,
        "load_avg_1m": [round(load_before[0], 2), now] if load_before else now,
    }
