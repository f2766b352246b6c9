"""Batch rows that cannot see each other: int8 models rewritten to quantise row by row.

onnxruntime's dynamic int8 quantisation (`DynamicQuantizeLinear`) picks one scale and one
zero point for a whole activation tensor, so a text run in a batch gets other integers
than the same text run alone; the engine therefore ran one text per call, and a short
text then costs mostly the call itself (five tokens, one thread, 2 cores: 0.9-1.4 ms
alone, 0.5-0.6 ms a text in a batch of eight). `per_row` rewrites a model so that each
row of the batch gets the scale and zero point it would get alone, computed by the
formulas of the operator (min and max widened to include 0, range / 255 or 1 for an
all-zero row, zero point rounded half to even, `QuantizeLinear` per row).
`MatMulInteger` takes only one activation zero point, so the rewritten product uses 0
and subtracts zero point x column sum of the weights in int32: the same integers. A
row's outputs are then bit-identical alone, in any batch, and to the original model run
alone (tested), so nothing the engine measured moves.

Only the quantisation is made per row: every other operator of the graph must already
treat rows alone. That holds for the embedder (its pooling is done in numpy, row by row);
the verifier's graph pools with a `ReduceSum` whose float order changes with the batch
size, so the verifier keeps one pair per call.

The extra operators cost 0.6-1.7 ms a call (4-64 tokens), so the embedder sends a batch
through the rewrite only when it holds several texts of one length (`engine.embedder`).
"""

from __future__ import annotations

from pathlib import Path

from monitor.engine import int8
from monitor.engine.artefacts import built_once, write_atomically

RECIPE = "rows-v2"
"""Part of every rewritten file's name: bump it when `per_row` changes."""


def per_row(model: bytes) -> bytes:
    """`model` with each `DynamicQuantizeLinear` computed per row of its input's first axis,
    and each `MatMulInteger` it feeds corrected for the per-row zero point."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    proto = onnx.load_from_string(model)
    graph = proto.graph
    if {o.domain: o.version for o in proto.opset_import}.get("", 0) >= 18:
        raise ValueError("per_row: opset 18 moved ReduceMin's axes to an input; not handled")
    inferred = onnx.shape_inference.infer_shapes(proto).graph
    ranks = {value.name: len(value.type.tensor_type.shape.dim)
             for value in [*inferred.input, *inferred.value_info, *inferred.output]
             if value.type.tensor_type.HasField("shape")}
    constants = {tensor.name: tensor for tensor in graph.initializer}
    added: list[onnx.TensorProto] = []

    def constant(name: str, value: object, dtype: type) -> str:
        added.append(numpy_helper.from_array(np.array(value, dtype=dtype), f"rows/{name}"))
        return f"rows/{name}"

    zero, top = constant("zero", 0.0, np.float32), constant("qmax", 255.0, np.float32)
    flat, no_zero = constant("flat", [-1], np.int64), constant("u8_zero", 0, np.uint8)
    nodes: list[onnx.NodeProto] = []
    zero_points: dict[str, str] = {}  # a DynamicQuantizeLinear's zero point -> as int32
    for node in graph.node:
        if node.op_type != "DynamicQuantizeLinear":
            nodes.append(node)
            continue
        x, (q, scale, zp) = node.input[0], node.output
        if x not in ranks:
            raise ValueError(f"per_row: the rank of {x!r} is not known")
        p = f"rows/{len(zero_points)}/"
        axes = list(range(1, ranks[x]))
        nodes += [
            helper.make_node("ReduceMin", [x], [p + "min"], axes=axes, keepdims=1),
            helper.make_node("ReduceMax", [x], [p + "max"], axes=axes, keepdims=1),
            helper.make_node("Min", [p + "min", zero], [p + "lo"]),
            helper.make_node("Max", [p + "max", zero], [p + "hi"]),
            helper.make_node("Sub", [p + "hi", p + "lo"], [p + "range"]),
            # an all-zero row: the operator takes scale 1, and 255 / 255 is exactly 1
            helper.make_node("Equal", [p + "range", zero], [p + "empty"]),
            helper.make_node("Where", [p + "empty", top, p + "range"], [p + "span"]),
            helper.make_node("Div", [p + "span", top], [scale]),
            helper.make_node("Div", [p + "lo", scale], [p + "lo_steps"]),
            helper.make_node("Sub", [zero, p + "lo_steps"], [p + "zp_raw"]),
            helper.make_node("Clip", [p + "zp_raw", zero, top], [p + "zp_clipped"]),
            helper.make_node("Round", [p + "zp_clipped"], [p + "zp_float"]),
            helper.make_node("Cast", [p + "zp_float"], [zp], to=TensorProto.UINT8),
            helper.make_node("Reshape", [scale, flat], [p + "scale_rows"]),
            helper.make_node("Reshape", [zp, flat], [p + "zp_rows"]),
            helper.make_node("QuantizeLinear", [x, p + "scale_rows", p + "zp_rows"], [q],
                             axis=0),
            helper.make_node("Cast", [zp], [p + "zp_int32"], to=TensorProto.INT32),
        ]
        zero_points[zp] = p + "zp_int32"
    rewritten: list[onnx.NodeProto] = []
    for node in nodes:
        if (node.op_type != "MatMulInteger" or len(node.input) < 3
                or node.input[2] not in zero_points):
            rewritten.append(node)
            continue
        a, weight, a_zero, *rest = node.input
        if weight not in constants:
            raise ValueError(f"per_row: {node.name!r} multiplies two activations")
        w = numpy_helper.to_array(constants[weight]).astype(np.int64)
        w_zero = numpy_helper.to_array(constants[rest[0]]).astype(np.int64) if rest else 0
        sums = constant(f"{node.name or node.output[0]}/column_sums",
                        (w - w_zero).sum(axis=0), np.int32)
        y = node.output[0]
        rewritten += [
            helper.make_node("MatMulInteger", [a, weight, no_zero, *rest], [y + "/at_zero"],
                             name=node.name),
            helper.make_node("Mul", [zero_points[a_zero], sums], [y + "/zero_share"]),
            helper.make_node("Sub", [y + "/at_zero", y + "/zero_share"], [y]),
        ]
    del graph.node[:]
    graph.node.extend(rewritten)
    graph.initializer.extend(added)
    return proto.SerializeToString()


def file_for_batches(source: Path, keyed_name: str, cache_dir: Path) -> Path:
    """`per_row(source)` (and, on a CPU without VNNI, `int8.exact_weights` of it), built
    once into `cache_dir` as `keyed_name` (a name that changes with the source) + recipe."""
    exact = int8.int8_is_exact_here()
    recipe = RECIPE if exact else f"{RECIPE}.{int8.RECIPE}"

    def rewritten() -> bytes:
        model = per_row(source.read_bytes())
        return model if exact else int8.exact_weights(model)

    return built_once(cache_dir / f"{keyed_name}.{recipe}.onnx",
                      lambda target: write_atomically(target, rewritten))
