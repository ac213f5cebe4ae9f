"""Paraformer's manifest section: what the converter wrote and the recognizer reads.

The converter (`tingji.export.paraformer.convert`) writes it as
`dataclasses.asdict` of `ParaformerSection`; `manifest.load_manifest` reads it
back strictly (`engine.schema`): an unknown key, a missing one or a value of
the wrong type or range is one coded ModelError naming the manifest and the key.
"""

from __future__ import annotations

from dataclasses import dataclass

from ... import messages
from ...frontend import FrontendConfig, check_input_size
from ...schema import Invalid, entry
from ..kit import PRECISIONS

VARIANTS = ("plain", "bicif")


@dataclass(frozen=True, kw_only=True)
class ParaformerEncoderInfo:
    """The encoder + CIF weights graph (and the decoder, exported at the same precision).

    Args:
        precision: Of the encoder and decoder graphs (the timestamp head's LSTM is int8 in an int8
            export, the rest of it fp32).
        input_size: Feature width (80 mels x LFR 7).
        encoder_dim: Width of the encoder states and the CIF embeddings.
    """

    precision: str = entry(choices=PRECISIONS)
    input_size: int = entry(min=1)
    encoder_dim: int = entry(min=1)


@dataclass(frozen=True, kw_only=True)
class ParaformerCif:
    """Integrate-and-fire and the timestamp rule.

    Args:
        threshold: CIF fires when the accumulated weight reaches it.
        tail_threshold: Weight of the extra frame appended after the last one.
        upsample_times: Timestamp frames per encoder frame (the BiCIF head's; 1 for plain Paraformer).
        frame_seconds: One encoder frame (LFR 6 x 10 ms).
    """

    threshold: float = entry(1.0, above=0, max=1)
    tail_threshold: float = entry(0.45, min=0)
    upsample_times: int = entry(3, min=1)
    frame_seconds: float = entry(0.06, above=0)

    def __post_init__(self) -> None:
        if self.tail_threshold > self.threshold:
            raise Invalid("tail_threshold", messages.KEY_ABOVE, value=self.tail_threshold, most=self.threshold)


@dataclass(frozen=True, kw_only=True)
class ParaformerTokens:
    """The decoder's vocabulary: `tokens.json` holds `vocab_size` tokens; the special ids are dropped from the text.

    Args:
        vocab_size: Decoder outputs.
        blank_id: Blank id.
        sos_id: Start-of-sentence id.
        eos_id: End-of-sentence id.
    """

    vocab_size: int = entry(min=1)
    blank_id: int = entry(0, min=0, id_of="vocab_size")
    sos_id: int = entry(1, min=0, id_of="vocab_size")
    eos_id: int = entry(2, min=0, id_of="vocab_size")


@dataclass(frozen=True, kw_only=True)
class ParaformerSection:
    """The manifest's "paraformer" section.

    Args:
        variant: "plain" (Paraformer, CifPredictorV2: vectorised integrate-and-fire, no timestamp
            head) or "bicif" (BiCifParaformer, CifPredictorV3: loop integrate-and-fire, timestamp head).
        encoder: The graphs' precision and widths.
        cif: Integrate-and-fire settings.
        tokens: The vocabulary size and special ids.
        window_reason: Why the window is as long as it is (for people reading the manifest).
    """

    variant: str = entry(choices=VARIANTS)
    encoder: ParaformerEncoderInfo
    cif: ParaformerCif = ParaformerCif()
    tokens: ParaformerTokens
    window_reason: str = ""

    def check_frontend(self, frontend: FrontendConfig) -> None:
        """The encoder must take the rows the front-end makes (`schema.Invalid` otherwise)."""
        check_input_size(self.encoder.input_size, frontend)
