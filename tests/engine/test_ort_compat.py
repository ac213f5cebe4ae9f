"""The LayerNormalization rewrite for ONNX Runtime < 1.28 on the CPU (engine/ort_compat.py).

Run on the ONNX Runtime installed here (fixed): the rewritten graph must give
what ONNX Runtime's own LayerNormalization gives, on every form of the
operator Tingji's exports or a peer's could hold, and on the rows of large
mean that break the old kernel it must give what float64 arithmetic gives.
That the old runtime really returns NaN, and that the rewrite fixes the demo
model there, is shown under Wine with the Windows build's ONNX Runtime
(tests/windows/test_layernorm_windows.py).
"""

from __future__ import annotations

import json

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from tests.support.paths import DEMO_MODEL
from tingji.engine import Engine, ort_cache, ort_compat
from tingji.engine.manifest import load_manifest
from tingji.errors import ModelError

REWRITE = (ort_compat.STABLE_LAYERNORM,)


def layernorm_model(
    width: int,
    *,
    axis: int = -1,
    epsilon: float = 1e-5,
    opset: int = 17,
    bias: bool = True,
    rank: int = 3,
    dtype: int = TensorProto.FLOAT,
    stats: bool = False,
    typed: bool = True,
) -> onnx.ModelProto:
    """One LayerNormalization over x of shape [2, 3, 5, width][-rank:], scale and bias random."""
    shape = [2, 3, 5, width][-rank:]
    tail = shape[axis:] if axis < 0 else shape[axis:]
    np_dtype = np.float16 if dtype == TensorProto.FLOAT16 else np.float32
    rng = np.random.default_rng(1)
    inits = [numpy_helper.from_array(rng.standard_normal(tail).astype(np_dtype), "scale")]
    if bias:
        inits.append(numpy_helper.from_array(rng.standard_normal(tail).astype(np_dtype), "bias"))
    outputs = ["y", "mean", "inv_std"] if stats else ["y"]
    node = helper.make_node(
        "LayerNormalization", ["x"] + [i.name for i in inits], outputs, axis=axis, epsilon=epsilon, name="ln"
    )
    x = helper.make_tensor_value_info("x", dtype, shape if typed else None)
    outs = [helper.make_tensor_value_info(o, dtype if o == "y" else TensorProto.FLOAT, None) for o in outputs]
    model = helper.make_model(
        helper.make_graph([node], "layernorm", [x], outs, inits), opset_imports=[helper.make_opsetid("", opset)]
    )
    model.ir_version = 9
    return model


def run(model: bytes, x: np.ndarray, disabled: bool = False) -> list[np.ndarray]:
    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    session = ort.InferenceSession(
        model,
        opts,
        providers=["CPUExecutionProvider"],
        disabled_optimizers=list(ort_compat.LAYERNORM_FUSIONS) if disabled else None,
    )
    return session.run(None, {"x": x})


def reference(model: onnx.ModelProto, x: np.ndarray, axis: int, epsilon: float) -> np.ndarray:
    """LayerNormalization in float64 from the float32/16 inputs."""
    weights = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in model.graph.initializer}
    x64 = x.astype(np.float64)
    axes = tuple(range(axis if axis < 0 else axis - x.ndim, 0))
    centred = x64 - x64.mean(axes, keepdims=True)
    normalised = centred / np.sqrt((centred**2).mean(axes, keepdims=True) + epsilon)
    return normalised * weights["scale"] + weights.get("bias", 0.0)


CASES = {
    "last axis": {},
    "opset 18 (axes as an input)": {"opset": 18},
    "no bias": {"bias": False},
    "two axes": {"axis": -2},
    "positive axis, rank known": {"axis": 2, "rank": 4},
    "positive axis, rank unknown": {"axis": 2, "rank": 4, "typed": False},
    "mean and inv_std outputs": {"stats": True},
    "float16, stash float": {"dtype": TensorProto.FLOAT16},
    "float16, type unknown": {"dtype": TensorProto.FLOAT16, "typed": False},
    "epsilon 1e-12": {"epsilon": 1e-12},
}


