"""Exact int8 products on every CPU: the models' integers must not depend on the machine.

onnxruntime multiplies the models' uint8 activations by their int8 weights. A CPU with
VNNI (AVX-512 VNNI, AVX-VNNI) sums each product in 32 bits, exactly. A CPU with AVX2 but
no VNNI (many AMD EPYC and older Intel servers) first adds two products in a saturating
16-bit register: 255 * 127 + 255 * 127 becomes 32,767 instead of 64,770, so there the same
model computes other numbers. Measured on an AVX2-only AMD EPYC: the shipped verifier gave
a blind-probe pair a mean P(contradiction) of 0.8909 where the exact integers give 0.9015,
and the certificate that pair raised on the machine that measured the model was gone.

The cure loses nothing: an int8 weight w is the uint8 w + 128 with zero point 128, and
onnxruntime's uint8 x uint8 kernels widen both operands to 16 bits before multiplying, so
they never saturate. `exact_weights` rewrites a model that way, into a file of the cache
directory (the shipped file and its hash stay as they are), wherever the CPU is not known
to have VNNI; with VNNI the int8 kernels are exact already, and faster.
"""

from __future__ import annotations

from pathlib import Path

from monitor.engine.artefacts import built_once, write_atomically

VNNI_FLAGS = frozenset({"avx512_vnni", "avx_vnni", "amx_int8"})
"""/proc/cpuinfo flags of the instruction sets that sum int8 products in 32 bits."""

_CPUINFO = Path("/proc/cpuinfo")
_SHIFT = 128  # int8 w -> uint8 w + 128, zero point z -> z + 128


def cpu_flags(cpuinfo: str) -> frozenset[str]:
    """The first processor's flags ("flags" on x86, "Features" on Arm) in /proc/cpuinfo."""
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in {"flags", "Features"}:
            return frozenset(value.split())
    return frozenset()


def cpuinfo() -> str:
    """This machine's /proc/cpuinfo, or "" where there is none (not Linux)."""
    try:
        return _CPUINFO.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def int8_is_exact_here() -> bool:
    """Whether this CPU's int8 x int8 products are exact (it has VNNI). Unknown means no:
    the rewrite is exact everywhere, only slower where it was not needed."""
    return bool(cpu_flags(cpuinfo()) & VNNI_FLAGS)


def exact_weights(model: bytes) -> bytes:
    """`model` with every constant int8 MatMulInteger weight (and its zero point) as
    uint8 + 128: the same integer products, computed by kernels that cannot saturate."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    proto = onnx.load_from_string(model)
    constant = {tensor.name: tensor for tensor in proto.graph.initializer}
    shifted: set[str] = set()
    signed = onnx.TensorProto.INT8
    for node in proto.graph.node:
        if node.op_type != "MatMulInteger" or len(node.input) < 4:
            continue  # no zero point given: int8 weights with zero point 0 stay as they are
        weight, zero = constant.get(node.input[1]), constant.get(node.input[3])
        if weight is None or zero is None or {weight.data_type, zero.data_type} != {signed}:
            continue  # both constant int8, or this product is not ours to rewrite
        for tensor in (weight, zero):
            if tensor.name not in shifted:
                values = numpy_helper.to_array(tensor).astype(np.int16) + _SHIFT
                tensor.CopyFrom(numpy_helper.from_array(values.astype(np.uint8), tensor.name))
                shifted.add(tensor.name)
    return proto.SerializeToString()


RECIPE = "exact-u8u8-v1"
"""Part of every rewritten file's name: bump it when `exact_weights` changes."""


def file_for_this_cpu(source: Path, keyed_name: str, cache_dir: Path) -> Path:
    """The model file this CPU should load: `source` itself with VNNI; without, its
    `exact_weights` rewrite, built once into `cache_dir` as `keyed_name` (which must change
    with the source's content: a hash) plus `RECIPE`. Built once, because the rewrite
    imports onnx, whose ml_dtypes extension alone cost a second at every start."""
    if int8_is_exact_here():
        return source
    return built_once(cache_dir / f"{keyed_name}.{RECIPE}.onnx",
                      lambda target: write_atomically(
                          target, lambda: exact_weights(source.read_bytes())))
