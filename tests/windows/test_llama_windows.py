"""Proof 5: llama.cpp under Windows gives the same greedy tokens as on Linux for the same tiny model.

Both sides run Tingji's own decoder (`tingji.engine.decoder`) over llama-cpp-python's unmodified
Python part: on Linux the installed package, under Wine the DLLs tools/windows/setup cross-compiled
with mingw-w64 from the same llama-cpp-python release, placed in `llama_cpp/lib/` as the Windows
build ships them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np

from tests.support.paths import APP
from tingji.engine.manifest import load_manifest

from .conftest import PROBES


def test_llama_cpp_python_is_the_pinned_release(winenv):
    """The Windows DLLs are built from the release the Linux install runs (tools/windows/recipe.py)."""
    import llama_cpp

    assert llama_cpp.__version__ == winenv.recipe.LLAMA_CPP_PYTHON


def test_windows_decoder_gives_the_linux_tokens(windows_python, tiny_model, tmp_path):
    gguf = load_manifest(tiny_model).file("decoder")
    n_embd = _n_embd(gguf)
    rows = (np.random.default_rng(5).standard_normal((24, n_embd)) * 0.5).astype(np.float32)
    np.save(tmp_path / "rows.npy", rows)

    start = time.perf_counter()
    linux = subprocess.run(
        [sys.executable, PROBES / "decode.py", gguf, tmp_path / "rows.npy", tmp_path / "linux.npz"],
        env=dict(os.environ, PYTHONPATH=str(APP)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    linux_s = time.perf_counter() - start
    assert linux.returncode == 0, linux.stderr[-3000:]
    start = time.perf_counter()
    win = windows_python(PROBES / "decode.py", gguf, tmp_path / "rows.npy", tmp_path / "windows.npz")
    windows_s = time.perf_counter() - start
    assert win.returncode == 0, win.stderr[-3000:]

    with np.load(tmp_path / "linux.npz") as a, np.load(tmp_path / "windows.npz") as b:
        lin, wind = {k: a[k] for k in a.files}, {k: b[k] for k in b.files}
    err = float(np.abs(lin["logits"] - wind["logits"]).max())
    same = lin["tokens"].tolist() == wind["tokens"].tolist()
    report = json.loads(win.stdout.strip().splitlines()[-1])
    print(
        f"llama.cpp decoder: {len(lin['tokens'])} greedy tokens, equal={same};"
        f" first-step logits max abs diff {err:.2e} (range {np.abs(lin['logits']).max():.1f});"
        f" Linux process {linux_s:.1f} s, Windows process {windows_s:.1f} s (load {report['load_s']} s)"
    )
    assert lin["before"].tolist() == wind["before"].tolist() and lin["after"].tolist() == wind["after"].tolist()
    assert same, (lin["tokens"].tolist(), wind["tokens"].tolist())
    assert err <= 1e-4


def _n_embd(gguf) -> int:
    from tingji.engine.decoder import open_decoder

    decoder = open_decoder(gguf, eos_ids=[], n_ctx=64, n_threads=1)
    try:
        return decoder.n_embd
    finally:
        decoder.model.close()


def _apart_in_the_dlls(windows_python, tiny_checkpoint, folder, probe: str, intermediate: int) -> dict:
    """A probe's largest |block row - the same row in a longer batch| by block size, run under Wine on a
    two-layer 256-wide Q5_K decoder with an MLP `intermediate` wide."""
    from tests.support.w256 import w256_gguf
    from tingji.export.gguf_tools import quantize_gguf

    f32 = w256_gguf(tiny_checkpoint, folder / "w256.f32.gguf", layers=2, intermediate=intermediate, seed=11)
    gguf = quantize_gguf(f32, folder / "w256.q5_k.gguf", "q5_k", threads=1)
    win = windows_python(PROBES / probe, gguf)
    assert win.returncode == 0, win.stderr[-3000:]
    return json.loads(win.stdout.strip().splitlines()[-1])["apart"]


def test_a_drafted_blocks_attention_in_the_windows_dlls_is_what_a_longer_batch_computes(
    windows_python, tiny_checkpoint, tmp_path
):
    """The attention patch's promise on the DLLs' AVX2 code (tests/engine/test_llama_cpu.py proves it, and
    that pip's build does not give it, on Linux's): blocks of 8-63 rows take the tiled kernel as prefill does."""
    apart = _apart_in_the_dlls(windows_python, tiny_checkpoint, tmp_path, "attention_rows.py", 768)
    print(f"largest |block row - the same row in a 70-row batch| by block size, Windows DLLs: {apart}")
    assert len(apart) == 4 and all(d == 0.0 for d in apart.values())


def test_a_drafted_blocks_products_in_the_windows_dlls_are_what_a_longer_batch_computes(
    windows_python, tiny_checkpoint, tmp_path
):
    """The K-quant blocks patch's promise on the DLLs' AVX2 code (tests/engine/test_llama_cpu.py proves it, and
    that pip's build does not give it, on Linux's): blocks of 4-63 rows, a half band, one band or several,
    give each row what a 64-row batch gives it."""
    # a 1,024-wide MLP: the down projection's narrow path holds two slabs of K for 1-32 rows
    apart = _apart_in_the_dlls(windows_python, tiny_checkpoint, tmp_path, "kquant_rows.py", 1024)
    print(f"largest |block row - the same row in a 64-row batch| by block size, Windows DLLs (exact mode): {apart}")
    assert len(apart) == 11 and all(d == 0.0 for d in apart.values())
