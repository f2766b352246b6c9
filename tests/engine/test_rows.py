"""Batch rows that cannot see each other (monitor.engine.rows): after the per-row rewrite a
row of a batch gets exactly the numbers the original model gives it alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from monitor.engine import int8, rows


def _quantised_matmul(rank: int, weight: np.ndarray, zero: np.ndarray) -> bytes:
    """x (float, `rank` axes) -> DynamicQuantizeLinear -> MatMulInteger -> float, as
    onnxruntime's quantize_dynamic writes it (scale product, then bias)."""
    k, n = weight.shape
    shape: list[int | str] = ["batch", *(["tokens"] if rank == 3 else []), k]
    out: list[int | str] = [*shape[:-1], n]
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
        helper.make_node("MatMulInteger", ["xq", "w", "xz", "wz"], ["yi"], name="mm"),
        helper.make_node("Cast", ["yi"], ["yf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["xs", "ws"], ["scales"]),
        helper.make_node("Mul", ["yf", "scales"], ["scaled"]),
        helper.make_node("Add", ["bias", "scaled"], ["y"]),
    ]
    rng = np.random.default_rng(3)
    graph = helper.make_graph(
        nodes, "quantised_matmul",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out)],
        [numpy_helper.from_array(weight, "w"), numpy_helper.from_array(zero, "wz"),
         numpy_helper.from_array(rng.uniform(0.001, 0.01, n).astype(np.float32), "ws"),
         numpy_helper.from_array(rng.normal(size=n).astype(np.float32), "bias")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString()


def _session(model: bytes) -> ort.InferenceSession:
    return ort.InferenceSession(model, providers=["CPUExecutionProvider"])


def _batch(rank: int, rows_n: int = 5) -> np.ndarray:
    # rows of very different ranges, so one scale for the tensor is not any row's own
    rng = np.random.default_rng(11)
    shape = (rows_n, 7, 16) if rank == 3 else (rows_n, 16)
    spread = np.geomspace(0.1, 40.0, rows_n).reshape((rows_n,) + (1,) * (rank - 1))
    x = (rng.normal(size=shape) * spread + spread / 3).astype(np.float32)
    x[1] = 0.0  # a row the operator quantises with scale 1
    return x


@pytest.mark.parametrize("rank", [2, 3])
@pytest.mark.parametrize("zero", [np.zeros(4, dtype=np.int8), np.array(-3, dtype=np.int8)],
                         ids=["zero-point-per-column", "zero-point-per-tensor"])
def test_each_row_of_a_batch_gets_what_the_original_gives_it_alone(
        rank: int, zero: np.ndarray) -> None:
    weight = np.random.default_rng(5).integers(-127, 128, size=(16, 4), dtype=np.int8)
    model = _quantised_matmul(rank, weight, zero)
    original, per_row = _session(model), _session(rows.per_row(model))
    x = _batch(rank)
    alone = np.concatenate([original.run(None, {"x": x[i : i + 1]})[0] for i in range(len(x))])
    assert not np.array_equal(original.run(None, {"x": x})[0], alone)  # the problem
    assert np.array_equal(per_row.run(None, {"x": x})[0], alone)
    assert np.array_equal(per_row.run(None, {"x": x[2:3]})[0], alone[2:3])


def test_the_rewrite_composes_with_the_exact_weights() -> None:
    """Weights within +-63 cannot saturate the AVX2 kernel (255 * 63 * 2 < 2**15), so the
    per-row model is exact on every CPU and the exact-weight rewrite must not move it;
    larger ones would make the comparison depend on whether the CPU has VNNI."""
    weight = np.random.default_rng(6).integers(-63, 64, size=(16, 4), dtype=np.int8)
    model = _quantised_matmul(3, weight, np.zeros(4, dtype=np.int8))
    x = _batch(3)
    exact = int8.exact_weights(rows.per_row(model))
    assert exact != rows.per_row(model)  # the rewrite found the per-row products
    both = _session(exact).run(None, {"x": x})[0]
    assert np.array_equal(both, _session(rows.per_row(model)).run(None, {"x": x})[0])


def test_a_product_of_two_activations_is_refused() -> None:
    graph = helper.make_graph(
        [helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
         helper.make_node("MatMulInteger", ["xq", "xq", "xz", "xz"], ["y"], name="self")],
        "square", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [2, 2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(ValueError, match="multiplies two activations"):
        rows.per_row(model.SerializeToString())


def test_the_file_for_batches_is_built_once_per_cpu_kind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "model.onnx"
    source.write_bytes(_quantised_matmul(3, np.ones((16, 4), np.int8), np.zeros(4, np.int8)))
    cache = tmp_path / "cache"
    monkeypatch.setattr(int8, "int8_is_exact_here", lambda: True)
    built = rows.file_for_batches(source, "model.abc", cache)
    assert built.name == f"model.abc.{rows.RECIPE}.onnx"
    assert built.read_bytes() == rows.per_row(source.read_bytes())
    assert built.stat().st_mode & 0o777 == 0o644  # other users' workers can read it
    monkeypatch.setattr(int8, "int8_is_exact_here", lambda: False)
    exact = rows.file_for_batches(source, "model.abc", cache)
    assert exact.name == f"model.abc.{rows.RECIPE}.{int8.RECIPE}.onnx"
    assert exact.read_bytes() == int8.exact_weights(rows.per_row(source.read_bytes()))
    monkeypatch.setattr(rows, "per_row", lambda model: pytest.fail("rebuilt"))
    assert rows.file_for_batches(source, "model.abc", cache) == exact
