"""Drafts from another model: a CTC recogniser's greedy text as the draft an LLM family verifies.

Fun-ASR-Nano drafts from its own CTC head (`families/fun_asr_nano`). Qwen3-ASR
has none, so another installed model drafts for it: SenseVoice-Small (its
whole recogniser: one encoder pass, CTC, tags) or Fun-ASR-Nano's encoder and
CTC head alone (its LLM is not loaded). The source runs on the same window's
samples; its greedy text, re-tokenised with the LLM's tokenizer, goes to the
same `draft.Drafter` and verifier as Nano's own. The LLM's output does not
depend on the draft, only the speed (`generation`).

`DRAFTERS` is the one place that says which families draft for which.
Languages are respected: a source drafts a window only when the window's
language - the user's choice, else the language the source heard - is one it
declares and one the LLM model knows; a source that cannot tell the
language (Nano's CTC head) drafts only when the user chose one.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..errors import ErrorReport, ModelError
from . import messages
from .align import load_ctc_tokens
from .companions import for_companion, open_folder
from .draft import ctc_text
from .families.base import NoLane
from .families.kit import kit
from .manifest import Manifest
from .options import LoadOptions, TranscribeOptions

if TYPE_CHECKING:
    from .transcribe import Engine

QWEN3_ASR, SENSE_VOICE, NANO = "qwen3-asr", "sense-voice-small", "fun-asr-nano"
# Which families' models can draft for which (the LLM family -> the CTC families, preferred first). One place.
DRAFTERS: dict[str, tuple[str, ...]] = {QWEN3_ASR: (SENSE_VOICE, NANO)}
for _name in (*DRAFTERS, *(f for fs in DRAFTERS.values() for f in fs)):
    assert kit(_name) is not None, _name  # a renamed family would quietly drop its drafts


def drafters_for(family: str) -> tuple[str, ...]:
    """The families whose models can draft for a model of `family` (empty: none can), preferred first."""
    return DRAFTERS.get(family, ())


def drafts_for(manifest: Manifest, target: str) -> bool:
    """Whether a model folder (its manifest) can draft for a model of family `target`: a family in `DRAFTERS`
    for it, and for Fun-ASR-Nano a CTC head."""
    if manifest.family not in drafters_for(target):
        return False
    if manifest.family == NANO:
        from .families.fun_asr_nano.section import timestamps

        return timestamps(manifest) == "tokens"
    return True


@dataclass(frozen=True)
class Heard:
    """A source's text for one window, and the language it heard (None: it does not say, or heard no speech)."""

    text: str
    language: str | None


class DraftSource(Protocol):
    """A loaded model that drafts: its greedy text for a window of 16 kHz samples."""

    family: str
    languages: tuple[str, ...]  # the language codes it declares
    warnings: list[ErrorReport]  # load-time problems (a GPU provider that fell back)

    def hear(self, samples: np.ndarray, language: str | None) -> Heard:
        """The window's greedy text; `language` is the user's choice (None: detect, where it can)."""

    def close(self) -> None: ...


class SenseVoiceSource:
    """SenseVoice-Small as a draft source: its recogniser, without character times.

    Args:
        manifest: Its model folder's manifest.
        options: The load options (the LLM model's, for a companion).
    """

    family = SENSE_VOICE

    def __init__(self, manifest: Manifest, options: LoadOptions) -> None:
        from .families.sense_voice_small import load

        self.model = load(manifest, options)
        self.languages = self.model.capabilities.languages
        self.warnings = self.model.warnings

    def hear(self, samples: np.ndarray, language: str | None) -> Heard:
        result = self.model.recognize(samples, TranscribeOptions(language=language, timestamps=False), NoLane())
        return Heard(result.text, None if result.extras.get("no_speech") else result.language)

    def close(self) -> None:
        self.model.close()


