"""The Windows build's ONNX Runtime (onnxruntime-directml 1.24.4) on the CPU: LayerNorm rows of large mean.

That release's CPU LayerNormalization returns NaN for rows whose mean is large against their spread
(onnxruntime issue 28463), which is what the silence around a clip gives an encoder's first LayerNorm.
One Wine process shows the kernel failing on such rows, the rewrite (engine/ort_compat.py) giving the
float64 answer instead, and the demo model on the CPU provider transcribing a clip with two seconds of
digital silence either side to the text Linux gives, both when it builds the optimised-graph cache and
when it is loaded from it (that runtime saves prepacked weights it then crashes on: ort_cache keeps
them out there).
"""

from __future__ import annotations

import json
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from tests.support.audio import espeak, write_wav
from tests.support.paths import DEMO_MODEL

from .conftest import PROBES

WIDTH = 512


def _layernorm_graph(path) -> None:
    scale = numpy_helper.from_array(np.ones(WIDTH, np.float32), "scale")
    bias = numpy_helper.from_array(np.zeros(WIDTH, np.float32), "bias")
    node = helper.make_node("LayerNormalization", ["x", "scale", "bias"], ["y"], axis=-1, epsilon=1e-5)
    io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, "frames", WIDTH]) for n in "xy"]
    model = helper.make_model(
        helper.make_graph([node], "layernorm", io[:1], io[1:], [scale, bias]),
        opset_imports=[helper.make_opsetid("", 17)],
    )
    model.ir_version = 9
    onnx.save(model, path)


def test_cpu_layernorm_of_silence_is_finite_and_the_demo_model_transcribes_as_on_linux(windows_python, tmp_path):
    from tingji.engine import Engine

    _layernorm_graph(tmp_path / "layernorm.onnx")
    rows = (-180 + np.sqrt(0.02) * np.random.default_rng(0).standard_normal((1, 64, WIDTH))).astype(np.float32)
    np.save(tmp_path / "rows.npy", rows)
    speech = espeak(tmp_path / "speech.wav", "hello world please open the file", voice="en-us", speed=150)
    silence = np.zeros(32000, np.float32)
    clip = write_wav(tmp_path / "clip.wav", np.concatenate([silence, speech, silence]))

    engine = Engine(DEMO_MODEL, "cpu", threads=2)
    linux_text = engine.transcribe(clip).text
    engine.close()
    start = time.perf_counter()
    proc = windows_python(
        PROBES / "layernorm.py",
        tmp_path / "layernorm.onnx",
        tmp_path / "rows.npy",
        DEMO_MODEL,
        clip,
        tmp_path / "graphs",
    )
    windows_s = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])

    x = rows.astype(np.float64)
    want = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    err = float(np.abs(np.array(report["after"]) - want).max())
    print(
        f"ONNX Runtime {report['onnxruntime']} under Wine: LayerNormalization NaN in {report['nan_rows_before']}/64"
        f" rows, rewritten {report['nan_rows_after']}/64 (max abs error {err:.1e});"
        f" demo model on {report['provider']}: {report['texts']} (Linux {linux_text!r}); Wine process {windows_s:.1f} s"
    )
    assert report["rewrites"] == ["stable-layernorm-1"]
    assert report["nan_rows_before"] > 0  # the runtime really is affected: the rest proves the fix
    assert report["nan_rows_after"] == 0 and err <= 1e-3
    assert report["provider"] == "cpu"
    assert linux_text.strip() and report["texts"] == [linux_text, linux_text]
