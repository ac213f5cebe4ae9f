"""A drafted block's products with the K-quant weights (tools/windows/llama_tiled_patches.py), on either side:
Linux's lib-cpu or pip's build (tests/engine/test_llama_cpu.py), or the Windows DLLs
(tests/windows/test_llama_windows.py).

usage: python kquant_rows.py DECODER.gguf
Prints one JSON line: the library loaded, and by block size the largest |block row - the same row in a
64-row batch|. Exact mode (an f32 KV cache, no flash attention): a row's logits then depend on the weights'
kernel alone. With the patches every size is 0: blocks of 4-7 rows take the tiled kernel, a band of at most
8 rows its half microtile and 17-64 rows its narrow path, all giving a row what a longer batch gives it. In
pip's build 4-7 rows take vec_dot, so those sizes differ there.
"""

import json
import sys

import numpy as np

BLOCKS = (4, 5, 7, 8, 9, 16, 17, 23, 33, 48, 63)


def measure(gguf: str) -> dict:
    from tingji.engine.decoder import open_decoder

    ctx = open_decoder(gguf, eos_ids=[], n_threads=2, n_ctx=256, exact=True)  # the first to load llama.cpp
    import llama_cpp.llama_cpp as ll

    rng = np.random.default_rng(6)
    ctx.decode_block(0, rng.integers(0, ctx.n_vocab, 40).tolist())
    batch = rng.integers(0, ctx.n_vocab, 64).tolist()
    whole = ctx.decode_block(40, batch)
    ctx.rollback(40)
    apart = {}
    for k in BLOCKS:
        apart[k] = float(np.abs(ctx.decode_block(40, batch[:k]) - whole[:k]).max())
        ctx.rollback(40)
    return {"library": str(ll._base_path), "apart": apart}


if __name__ == "__main__":
    print(json.dumps(measure(sys.argv[1])))