@pytest.mark.parametrize("case", CASES)
def test_rewrite_gives_layernorms_outputs(case):
    kwargs = CASES[case]
    width, rank = 64, kwargs.get("rank", 3)
    model = layernorm_model(width, **kwargs)
    original = model.SerializeToString()
    rewritten = ort_compat.stable_layernorm(original)
    ops = [n.op_type for n in onnx.load_from_string(rewritten).graph.node]
    assert "LayerNormalization" not in ops and "ReduceMean" in ops and "Reciprocal" in ops, ops

    half = kwargs.get("dtype") == TensorProto.FLOAT16
    np_dtype = np.float16 if half else np.float32
    shape = (2, 3, 5, width)[-rank:]
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np_dtype)
    before, after = run(original, x), run(rewritten, x, disabled=True)
    assert len(before) == len(after)
    for b, a in zip(before, after, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        err = float(np.abs(a.astype(np.float64) - b.astype(np.float64)).max())
        # float16 outputs of magnitude ~4 are rounded to 2e-3 steps: one step apart at most
        assert err <= (2e-3 if half and b is before[0] else 1e-5), (case, err)

    # Rows of silence's kind (mean -180, variance 0.21): finite and as float64 computes them, within what
    # float32 inputs of magnitude 180 allow (their rounding alone moves the centred values by ~1e-5 / 0.46).
    silence = (-180 + np.sqrt(0.21) * rng.standard_normal(shape)).astype(np_dtype)
    y = run(rewritten, silence, disabled=True)[0]
    assert np.isfinite(y).all()
    want = reference(model, silence, kwargs.get("axis", -1), kwargs.get("epsilon", 1e-5))
    err = float(np.abs(y.astype(np.float64) - want).max())
    print(f"{case}: random rows {float(np.abs(after[0] - before[0]).max()):.1e}, large-mean rows {err:.1e}")
    assert err <= (1e-2 if half else 1e-3), (case, err)


def test_skip_layernorm_becomes_its_sum_and_the_rewrite():
    """ONNX Runtime's fused form (a graph it optimised and saved, a peer's export) is affected alike."""
    width, rng = 64, np.random.default_rng(2)
    inits = [
        numpy_helper.from_array(rng.standard_normal((1, 5, width)).astype(np.float32), "skip"),
        numpy_helper.from_array(rng.standard_normal(width).astype(np.float32), "gamma"),
        numpy_helper.from_array(rng.standard_normal(width).astype(np.float32), "beta"),
        numpy_helper.from_array(rng.standard_normal(width).astype(np.float32), "bias"),
    ]
    node = helper.make_node(
        "SkipLayerNormalization",
        ["x", "skip", "gamma", "beta", "bias"],
        ["y", "", "", "sum"],
        domain="com.microsoft",
        epsilon=1e-5,
    )
    io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 5, width]) for n in ("x", "y", "sum")]
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(helper.make_graph([node], "g", io[:1], io[1:], inits), opset_imports=opsets)
    model.ir_version = 9
    original = model.SerializeToString()
    rewritten = ort_compat.stable_layernorm(original)
    assert not any("LayerNorm" in n.op_type for n in onnx.load_from_string(rewritten).graph.node)
    x = rng.standard_normal((1, 5, width)).astype(np.float32)
    for b, a in zip(run(original, x), run(rewritten, x, disabled=True), strict=True):
        assert float(np.abs(a - b).max()) <= 1e-5
    silence = (-180 + np.sqrt(0.21) * rng.standard_normal((1, 5, width))).astype(np.float32)
    assert np.isfinite(run(rewritten, silence, disabled=True)[0]).all()


def test_a_graph_without_layernorm_is_returned_unchanged():
    node = helper.make_node("Relu", ["x"], ["y"])
    io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 4]) for n in "xy"]
    model = helper.make_model(
        helper.make_graph([node], "g", io[:1], io[1:]), opset_imports=[helper.make_opsetid("", 17)]
    )
    data = model.SerializeToString()
    assert ort_compat.stable_layernorm(data) == data


