"""Fun-ASR-Nano's manifest section: what the converter wrote and the recognizer reads.

The converter (`tingji.export.fun_asr_nano.convert.nano_manifest`, also used for
adopted peer releases) writes it as `dataclasses.asdict` of `NanoSection`;
`manifest.load_manifest` reads it back strictly (`engine.schema`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...frontend import FrontendConfig, check_input_size
from ...schema import entry
from ..llm import DecoderInfo, SpecialTokens
from .prompt import PromptPieces

if TYPE_CHECKING:
    from ...manifest import Manifest

# How a graph's inputs may be typed (our exports: fp32; peer releases: fp16 too).
INPUT_DTYPES = ("fp32", "fp16")


@dataclass(frozen=True, kw_only=True)
class NanoEncoderInfo:
    """The encoder + adaptor graph: LFR features [T, input_size] in, [T, encoder_dim] and [T, llm_dim] out."""

    precision: str  # its weights as exported (fp32, fp16, int8; a peer release's own name)
    input_size: int = entry(min=1)
    encoder_dim: int = entry(min=1)
    llm_dim: int = entry(min=1)
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    input_dtype: str = entry("fp32", choices=INPUT_DTYPES)
    dim_names: tuple[str | None, ...] = ("batch", "frames")  # its symbolic batch and frame dims (pinned on DirectML)


@dataclass(frozen=True, kw_only=True)
class NanoCtc:
    """The CTC head that times characters (the defaults describe a model without one)."""

    vocab_size: int | None = entry(None, min=1)
    blank_id: int = entry(-1, min=-1, id_of="vocab_size")  # -1: no blank
    text_tokens: int | None = entry(None, min=0)  # ids below this are text; the rest are tags and the blank
    frame_seconds: float = entry(0.06, above=0)
    top_k: int | None = entry(None, min=1)
    mask: bool = True  # the graph takes a frame mask (a peer release's may not: it then sees the real length)
    input_dtype: str = entry("fp32", choices=INPUT_DTYPES)
    dim_names: tuple[str | None, ...] = ("batch", "frames")


@dataclass(frozen=True, kw_only=True)
class NanoDecoderInfo(DecoderInfo):
    # The reference writes the audio rows into an LLM-dtype embedding tensor, i.e. rounds them to
    # bf16 when its config loads the LLM in bf16; so does the engine.
    input_dtype: str = entry(choices=("fp32", "bf16", "fp16"))


@dataclass(frozen=True, kw_only=True)
class NanoSection:
    """The manifest's "fun-asr-nano" section."""

    special_tokens: SpecialTokens
    encoder: NanoEncoderInfo
    decoder: NanoDecoderInfo
    prompt: PromptPieces = PromptPieces()
    ctc: NanoCtc = NanoCtc()

    def check_frontend(self, frontend: FrontendConfig) -> None:
        """The encoder must take the rows the front-end makes (`schema.Invalid` otherwise)."""
        check_input_size(self.encoder.input_size, frontend)


def timestamps(manifest: Manifest) -> str:
    """The timestamps a Fun-ASR-Nano model folder gives (its `Capabilities.timestamps`): per token with
    the CTC head - its graph and its token list -, else per window. Hugging Face's model.pt has no CTC
    head (FunASR issue #3496), so a folder converted from it has none; the model manager says so too."""
    return "tokens" if manifest.file("ctc") is not None and manifest.file("tokens") is not None else "window"
