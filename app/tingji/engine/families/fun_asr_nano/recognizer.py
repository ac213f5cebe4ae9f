"""Fun-ASR-Nano: SAN-M audio encoder + adaptor (ONNX), Qwen3 LLM (GGUF) fed the adaptor rows.

One window: Kaldi fbank + LFR features -> encoder (+ CTC head) -> the first
`num_adaptor_rows` adaptor rows -> ChatML prompt around them -> greedy
tokens from llama.cpp -> text, with character times from the CTC path. The CTC
head's greedy text, in the LLM's tokens, is the draft the decoder verifies in
blocks (`engine.generation`): the same tokens, fewer llama.cpp calls.

`exact` is the reference mode used by the equivalence tests: the reference's
stop token only, plain greedy decoding (no loop guard), f32 KV cache, basic
ONNX graph optimisation.
"""

from __future__ import annotations

import re

import numpy as np

from ...align import ctc_greedy, load_ctc_tokens
from ...decoder import LlamaContext
from ...draft import ctc_text
from ...frontend import FrontendConfig, features
from ...manifest import Manifest
from ...options import LoadOptions, TranscribeOptions
from ..base import CancelCheck, Capabilities, WindowResult, stage
from ..kit import declared
from ..llm import LlmFamily
from .encoder import NanoEncoder, num_adaptor_rows
from .prompt import LANGUAGE_WORDS, build_prompt
from .section import NanoSection, timestamps

FAMILY = declared(__name__).name  # the name in engine/families/kit.py
FILE_ROLES = ("encoder", "encoder_data", "encoder_fixed", "ctc", "ctc_data", "decoder", "tokens")
REQUIRED_FILES = ("encoder", "decoder")
FRONTEND = FrontendConfig
SECTION = NanoSection


class FunAsrNano(LlmFamily):
    """A loaded Fun-ASR-Nano model (see `engine.families.base.Recognizer`)."""

    family = FAMILY
    stages = ("features", "encode", "ctc", "prefill", "generate")

    def __init__(self, manifest: Manifest, options: LoadOptions) -> None:
        section: NanoSection = manifest.section
        self.manifest = manifest
        self.frontend: FrontendConfig = manifest.frontend
        self.encoder: NanoEncoder
        super().__init__(manifest, options, lambda: NanoEncoder(manifest, options))
        tokens = manifest.file("tokens")
        self.ctc_tokens = load_ctc_tokens(tokens) if timestamps(manifest) == "tokens" else None
        self.ctc_blank = section.ctc.blank_id
        self.ctc_text_tokens = section.ctc.text_tokens
        self.ctc_frame_s = section.ctc.frame_seconds
        self.llm_input_dtype = section.decoder.input_dtype
        self.prompt_pieces = section.prompt
        self.capabilities = Capabilities(
            languages=tuple(LANGUAGE_WORDS),
            open_languages=True,
            detects_language=False,
            hotwords=True,
            itn=True,
            timestamps=timestamps(manifest),
            live_lane=True,
        )

    def _prompt(self, options: TranscribeOptions) -> tuple[list[int], list[int]]:
        def texts() -> tuple[str, str]:
            prompt = build_prompt(
                self.prompt_pieces, language=options.language, hotwords=options.hotwords, itn=options.itn
            )
            return prompt.before, prompt.after

        return self.prompt_ids((options.language, options.hotwords, options.itn), texts)

    def recognize(
        self, samples: np.ndarray, options: TranscribeOptions, lane: LlamaContext, cancel: CancelCheck | None = None
    ) -> WindowResult:
        lane.stop_ahead()  # the warm-up's prefix, if still decoding, gives the cores to this take
        timings = dict.fromkeys(self.stages, 0.0)
        with stage(timings, "features"):
            feats = features(samples, self.frontend)
        if feats.shape[0] == 0:  # shorter than one 25 ms frame
            return WindowResult("", language=options.language, timings=timings)
        with stage(timings, "encode"):
            out = self.encoder.encode(feats)
        ctc_chars, draft = None, []
        # The CTC head times characters and drafts the answer (Hugging Face's checkpoint has none).
        drafting = self.drafting and options.draft
        if self.ctc_tokens is not None and (options.timestamps or drafting):
            with stage(timings, "ctc"):
                _, ids = self.encoder.ctc(out.enc)
                if options.timestamps:
                    ctc_chars = ctc_greedy(ids, self.ctc_blank, self.ctc_tokens, self.ctc_frame_s)
                if drafting:
                    best = ids[:, 0] if ids.ndim == 2 else ids
                    text = ctc_text(best, self.ctc_blank, self.ctc_tokens, self.ctc_text_tokens)
                    draft = self.llm.tokenize(text) if text else []
        rows = round_to(out.adaptor[: num_adaptor_rows(out.frames)], self.llm_input_dtype)
        decoded = self.decode(lane, rows, options, timings, cancel, draft)
        text = clean_text(decoded.text)
        return WindowResult(text, decoded.tokens, ctc_chars, language=options.language, timings=timings)


def clean_text(text: str) -> str:
    """The reference's post-processing: `/sil` markers to spaces, whitespace runs collapsed."""
    return re.sub(r"\s+", " ", text.replace("/sil", " ")).strip()


def round_to(rows: np.ndarray, dtype: str) -> np.ndarray:
    """Round float32 rows to bf16/fp16 precision (kept as float32), as the reference's cast does."""
    rows = np.ascontiguousarray(rows, dtype=np.float32)
    if dtype == "fp16":
        return rows.astype(np.float16).astype(np.float32)
    if dtype != "bf16":
        return rows
    bits = rows.view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000  # round to nearest even
    return bits.astype(np.uint32).view(np.float32)


def load(manifest: Manifest, options: LoadOptions) -> FunAsrNano:
    return FunAsrNano(manifest, options)
