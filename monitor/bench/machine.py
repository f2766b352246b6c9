"""The machine a benchmark ran on, written beside its numbers.

The models run int8 through onnxruntime, whose kernels are chosen by the CPU's
instruction sets: with AVX-512 VNNI (or AVX-VNNI) an int8 product is one instruction,
with AVX2 alone it takes three and saturates 16-bit sums (`engine.int8` rewrites the
models there), so the same verifier pair costs about 4x more (2.4 ms against 9.4 ms,
`bench verifier`). Figures from two machines are only comparable with these fields beside
them. `/proc/cpuinfo` is read directly (no subprocess, nothing to install); elsewhere the
CPU fields are what `platform` knows, or None.
"""

from __future__ import annotations

import os
import platform
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from monitor.engine import int8

INT8_FLAGS = ("avx2", "avx512f", *sorted(int8.VNNI_FLAGS))
"""The instruction sets that pick onnxruntime's int8 kernels on x86-64."""


def parse_cpuinfo(text: str) -> dict[str, Any]:
    """The first processor's model name and which of `INT8_FLAGS` it has."""
    model = next((line.partition(":")[2].strip() for line in text.splitlines()
                  if line.partition(":")[0].strip() == "model name"), None)
    flags = int8.cpu_flags(text)
    return {"cpu_model": model, "int8_instructions": [f for f in INT8_FLAGS if f in flags]}


def describe(load_before: tuple[float, float, float] | None = None) -> dict[str, Any]:
    """CPU model, core count, int8 instruction sets, onnxruntime version and the load
    average (before the run when given, and now): what a reader needs to compare runs."""
    text = int8.cpuinfo()
    cpu = parse_cpuinfo(text) if text else {
        "cpu_model": platform.processor() or None, "int8_instructions": None}
    try:
        runtime: str | None = version("onnxruntime")
    except PackageNotFoundError:
        runtime = None
    now = round(os.getloadavg()[0], 2)
    return {
        **cpu,
        "cpus": os.cpu_count(),
        "onnxruntime": runtime,
        "int8_exact_rewrite": not int8.int8_is_exact_here(),  # engine.int8
        "load_avg_1m": [round(load_before[0], 2), now] if load_before else now,
    }
