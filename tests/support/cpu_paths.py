"""Run ONNX graphs on a chosen x86 int8 kernel path: this CPU's own, or AVX2 without VNNI.

ONNX Runtime picks its int8 MatMul kernels once, from CPUID. With AVX-VNNI,
AVX512-VNNI or AMX the u8 x s8 products are summed in 32 bits. On AVX2 (and
on AVX-512 without VNNI) the kernel's vpmaddubsw first adds each pair of
products into an int16 *with saturation*, so a pair above 32767 is silently
clipped. Most users' PCs (AMD Zen 2/3, Intel before Ice Lake) take that path,
while a development machine with VNNI never sees it - which is how an int8
export once passed here and failed on an AVX2 machine (issue 18).

So the int8 checks run a graph on both paths: natively, and under qemu-user
emulating a Haswell (AVX2 and FMA, no AVX-512, no VNNI; Debian's `qemu-user`,
7.2 or later, emulates AVX2). The child process also multiplies a canary,
255 x 127 summed over 64 products, with MatMulInteger: the exact answer or
the pairwise-saturated one says which kernel really ran, so a test knows
rather than assumes which path it checked. (AVX-512 without VNNI, Skylake-X,
sums in the same saturating pairs, 512 bits wide; qemu 7.2 cannot emulate
AVX-512, but the arithmetic that makes 7-bit weights safe is the same.)

    python tests/support/cpu_paths.py SPEC.json      (the child; see `run_graphs`)
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# The canary: K products of 255 (u8) x 127 (s8). Exact: 255*127*64. Summed in
# saturated int16 pairs (vpmaddubsw) and then exactly: 32767 per pair.
_CANARY_K = 64
CANARY_EXACT = 255 * 127 * _CANARY_K
CANARY_SATURATED = 32767 * (_CANARY_K // 2)
# The CPU model qemu emulates for the AVX2 path; the `-noTSX` variant because TCG lacks TSX.
QEMU_CPU = "Haswell-noTSX"


@dataclass(frozen=True)
class CpuPath:
    """One way to run x86-64 code: `prefix` is the command put before the program (empty: run it directly)."""

    name: str
    prefix: tuple[str, ...]


NATIVE = CpuPath("native", ())
AVX2 = CpuPath("avx2", ("qemu-x86_64", "-cpu", QEMU_CPU))
PATHS = (NATIVE, AVX2)


@dataclass(frozen=True)
class PathRun:
    """What a chain of graphs produced on one path, and what that path was."""

    path: str
    outputs: list[list[dict[str, np.ndarray]]]  # per case, per graph, by output name
    u8s8_saturates: bool  # the int8 kernel that ran sums products in saturating int16 pairs
    cpu_features: dict[str, bool]  # as this process's CPUID reported them (numpy's detection)

    @property
    def kernel(self) -> str:
        """Which int8 kernel family ran, in words."""
        return (
            "AVX2 int8 kernel, int16 pair sums that saturate"
            if self.u8s8_saturates
            else "VNNI/AMX int8 kernel, int32 sums"
        )


def int8_canary() -> int:
    """255 x 127 summed over 64 products by ONNX Runtime's MatMulInteger on this process's kernel path."""
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    weights = numpy_helper.from_array(np.full((_CANARY_K, 4), 127, np.int8), "B")
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["A", "B"], ["Y"])],
        "canary",
        [helper.make_tensor_value_info("A", TensorProto.UINT8, [None, _CANARY_K])],
        [helper.make_tensor_value_info("Y", TensorProto.INT32, [None, 4])],
        [weights],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (y,) = session.run(None, {"A": np.full((4, _CANARY_K), 255, np.uint8)})
    return int(y.max())


def cpu_features() -> dict[str, bool]:
    """The x86 features numpy read from CPUID (under qemu: the emulated model's, not the host's)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as found
    except ImportError:  # numpy < 2
        from numpy.core._multiarray_umath import __cpu_features__ as found
    return {name: bool(found.get(name)) for name in ("AVX2", "FMA3", "AVX512F", "AVX512VNNI")}


