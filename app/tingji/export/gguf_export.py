"""The Qwen3 LLM decoder to GGUF for llama.cpp.

Weights come from the `llm.*` entries of the checkpoint's state dict, the
architecture from `Qwen3-0.6B/config.json`, the vocabulary from its
`tokenizer.json`. llama.cpp's `qwen3` architecture and its `qwen2`
pre-tokenizer then reproduce transformers' Qwen3 and its tokenizer.

f32 and f16 files are written directly with the `gguf` package; q8_0 and q5_k
are made from the f16 file by llama.cpp's own quantizer, so they are exactly
what llama.cpp's tools would produce.
"""

from __future__ import annotations

import ctypes
import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..engine.errors import ModelError

QUANTS = ("f32", "f16", "q8_0", "q5_k")


def _tokenizer_vocab(llm_dir: Path, vocab_size: int) -> tuple[list[str], list[int], list[str], dict[str, int]]:
    """Token strings, token types and merges for llama.cpp's BPE ("gpt2") tokenizer."""
    import gguf

    path = llm_dir / "tokenizer.json"
    if not path.is_file():
        raise ModelError(f"{llm_dir}: tokenizer.json missing")
    data = json.loads(path.read_text(encoding="utf-8"))
    model = data.get("model") or {}
    if model.get("type") != "BPE":
        raise ModelError(f"{path}: expected a BPE tokenizer, found {model.get('type')!r}")
    by_id: dict[int, tuple[str, int]] = {i: (tok, gguf.TokenType.NORMAL) for tok, i in model["vocab"].items()}
    specials: dict[str, int] = {}
    for added in data.get("added_tokens") or []:
        kind = gguf.TokenType.CONTROL if added.get("special") else gguf.TokenType.USER_DEFINED
        by_id[int(added["id"])] = (added["content"], kind)
        specials[added["content"]] = int(added["id"])
    if max(by_id) >= vocab_size:
        raise ModelError(f"{path}: token id {max(by_id)} beyond the model's vocab_size {vocab_size}")
    tokens, types = [], []
    for i in range(vocab_size):  # rows past the tokenizer are padding, as in Qwen's own files
        tok, kind = by_id.get(i, (f"[PAD{i}]", gguf.TokenType.UNUSED))
        tokens.append(tok)
        types.append(int(kind))
    merges = [m if isinstance(m, str) else " ".join(m) for m in model.get("merges") or []]
    if not merges:
        raise ModelError(f"{path}: no BPE merges (llama.cpp refuses such a vocabulary)")
    return tokens, types, merges, specials


def _llm_tensors(state: dict[str, torch.Tensor], cfg: dict[str, Any]) -> dict[str, torch.Tensor]:
    """HF-named Qwen3 tensors from the checkpoint's `llm.` entries."""
    tensors = {k[len("llm."):]: v for k, v in state.items() if k.startswith("llm.")}
    if "model.embed_tokens.weight" not in tensors:
        raise ModelError("model.pt has no LLM weights (llm.model.embed_tokens.weight)")
    tied = cfg.get("tie_word_embeddings", True)
    head = tensors.pop("lm_head.weight", None)
    if not tied:
        if head is None:
            raise ModelError("config says untied embeddings but model.pt has no lm_head")
        tensors["lm_head.weight"] = head
    return tensors


def write_gguf(state: dict[str, torch.Tensor], llm_dir: Path, out: Path, *, dtype: str = "f32",
               name: str = "Fun-ASR-Nano decoder") -> Path:
    """Write an f32 or f16 GGUF of the LLM."""
    import gguf

    if dtype not in ("f32", "f16"):
        raise ModelError(f"write_gguf makes f32/f16 files, not {dtype}")
    cfg = json.loads((llm_dir / "config.json").read_text(encoding="utf-8"))
    if cfg.get("model_type") != "qwen3":
        raise ModelError(f"{llm_dir}/config.json: model_type {cfg.get('model_type')!r}, expected qwen3")
    n_layer = int(cfg["num_hidden_layers"])
    head_dim = int(cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"])
    tokens, types, merges, specials = _tokenizer_vocab(llm_dir, int(cfg["vocab_size"]))

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

    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.QWEN3, n_layer)
    for hf_name, tensor in _llm_tensors(state, cfg).items():
        gg_name = names.get_name(hf_name, try_suffixes=(".weight", ".bias"))
        if gg_name is None:
            raise ModelError(f"no GGUF name for LLM tensor {hf_name}")
        array = tensor.detach().to(torch.float32).numpy()
        # Norm vectors stay f32 (llama.cpp expects that); matrices take the file's type.
        if dtype == "f16" and array.ndim == 2:
            array = array.astype(np.float16)
        writer.add_tensor(gg_name, np.ascontiguousarray(array))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return out


def quantize_gguf(src: Path, dst: Path, quant: str, threads: int = 0) -> Path:
    """Quantize with llama.cpp's quantizer (`llama_model_quantize`)."""
    import llama_cpp

    ftypes = {"q8_0": llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0, "q5_k": llama_cpp.LLAMA_FTYPE_MOSTLY_Q5_K_M}
    if quant not in ftypes:
        raise ModelError(f"unknown decoder quantization {quant!r} (choose {', '.join(QUANTS)})")
    llama_cpp.llama_backend_init()
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = ftypes[quant]
    params.nthread = threads
    rc = llama_cpp.llama_model_quantize(str(src).encode(), str(dst).encode(), ctypes.byref(params))
    if rc != 0 or not dst.is_file():
        raise ModelError(f"llama.cpp could not quantize the decoder to {quant} (code {rc})")
    return dst


def export_decoder(state: dict[str, torch.Tensor], llm_dir: Path, out_dir: Path, quant: str = "f16") -> Path:
    """Write `decoder.<quant>.gguf` into out_dir."""
    if quant not in QUANTS:
        raise ModelError(f"unknown decoder quantization {quant!r} (choose {', '.join(QUANTS)})")
    out = out_dir / f"decoder.{quant}.gguf"
    if quant in ("f32", "f16"):
        return write_gguf(state, llm_dir, out, dtype=quant)
    with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
        f16 = write_gguf(state, llm_dir, Path(tmp) / "decoder.f16.gguf", dtype="f16")
        return quantize_gguf(f16, out, quant)
