"""The trained demo model written in the official release layout, then exported by `tingji export-model`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .model import SCAFFOLDING, audio_dims
from .recipe import LLM_FOLDER, Dims


def write_checkpoint(folder: Path, model, tok, llm_cfg: dict, dims: Dims, tiktoken_text: str, ctc_vocab: int) -> Path:
    """config.yaml, configuration.json, model.pt, Qwen3-0.6B/, multilingual.tiktoken, as released."""
    import make_tiny_checkpoint as mtc
    import torch

    folder.mkdir(parents=True, exist_ok=True)
    mtc.write_llm_folder(folder / LLM_FOLDER, tok, llm_cfg)
    (folder / "multilingual.tiktoken").write_text(tiktoken_text, encoding="ascii")
    (folder / "config.yaml").write_text(
        mtc.config_yaml(audio_dims(dims, ctc_vocab), LLM_FOLDER, ctc_vocab, "fp32"), encoding="utf-8"
    )
    (folder / "configuration.json").write_text(mtc.configuration_json(LLM_FOLDER), encoding="utf-8")
    state = {k: v.detach().clone() for k, v in model.state_dict().items() if not k.startswith(SCAFFOLDING)}
    state["llm.lm_head.weight"] = state["llm.model.embed_tokens.weight"]  # tied, as torch saves them
    torch.save(state, folder / "model.pt")
    return folder


def export(checkpoint: Path, out: Path, quant: str, precision: str) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "tingji",
            "export-model",
            "--source",
            str(checkpoint),
            "--out",
            str(out),
            "--precision",
            precision,
            "--decoder-quant",
            quant,
        ],
        check=True,
    )
