"""A Qwen3 LLM decoder to GGUF for llama.cpp (Fun-ASR-Nano's and Qwen3-ASR's).

The caller hands over the LLM's tensors under their transformers names
(`model.layers.0.self_attn.q_proj.weight`, ...), its transformers config and
its `tokenizer.json`; each family knows where those sit in its checkpoint.
llama.cpp's `qwen3` architecture and its `qwen2` pre-tokenizer then
reproduce transformers' Qwen3 and its tokenizer.

f32 and f16 files are written directly with the `gguf` package; q8_0 and q5_k
are made from the f16 file by llama.cpp's own quantizer, so they are exactly
what llama.cpp's tools would produce.
"""

from __future__ import annotations

import ctypes
import json
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ModelError
from . import messages
from .choices import QUANTS
from .resident import release


def _tokenizer_vocab(path: Path, vocab_size: int) -> tuple[list[str], list[int], list[str], dict[str, int]]:
    """Token strings, token types and merges for llama.cpp's BPE ("gpt2") tokenizer."""
    import gguf

    if not path.is_file():
        raise ModelError(messages.TOKENIZER_MISSING, path=path)
    data = json.loads(path.read_text(encoding="utf-8"))
    model = data.get("model") or {}
    if model.get("type") != "BPE":
        raise ModelError(messages.NOT_BPE, path=path, kind=repr(model.get("type")))
    by_id: dict[int, tuple[str, int]] = {i: (tok, gguf.TokenType.NORMAL) for tok, i in model["vocab"].items()}
    specials: dict[str, int] = {}
    for added in data.get("added_tokens") or []:
        kind = gguf.TokenType.CONTROL if added.get("special") else gguf.TokenType.USER_DEFINED
        by_id[int(added["id"])] = (added["content"], kind)
        specials[added["content"]] = int(added["id"])
    if max(by_id) >= vocab_size:
        raise ModelError(messages.TOKEN_BEYOND_VOCAB, path=path, id=max(by_id), size=vocab_size)
    tokens, types = [], []
    for i in range(vocab_size):  # rows past the tokenizer are padding, as in Qwen's own files
        tok, kind = by_id.get(i, (f"[PAD{i}]", gguf.TokenType.UNUSED))
        tokens.append(tok)
        types.append(int(kind))
    merges = [m if isinstance(m, str) else " ".join(m) for m in model.get("merges") or []]
    if not merges:
        raise ModelError(messages.NO_MERGES, path=path)
    return tokens, types, merges, specials


def write_gguf(
    tensors: Mapping[str, np.ndarray], cfg: dict[str, Any], tokenizer: Path, out: Path, *, dtype: str = "f32", name: str
) -> Path:
    """Write an f32 or f16 GGUF of a Qwen3 LLM from its transformers-named tensors and config."""
    import gguf

    if dtype not in ("f32", "f16"):
        raise ModelError(messages.GGUF_DTYPE, dtype=dtype)
    n_layer = int(cfg["num_hidden_layers"])
    head_dim = int(cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"])
    tokens, types, merges, specials = _tokenizer_vocab(tokenizer, int(cfg["vocab_size"]))

    writer = gguf.GGUFWriter(str(out), "qwen3")
    writer.add_name(name)
    writer.add_context_length(int(cfg.get("max_position_embeddings", 40960)))
    writer.add_embedding_length(int(cfg["hidden_size"]))
    writer.add_block_count(n_layer)
    writer.add_feed_forward_length(int(cfg["intermediate_size"]))
    writer.add_head_count(int(cfg["num_attention_heads"]))
    writer.add_head_count_kv(int(cfg["num_key_value_heads"]))
    writer.add_key_length(head_dim)
    writer.add_value_length(head_dim)
    writer.add_rope_freq_base(float(cfg.get("rope_theta", 1_000_000)))
    writer.add_layer_norm_rms_eps(float(cfg.get("rms_norm_eps", 1e-6)))
    writer.add_file_type(gguf.LlamaFileType.ALL_F32 if dtype == "f32" else gguf.LlamaFileType.MOSTLY_F16)

    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("qwen2")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(merges)
    eos = specials.get("<|im_end|>", cfg.get("eos_token_id"))
    pad = specials.get("<|endoftext|>", eos)
    writer.add_eos_token_id(int(eos))
    writer.add_pad_token_id(int(pad))
    writer.add_bos_token_id(int(pad))
    writer.add_add_bos_token(False)

    # Tensor by tensor: each is converted as it is written, so that no more than one is held (the
    # writer's `add_tensor` would keep every converted tensor until the end: 1.2 GB for Qwen3-0.6B).
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.QWEN3, n_layer)
    plan: list[tuple[np.ndarray, np.dtype]] = []
    for hf_name, tensor in tensors.items():
        gg_name = names.get_name(hf_name, try_suffixes=(".weight", ".bias"))
        if gg_name is None:
            raise ModelError(messages.NO_GGUF_NAME, tensor=hf_name)
        # Norm vectors stay f32 (llama.cpp expects that); matrices take the file's type.
        kind = np.dtype(np.float16 if dtype == "f16" and tensor.ndim == 2 else np.float32)
        writer.add_tensor_info(gg_name, tensor.shape, kind, int(np.prod(tensor.shape)) * kind.itemsize)
        plan.append((tensor, kind))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    for tensor, kind in plan:
        writer.write_tensor_data(_converted(tensor, kind))
        release([tensor])
    writer.close()
    return out


