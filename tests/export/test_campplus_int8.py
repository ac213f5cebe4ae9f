"""CAM++'s int8 CPU graph (export/campplus/int8.py): each rewritten convolution computes exactly the
integer product it claims, and an int8 export holds the fp32 graphs and the int8 one beside them.

The embeddings of a trained model against fp32, the labels and the engine's choice are
tests/engine/test_speakers_int8.py; the torch-free conversion giving the same bytes is
tests/export/test_torch_free.py (campplus, int8).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from tingji.export.campplus.int8 import (
    FEATS,
    LEVELS,
    MASK,
    MIN_MACS,
    convs_to_int8,
    quantised_weights,
    segment_gates,
    whole_clips,
)


def _relu_conv(w: np.ndarray, bias: np.ndarray, dilation: int) -> onnx.ModelProto:
    """x -> Relu -> Conv(w, bias, 'same' padding at `dilation`), frames symbolic."""
    k = w.shape[2]
    pad = (k - 1) // 2 * dilation
    graph = helper.make_graph(
        [
            helper.make_node("Relu", ["x"], ["r"]),
            helper.make_node("Conv", ["r", "w", "b"], ["y"], dilations=[dilation], pads=[pad, pad], kernel_shape=[k]),
        ],
        "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", w.shape[1], "frames"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(bias, "b")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _integer_reference(x: np.ndarray, w: np.ndarray, bias: np.ndarray, dilation: int) -> np.ndarray:
    """What the rewrite promises, in NumPy: u8 activations at one scale per clip, the module's s8 weights,
    exact integer sums, then the two scales and the bias."""
    r = np.maximum(x, 0)
    scale = np.maximum(r.reshape(len(r), -1).max(axis=1), 1e-20) / np.float32(LEVELS)
    q = np.clip(np.round(r / scale[:, None, None]), 0, 255).astype(np.int64)
    wq, w_scale = quantised_weights(w)
    c_out, k = w.shape[0], w.shape[2]
    pad = (k - 1) // 2 * dilation
    qp = np.pad(q, ((0, 0), (0, 0), (pad, pad)))
    frames = x.shape[2]
    acc = np.zeros((len(x), c_out, frames), np.int64)
    for t in range(k):
        taps = qp[:, :, t * dilation : t * dilation + frames]  # [B, C, T]
        acc += np.einsum("bct,co->bot", taps, wq[:, t * c_out : (t + 1) * c_out].astype(np.int64))
    return acc * scale[:, None, None] * w_scale[None, :, None] + bias[None, :, None]


@pytest.mark.parametrize(("kernel", "dilation"), [(1, 1), (3, 1), (3, 2)])
def test_rewritten_convolution_is_the_integer_product(kernel: int, dilation: int):
    """One Relu -> Conv graph, rewritten: ONNX Runtime's answer is the NumPy integer product (so the
    patches, taps, scales and the per-clip quantisation are what the module says), on clips of
    different loudness in one batch, and close to the fp32 convolution."""
    rng = np.random.default_rng(kernel * 10 + dilation)
    w = (rng.standard_normal((48, 96, kernel)) * 0.1).astype(np.float32)
    bias = rng.standard_normal(48).astype(np.float32)
    x = rng.standard_normal((3, 96, 57)).astype(np.float32) * np.array([0.1, 1.0, 30.0], np.float32)[:, None, None]
    proto = _relu_conv(w, bias, dilation)
    fp32 = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    int8, done = convs_to_int8(proto)
    assert done == 1 and not [n for n in int8.graph.node if n.op_type == "Conv"]
    got = ort.InferenceSession(int8.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    want = _integer_reference(x, w, bias, dilation)
    rel = np.abs(got - want).max() / np.abs(want).max()
    to_fp32 = [float(np.abs(got[i] - fp32[i]).max() / np.abs(fp32[i]).max()) for i in range(len(x))]
    print(f"kernel {kernel} dilation {dilation}: vs the integer product {rel:.1e}; vs fp32 per clip {to_fp32}")
    assert rel < 1e-5
    assert max(to_fp32) < 0.05  # 8-bit activations, 7-bit weights: about 1 % of the output's range


def test_a_convolution_of_signed_input_stays_fp32():
    """Only inputs that cannot be negative (a Relu's) are quantised to u8 with zero point 0."""
    w = np.ones((64, 96, 1), np.float32)
    proto = _relu_conv(w, np.zeros(64, np.float32), 1)
    proto.graph.node[1].input[0] = "x"  # the Conv now reads the signed input
    _, done = convs_to_int8(proto)
    assert done == 0 and [n.op_type for n in proto.graph.node] == ["Relu", "Conv"]


@pytest.fixture(scope="module")
def int8_export(speaker_checkpoint: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An `--precision int8` export of the test checkpoint (the current exporter's graphs)."""
    from tingji.export import export_model

    out = tmp_path_factory.mktemp("campplus-int8") / "speaker-int8"
    # No fixed twins: they are fp32 as in every export, and tracing them is most of an export's time.
    export_model(speaker_checkpoint, out, precision="int8", decoder_quant="f16", fixed=False)
    return out


def test_int8_export_holds_both_graphs(int8_export: Path):
    """`--precision int8`: the fp32 graphs as before, the int8 graph beside them, one weight file, the
    manifest saying int8; every D-TDNN 1x1 and dilated convolution is an integer product there, and the
    int8 graph takes whole clips (no mask input)."""
    from tingji.engine.manifest import load_manifest

    out = int8_export
    manifest = load_manifest(out)
    raw = json.loads((out / "manifest.json").read_text())
    assert raw["campplus"]["precision"] == "int8"
    assert {"embedder", "embedder_int8", "embedder_data"} <= set(manifest.files)
    fp32 = onnx.load(str(manifest.file("embedder")), load_external_data=False)
    int8 = onnx.load(str(manifest.file("embedder_int8")), load_external_data=False)
    convs = [n.name for n in int8.graph.node if n.op_type == "Conv"]
    print(
        f"fp32 graph: {sum(n.op_type == 'Conv' for n in fp32.graph.node)} Conv; int8 graph: {len(convs)} Conv, "
        f"{sum(n.op_type == 'MatMulInteger' for n in int8.graph.node)} MatMulInteger"
    )
    dims = {t.name: list(t.dims) for t in fp32.graph.initializer}
    big = {  # the dense layers' linear1 and linear_local and the transits, at the size rule's least work
        n.name
        for n in fp32.graph.node
        if n.op_type == "Conv"
        and ("tdnnd" in n.name and "cam_layer/linear1" not in n.name and "linear2" not in n.name or "transit" in n.name)
        and int(np.prod(dims[n.input[1]])) >= MIN_MACS
    }
    assert big and any(n.op_type == "MatMulInteger" for n in int8.graph.node)
    assert not big & set(convs)
    assert [i.name for i in int8.graph.input] == [FEATS]


def test_whole_clip_graph_computes_the_masked_one(int8_export: Path):
    """`whole_clips` and `segment_gates` (the int8 graph's fp32 rewrites) change no number: the exported fp32
    graph rewritten so, without a mask, gives the masked graph's embeddings of unpadded clips, at one
    100-frame segment of the D-TDNN and at several (333 frames: 167 after the stride-2 TDNN), as float
    rounding allows. Every context gate is moved, and every mask multiply dropped."""
    from tingji.engine.manifest import load_manifest

    path = str(load_manifest(int8_export).file("embedder"))
    proto = onnx.load(path)
    gates = sum(n.op_type == "Sigmoid" for n in proto.graph.node)
    _, dropped = whole_clips(proto)
    _, moved = segment_gates(proto)
    print(f"{dropped} mask multiplies dropped, {moved} of {gates} context gates per segment")
    assert moved == gates > 0 and dropped > 0
    masked = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    whole = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    assert [i.name for i in whole.get_inputs()] == [FEATS]
    rng = np.random.default_rng(3)
    bins = proto.graph.input[0].type.tensor_type.shape.dim[2].dim_value
    for frames in (1, 148, 333):
        x = rng.standard_normal((2, frames, bins)).astype(np.float32)
        want = masked.run(None, {FEATS: x, MASK: np.ones((2, frames), np.float32)})[0]
        got = whole.run(None, {FEATS: x})[0]
        rel = float(np.abs(got - want).max() / np.abs(want).max())
        print(f"{frames} frames: relative difference {rel:.1e}")
        assert rel < 1e-5
