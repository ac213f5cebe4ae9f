"""Qwen3-ASR (0.6B, 1.7B): Whisper-style encoder (ONNX), Qwen3 LLM (GGUF) fed its rows.

One window: log-mel (NumPy) -> audio tower -> ChatML prompt with the rows in
the user turn -> greedy tokens from llama.cpp -> `language X<asr_text>text`
parsed into a language code and the text. The model detects the language per
window; forcing one ends the prompt with it. Hotwords become the system
turn's context. There is no CTC head, so characters are not timed here
(the pipeline places sentences on the window's speech spans: "speech" timestamps).

Without a CTC head of its own, another installed model may draft the answer
(`engine.draft_sources`: SenseVoice-Small, Fun-ASR-Nano's CTC head): its text
for the same window, behind the answer's `language X<asr_text>` head when the
language is not forced, is verified in blocks like Nano's own draft.

`exact` is the reference mode used by the equivalence tests: the
reference's stop tokens only, plain greedy decoding (no loop guard), f32 KV
cache, basic ONNX graph optimisation.
"""

from __future__ import annotations

import numpy as np

from ...decoder import LlamaContext
from ...draft_sources import DraftSource, window_draft
from ...languages import normalise
from ...manifest import Manifest
from ...mel import MelConfig, log_mel, mel_filters
from ...options import LoadOptions, TranscribeOptions
from ..base import CancelCheck, Capabilities, WindowResult, stage
from ..kit import declared
from ..llm import LlmFamily
from .encoder import Qwen3Encoder
from .prompt import build_prompt, parse_answer
from .section import Qwen3Section

FAMILY = declared(__name__).name  # the name in engine/families/kit.py
FILE_ROLES = ("encoder", "encoder_data", "encoder_fixed", "decoder")
REQUIRED_FILES = ("encoder", "decoder")
FRONTEND = MelConfig
SECTION = Qwen3Section


class Qwen3Asr(LlmFamily):
    """A loaded Qwen3-ASR model (see `engine.families.base.Recognizer`)."""

    family = FAMILY
    stages = ("features", "encode", "prefill", "generate")

    def __init__(self, manifest: Manifest, options: LoadOptions) -> None:
        section: Qwen3Section = manifest.section
        self.mel: MelConfig = manifest.frontend
        self.filters = mel_filters(self.mel)
        self.encoder: Qwen3Encoder
        self.load_options = options  # a draft source loads as the model did (draft_sources.load_source)
        self.draft_source: DraftSource | None = None
        super().__init__(manifest, options, lambda: Qwen3Encoder(manifest, options))
        self.pieces = section.prompt
        self.language_names = section.language_names  # code -> the model's own name, in the release's order
        self.capabilities = Capabilities(
            languages=tuple(self.language_names),
            detects_language=True,
            hotwords=True,
            itn=False,
            timestamps="speech",
            live_lane=True,
        )

    def _prompt(self, options: TranscribeOptions) -> tuple[list[int], list[int]]:
        def texts() -> tuple[str, str]:
            prompt = build_prompt(
                self.pieces, language_name=self.language_names.get(options.language or ""), hotwords=options.hotwords
            )
            return prompt.before, prompt.after

        return self.prompt_ids((options.language, options.hotwords), texts)

    def use_draft_source(self, source: DraftSource | None) -> None:
        """Draft each window's answer with `source` (None: no drafts); a source used before is closed.

        Args:
            source: A loaded draft source (`draft_sources.load_source`); the caller makes sure no window runs.
        """
        if self.draft_source is not None:
            self.draft_source.close()
        self.draft_source = source
        if source is not None:
            self.graphs.warnings.extend(w for w in source.warnings if w not in self.graphs.warnings)

    def _draft(self, samples: np.ndarray, forced: str | None, timings: dict[str, float]) -> list[int]:
        """The draft source's text for the window, in the decoder's tokens ([]: no source, or none for this window)."""
        if self.draft_source is None:
            return []
        with stage(timings, "draft"):
            heard = window_draft(self.draft_source, samples, forced, self.language_names)
            if heard is None or heard.language is None:
                return []
            p = self.pieces  # unforced, the answer starts by naming the language the source heard
            head = "" if forced else p.language_prefix + self.language_names[heard.language] + p.text_marker
            return self.llm.tokenize(head + heard.text)

    def close(self) -> None:
        self.use_draft_source(None)
        super().close()

    def language_code(self, name: str | None) -> str | None:
        """The code for a language name the model wrote (its own list first, then Tingji's table)."""
        if name is None:
            return None
        for code, own in self.language_names.items():
            if own.lower() == name.lower():
                return code
        return normalise(name)

    def recognize(
        self, samples: np.ndarray, options: TranscribeOptions, lane: LlamaContext, cancel: CancelCheck | None = None
    ) -> WindowResult:
        lane.stop_ahead()  # the warm-up's prefix, if still decoding, gives the cores to this take
        timings = dict.fromkeys(self.stages, 0.0)
        forced = options.language if options.language in self.language_names else None
        if len(samples) == 0:
            return WindowResult("", language=forced, timings=timings)
        with stage(timings, "features"):
            mel = log_mel(samples, self.mel, self.filters)
        with stage(timings, "encode"):
            rows = self.encoder.encode(mel)
        draft = self._draft(samples, forced, timings) if options.draft else []
        decoded = self.decode(lane, rows, options, timings, cancel, draft)
        if self.draft_source is not None:  # a window the source did not draft says so: 0 drafted
            timings.setdefault("draft_tokens", 0.0)
            timings.setdefault("draft_accepted", 0.0)
        name, text = parse_answer(decoded.text, self.pieces, forced=forced is not None)
        return WindowResult(text, decoded.tokens, None, language=forced or self.language_code(name), timings=timings)


def load(manifest: Manifest, options: LoadOptions) -> Qwen3Asr:
    return Qwen3Asr(manifest, options)