def _converted(tensor: np.ndarray, kind: np.dtype, rows: int = 8192) -> np.ndarray:
    """`tensor` as `kind`, through fp32 (bf16 and fp16 widen exactly), a block of rows at a time so
    that the widened copy of a large table (Qwen3's 151936-row embedding) is never made whole."""
    out = np.empty(tensor.shape, kind)
    if tensor.ndim < 2:
        out[...] = np.asarray(tensor, dtype=np.float32)
        return out
    for start in range(0, tensor.shape[0], rows):
        out[start : start + rows] = np.asarray(tensor[start : start + rows], dtype=np.float32)
    return out


def quantize_gguf(src: Path, dst: Path, quant: str, threads: int = 0) -> Path:
    """Quantize with llama.cpp's quantizer (`llama_model_quantize`)."""
    from ..engine.decoder_device import use_cpu_library

    use_cpu_library()  # the set the decoder loads later in this process (Linux's patched one)
    import llama_cpp

    ftypes = {"q8_0": llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0, "q5_k": llama_cpp.LLAMA_FTYPE_MOSTLY_Q5_K_M}
    if quant not in ftypes:
        raise ModelError(messages.UNKNOWN_QUANT, quant=quant, choices=", ".join(QUANTS))
    llama_cpp.llama_backend_init()
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = ftypes[quant]
    params.nthread = threads
    rc = llama_cpp.llama_model_quantize(str(src).encode(), str(dst).encode(), ctypes.byref(params))
    if rc != 0 or not dst.is_file():
        raise ModelError(messages.QUANTIZE_FAILED, quant=quant, status=rc)
    return dst


def export_decoder(
    tensors: Mapping[str, np.ndarray],
    cfg: dict[str, Any],
    tokenizer: Path,
    out_dir: Path,
    quant: str = "f16",
    *,
    name: str,
) -> Path:
    """Write `decoder.<quant>.gguf` into out_dir (quantised types via an f16 file)."""
    if quant not in QUANTS:
        raise ModelError(messages.UNKNOWN_QUANT, quant=quant, choices=", ".join(QUANTS))
    if cfg.get("model_type") != "qwen3":
        raise ModelError(messages.LLM_NOT_QWEN3, model_type=repr(cfg.get("model_type")))
    out = out_dir / f"decoder.{quant}.gguf"
    if quant in ("f32", "f16"):
        return write_gguf(tensors, cfg, tokenizer, out, dtype=quant, name=name)
    with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
        f16 = write_gguf(tensors, cfg, tokenizer, Path(tmp) / "decoder.f16.gguf", dtype="f16", name=name)
        return quantize_gguf(f16, out, quant)
