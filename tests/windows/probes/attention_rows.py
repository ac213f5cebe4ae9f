"""A drafted block's attention (tools/windows/llama_patches.py), on either side: Linux's lib-cpu or pip's
build (tests/engine/test_llama_cpu.py), or the Windows DLLs (tests/windows/test_llama_windows.py).

usage: python attention_rows.py DECODER.gguf
Prints one JSON line: the library loaded; a digest of the logits of a 70-row prompt (a full 64-row tile and a
short one), a 70-row batch after it and blocks of 1, 2 and 4 rows (the patch leaves these pip's bit for bit);
and by block size the largest |block row - the same row in the 70-row batch| (0 with the patch). The script
runs itself again with llama.cpp's tiled K-quant kernel off (GGML_CPU_TILED_MM=0), so that the weights'
products give each row the same floats whatever the batch and a row's logits depend on the attention
kernel alone; the switch goes through the child's environment, which the libraries read when they load.
Flash attention is on, as in the decoder's fast settings.
"""

import hashlib
import json
import os
import subprocess
import sys

import numpy as np

BLOCKS = (8, 16, 33, 63)


def measure(gguf: str) -> dict:
    from tingji.engine.decoder import open_decoder

    ctx = open_decoder(gguf, eos_ids=[], n_threads=2, n_ctx=256)  # the first to load llama.cpp
    import llama_cpp.llama_cpp as ll

    rng = np.random.default_rng(4)
    digest = hashlib.sha256(np.ascontiguousarray(ctx.decode_block(0, rng.integers(0, ctx.n_vocab, 70).tolist())))
    batch = rng.integers(0, ctx.n_vocab, 70).tolist()
    whole = ctx.decode_block(70, batch)
    ctx.rollback(70)
    digest.update(np.ascontiguousarray(whole))
    for k in (1, 2, 4):
        digest.update(np.ascontiguousarray(ctx.decode_block(70, batch[:k])))
        ctx.rollback(70)
    apart = {}
    for k in BLOCKS:
        apart[k] = float(np.abs(ctx.decode_block(70, batch[:k]) - whole[:k]).max())
        ctx.rollback(70)
    return {"library": str(ll._base_path), "sha256": digest.hexdigest(), "apart": apart}


if __name__ == "__main__":
    if os.environ.get("GGML_CPU_TILED_MM") != "0":
        env = dict(os.environ, GGML_CPU_TILED_MM="0")
        sys.exit(subprocess.run([sys.executable, __file__, *sys.argv[1:]], env=env).returncode)
    print(json.dumps(measure(sys.argv[1])))
