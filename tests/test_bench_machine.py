"""The machine block every benchmark writes: which int8 instructions the CPU has."""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

from monitor.bench import machine
from monitor.cli.bench import write_result

_AVX2_ONLY = """processor\t: 0
vendor_id\t: AuthenticAMD
model name\t: AMD EPYC
flags\t\t: fpu sse4_1 sse4_2 avx f16c avx2 bmi2
processor\t: 1
model name\t: some other name
flags\t\t: fpu avx512f avx512_vnni
"""

_VNNI = """model name\t: Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz
flags\t\t: fpu avx avx2 avx512f avx512bw avx512_vnni
"""


def test_the_first_processor_decides_and_only_int8_flags_are_kept() -> None:
    assert machine.parse_cpuinfo(_AVX2_ONLY) == {
        "cpu_model": "AMD EPYC", "int8_instructions": ["avx2"]}
    assert machine.parse_cpuinfo(_VNNI)["int8_instructions"] == [
        "avx2", "avx512f", "avx512_vnni"]


def test_an_unknown_format_gives_no_model_and_no_flags() -> None:
    assert machine.parse_cpuinfo("nothing here\n") == {
        "cpu_model": None, "int8_instructions": []}


def test_every_bench_result_carries_the_machine(tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    write_result("x", {"figure": 1}, out)
    written = json.loads(out.read_text())
    assert written["figure"] == 1
    assert set(written["machine"]) == {"cpu_model", "int8_instructions", "cpus",
                                       "onnxruntime", "int8_exact_rewrite", "load_avg_1m"}
    assert written["machine"]["onnxruntime"] == version("onnxruntime")


def test_a_bench_that_measured_its_own_load_keeps_it(tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    write_result("x", {"machine": machine.describe((9.5, 0.0, 0.0))}, out)
    assert json.loads(out.read_text())["machine"]["load_avg_1m"][0] == 9.5
