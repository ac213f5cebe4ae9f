"""A drafted block's attention in the Windows DLLs (tools/windows/llama_patches.py): its rows are what a
longer batch computes for the same rows.

usage: python attention_rows.py DECODER.gguf
Prints one JSON line: the largest |block row - the same row in a 70-row batch| by block size. The script
runs itself again with llama.cpp's tiled K-quant kernel off (GGML_CPU_TILED_MM=0), so that the weights'
products give each row the same floats whatever the batch and a row's logits depend on the attention
kernel alone; the switch goes through the child's environment, which the DLLs read when they load.
"""

import json
import os
import subprocess
import sys

import numpy as np

BLOCKS = (8, 16, 33, 63)


def apart(gguf: str) -> dict[int, float]:
    from tingji.engine.decoder import open_decoder

    ctx = open_decoder(gguf, eos_ids=[], n_threads=2, n_ctx=256)
    rng = np.random.default_rng(4)
    ctx.decode_block(0, rng.integers(0, ctx.n_vocab, 70).tolist())
    batch = rng.integers(0, ctx.n_vocab, 70).tolist()
    whole = ctx.decode_block(70, batch)
    ctx.rollback(70)
    out = {}
    for k in BLOCKS:
        out[k] = float(np.abs(ctx.decode_block(70, batch[:k]) - whole[:k]).max())
        ctx.rollback(70)
    return out


if __name__ == "__main__":
    if os.environ.get("GGML_CPU_TILED_MM") != "0":
        env = dict(os.environ, GGML_CPU_TILED_MM="0")
        sys.exit(subprocess.run([sys.executable, __file__, *sys.argv[1:]], env=env).returncode)
    print(json.dumps({"apart": apart(sys.argv[1])}))