def _run_chain(spec: Mapping[str, object]) -> None:
    """The child: for each case, run the graphs in order, each reading its inputs by name from
    the case's feeds and from what earlier graphs produced; save every output, and what path this was."""
    import onnxruntime as ort

    sessions = []
    for graph in spec["graphs"]:  # type: ignore[attr-defined]
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1  # the machine is shared; one thread also keeps runs repeatable
        opts.log_severity_level = 3
        sessions.append(ort.InferenceSession(str(graph), opts, providers=["CPUExecutionProvider"]))
    saved: dict[str, np.ndarray] = {}
    with np.load(str(spec["feeds"])) as feeds:
        for c in range(int(spec["cases"])):  # type: ignore[call-overload]
            values = {k.split("/", 1)[1]: feeds[k] for k in feeds.files if k.startswith(f"{c}/")}
            for g, session in enumerate(sessions):
                results = session.run(None, {i.name: values[i.name] for i in session.get_inputs()})
                for out, value in zip(session.get_outputs(), results):
                    values[out.name] = value
                    saved[f"{c}/{g}/{out.name}"] = value
    np.savez(str(spec["out"]), **saved)
    report = {"canary": int8_canary(), "cpu_features": cpu_features()}
    Path(str(spec["report"])).write_text(json.dumps(report))


def qemu_missing() -> str | None:
    """Why the AVX2 path cannot run here, or None when it can."""
    if shutil.which(AVX2.prefix[0]) is None:
        return f"{AVX2.prefix[0]} not found: install Debian's qemu-user (7.2 or later; .ci/setup does)"
    return None


def run_graphs(
    path: CpuPath, graphs: Sequence[Path], cases: Sequence[Mapping[str, np.ndarray]], timeout: float = 900
) -> PathRun:
    """Run `graphs` on every case in one child process on `path`: each graph takes its inputs
    by name from the case's feeds and from the outputs of the graphs before it.

    Raises RuntimeError when the AVX2 path cannot run or did not take the AVX2 kernel
    (a check that passed on the wrong kernel would prove nothing).
    """
    if path.prefix and (why := qemu_missing()):
        raise RuntimeError(why)
    with tempfile.TemporaryDirectory(prefix="cpu-path-") as tmp:
        work = Path(tmp)
        np.savez(work / "feeds.npz", **{f"{c}/{k}": v for c, case in enumerate(cases) for k, v in case.items()})
        spec = {
            "graphs": [str(g) for g in graphs],
            "cases": len(cases),
            "feeds": str(work / "feeds.npz"),
            "out": str(work / "out.npz"),
            "report": str(work / "report.json"),
        }
        (work / "spec.json").write_text(json.dumps(spec))
        # sys.executable, not a wrapper script: qemu-user runs ELF binaries only.
        cmd = [*path.prefix, sys.executable, str(Path(__file__).resolve()), str(work / "spec.json")]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if r.returncode != 0:
            tail = "\n".join(line for line in r.stderr.splitlines() if "TCG doesn't support" not in line)[-2000:]
            raise RuntimeError(f"{path.name} path failed ({r.returncode}):\n{tail}")
        with np.load(work / "out.npz") as data:
            saved = {k: data[k] for k in data.files}
        report = json.loads((work / "report.json").read_text())
    outputs: list[list[dict[str, np.ndarray]]] = [[{} for _ in graphs] for _ in cases]
    for key, value in saved.items():
        c, g, name = key.split("/", 2)
        outputs[int(c)][int(g)][name] = value
    if report["canary"] not in (CANARY_EXACT, CANARY_SATURATED):
        raise RuntimeError(f"{path.name} path: int8 canary gave {report['canary']}, neither exact nor saturated")
    run = PathRun(path.name, outputs, report["canary"] == CANARY_SATURATED, report["cpu_features"])
    if path is AVX2 and not (run.u8s8_saturates and run.cpu_features["AVX2"] and not run.cpu_features["AVX512F"]):
        raise RuntimeError(
            f"the emulated AVX2 path did not take the AVX2 int8 kernel ({run.kernel}, "
            f"{run.cpu_features}); qemu emulates AVX2 from version 7.2 on"
        )
    return run


if __name__ == "__main__":
    _run_chain(json.loads(Path(sys.argv[1]).read_text()))
