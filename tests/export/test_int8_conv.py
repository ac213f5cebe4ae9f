"""Qwen3-ASR's stride-2 convolutions rewritten as u8 x s8 matrix products (export/qwen3_asr/int8_conv.py)."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from tests.support.cpu_paths import PATHS, run_graphs
from tingji.export.onnx_tools import INT8_WEIGHT_LIMIT, check_int8_weights
from tingji.export.qwen3_asr.int8_conv import convs_to_int8

C_IN, C_OUT, H, W = 12, 20, 13, 7  # odd sizes: the last output row/column sees the zero padding


def _two_part_conv() -> onnx.ModelProto:
    """x [n, C_IN, H, W] -> the batch in two slices, each through the same Conv + bias -> concat.

    The shape of the exported audio tower (CONV_PARTS): one weight, several Conv nodes, and a
    slice that is empty whenever n < 2.
    """
    rng = np.random.default_rng(0)
    weight = (rng.standard_normal((C_OUT, C_IN, 3, 3)) * 0.2).astype(np.float32)
    weight[3] *= 40.0  # one output channel far larger than the rest: scales must be per channel
    bias = rng.standard_normal(C_OUT).astype(np.float32)
    inits = [
        numpy_helper.from_array(weight, "conv.weight"),
        numpy_helper.from_array(bias, "conv.bias"),
        numpy_helper.from_array(np.array([0], np.int64), "zero"),
        numpy_helper.from_array(np.array([1], np.int64), "one"),
        numpy_helper.from_array(np.array([1 << 30], np.int64), "end"),
        numpy_helper.from_array(np.array([0], np.int64), "axis"),
    ]
    nodes = [
        helper.make_node("Slice", ["x", "zero", "one", "axis"], ["a"]),
        helper.make_node("Slice", ["x", "one", "end", "axis"], ["b"]),
    ]
    for part in "ab":
        nodes.append(
            helper.make_node(
                "Conv",
                [part, "conv.weight", "conv.bias"],
                [f"{part}_y"],
                name=f"conv_{part}",
                strides=[2, 2],
                pads=[1, 1, 1, 1],
                kernel_shape=[3, 3],
            )
        )
    nodes.append(helper.make_node("Concat", ["a_y", "b_y"], ["y"], axis=0))
    graph = helper.make_graph(
        nodes,
        "convs",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", C_IN, H, W])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _error(got: np.ndarray, want: np.ndarray) -> float:
    return float(np.abs(got - want).max() / np.abs(want).max())


def test_rewritten_convolutions_match_the_float_ones_on_every_cpu_path(tmp_path):
    """One batch that leaves a slice empty, one that fills both; on this CPU's int8 kernel and AVX2's."""
    fp32, int8 = tmp_path / "fp32.onnx", tmp_path / "int8.onnx"
    onnx.save(_two_part_conv(), str(fp32))
    rewritten = convs_to_int8(_two_part_conv(), {"conv.weight": (H, W)})
    onnx.save(rewritten, str(int8))
    cases = []
    for batch in (1, 3):
        x = np.random.default_rng(batch).standard_normal((batch, C_IN, H, W)).astype(np.float32)
        x[:, :, 0, :] += 3.0  # an uneven activation range: the zero point is not 128
        cases.append({"x": x})
    want = [ort.InferenceSession(str(fp32), providers=["CPUExecutionProvider"]).run(None, case)[0] for case in cases]
    small = [c for c in range(C_OUT) if c != 3]
    for path in PATHS:
        run = run_graphs(path, [int8], cases)
        for case, ref, out in zip(cases, want, run.outputs):
            got = out[0]["y"]
            error, others = _error(got, ref), _error(got[:, small], ref[:, small])
            print(
                f"{path.name} ({run.kernel}), batch {len(case['x'])}: int8 vs fp32 relative error {error:.4f}, "
                f"the channels beside the large one {others:.4f}"
            )
            assert got.shape == ref.shape == (len(case["x"]), C_OUT, (H + 1) // 2, (W + 1) // 2)
            # per-tensor weight scales would leave the small channels ~1 level (measured 0.63 there)
            assert error < 0.03 and others < 0.05
    ops = [n.op_type for n in rewritten.graph.node]
    assert ops.count("Conv") == 0 and ops.count("MatMulInteger") == 2
    check_int8_weights(rewritten)
    weights = {t.name: numpy_helper.to_array(t) for t in rewritten.graph.initializer}
    assert "conv.weight" not in weights  # the float weights are not kept in the rewritten graph
    assert np.abs(weights["conv.int8.weight"].astype(np.int16)).max() < INT8_WEIGHT_LIMIT


def test_a_weight_no_convolution_uses_or_another_stride_is_refused():
    with pytest.raises(ValueError, match="no Conv uses"):
        convs_to_int8(_two_part_conv(), {"conv.weight": (H, W), "other.weight": (H, W)})
    proto = _two_part_conv()
    for attr in proto.graph.node[2].attribute:
        if attr.name == "strides":
            attr.ints[:] = [1, 1]
    with pytest.raises(ValueError, match="3x3 stride-2"):
        convs_to_int8(proto, {"conv.weight": (H, W)})
