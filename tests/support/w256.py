"""A small Qwen3 GGUF 256 wide (K-quant blocks are 256 values) with the tiny model's vocabulary."""

from __future__ import annotations

import json
from pathlib import Path

import torch
from make_tiny_checkpoint import llm_state

from tingji.export.gguf_tools import write_gguf


def w256_gguf(tiny_checkpoint: Path, out: Path, *, layers: int, intermediate: int, seed: int) -> Path:
    """An f32 GGUF of a random Qwen3 decoder 256 wide, `layers` deep, at `out`.

    Args:
        tiny_checkpoint: The tiny Nano checkpoint, whose LLM config and tokenizer it takes.
        out: Where to write it.
        layers: Decoder layers.
        intermediate: The MLP's width (a multiple of 256 for K-quants).
        seed: The weights' torch seed.
    """
    llm_dir = tiny_checkpoint / "Qwen3-0.6B"
    cfg = json.loads((llm_dir / "config.json").read_text(encoding="utf-8"))
    cfg.update(
        hidden_size=256,
        intermediate_size=intermediate,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=64,
    )
    state = llm_state(cfg, torch.Generator().manual_seed(seed))
    tensors = {k[len("llm.") :]: v for k, v in state.items() if k.startswith("llm.") and "lm_head" not in k}
    return write_gguf(tensors, cfg, llm_dir / "tokenizer.json", out, dtype="f32", name="w256")
