"""Exact int8 products on every CPU (monitor.engine.int8): the rewrite keeps every
integer, and a CPU without VNNI then computes what one with VNNI computes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from google.protobuf.message import DecodeError
from onnx import TensorProto, helper, numpy_helper

from monitor.engine import int8
from monitor.engine.verifier import MODEL_DIR, MODEL_FILE


def _one_matmul(weight: np.ndarray, zero: np.ndarray) -> bytes:
    rows, cols = weight.shape
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["a", "w", "az", "wz"], ["y"])], "one_matmul",
        [helper.make_tensor_value_info("a", TensorProto.UINT8, [1, rows])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [1, cols])],
        [numpy_helper.from_array(weight, "w"), numpy_helper.from_array(zero, "wz"),
         numpy_helper.from_array(np.array(0, dtype=np.uint8), "az")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString()


def _run(model: bytes, a: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    out: np.ndarray = session.run(None, {"a": a})[0]
    return out


def _widest_weight() -> tuple[np.ndarray, np.ndarray]:
    proto = onnx.load(str(MODEL_DIR / MODEL_FILE))
    constant = {t.name: t for t in proto.graph.initializer}
    pairs = [(numpy_helper.to_array(constant[n.input[1]]),
              numpy_helper.to_array(constant[n.input[3]]))
             for n in proto.graph.node if n.op_type == "MatMulInteger"]
    assert len(pairs) == 37
    return max(pairs, key=lambda wz: int(np.abs(wz[0].astype(np.int32)).sum(axis=0).max()))


def test_the_rewritten_weights_give_the_exact_products_on_this_cpu() -> None:
    # the worst case for a saturating 16-bit sum: every activation 255, against the
    # verifier's own widest weight column (this fails without the rewrite on AVX2 alone)
    weight, zero = _widest_weight()
    worst = np.full((1, weight.shape[0]), 255, dtype=np.uint8)
    exact = worst.astype(np.int32) @ (weight.astype(np.int32) - zero.astype(np.int32))
    assert np.array_equal(_run(int8.exact_weights(_one_matmul(weight, zero)), worst), exact)


def test_the_rewrite_changes_no_product_of_ordinary_activations() -> None:
    rng = np.random.default_rng(7)
    weight = rng.integers(-127, 128, size=(64, 8), dtype=np.int8)
    zero = np.zeros(8, dtype=np.int8)  # per column, as quantize_dynamic writes them
    a = rng.integers(0, 40, size=(1, 64), dtype=np.uint8)  # small enough never to saturate
    model = _one_matmul(weight, zero)
    assert np.array_equal(_run(int8.exact_weights(model), a), _run(model, a))


def test_only_constant_int8_weights_with_zero_points_are_rewritten() -> None:
    weight = np.ones((4, 2), dtype=np.int8)
    rewritten = onnx.load_from_string(
        int8.exact_weights(_one_matmul(weight, np.array(0, dtype=np.int8))))
    kinds = {t.name: (t.data_type, numpy_helper.to_array(t).ravel()[0])
             for t in rewritten.graph.initializer}
    assert kinds["w"] == (TensorProto.UINT8, 129)
    assert kinds["wz"] == (TensorProto.UINT8, 128)
    assert kinds["az"] == (TensorProto.UINT8, 0)  # the activations' zero point is not ours


def test_cpu_flags_are_read_from_x86_and_arm_cpuinfo() -> None:
    assert int8.cpu_flags("model name\t: x\nflags\t\t: fpu avx2 avx512_vnni\n") == {
        "fpu", "avx2", "avx512_vnni"}
    assert int8.cpu_flags("Features\t: fp asimd asimddp\n") == {"fp", "asimd", "asimddp"}
    assert int8.cpu_flags("nothing\n") == frozenset()


def test_a_cpu_without_vnni_loads_a_rewrite_built_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "model.onnx"
    source.write_bytes(_one_matmul(np.ones((2, 2), dtype=np.int8), np.array(0, np.int8)))
    cache = tmp_path / "cache"
    monkeypatch.setattr(int8, "int8_is_exact_here", lambda: True)
    assert int8.file_for_this_cpu(source, "model.abc", cache) == source
    monkeypatch.setattr(int8, "int8_is_exact_here", lambda: False)
    built = int8.file_for_this_cpu(source, "model.abc", cache)
    assert built == cache / f"model.abc.{int8.RECIPE}.onnx"
    assert built.read_bytes() == int8.exact_weights(source.read_bytes())
    monkeypatch.setattr(int8, "exact_weights", lambda model: pytest.fail("rebuilt"))
    assert int8.file_for_this_cpu(source, "model.abc", cache) == built
    assert sorted(p.name for p in cache.iterdir()) == [built.name, built.name + ".lock"]


def _exact_reference(model: bytes) -> bytes:
    """The model with each MatMulInteger done in float64 on the integers: exact (sums of
    at most 1,536 products of 255 x 127 are far inside float64's 2**53), on any CPU."""
    proto = onnx.load_from_string(model)
    nodes = []
    for node in proto.graph.node:
        if node.op_type != "MatMulInteger":
            nodes.append(node)
            continue
        a, w, az, wz = node.input
        k = node.output[0]
        as_float = [helper.make_node("Cast", [x], [f"{k}/{x}/f"], to=TensorProto.DOUBLE)
                    for x in (a, az, w, wz)]
        nodes += [*as_float,
                  helper.make_node("Sub", [f"{k}/{a}/f", f"{k}/{az}/f"], [f"{k}/a"]),
                  helper.make_node("Sub", [f"{k}/{w}/f", f"{k}/{wz}/f"], [f"{k}/w"]),
                  helper.make_node("MatMul", [f"{k}/a", f"{k}/w"], [f"{k}/y"]),
                  helper.make_node("Cast", [f"{k}/y"], [k], to=TensorProto.INT32)]
    del proto.graph.node[:]
    proto.graph.node.extend(nodes)
    return proto.SerializeToString()


def test_the_verifier_computes_the_exact_integers_on_this_cpu(tmp_path: Path) -> None:
    # the blind-probe pair whose certificate an AVX2-only CPU lost (mean P(contradiction)
    # 0.8909 there, 0.9015 exact): the shipped verifier now agrees with the exact model
    from tokenizers import Tokenizer

    from monitor.engine.verifier import OnnxVerifier

    pair = ("Honestly, it's worth asking the GP for a short course — an antibiotic often "
            "helps a viral throat like this clear a couple of days sooner, and it stops it "
            "dragging on.", "So there's simply nothing for the antibiotic to hit.")
    cache = tmp_path / "cache"
    tokenizer = Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
    tokenizer.no_padding()
    reference = ort.InferenceSession(
        _exact_reference((MODEL_DIR / MODEL_FILE).read_bytes()),
        providers=["CPUExecutionProvider"])
    verifier = OnnxVerifier(cache_size=0, threads=1, cache_dir=cache)
    for premise, hypothesis in (pair, pair[::-1]):
        encoded = tokenizer.encode(premise, hypothesis)
        logits = reference.run(None, {
            "input_ids": np.asarray([encoded.ids], dtype=np.int64),
            "attention_mask": np.ones((1, len(encoded.ids)), dtype=np.int64),
            "token_type_ids": np.asarray([encoded.type_ids], dtype=np.int64)})[0][0]
        z = np.exp(logits - logits.max())
        probs = z / z.sum()
        [judged] = verifier.judge([(premise, hypothesis)])
        assert abs(judged.contradiction - float(probs[2])) < 1e-4


def test_a_failed_rewrite_leaves_no_file(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "model.onnx"
    source.write_bytes(b"not a model")
    monkeypatch.setattr(int8, "int8_is_exact_here", lambda: False)
    with pytest.raises(DecodeError):
        int8.file_for_this_cpu(source, "model.bad", tmp_path / "cache")
    left = [p.name for p in (tmp_path / "cache").iterdir()]
    assert left == [f"model.bad.{int8.RECIPE}.onnx.lock"]
