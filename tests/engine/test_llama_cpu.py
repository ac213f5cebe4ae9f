"""Linux's patched llama.cpp CPU set (`tools/llama_cpu.py`): loaded on the CPU, and what each patch promises.

Tingji's patches (tools/windows/llama_patches.py) are of three kinds. Those to the tiled K-quant kernel's
memory traffic, and its half microtile and narrow bands for 8-64 rows, change no float: every logit of a
prompt, one token's step and blocks of 1-3 and 8-63 rows must be the very float pip's build gives; flash
attention is off there (exact mode), so that the comparison sees the weights' kernel alone, through its
narrow path (8-64 rows, one to four bands, one to three slabs at a time) and its standard one (a 70-row
prompt), and a child with that kernel switched off shows the comparison would see a different one. Blocks of
4-7 rows now take that kernel too, so their rows are what a longer batch computes (tests/windows/probes/
kquant_rows.py), as pip's build does not give. Flash attention's tiled kernel now also takes blocks of 8-63
rows (a drafted block): a prompt, one token's step and blocks under 8 rows must still be pip's bit for bit,
and a block's rows must be what a longer batch computes for the same rows, which pip's build does not give.
Each side runs in a child process, since a process loads one library set.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.w256 import w256_gguf
from tingji.engine import decoder_device
from tingji.export.gguf_tools import quantize_gguf

# one row and 2-3 (vec_dot); the narrow path: a half band (8), one band (9, 16), two (17, 23, 32) and four (63)
BLOCKS = (1, 2, 3, 8, 9, 16, 17, 23, 32, 63)

CHILD = """
import hashlib, json, sys
import numpy as np
from tingji.engine.decoder import open_decoder

# exact: an f32 KV cache and no flash attention, whose kernel for blocks Tingji changed (ATTENTION below)
ctx = open_decoder(sys.argv[1], eos_ids=[], n_threads=2, n_ctx=256, exact=True)  # the first to load llama.cpp
import llama_cpp.llama_cpp as ll
rng = np.random.default_rng(3)
prompt = rng.integers(0, ctx.n_vocab, 70).tolist()  # past 64 rows: the standard path
digest = hashlib.sha256(np.ascontiguousarray(ctx.decode_block(0, prompt)).tobytes())
for k in json.loads(sys.argv[2]):
    digest.update(np.ascontiguousarray(ctx.decode_block(70, rng.integers(0, ctx.n_vocab, k).tolist())).tobytes())
    ctx.rollback(70)
print(json.dumps({"library": str(ll._base_path), "sha256": digest.hexdigest()}))
"""

# Flash attention on, the K-quant kernel off: a row's logits depend on the attention kernel alone (the probe
# the Windows DLLs' test runs too).
PROBES = Path(__file__).resolve().parents[1] / "windows" / "probes"
ATTENTION = PROBES / "attention_rows.py"
KQUANT = PROBES / "kquant_rows.py"  # exact mode: a block's rows against a 64-row batch's


@pytest.fixture(scope="module")
def q5_k_gguf(tiny_checkpoint: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A two-layer Qwen3 decoder 256 wide (K-quant blocks are 256 values), Q5_K with a Q6_K output layer.

    Its MLP is 1,024 wide, so that the down projection's narrow path holds two slabs of K at a time for
    1-32 rows (ggml_tiled_narrow_k_extent): the bands' layout for sums and scales is then the one in use.
    """
    folder = tmp_path_factory.mktemp("llama-cpu")
    f32 = w256_gguf(tiny_checkpoint, folder / "w256.f32.gguf", layers=2, intermediate=1024, seed=11)
    return quantize_gguf(f32, folder / "w256.q5_k.gguf", "q5_k", threads=1)


