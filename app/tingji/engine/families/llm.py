"""What the LLM families share: encoder graphs whose rows feed a llama.cpp decoder.

Fun-ASR-Nano and Qwen3-ASR differ in front-end, encoder and prompt, not in
how they hold the decoder: its weights loaded once (offloaded when a GPU
provider runs the encoder), one context per lane, a one-token warm-up, each
choice of prompt tokenised once, the reference's stop tokens and plain
greedy decoding in exact mode, the loop guard otherwise. A family subclasses
`LlmFamily` and supplies `_prompt(options)`.
"""

from __future__ import annotations

from typing import Callable, Hashable

import numpy as np

from ..decoder import DecodeOptions, DecodeResult, LlamaContext, load_for_provider
from ..manifest import Manifest
from ..sessions import OnnxGraphs
from .base import CancelCheck, LoadOptions, RecognizeOptions


class LlmFamily:
    """The decoder half of a Recognizer (see `base.Recognizer`)."""

    def __init__(self, manifest: Manifest, options: LoadOptions, graphs: OnnxGraphs) -> None:
        special = manifest.section.get("special_tokens") or {}
        self.exact = options.exact
        self.threads = options.threads
        self.n_ctx = options.n_ctx
        self._graphs = graphs
        self.warnings = graphs.warnings  # the live list: a later fallback adds to it
        stop = special.get("eos_ids") if options.exact else special.get("stop_ids") or special.get("eos_ids")
        self.stop_ids = list(stop or [])
        self.llm = load_for_provider(manifest.file("decoder"), graphs.provider, options.decoder_gpu_layers)
        self.decoder_device = "gpu" if self.llm.gpu_layers > 0 else "cpu"
        self._prompts: dict[Hashable, tuple[list[int], list[int]]] = {}

    @property
    def provider(self) -> str:
        """What the encoder runs on now (a GPU provider that fails falls back to the CPU)."""
        return self._graphs.provider

    def open_lane(self) -> LlamaContext:
        return self.llm.context(eos_ids=self.stop_ids, n_ctx=self.n_ctx, n_threads=self.threads, exact=self.exact)

    def warm(self, lane: LlamaContext) -> None:
        before, after = self._prompt(RecognizeOptions())
        rows = np.zeros((2, self.llm.n_embd), np.float32)
        lane.generate(before, rows, after, DecodeOptions(max_tokens=1, guard=False))

    def close(self) -> None:
        self.llm.close()

    def _prompt(self, options: RecognizeOptions) -> tuple[list[int], list[int]]:
        raise NotImplementedError

    def prompt_ids(self, key: Hashable, texts: Callable[[], tuple[str, str]]) -> tuple[list[int], list[int]]:
        """Token ids of the prompt text before and after the audio rows, tokenised once per key."""
        if key not in self._prompts:
            before, after = texts()
            self._prompts[key] = (self.llm.tokenize(before), self.llm.tokenize(after))
        return self._prompts[key]

    def decode(self, lane: LlamaContext, rows: np.ndarray, options: RecognizeOptions, timings: dict[str, float],
               cancel: CancelCheck | None) -> DecodeResult:
        """Greedy tokens after the prompt around `rows`; adds the prefill and generation seconds to `timings`."""
        before, after = self._prompt(options)
        opts = DecodeOptions(max_tokens=options.max_tokens, guard=not (self.exact or options.ignore_eos),
                             ignore_eos=options.ignore_eos)
        decoded = lane.generate(before, rows, after, opts, cancel=cancel)
        timings["prefill"] = decoded.prefill_s
        timings["generate"] = decoded.generate_s
        return decoded
