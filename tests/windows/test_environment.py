"""The Windows test environment itself: tools/windows/run, the Windows Python, DirectML on lavapipe.

What these prove and what they do not: docs/windows-testing.md.
"""

from __future__ import annotations

import json
import subprocess
import time

import numpy as np
import pytest

from tests.support.paths import ROOT, TOOLS

from .conftest import PROBES


def test_map_argument_takes_linux_paths_only(winenv, tmp_path):
    """Paths (existing, or new in an existing folder) become Z:\\...; switches and relative names do not."""
    folder = tmp_path / "a b 文件夹"
    folder.mkdir()
    win = "Z:" + str(folder).replace("/", "\\")
    assert winenv.map_argument(str(folder)) == win
    assert winenv.map_argument(str(folder / "新 file.json")) == win + "\\新 file.json"
    assert winenv.map_argument(f"--out={folder}") == f"--out={win}"
    for unchanged in ("/S", "/D=C:\\x", "relative/path.wav", "-m", "tingji", "//server/share", "/nonexistent/x.wav"):
        assert winenv.map_argument(unchanged) == unchanged


def test_run_passes_paths_streams_and_exit_code(wine_env, tmp_path):
    """tools/windows/run: a Linux path with spaces and CJK characters reaches the Windows Python as a
    Windows path that opens; stdout and stderr come back through a file; the exit status is the command's."""
    folder = tmp_path / "转写 test folder"
    folder.mkdir()
    source, target = folder / "输入 file.txt", folder / "输出 结果.txt"
    source.write_text("听记 hello", encoding="utf-8")
    out_file, err_file = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    start = time.perf_counter()
    with out_file.open("wb") as out, err_file.open("wb") as err:  # plain files: the init_sys_streams trap
        rc = subprocess.run(
            [TOOLS / "windows" / "run", "python", PROBES / "echo_args.py", source, target, "7", "/S"],
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            timeout=300,
        ).returncode
    seconds = time.perf_counter() - start
    stdout, stderr = out_file.read_text("utf-8"), err_file.read_text("utf-8", "replace")
    print(f"tools/windows/run round trip: {seconds:.1f} s, exit {rc}")
    assert rc == 7, stderr[-2000:]
    report = json.loads(stdout.strip().splitlines()[-1])
    assert report["platform"] == "win32"
    assert report["argv"][:2] == ["Z:" + str(p).replace("/", "\\") for p in (source, target)]
    assert report["argv"][3] == "/S"  # a switch is not a path
    assert target.read_text("utf-8") == "olleh 记听"
    assert "to stderr" in stderr


def test_every_tingji_module_imports_on_windows(windows_python):
    """This checkout's app/ (not another's) is what the Windows Python imports, and every runtime
    module of tingji imports there with the Windows wheels (the exporter needs the export extra)."""
    proc = windows_python(PROBES / "import_all.py")
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"imported {report['modules']} modules; export extra only: {len(report['export_extra'])}")
    assert report["file"].lower() == ("Z:" + str(ROOT / "app/tingji/__init__.py").replace("/", "\\")).lower()
    assert report["failed"] == {}, json.dumps(report["failed"], indent=1, ensure_ascii=False)


def _graph(path):
    """Conv1d -> GELU (Erf) -> same-shape Add (a DXIL-only kernel) -> LayerNorm -> MatMul + bias -> Softmax."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    c_in, c_mid, t, d_out = 8, 16, 50, 12

    def const(name, array):
        return numpy_helper.from_array(np.asarray(array, np.float32), name)

    inits = [
        const("w", rng.standard_normal((c_mid, c_in, 3)) * 0.3),
        const("b", rng.standard_normal(c_mid) * 0.1),
        const("half", 0.5),
        const("one", 1.0),
        const("rsqrt2", 1 / np.sqrt(2)),
        const("gamma", 1 + rng.standard_normal(c_mid) * 0.1),
        const("beta", rng.standard_normal(c_mid) * 0.1),
        const("proj", rng.standard_normal((c_mid, d_out)) * 0.3),
        const("bias", rng.standard_normal(d_out) * 0.1),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1], kernel_shape=[3]),
        helper.make_node("Mul", ["c", "rsqrt2"], ["cs"]),
        helper.make_node("Erf", ["cs"], ["e"]),
        helper.make_node("Add", ["e", "one"], ["e1"]),
        helper.make_node("Mul", ["c", "half"], ["ch"]),
        helper.make_node("Mul", ["ch", "e1"], ["g"]),
        helper.make_node("Add", ["g", "c"], ["r"]),  # same shape on both sides
        helper.make_node("Transpose", ["r"], ["rt"], perm=[0, 2, 1]),
        helper.make_node("LayerNormalization", ["rt", "gamma", "beta"], ["n"], axis=-1, epsilon=1e-5),
        helper.make_node("MatMul", ["n", "proj"], ["m"]),
        helper.make_node("Add", ["m", "bias"], ["mb"]),
        helper.make_node("Softmax", ["mb"], ["y"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes,
        "probe",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c_in, t])],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, t, d_out]),
            helper.make_tensor_value_info("n", TensorProto.FLOAT, [1, t, c_mid]),
        ],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return {"x": rng.standard_normal((1, c_in, t)).astype(np.float32)}


def test_directml_runs_a_graph_like_the_linux_cpu(windows_python, tmp_path):
    """ONNX Runtime's DirectML provider (CPU fallback disabled) runs a small fused graph under Wine and
    gives the Linux CPU provider's numbers."""
    import onnxruntime as ort

    model = tmp_path / "probe.onnx"
    feeds = _graph(model)
    np.savez(tmp_path / "in.npz", **feeds)
    linux = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]).run(None, feeds)
    start = time.perf_counter()
    proc = windows_python(PROBES / "dml_graph.py", model, tmp_path / "in.npz", tmp_path / "out.npz")
    seconds = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    with np.load(tmp_path / "out.npz") as out:
        windows = [out[f"arr_{i}"] for i in range(len(linux))]
    errors = [float(np.abs(w - lin).max()) for w, lin in zip(windows, linux)]
    print(
        f"DirectML (ORT {report['ort']}, {report['providers']}): run {report['run_s']} s, process {seconds:.1f} s;"
        f" max abs error vs Linux CPU: softmax {errors[0]:.2e}, layer norm {errors[1]:.2e}"
    )
    assert report["providers"][0] == "DmlExecutionProvider"
    assert all(w.shape == lin.shape for w, lin in zip(windows, linux))
    assert max(errors) <= 1e-4


def test_setup_refuses_another_wined3d(winenv):
    """The byte patches are checked against the one wined3d.dll build they belong to."""
    with pytest.raises(winenv.SetupError, match="SHA-256"):
        winenv.patch_wined3d(b"MZ" + bytes(1000))
