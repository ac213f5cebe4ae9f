"""Official Fun-ASR-Nano checkpoint -> the files and manifest of a Tingji model folder.

Output: the encoder+adaptor graph (real length) and its fixed 60 s twin for
DirectML sharing one weight file, the CTC head, the Qwen3 LLM as GGUF, the
CTC vocabulary as `tokens.txt`, and a manifest whose family section carries
the prompt pieces and special tokens the engine must use.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from ...engine.families.fun_asr_nano.prompt import build_prompt, pieces_from_config
from ...engine.frontend import FrontendConfig, num_lfr_frames
from ...engine.manifest import Manifest
from ...errors import ModelError
from .. import folder_manifest, messages
from ..funasr_frontend import frontend_settings
from ..gguf_tools import export_decoder
from .checkpoint import Checkpoint, load_checkpoint
from .graphs import export_audio

FAMILY = "fun-asr-nano"
WINDOW_SECONDS = 60
SAMPLE_RATE = 16000


def is_checkpoint(folder: Path, config: dict[str, Any]) -> bool:
    """An official Fun-ASR-Nano folder names its model class in config.yaml."""
    return config.get("model") == "FunASRNano"


def convert(
    source: Path, work: Path, *, precision: str, decoder_quant: str, fixed: bool, say: Callable[[str], None]
) -> Manifest:
    """A Fun-ASR-Nano checkpoint: encoder + adaptor and CTC graphs, the Qwen3 LLM as a GGUF (see `CONVERTERS`)."""
    ckpt = load_checkpoint(source)
    dims = ckpt.dims
    frontend = _frontend_dict(ckpt.frontend_conf())
    window_frames = num_lfr_frames(WINDOW_SECONDS * SAMPLE_RATE, FrontendConfig.from_dict(frontend))
    files = export_audio(
        dims, ckpt.state, work, precision=precision, window_frames=window_frames, fixed=fixed, progress=say
    )
    say(f"writing decoder ({decoder_quant})")
    files["decoder"] = export_decoder(
        _llm_tensors(ckpt),
        ckpt.llm_config,
        ckpt.llm_dir / "tokenizer.json",
        work,
        decoder_quant,
        name="Fun-ASR-Nano decoder",
    )
    ctc_info: dict[str, Any] = {}
    if "ctc" in files and ckpt.ctc_vocab is not None:
        tokens = work / "tokens.txt"
        n_text = _write_ctc_tokens(ckpt.ctc_vocab, dims.ctc_vocab, tokens)
        files["tokens"] = tokens
        blank = int((ckpt.config.get("ctc_conf") or {}).get("blank_id", dims.ctc_vocab - 1))
        ctc_info = {
            "vocab_size": dims.ctc_vocab,
            "blank_id": blank,
            "text_tokens": n_text,
            "frame_seconds": 0.06,
            "top_k": 8,
        }
    say("hashing files")
    pieces = pieces_from_config(ckpt.config)
    prompt = build_prompt(pieces)
    section = {
        "prompt": {**pieces, "default_before": prompt.before, "default_after": prompt.after},
        "special_tokens": _special_tokens(ckpt.llm_dir, ckpt.llm_config),
        "encoder": {
            "precision": precision,
            "input_size": dims.input_size,
            "encoder_dim": dims.encoder_dim,
            "llm_dim": dims.llm_dim,
            "inputs": ["lfr_feat", "mask"],
            "outputs": ["enc_output", "adaptor_output"],
        },
        "decoder": {
            "quant": decoder_quant,
            "n_embd": dims.llm_dim,
            "n_layer": int(ckpt.llm_config["num_hidden_layers"]),
            # The reference writes the audio rows into an LLM-dtype
            # embedding tensor, i.e. rounds them to bf16 when the
            # config loads the LLM in bf16.
            "input_dtype": _llm_input_dtype(ckpt.config),
        },
        "ctc": ctc_info,
    }
    origin = {"model_pt_sha256": ckpt.sha256, "folder": source.name}
    return folder_manifest(work, FAMILY, files, (WINDOW_SECONDS, window_frames), frontend, section, origin)


def _frontend_dict(conf: dict[str, Any]) -> dict[str, Any]:
    """Front-end settings as the engine's FrontendConfig takes them; inference never dithers."""
    if conf.get("cmvn_file"):
        raise ModelError(messages.CMVN)
    return frontend_settings(conf)


def _llm_tensors(ckpt: Checkpoint) -> dict[str, torch.Tensor]:
    """The Qwen3 LLM's tensors under their transformers names, from the checkpoint's `llm.` entries."""
    tensors = {k[len("llm.") :]: v for k, v in ckpt.state.items() if k.startswith("llm.")}
    if "model.embed_tokens.weight" not in tensors:
        raise ModelError(messages.NO_LLM_WEIGHTS)
    head = tensors.pop("lm_head.weight", None)
    if not ckpt.llm_config.get("tie_word_embeddings", True):
        if head is None:
            raise ModelError(messages.NO_LM_HEAD)
        tensors["lm_head.weight"] = head
    return tensors


def _write_ctc_tokens(vocab: Path, n_total: int, out: Path) -> int:
    """tokens.txt: one `base64(bytes) id` line per CTC output id; returns the text-token count."""
    lines, n_text = [], 0
    for line in vocab.read_text(encoding="ascii").splitlines():
        if line.strip():
            token, rank = line.split()
            lines.append(f"{token} {int(rank)}")
            n_text += 1
    for i in range(n_text, n_total):  # special tokens and blank: no text
        lines.append(f"{base64.b64encode(b'').decode()} {i}")
    out.write_text("\n".join(lines) + "\n", encoding="ascii")
    return n_text


def _special_tokens(llm_dir: Path, llm_config: dict[str, Any]) -> dict[str, Any]:
    data = json.loads((llm_dir / "tokenizer.json").read_text(encoding="utf-8"))
    added = {t["content"]: int(t["id"]) for t in data.get("added_tokens") or []}
    eos = llm_config.get("eos_token_id")
    eos_ids = [int(e) for e in (eos if isinstance(eos, list) else [eos]) if e is not None]
    stop = sorted({*eos_ids, *(added[t] for t in ("<|im_end|>", "<|endoftext|>") if t in added)})
    return {
        "im_start": added.get("<|im_start|>"),
        "im_end": added.get("<|im_end|>"),
        "endoftext": added.get("<|endoftext|>"),
        "eos_ids": eos_ids,  # what the reference's generate() stops on
        "stop_ids": stop,  # what Tingji stops on outside --exact
        "vocab_size": int(llm_config["vocab_size"]),
    }


def _llm_input_dtype(config: dict[str, Any]) -> str:
    dtype = str((config.get("llm_conf") or {}).get("llm_dtype", "fp32")).lower()
    return dtype if dtype in ("bf16", "fp16") else "fp32"
