"""Greedy tokens of a GGUF decoder through Tingji's own decoder code (either side: Linux or Windows).

usage: python decode.py DECODER.gguf ROWS.npy OUT.npz
The prompt is fixed text before and after the given embedding rows, as an LLM family feeds it.
Writes the prompt's token ids, the greedy tokens and the first step's logits; prints a JSON summary.
"""

import json
import sys
import time

import numpy as np

from tingji.engine.decoder import open_decoder
from tingji.engine.generation import DecodeOptions

BEFORE = "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n语音转写："
AFTER = "<|im_end|>\n<|im_start|>assistant\n"
TOKENS = 32


def main(gguf: str, rows: str, out: str) -> None:
    audio = np.load(rows).astype(np.float32)
    start = time.perf_counter()
    decoder = open_decoder(gguf, eos_ids=[], n_ctx=512, n_threads=2, exact=True)
    loaded = time.perf_counter()
    before, after = decoder.tokenize(BEFORE), decoder.tokenize(AFTER)
    result = decoder.generate(before, audio, after, DecodeOptions(max_tokens=TOKENS, guard=False, ignore_eos=True))
    logits = decoder.forward_logits(before, audio, after, [])[0]
    done = time.perf_counter()
    np.savez(out, before=np.array(before), after=np.array(after), tokens=np.array(result.tokens), logits=logits)
    summary = {"load_s": round(loaded - start, 3), "generate_s": round(done - loaded, 3), "tokens": result.tokens}
    print(json.dumps(summary))


if __name__ == "__main__":
    main(*sys.argv[1:4])
