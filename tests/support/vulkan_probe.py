"""Run in a child process by tests/engine/test_decoder_device.py: one GGUF's first-step logits on
llama.cpp's Vulkan device and on the CPU, in the same process (the Vulkan build), as one JSON line.

usage: python -m tests.support.vulkan_probe GGUF DEVICE_INDEX LIBRARY
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np


def main(argv: list[str]) -> int:
    from tingji.engine import decoder_device as dd
    from tingji.engine.decoder import LlamaModel

    gguf, index, library = argv
    dd.activate(dd.VulkanDevice(int(index), "", "other", 0, 0, 0), Path(library))
    gpu = LlamaModel(gguf, gpu_layers=999, device_name=f"vulkan:{index}")
    cpu = LlamaModel(gguf)
    prompt = dd.check_prompt(cpu)
    on_gpu, on_cpu = dd.first_logits(gpu, prompt), dd.first_logits(cpu, prompt)
    order = np.sort(on_cpu)
    print(
        json.dumps(
            {
                "max_abs": float(np.abs(on_gpu - on_cpu).max()),
                "range": float(np.abs(on_cpu).max()),
                "argmax_equal": int(np.argmax(on_gpu)) == int(np.argmax(on_cpu)),
                "cpu_top_gap": float(order[-1] - order[-2]),
            }
        )
    )
    gpu.close()
    cpu.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
