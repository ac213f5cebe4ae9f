"""Qwen3-ASR's manifest section: what the converter wrote and the recognizer reads.

The converter (`tingji.export.qwen3_asr.convert`) writes it as
`dataclasses.asdict` of `Qwen3Section`; `manifest.load_manifest` reads it back
strictly (`engine.schema`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ... import messages
from ...mel import MelConfig
from ...schema import Invalid, entry
from ..llm import DecoderInfo, SpecialTokens
from .prompt import ChatTemplate


@dataclass(frozen=True, kw_only=True)
class Qwen3SpecialTokens(SpecialTokens):
    audio_start: int | None = entry(None, min=0, id_of="vocab_size")
    audio_end: int | None = entry(None, min=0, id_of="vocab_size")
    audio_pad: int | None = entry(None, min=0, id_of="vocab_size")
    asr_text: int | None = entry(None, min=0, id_of="vocab_size")


@dataclass(frozen=True, kw_only=True)
class Qwen3EncoderInfo:
    """The audio tower graph: log-mel [frames, n_mels] in chunks of `chunk_frames`, rows [tokens, llm_dim] out."""

    precision: str
    n_mels: int = entry(min=1)
    d_model: int = entry(min=1)
    layers: int = entry(min=1)
    llm_dim: int = entry(min=1)
    chunk_frames: int = entry(min=1)
    window_chunks: int = entry(min=1)
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Qwen3Section:
    """The manifest's "qwen3-asr" section."""

    # Language code -> the model's own name for it, in the release's order (what a language menu lists).
    language_names: dict[str, str]
    languages: tuple[str, ...] = ()  # the same codes, for readers
    prompt: ChatTemplate = ChatTemplate()
    special_tokens: Qwen3SpecialTokens
    encoder: Qwen3EncoderInfo
    decoder: DecoderInfo

    def check_frontend(self, frontend: MelConfig) -> None:
        """The audio tower must take the mel bins the front-end makes (`schema.Invalid` otherwise)."""
        if self.encoder.n_mels != frontend.n_mels:
            raise Invalid(
                "encoder.n_mels",
                messages.KEY_MISMATCH,
                value=self.encoder.n_mels,
                other="frontend.n_mels",
                expected=frontend.n_mels,
            )
