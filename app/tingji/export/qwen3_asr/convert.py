"""Official Qwen3-ASR checkpoint (0.6B or 1.7B) -> Tingji model folder.

Output: the audio tower as ONNX (real-length graph + fixed 60 s twin sharing
one weight file), the Qwen3 LLM and its tokenizer as GGUF, and a manifest
whose `qwen3-asr` section carries what the engine needs: the model's
languages (the GUI lists them), its special token ids and stop ids, and the
prompt pieces. Nothing here imports torch: the checkpoint is read as NumPy, and
without torch the graphs come from templates (`export.templates`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...engine.families.llm import DecoderInfo, SpecialTokens
from ...engine.families.qwen3_asr.prompt import ChatTemplate
from ...engine.families.qwen3_asr.section import Qwen3EncoderInfo, Qwen3Section, Qwen3SpecialTokens
from ...engine.manifest import Manifest
from ...engine.mel import MelConfig
from .. import folder_manifest
from ..gguf_tools import export_decoder
from .checkpoint import (
    Checkpoint,
    audio_tensors,
    encoder_dims,
    language_codes,
    llm_tensors,
    load_checkpoint,
    tokenizer_json,
)
from .graphs import FAMILY, INPUTS, OUTPUTS, export_encoder

WINDOW_SECONDS = 60


def is_checkpoint(folder: Path, config: dict[str, Any]) -> bool:
    """An original Qwen3-ASR release: config.json of model type qwen3_asr with a thinker_config."""
    return config.get("model_type") == "qwen3_asr" and isinstance(config.get("thinker_config"), dict)


def convert(
    source: Path, work: Path, *, precision: str, decoder_quant: str, fixed: bool, say: Callable[[str], None]
) -> Manifest:
    """A Qwen3-ASR release: the audio tower as ONNX, the thinker's text model as a GGUF (see `CONVERTERS`)."""
    ckpt = load_checkpoint(source)
    dims = encoder_dims(ckpt)
    mel = MelConfig(n_mels=dims.n_mels)
    window_frames = WINDOW_SECONDS * mel.sample_rate // mel.hop
    files = export_encoder(
        dims, audio_tensors(ckpt), work, precision=precision, window_frames=window_frames, fixed=fixed, progress=say
    )
    say(f"writing decoder ({decoder_quant})")
    text_config = {**ckpt.text_config, "model_type": "qwen3"}  # its M-RoPE is plain RoPE for audio + text
    with tempfile.TemporaryDirectory() as scratch:
        files["decoder"] = export_decoder(
            llm_tensors(ckpt),
            text_config,
            tokenizer_json(ckpt.folder, Path(scratch)),
            work,
            decoder_quant,
            name=f"Qwen3-ASR decoder ({source.name})",
        )
    say("hashing files")
    names = language_codes(ckpt.languages)
    section = Qwen3Section(
        languages=tuple(names),
        language_names=names,
        prompt=ChatTemplate(),
        special_tokens=_special_tokens(ckpt),
        encoder=Qwen3EncoderInfo(
            precision=precision,
            n_mels=dims.n_mels,
            d_model=dims.d_model,
            layers=dims.layers,
            llm_dim=dims.output_dim,
            chunk_frames=dims.chunk_frames,
            window_chunks=dims.window_chunks,
            inputs=tuple(INPUTS),
            outputs=tuple(OUTPUTS),
        ),
        decoder=DecoderInfo(
            quant=decoder_quant,
            n_embd=int(ckpt.text_config["hidden_size"]),
            n_layer=int(ckpt.text_config["num_hidden_layers"]),
        ),
    )
    origin = {"weights_sha256": ckpt.weights_sha256(), "folder": source.name}
    return folder_manifest(work, FAMILY, files, (WINDOW_SECONDS, window_frames), mel, section, origin)


def _special_tokens(ckpt: Checkpoint) -> Qwen3SpecialTokens:
    ids = ckpt.special_ids()
    return Qwen3SpecialTokens(
        **ids,
        eos_ids=tuple(ckpt.eos_ids),  # what the reference's generate() stops on
        stop_ids=SpecialTokens.stops(ckpt.eos_ids, ids["im_end"], ids["endoftext"]),  # what Tingji stops on
        vocab_size=int(ckpt.text_config["vocab_size"]),
    )