class NanoCtcSource:
    """Fun-ASR-Nano's encoder and CTC head as a draft source (its LLM is not loaded): the CTC greedy text.

    Args:
        manifest: Its model folder's manifest.
        options: The load options (the LLM model's, for a companion).

    Raises:
        ModelError: The folder has no CTC head (Hugging Face's checkpoint has none).
    """

    family = NANO

    def __init__(self, manifest: Manifest, options: LoadOptions) -> None:
        from .families.fun_asr_nano.encoder import NanoEncoder
        from .families.fun_asr_nano.prompt import LANGUAGE_WORDS
        from .families.fun_asr_nano.section import timestamps

        if timestamps(manifest) != "tokens":
            raise ModelError(messages.DRAFT_NO_CTC, folder=manifest.folder, family=manifest.family)
        section = manifest.section
        self.frontend = manifest.frontend
        self.tokens = load_ctc_tokens(manifest.file("tokens"))
        self.blank, self.text_tokens = section.ctc.blank_id, section.ctc.text_tokens
        self.encoder = NanoEncoder(manifest, options)
        self.languages = tuple(LANGUAGE_WORDS)  # what it was trained on; its CTC head names no language
        self.warnings = self.encoder.graphs.warnings

    def hear(self, samples: np.ndarray, language: str | None) -> Heard:
        from .frontend import features

        feats = features(samples, self.frontend)
        if feats.shape[0] == 0:
            return Heard("", None)
        _, ids = self.encoder.ctc(self.encoder.encode(feats).enc)
        best = ids[:, 0] if ids.ndim == 2 else ids
        return Heard(ctc_text(best, self.blank, self.tokens, self.text_tokens), None)

    def close(self) -> None:
        self.encoder.graphs = None  # type: ignore[assignment]  # its sessions go with the last reference


_SOURCES = {SENSE_VOICE: SenseVoiceSource, NANO: NanoCtcSource}
assert set(_SOURCES) == {f for fs in DRAFTERS.values() for f in fs}  # a drafting family needs its source


def load_source(folder: str | os.PathLike[str], target: str, options: LoadOptions | None = None) -> DraftSource:
    """A model folder loaded as a draft source for a model of family `target`.

    Args:
        folder: The drafting model's folder.
        target: The family of the model it drafts for (e.g. `"qwen3-asr"`).
        options: The target model's load options: the same provider and threads (frame buckets dropped).

    Raises:
        ModelError: The folder is not a usable model, or not one that can draft for `target`.
    """
    manifest = open_folder(folder, None, None, check_hashes=False)  # sizes only, as for the model itself
    if manifest.family not in drafters_for(target):
        known = ", ".join(drafters_for(target)) or "none"
        raise ModelError(
            messages.DRAFT_REFUSED, folder=manifest.folder, family=manifest.family, target=target, known=known
        )
    return _SOURCES[manifest.family](manifest, for_companion(options))


class Drafted(Protocol):
    """A recogniser of a family in `DRAFTERS` (Qwen3-ASR's): it takes a draft source."""

    load_options: LoadOptions

    def use_draft_source(self, source: DraftSource | None) -> None: ...


def use_draft_model(engine: Engine, folder: str | os.PathLike[str]) -> DraftSource:
    """Load a model folder as the draft source of a loaded engine's model (replacing one loaded before).

    The caller makes sure no transcription runs meanwhile; the engine closes the source with the model.

    Args:
        engine: The engine whose LLM model the drafts are for.
        folder: The drafting model's folder.

    Raises:
        ModelError: The folder is not a usable model, or not one that can draft for the engine's model.
    """
    recognizer: Drafted = engine.recognizer  # type: ignore[assignment]  # DRAFTERS' keys are such families
    source = load_source(folder, engine.family, getattr(recognizer, "load_options", None))
    recognizer.use_draft_source(source)
    return source


def window_draft(source: DraftSource, samples: np.ndarray, chosen: str | None, known: Collection[str]) -> Heard | None:
    """The source's draft of one window, or None where it must not draft.

    Args:
        source: The draft source.
        samples: The window's 16 kHz samples (what the LLM model hears).
        chosen: The language the user chose (a code the LLM model takes), None: detected.
        known: The language codes the LLM model knows.

    Returns:
        The text and the window's language (the chosen one, else the one the source heard); None when that
        language is unknown or one of the two models does not cover it, or the source heard nothing.
    """
    if chosen is not None and chosen not in source.languages:
        return None  # not even run: its text would be in another language, or none
    heard = source.hear(samples, chosen)
    language = chosen or heard.language
    if language is None or language not in source.languages or language not in known or not heard.text:
        return None
    return Heard(heard.text, language)
