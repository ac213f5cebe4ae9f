"""Run an ONNX graph on DirectML with CPU fallback disabled; save its outputs (Windows side).

usage: python dml_graph.py MODEL.onnx INPUTS.npz OUT.npz
Prints one JSON line: the session's providers, ONNX Runtime's version, the run's seconds.
"""

import json
import sys
import time

import numpy as np
import onnxruntime as ort


def main(model: str, inputs: str, out: str) -> None:
    options = ort.SessionOptions()
    # A node DirectML cannot take fails the session instead of moving to the CPU.
    options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    # device_id makes ONNX Runtime pick the adapter through DXGI (dxcore.dll is a stub under Wine).
    session = ort.InferenceSession(model, options, providers=[("DmlExecutionProvider", {"device_id": "0"})])
    feeds = dict(np.load(inputs))
    start = time.perf_counter()
    outputs = session.run(None, feeds)
    seconds = time.perf_counter() - start
    np.savez(out, *outputs)
    print(json.dumps({"providers": session.get_providers(), "ort": ort.__version__, "run_s": round(seconds, 3)}))


if __name__ == "__main__":
    main(*sys.argv[1:4])