def test_the_disabled_fusions_keep_a_decomposed_layernorm_apart(tmp_path):
    """The names are the ones ONNX Runtime knows: without them it fuses the decomposed form into its kernel."""
    width = 32
    inits = [
        numpy_helper.from_array(np.full(width, 1.5, np.float32), "scale"),
        numpy_helper.from_array(np.full(width, 0.5, np.float32), "bias"),
        numpy_helper.from_array(np.array(2.0, np.float32), "two"),
        numpy_helper.from_array(np.array(1e-5, np.float32), "eps"),
    ]
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["m"], axes=[-1]),
        helper.make_node("Sub", ["x", "m"], ["d"]),
        helper.make_node("Pow", ["d", "two"], ["d2"]),
        helper.make_node("ReduceMean", ["d2"], ["v"], axes=[-1]),
        helper.make_node("Add", ["v", "eps"], ["ve"]),
        helper.make_node("Sqrt", ["ve"], ["s"]),
        helper.make_node("Div", ["d", "s"], ["n"]),
        helper.make_node("Mul", ["n", "scale"], ["ns"]),
        helper.make_node("Add", ["ns", "bias"], ["y"]),
    ]
    io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, "frames", width]) for n in "xy"]
    model = helper.make_model(
        helper.make_graph(nodes, "g", io[:1], io[1:], inits), opset_imports=[helper.make_opsetid("", 17)]
    )
    model.ir_version = 9

    def optimised_ops(disabled: list[str] | None) -> list[str]:
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        opts.optimized_model_filepath = str(tmp_path / "optimised.onnx")
        ort.InferenceSession(model.SerializeToString(), opts, ["CPUExecutionProvider"], disabled_optimizers=disabled)
        return [n.op_type for n in onnx.load(tmp_path / "optimised.onnx").graph.node]

    assert "LayerNormalization" in optimised_ops(None)
    kept = optimised_ops(list(ort_compat.LAYERNORM_FUSIONS))
    assert not any("LayerNorm" in op for op in kept), kept


def test_only_the_cpu_of_an_affected_runtime_is_rewritten():
    assert ort_compat.parse_version("1.24.4") == (1, 24)
    assert ort_compat.parse_version("1.28.0.dev20260101") == (1, 28)
    assert ort_compat.rewrites_for("cpu", (1, 24)) == REWRITE
    assert ort_compat.rewrites_for("cpu", (1, 27)) == REWRITE
    assert ort_compat.rewrites_for("cpu", (1, 28)) == ()
    assert ort_compat.rewrites_for("dml", (1, 24)) == ()
    assert ort_compat.rewrites_for("cuda", (1, 24)) == ()
    assert ort_compat.rewrites_for("cpu") == ()  # the runtime installed here is fixed (pyproject: >= 1.28)
    assert not ort_compat.saves_prepacked_weights((1, 24)) and not ort_compat.saves_prepacked_weights((1, 28))


