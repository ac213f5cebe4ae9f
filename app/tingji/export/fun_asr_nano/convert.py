"""Official Fun-ASR-Nano checkpoint -> the files and manifest of a Tingji model folder.

Output: the encoder+adaptor graph (real length) and its fixed 60 s twin for
DirectML sharing one weight file, the CTC head, the Qwen3 LLM as GGUF, the
CTC vocabulary as `tokens.txt`, and a manifest whose family section carries
the prompt pieces and special tokens the engine must use.

`nano_manifest` is the one writer of a Fun-ASR-Nano manifest: the converter
and the peer-release adopter (`tingji.models.peer`) both fill a `NanoSection`
and hand it here. Nothing here imports torch: without it the graphs come from templates
(`export.templates`).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...engine.families.fun_asr_nano.prompt import build_prompt, pieces_from_config
from ...engine.families.fun_asr_nano.section import NanoCtc, NanoDecoderInfo, NanoEncoderInfo, NanoSection
from ...engine.families.kit import declared
from ...engine.families.llm import SpecialTokens
from ...engine.frontend import FrontendConfig, num_lfr_frames
from ...engine.manifest import FileEntry, Manifest, file_entry
from ...errors import ModelError
from .. import messages
from ..funasr_frontend import frontend_settings

if TYPE_CHECKING:
    from .checkpoint import Checkpoint
    from .dims import AudioDims

FAMILY = declared(__name__).name  # the name in engine/families/kit.py
WINDOW_SECONDS = 60
CTC_FRAME_SECONDS = 0.06  # the CTC head's frame: 6 LFR rows of 10 ms


def is_checkpoint(folder: Path, config: dict[str, Any]) -> bool:
    """An official Fun-ASR-Nano folder names its model class in config.yaml."""
    return config.get("model") == "FunASRNano"


def convert(
    source: Path, work: Path, *, precision: str, decoder_quant: str, fixed: bool, say: Callable[[str], None]
) -> Manifest:
    """A Fun-ASR-Nano checkpoint: encoder + adaptor and CTC graphs, the Qwen3 LLM as a GGUF (see `CONVERTERS`).

    Its imports wait until a conversion starts: `nano_manifest` serves peer adoption, which needs no torch."""
    from ..gguf_tools import export_decoder
    from .checkpoint import load_checkpoint
    from .graphs import export_audio

    ckpt = load_checkpoint(source)
    dims = ckpt.dims
    frontend = _frontend(ckpt.frontend_conf())
    window_frames = num_lfr_frames(WINDOW_SECONDS * frontend.sample_rate, frontend)
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
    ctc = _ctc_tokens(ckpt, dims, work, files)
    say("hashing files")
    section = _section(ckpt, dims, precision, decoder_quant, ctc)
    return nano_manifest(
        work,
        {role: file_entry(work, path) for role, path in files.items()},
        section,
        frontend=frontend,
        source={"model_pt_sha256": ckpt.sha256, "folder": source.name},
    )


def _ctc_tokens(ckpt: Checkpoint, dims: AudioDims, work: Path, files: dict[str, Path]) -> NanoCtc:
    """The CTC head's vocabulary as `tokens.txt` (added to `files`) and its settings; none without a CTC graph
    or a vocabulary."""
    if "ctc" not in files or ckpt.ctc_vocab is None:
        return NanoCtc()
    tokens = work / "tokens.txt"
    n_text = _write_ctc_tokens(ckpt.ctc_vocab, dims.ctc_vocab, tokens)
    files["tokens"] = tokens
    blank = int((ckpt.config.get("ctc_conf") or {}).get("blank_id", dims.ctc_vocab - 1))
    return NanoCtc(
        vocab_size=dims.ctc_vocab, blank_id=blank, text_tokens=n_text, frame_seconds=CTC_FRAME_SECONDS, top_k=8
    )


def _section(ckpt: Checkpoint, dims: AudioDims, precision: str, decoder_quant: str, ctc: NanoCtc) -> NanoSection:
    """The manifest's family section: the prompt pieces, special tokens, the graphs' and the decoder's shapes."""
    return NanoSection(
        prompt=pieces_from_config(ckpt.config),
        special_tokens=_special_tokens(ckpt.llm_dir, ckpt.llm_config),
        encoder=NanoEncoderInfo(
            precision=precision,
            input_size=dims.input_size,
            encoder_dim=dims.encoder_dim,
            llm_dim=dims.llm_dim,
            inputs=("lfr_feat", "mask"),
            outputs=("enc_output", "adaptor_output"),
        ),
        decoder=NanoDecoderInfo(
            quant=decoder_quant,
            n_embd=dims.llm_dim,
            n_layer=int(ckpt.llm_config["num_hidden_layers"]),
            input_dtype=_llm_input_dtype(ckpt.config),
        ),
        ctc=ctc,
    )


def nano_manifest(
    folder: Path,
    files: dict[str, FileEntry],
    section: NanoSection,
    *,
    frontend: FrontendConfig,
    source: dict[str, Any],
) -> Manifest:
    """The manifest of a Fun-ASR-Nano model folder (not yet saved: `manifest.save_manifest`).

    Args:
        folder: the model folder the files sit in.
        files: role -> entry of every file, as `manifest.file_entry` describes them.
        section: the family's settings; its prompt's `default_before`/`default_after` are
            filled in here from the pieces, for people reading the manifest.
        frontend: the feature settings the encoder was trained on.
        source: where the model came from (kept as given).
    """
    prompt = build_prompt(section.prompt)
    pieces = replace(section.prompt, default_before=prompt.before, default_after=prompt.after)
    return Manifest(
        folder=folder,
        family=FAMILY,
        files=files,
        window_seconds=WINDOW_SECONDS,
        window_frames=num_lfr_frames(WINDOW_SECONDS * frontend.sample_rate, frontend),
        frontend=frontend,
        section=replace(section, prompt=pieces),
        source=source,
    )


def _frontend(conf: dict[str, Any]) -> FrontendConfig:
    """Front-end settings as the engine's FrontendConfig takes them; inference never dithers."""
    if conf.get("cmvn_file"):
        raise ModelError(messages.CMVN)
    return frontend_settings(conf)


def _llm_tensors(ckpt: Checkpoint) -> dict[str, np.ndarray]:
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
    out.write_text("\n".join(lines) + "\n", encoding="ascii", newline="\n")  # LF on Windows too: the same file
    return n_text


def _special_tokens(llm_dir: Path, llm_config: dict[str, Any]) -> SpecialTokens:
    data = json.loads((llm_dir / "tokenizer.json").read_text(encoding="utf-8"))
    added = {t["content"]: int(t["id"]) for t in data.get("added_tokens") or []}
    eos = llm_config.get("eos_token_id")
    eos_ids = tuple(int(e) for e in (eos if isinstance(eos, list) else [eos]) if e is not None)
    im_end, endoftext = added.get("<|im_end|>"), added.get("<|endoftext|>")
    return SpecialTokens(
        im_start=added.get("<|im_start|>"),
        im_end=im_end,
        endoftext=endoftext,
        eos_ids=eos_ids,  # what the reference's generate() stops on
        stop_ids=SpecialTokens.stops(eos_ids, im_end, endoftext),  # what Tingji stops on outside --exact
        vocab_size=int(llm_config["vocab_size"]),
    )


def _llm_input_dtype(config: dict[str, Any]) -> str:
    dtype = str((config.get("llm_conf") or {}).get("llm_dtype", "fp32")).lower()
    return dtype if dtype in ("bf16", "fp16") else "fp32"
