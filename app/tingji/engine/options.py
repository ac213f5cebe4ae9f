"""`TranscribeOptions`: what a caller asks of one transcription, as one typed, frozen object.

The CLI, the GUI's file queue and dictation each build one and hand it to
`Engine.transcribe` (or a lane's `transcribe`). The engine fits it to the
loaded model - a language the model cannot be told, hotwords it cannot take -
with a warning for each change, and gives the fitted copy to the model family
for every window (`families.base.Recognizer.recognize`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import TingjiError
from . import messages

MAX_SPEAKERS = 8  # the most speakers a caller may name; "auto" finds up to 15 (engine/speakers/cluster.py)


@dataclass(frozen=True)
class TranscribeOptions:
    """What to ask of the model for one transcription; the defaults suit most uses.

    A model that cannot do what is asked does the nearest thing, and the
    transcript's `warnings` say what changed.

    Args:
        language: The language spoken, as a code or an English name
            (`"zh"`, `"en"`, `"yue"`, `"Japanese"`; see `tingji.engine.languages`),
            or None to let the model detect it. A language the model cannot be
            told is detected instead (or ignored, by a model that cannot detect).
        hotwords: Names and terms the model should favour. Blank entries are
            dropped; a single string is one hotword. A model without hotword
            support ignores them.
        itn: Inverse text normalisation: numbers, dates and punctuation written
            as text is written ("12:30" rather than "twelve thirty"). False keeps
            them as spoken, on a model that can switch it off.
        timestamps: Time each character where the model can, so that segments
            follow the speech. False skips the work that only times text; the
            segments are then timed by their window (dictation, which only needs
            the text, asks for False).
        max_tokens: The most tokens a model with a text generator (an LLM
            decoder) writes per window of up to 60 s. Models without one
            ignore it.
        ignore_eos: Generate exactly `max_tokens` per window, past the end of
            the text and without the repetition guard, so that benchmarks compare
            equal amounts of work. Not for real transcripts.
        speakers: Label each segment with who spoke it: `"off"`, `"auto"` (the
            number of speakers found from the audio) or the number of speakers,
            1 to 8 (an int, or its digits as text). Needs an engine loaded with a
            speaker model (`Engine(speaker_model=...)`); without one the
            transcript says so in a warning and has no labels.
        draft: Let a model that drafts its answer (Fun-ASR-Nano's CTC head) have the
            LLM verify the draft in blocks: the same text, faster. False decodes one
            token at a time, only to compare.

    Raises:
        TingjiError: `speakers` is none of those.
    """

    language: str | None = None
    hotwords: tuple[str, ...] = ()
    itn: bool = True
    timestamps: bool = True
    max_tokens: int = 512
    ignore_eos: bool = False
    speakers: str | int = "off"
    draft: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "speakers", speakers_choice(self.speakers))
        # A tuple whatever the caller passed (a list, a generator): the object stays hashable and frozen.
        words: str | Iterable[str] = self.hotwords
        object.__setattr__(self, "hotwords", (words,) if isinstance(words, str) else tuple(words))


def speakers_choice(value: object) -> str | int:
    """`"off"`, `"auto"` or a speaker count 1..8 from what a caller passed (TingjiError otherwise)."""
    if isinstance(value, str) and value.strip().lower() in ("off", "auto"):
        return value.strip().lower()
    count = value.strip() if isinstance(value, str) else value
    if isinstance(count, str) and count.isdigit():
        count = int(count)
    if isinstance(count, int) and not isinstance(count, bool) and 1 <= count <= MAX_SPEAKERS:
        return count
    raise TingjiError(messages.SPEAKERS_CHOICE, value=value, most=MAX_SPEAKERS)


@dataclass(frozen=True)
class LoadOptions:
    """How to load a model and its companions (`Engine`'s arguments of the same names), passed whole from the
    `Engine` to its family's `load`, the shared session layer (`sessions.OnnxGraphs`) and the companion models
    (`engine.companions`); each ignores what does not apply to it.

    Args:
        provider: ONNX Runtime's provider: "auto", "dml", "cuda" or "cpu".
        device: DirectML's adapter (`engine.adapters.find`); None: the high-performance one.
        exact: Reference mode: the reference's settings wherever speed changed them.
        threads: CPU threads; None: the `engine.threads` defaults.
        policy: Shape policy, "fixed" (DirectML) or "dynamic"; None: by provider.
        buckets: Fixed-policy input lengths (frames); None: the window and a short one.
        warm: Run every session once at load, so the first file pays no compile cost.
        n_ctx: First LLM context in positions; grown as prompts and generation need (`engine.decoder`).
        decoder_gpu_layers: LLM layers on a GPU; None: all when a GPU provider runs.
        graph_cache: Where ONNX Runtime's optimised graphs are kept (`engine.ort_cache`); None: none.
    """

    provider: str = "auto"
    device: str | None = None
    exact: bool = False
    threads: int | None = None
    policy: str | None = None
    buckets: Sequence[int] | None = None
    warm: bool = True
    n_ctx: int = 256
    decoder_gpu_layers: int | None = None
    graph_cache: Path | None = None