def _features(frames: int, width: int) -> dict[str, np.ndarray]:
    """Speech-like features with silence either side: digital zeros make one large negative log-mel row."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, frames, width)).astype(np.float32)
    x[:, : frames // 4] = -15.0 + 0.01 * rng.standard_normal((1, frames // 4, width))
    x[:, -frames // 4 :] = -15.0
    return {"lfr_feat": x, "mask": np.ones((1, frames), np.float32)}


def test_the_demo_encoder_rewritten_with_external_weights_gives_the_same_outputs():
    manifest = load_manifest(DEMO_MODEL)
    path = manifest.file("encoder")
    assert (path.parent / "encoder.fp16.data").is_file()  # the weights lie outside the graph file
    width = json.loads((DEMO_MODEL / "manifest.json").read_text())["encoder"]["input_size"]
    feed = _features(120, width)

    def outputs(rewrites: tuple[str, ...]) -> list[np.ndarray]:
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        session = ort_compat.ModelSource(path, rewrites).session(opts, ["CPUExecutionProvider"])
        return session.run(None, feed)

    plain, rewritten = outputs(()), outputs(REWRITE)
    for a, b in zip(plain, rewritten, strict=True):
        assert np.isfinite(b).all()
        # The encoder computes in float16 between its LayerNorms (float32 inside them): outputs 1e-6 apart
        # there may round to neighbouring halves, so the outputs agree to a float16 step of their range.
        assert float(np.abs(a - b).max()) <= float(np.finfo(np.float16).eps) * float(np.abs(a).max())


def test_the_graph_cache_keeps_rewritten_graphs_under_their_own_key(monkeypatch, tmp_path, speech_en):
    """An affected runtime simulated on this one: the entry says so, holds no LayerNorm, and serves later loads."""
    manifest = load_manifest(DEMO_MODEL)
    plain = ort_cache.entry_fields(manifest, "encoder", 99, None)
    assert "rewrites" not in plain  # unaffected runtimes keep the keys they had
    marked = ort_cache.entry_fields(manifest, "encoder", 99, None, REWRITE)
    assert marked["rewrites"] == list(REWRITE) and ort_cache.entry_key(marked) != ort_cache.entry_key(plain)

    engine = Engine(DEMO_MODEL, "cpu", threads=1)
    want = engine.transcribe(speech_en).text
    engine.close()

    monkeypatch.setattr(ort_compat, "rewrites_for", lambda provider, version=None: REWRITE if provider == "cpu" else ())
    cache = tmp_path / "graphs"
    texts = []
    for _ in range(2):  # built, then loaded from the cache
        engine = Engine(DEMO_MODEL, "cpu", threads=1, graph_cache=cache)
        texts.append(engine.transcribe(speech_en).text)
        engine.close()
    assert texts == [want, want]
    graphs = [p for p in cache.iterdir() if (p / ort_cache.GRAPH).is_file()]
    roles = sorted(json.loads((entry / ort_cache.ENTRY).read_text())["fields"]["role"] for entry in graphs)
    assert len(graphs) == 3 and "vad" in roles, roles  # encoder, CTC head, and the VAD on the same layer
    for entry in graphs:
        fields = json.loads((entry / ort_cache.ENTRY).read_text())["fields"]
        assert fields["rewrites"] == list(REWRITE) and entry.name == ort_cache.entry_key(fields)
        ops = {n.op_type for n in onnx.load(entry / ort_cache.GRAPH, load_external_data=False).graph.node}
        assert not any("LayerNorm" in op for op in ops), (fields["role"], ops)


def test_a_nan_output_is_a_coded_error():
    fine = [np.zeros((1, 3), np.float32), np.array([[1, 2]], np.int64)]
    ort_compat.require_finite(fine, "/models/demo", "encoder", "cpu")
    with pytest.raises(ModelError) as caught:
        ort_compat.require_finite([np.array([[0.0, np.nan]], np.float32)], "/models/demo", "encoder", "cpu")
    assert caught.value.code == "engine.not_finite"
    assert str(caught.value) == (
        f"/models/demo: the encoder computed NaN or infinite values on the CPU (ONNX Runtime {ort.__version__})"
    )
    with pytest.raises(ModelError):
        ort_compat.require_finite([np.array([np.inf], np.float16)], "/models/demo", "ctc", "dml")


def test_argmax_scores_adds_the_scores_behind_a_choice_and_leaves_other_graphs_alone(tmp_path):
    """The check's rewrite (`ort_compat.argmax_scores`): a graph answering with an ArgMax gets the scores
    it picked from as a last output (so `require_finite` sees a NaN there); a graph without one is the
    same bytes."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "n", 4])
    y = helper.make_tensor_value_info("y", TensorProto.INT64, [1, "n"])
    nodes = [
        helper.make_node("Relu", ["x"], ["scores"]),
        helper.make_node("ArgMax", ["scores"], ["y"], axis=-1, keepdims=0),
    ]
    model = helper.make_model(helper.make_graph(nodes, "choice", [x], [y]), opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9
    data = model.SerializeToString()
    rewritten = ort_compat.argmax_scores(data)
    session = ort.InferenceSession(rewritten, providers=["CPUExecutionProvider"])
    rows = np.array([[[1, 5, 2, 0], [np.nan, 0, 0, 0]]], np.float32)
    best, scores = session.run(None, {"x": rows})
    print(f"outputs {[o.name for o in session.get_outputs()]}: {best.tolist()} from {scores.tolist()}")
    assert [o.name for o in session.get_outputs()] == ["y", "scores"] and best[0, 0] == 1
    with pytest.raises(ModelError):
        ort_compat.require_finite([best, scores], "/models/demo", "punc", "cpu")
    out = helper.make_tensor_value_info("scores", TensorProto.FLOAT, None)
    plain = helper.make_model(helper.make_graph(nodes[:1], "relu", [x], [out]))
    assert ort_compat.argmax_scores(plain.SerializeToString()) == plain.SerializeToString()
