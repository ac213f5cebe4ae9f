"""SenseVoice-Small's manifest section: what the converter wrote and the recognizer reads.

The converter (`tingji.export.sense_voice_small.convert`) writes it as
`dataclasses.asdict` of `SenseVoiceSection`; `manifest.load_manifest` reads it
back strictly (`engine.schema`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...frontend import FrontendConfig, check_input_size
from ...schema import entry
from .rich import QueryRows


@dataclass(frozen=True, kw_only=True)
class SenseVoiceEncoderInfo:
    """The encoder graph (query rows + SAN-M encoder + CTC head): features [T, input_size] in."""

    precision: str
    input_size: int = entry(min=1)
    encoder_dim: int = entry(min=1)
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    top_k: int | None = entry(None, min=1)  # written by the first exports; the graph now gives the best id


@dataclass(frozen=True, kw_only=True)
class SenseVoiceCtc:
    vocab_size: int = entry(min=1)
    # funasr passes model_conf to SenseVoiceSmall, whose blank_id defaults to 0
    blank_id: int = entry(0, min=0, id_of="vocab_size")
    frame_seconds: float = entry(0.06, above=0)


@dataclass(frozen=True, kw_only=True)
class SenseVoiceSection:
    """The manifest's "sense-voice-small" section."""

    encoder: SenseVoiceEncoderInfo
    ctc: SenseVoiceCtc
    queries: QueryRows = QueryRows()
    window_reason: str = ""  # why the window is as long as it is, for readers

    def check_frontend(self, frontend: FrontendConfig) -> None:
        """The encoder must take the rows the front-end makes (`schema.Invalid` otherwise)."""
        check_input_size(self.encoder.input_size, frontend)