def _child(gguf: Path, script: Path | None = None, **env: str) -> dict:
    """CHILD's (or the `script` file's) JSON line, in a child process with `env`."""
    environ = {k: v for k, v in os.environ.items() if k not in ("LLAMA_CPP_LIB_PATH", "GGML_CPU_TILED_MM")}
    environ.update(env)
    command = [str(script), str(gguf)] if script else ["-c", CHILD, str(gguf), json.dumps(BLOCKS)]
    proc = subprocess.run(
        [sys.executable, *command],
        capture_output=True,
        text=True,
        env=environ,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _patched() -> Path:
    folder = decoder_device.cpu_library()
    assert folder is not None, "llama_cpp/lib-cpu is missing or stale: run `python3 tools/llama_cpu.py --install`"
    return folder


def test_the_decoder_loads_the_patched_set_and_its_logits_are_pips_bit_for_bit(q5_k_gguf):
    patched = _patched()
    pip_lib = patched.parent / "lib"
    ours = _child(q5_k_gguf)
    theirs = _child(q5_k_gguf, LLAMA_CPP_LIB_PATH=str(pip_lib))
    untiled = _child(q5_k_gguf, GGML_CPU_TILED_MM="0")
    print(
        f"\nlogits of a 70-token prompt and blocks of {BLOCKS} rows: patched {ours['sha256'][:16]}, "
        f"pip's {theirs['sha256'][:16]}, tiled kernel off {untiled['sha256'][:16]}"
    )
    assert Path(ours["library"]).resolve() == patched.resolve()
    assert Path(theirs["library"]).resolve() == pip_lib.resolve()
    assert ours["sha256"] == theirs["sha256"]
    assert untiled["sha256"] != ours["sha256"], "the blocks did not reach the tiled kernel: nothing was compared"


def test_a_drafted_blocks_attention_is_what_a_longer_batch_computes_and_the_rest_is_pips(q5_k_gguf):
    patched = _patched()
    ours = _child(q5_k_gguf, ATTENTION)
    theirs = _child(q5_k_gguf, ATTENTION, LLAMA_CPP_LIB_PATH=str(patched.parent / "lib"))
    print(
        f"\nlogits of a 70-row prompt, a 70-row batch and blocks of 1, 2, 4 rows: patched {ours['sha256'][:16]}, "
        f"pip's {theirs['sha256'][:16]}; largest |block row - the same row in the 70-row batch| by block "
        f"size: patched {ours['apart']}, pip's {theirs['apart']}"
    )
    assert Path(ours["library"]).resolve() == patched.resolve()
    assert ours["sha256"] == theirs["sha256"]
    assert all(d == 0.0 for d in ours["apart"].values())
    assert all(d > 0.0 for d in theirs["apart"].values()), "pip's blocks took the tiled kernel: nothing was compared"


def test_a_drafted_blocks_products_are_what_a_longer_batch_computes_from_four_rows(q5_k_gguf):
    patched = _patched()
    ours = _child(q5_k_gguf, KQUANT)
    theirs = _child(q5_k_gguf, KQUANT, LLAMA_CPP_LIB_PATH=str(patched.parent / "lib"))
    print(
        "\nlargest |block row - the same row in a 64-row batch| by block size (exact mode): "
        f"patched {ours['apart']}, pip's {theirs['apart']}"
    )
    assert Path(ours["library"]).resolve() == patched.resolve()
    assert all(d == 0.0 for d in ours["apart"].values())
    small = {k: d for k, d in theirs["apart"].items() if int(k) < 8}
    assert small and all(d > 0.0 for d in small.values()), "pip's 4-7 rows took the tiled kernel: nothing was compared"


QUANTIZE = """
import ctypes, sys
import numpy as np

cpu = ctypes.CDLL(sys.argv[1] + "/libggml-cpu.so")
base = ctypes.CDLL(sys.argv[1] + "/libggml-base.so")
rng = np.random.default_rng(5)
n = 256
blocks = [rng.standard_normal(n) * 10.0 ** rng.integers(-6, 6) for _ in range(400)]
blocks += [np.zeros(n), np.full(n, -3.0), np.r_[2.0, -2.0, rng.uniform(-1, 1, n - 2)]]  # zeros, ties of sign
blocks += [np.r_[-2.0, 2.0, rng.uniform(-1, 1, n - 2)], rng.standard_normal(n) * 1e-40]  # denormals
edge = rng.uniform(-1, 1, n)
edge[0] = 127.0
edge[1:] = (rng.integers(-126, 126, n - 1) + 0.5)  # x * -127/127 lands on halves: rounding to even
blocks.append(edge)
x = np.ascontiguousarray(np.concatenate(blocks), dtype=np.float32)
ours = np.full(len(blocks) * 292, 7, np.uint8)
ref = ours.copy()
for f, out in ((cpu.quantize_row_q8_K, ours), (base.quantize_row_q8_K_ref, ref)):
    f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
    f(x.ctypes.data, out.ctypes.data, x.size)
print(len(blocks), int((ours != ref).sum()))
"""


def test_the_activations_quantisation_is_the_references_byte_for_byte():
    """The patched q8_K quantiser (AVX2) against ggml's scalar reference, on random blocks over 12 orders of
    magnitude, all zeros, equal magnitudes of both signs (the first one decides the sign) and halves."""
    proc = subprocess.run(
        [sys.executable, "-c", QUANTIZE, str(_patched())], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    blocks, differing = map(int, proc.stdout.split())
    print(f"\n{blocks} blocks of 256 activations: {differing} bytes differ from the reference's")
    assert blocks > 400 and differing == 0


def test_a_set_left_from_another_llama_cpp_python_release_is_not_loaded(monkeypatch):
    import importlib.metadata

    assert _patched() is not None
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "0.0.1")
    assert decoder_device.cpu_library() is None


def test_the_choice_leaves_no_library_folder_in_the_environment(monkeypatch):
    """A child process (the Windows Python under Wine, a GPU check) must not inherit lib-cpu's folder."""
    _patched()
    script = (
        "import os; from tingji.engine import decoder_device as d; d.use_cpu_library(); "
        "import llama_cpp.llama_cpp as ll; print(ll._base_path, os.environ.get('LLAMA_CPP_LIB_PATH'))"
    )
    environ = {k: v for k, v in os.environ.items() if k != "LLAMA_CPP_LIB_PATH"}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environ, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    loaded, left = proc.stdout.split()
    assert Path(loaded).resolve() == _patched().resolve() and left == "None"


def test_a_library_folder_the_user_named_is_kept(monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp.llama_cpp", None)  # not imported: the choice is still open
    monkeypatch.delitem(sys.modules, "llama_cpp.llama_cpp")
    monkeypatch.setenv("LLAMA_CPP_LIB_PATH", "/somewhere/else")
    decoder_device.use_cpu_library()
    assert os.environ["LLAMA_CPP_LIB_PATH"] == "/somewhere/else"
