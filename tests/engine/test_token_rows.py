"""The one-batch prompt: token embedding rows read from a GGUF are exactly llama.cpp's own lookup.

The decoder feeds a window's whole prompt (text, audio rows, text) as one
batch of embedding rows (`tingji.engine.token_rows`). That is only the same
computation as feeding the text as token ids if the rows are bit-identical
to what llama.cpp's `get_rows` dequantises; these tests require it for every
table type the reader accepts, through llama.cpp itself.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest

from tests.support.w256 import w256_gguf
from tingji.engine import token_rows
from tingji.engine.decoder import LlamaContext, LlamaModel

# ggml type ids (ggml.h) of the tables the reader accepts, and what each is called.
TABLE_TYPES = {0: "F32", 1: "F16", 8: "Q8_0", 12: "Q4_K", 13: "Q5_K", 14: "Q6_K", 30: "BF16"}


@pytest.fixture(scope="module")
def f32_gguf(tiny_checkpoint: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-layer Qwen3 GGUF 256 wide (K-quant blocks are 256 values) with the tiny model's vocabulary."""
    out = tmp_path_factory.mktemp("rows") / "w256.f32.gguf"
    return w256_gguf(tiny_checkpoint, out, layers=1, intermediate=256, seed=7)


def _with_table(src: Path, ggml_type: int) -> Path:
    """The same model with its embedding table in `ggml_type` (llama.cpp's quantizer, table override)."""
    import llama_cpp

    if ggml_type == 0:
        return src
    dst = src.with_name(f"w256.{TABLE_TYPES.get(ggml_type, f'type{ggml_type}')}.gguf")
    if dst.exists():
        return dst
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_F16
    params.token_embedding_type = ggml_type
    params.nthread = 1
    assert llama_cpp.llama_model_quantize(str(src).encode(), str(dst).encode(), ctypes.byref(params)) == 0
    return dst


@pytest.mark.parametrize("ggml_type", sorted(TABLE_TYPES))
def test_prompt_as_rows_gives_the_logits_of_the_prompt_as_tokens(f32_gguf, ggml_type):
    path = _with_table(f32_gguf, ggml_type)
    found = token_rows._find_tensor(path, token_rows.TENSOR)
    assert found[2] == ggml_type, f"the quantizer wrote type {found[2]}, not {TABLE_TYPES[ggml_type]}"
    model = LlamaModel(path)
    try:
        rows = model.token_rows
        assert rows is not None, f"{TABLE_TYPES[ggml_type]} table not accepted"
        ids = model.tokenize(
            "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n"
            "语音转写 hello<|im_end|>\n<|im_start|>assistant\n"
        )
        ids += list(range(rows.n_rows - 5, rows.n_rows))  # the table's last rows: offsets are right to the end
        by_token = LlamaContext(model, eos_ids=[], n_ctx=256, n_threads=1, exact=True)
        by_row = LlamaContext(model, eos_ids=[], n_ctx=256, n_threads=1, exact=True)
        by_token._decode(0, tokens=ids)
        by_row._decode(0, embd=rows.rows(ids))
        a, b = by_token._logits().copy(), by_row._logits().copy()
        print(
            f"{TABLE_TYPES[ggml_type]}: {len(ids)} prompt tokens, max |logit difference| "
            f"{np.abs(a - b).max():.3g} over {a.size} logits"
        )
        assert np.array_equal(a, b)
    finally:
        model.close()


def test_dequantisers_match_the_gguf_package_on_random_blocks():
    """Every bit pattern of a block (random bytes, finite scales): the gguf package's numpy reference."""
    import gguf.quants as gq
    from gguf import GGMLQuantizationType

    rng = np.random.default_rng(0)
    scale_fields = {8: [0], 12: [0, 2], 13: [0, 2], 14: [208]}  # byte offsets of f16 scales per block
    for ggml_type, fields in scale_fields.items():
        values, nbytes, dequant = token_rows._TYPES[ggml_type]
        raw = rng.integers(0, 256, (3, 4, nbytes), dtype=np.uint8)
        for off in fields:  # random f16 bit patterns include inf/nan; use finite scales of either sign
            raw[..., off : off + 2] = rng.uniform(-0.05, 0.05, raw.shape[:2]).astype("<f2")[..., None].view(np.uint8)
        mine = dequant(raw).reshape(3, -1)
        ref = gq.dequantize(raw.reshape(3, -1), GGMLQuantizationType(ggml_type)).reshape(3, -1).astype(np.float32)
        print(f"{TABLE_TYPES[ggml_type]}: {mine.size} values, max difference {np.abs(mine - ref).max()}")
        assert np.array_equal(mine, ref)


def test_an_unreadable_or_other_table_means_token_batches(f32_gguf, tmp_path):
    """No rows (None) rather than wrong rows: the decoder then feeds token ids as before."""
    truncated = tmp_path / "cut.gguf"
    truncated.write_bytes(f32_gguf.read_bytes()[:4096])
    assert token_rows.TokenRows.open(truncated, 256) is None
    assert token_rows.TokenRows.open(tmp_path / "missing.gguf", 256) is None
    assert token_rows.TokenRows.open(f32_gguf, 128) is None  # width that is not the table's
    q4_0 = 2
    assert q4_0 not in token_rows._TYPES
    model = LlamaModel(_with_table(f32_gguf, q4_0))
    try:
        assert model.token_rows is None
        ctx = LlamaContext(model, eos_ids=[], n_ctx=256, n_threads=1)
        audio = np.zeros((3, model.n_embd), np.float32)
        n, _ = ctx.prefill(model.tokenize("<|im_start|>user\n"), audio, model.tokenize("<|im_end|>"))
        assert n == len(model.tokenize("<|im_start|>user\n")) + 3 + len(model.tokenize("<|im_end|>"))
        assert np.isfinite(ctx._logits()).all()
    finally:
        model.close()


def test_one_batch_prefill_equals_three_batches_in_exact_mode(f32_gguf):
    """The engine's prefill (one batch of rows, prefix reused) against token/audio/token batches."""
    model = LlamaModel(f32_gguf)
    try:
        before = model.tokenize("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n")
        after = model.tokenize("<|im_end|>\n<|im_start|>assistant\n")
        audio = np.random.default_rng(3).standard_normal((17, model.n_embd)).astype(np.float32)
        engine = LlamaContext(model, eos_ids=[], n_ctx=256, n_threads=1, exact=True)
        n, reused = engine.prefill(before, audio, after)
        assert reused == 0
        one = engine._logits().copy()
        n2, reused2 = engine.prefill(before, audio * 0.5, after)  # the next window: the prefix is kept
        assert (n2, reused2) == (n, len(before))
        two = engine._logits().copy()
        split = LlamaContext(model, eos_ids=[], n_ctx=256, n_threads=1, exact=True)
        for scale, want in ((1.0, one), (0.5, two)):
            split._truncate(0)
            split._decode(0, tokens=before)
            split._decode(len(before), embd=audio * scale)
            split._decode(len(before) + len(audio), tokens=after)
            diff = np.abs(split._logits() - want).max()
            print(f"audio x{scale}: max |logit difference| one batch vs three {diff:.3g}")
            assert diff <= 1e-4 * np.abs(want).max()
    finally:
        model.close()
