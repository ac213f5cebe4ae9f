"""What the LLM families share: encoder graphs whose rows feed a llama.cpp decoder.

Fun-ASR-Nano and Qwen3-ASR differ in front-end, encoder and prompt, not in
how they hold the decoder: its weights loaded once, beside the encoder
(offloaded when a GPU provider runs the encoder), one context per lane, the
default prompt's prefix decoded ahead as the warm-up, each
choice of prompt tokenised once, the reference's stop tokens and plain
greedy decoding in exact mode, the loop guard otherwise; a family's draft of
the answer verified in blocks (`generation`, `draft`), with the same tokens. A family subclasses
`LlmFamily`, hands it a function that builds its encoder, and supplies
`_prompt(options)`. Its manifest section holds `special_tokens` (`SpecialTokens`)
and `decoder` (`DecoderInfo`, or a subclass).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from .. import decoder_device, prefix_cache
from ..decoder import LlamaContext, LlamaModel, load_for_provider
from ..draft import Drafter, DraftPolicy
from ..generation import DecodeOptions, DecodeResult
from ..manifest import Manifest
from ..options import LoadOptions, TranscribeOptions
from ..schema import entry
from ..sessions import OnnxGraphs, pick_provider
from ..threads import BusyMeter
from .base import CancelCheck, OnnxFamily


@dataclass(frozen=True, kw_only=True)
class SpecialTokens:
    """Token ids of the decoder's vocabulary that end an answer (and ChatML's own, for readers)."""

    # What the reference's generate() stops on; what Tingji stops on outside exact mode (empty: eos_ids).
    eos_ids: tuple[int, ...] = entry(nonempty=True, min=0, id_of="vocab_size")
    stop_ids: tuple[int, ...] = entry((), min=0, id_of="vocab_size")
    im_start: int | None = entry(None, min=0, id_of="vocab_size")
    im_end: int | None = entry(None, min=0, id_of="vocab_size")
    endoftext: int | None = entry(None, min=0, id_of="vocab_size")
    vocab_size: int | None = entry(None, min=1)

    @staticmethod
    def stops(eos_ids: Sequence[int], *also: int | None) -> tuple[int, ...]:
        """`stop_ids` for a ChatML model: its EOS ids, <|im_end|> and <|endoftext|>."""
        return tuple(sorted({*eos_ids, *(t for t in also if t is not None)}))


@dataclass(frozen=True, kw_only=True)
class DecoderInfo:
    """The GGUF decoder as exported (for readers; llama.cpp reads the file itself)."""

    quant: str
    n_embd: int = entry(min=1)
    n_layer: int = entry(min=1)


class Encoder(Protocol):
    """What the decoder half needs of a family's encoder: its ONNX graphs (provider, warnings)."""

    graphs: OnnxGraphs


class LlmFamily(OnnxFamily):
    """The decoder half of a Recognizer (see `base.Recognizer`); `graphs` are the encoder's."""

    def __init__(self, manifest: Manifest, options: LoadOptions, make_encoder: Callable[[], Encoder]) -> None:
        busy = BusyMeter()  # what other programs do with the cores while we load: the first lane's threads
        special: SpecialTokens = manifest.section.special_tokens
        self.exact = options.exact
        self.threads = options.threads
        self.n_ctx = options.n_ctx
        self.encoder: Encoder
        self.encoder, self.llm = load_together(manifest.file("decoder"), options, make_encoder)
        self.graphs = self.encoder.graphs
        self.stop_ids = list(special.eos_ids if options.exact else special.stop_ids or special.eos_ids)
        # Where the decoder runs (decoder_device): a window whose GPU logits are not finite is redone on the CPU.
        self.graphs.warnings.extend(w for w in self.llm.warnings if w not in self.graphs.warnings)
        self.fallback = decoder_device.Fallback(self.llm, self._context, self.graphs.warnings)
        self._prompts: dict[Hashable, tuple[list[int], list[int]]] = {}
        self.cores_free = busy.cores_free()
        # Verify the family's draft of each answer in blocks (same tokens; False: one token per step).
        self.drafting = True
        self.draft_policy = DraftPolicy()
        # Where the default prompt's prefix cells are kept between runs (prefix_cache): beside the
        # optimised graphs, for a decoder on the CPU (a GPU's cells are its own business).
        self._manifest = manifest
        self._cells_cache = options.graph_cache if not self.llm.on_gpu else None
        self._cells_to_store = self._cells_cache is not None

    @property
    def decoder_device(self) -> str:
        """Where the decoder runs now: its device, or "cpu" once a non-finite window moved it (`Fallback`)."""
        return self.fallback.device_name

    def open_lane(self) -> LlamaContext:
        return self._context(self.llm)

    def _context(self, llm: LlamaModel) -> LlamaContext:
        return LlamaContext(
            llm,
            eos_ids=self.stop_ids,
            n_ctx=self.n_ctx,
            n_threads=self.threads,
            exact=self.exact,
            cores_free=self.cores_free,
        )

    def warm(self, lane: LlamaContext) -> None:
        """Put the default prompt's prefix into the lane's KV cache: its cells from the graph cache, or decoded ahead.

        That is the only part of a window's work that can be done ahead:
        every window with the default options reuses it (prefix reuse in
        `LlamaContext.prefill`), so the first take after load costs what
        later ones cost. Kept cells (`prefix_cache`) take a few ms; without
        them the prefix is decoded in the background while the lane is idle
        (`LlamaContext.prefill_ahead`). The encoder was warmed when its
        sessions were made.
        """
        before, _ = self._prompt(TranscribeOptions())
        if self._cells_cache is not None and prefix_cache.restore(
            self._cells_cache, self._cells_fields(before), lane, before
        ):
            self._cells_to_store = False
            return
        lane.prefill_ahead(before)

    def build_caches(self, lane: LlamaContext) -> None:
        """Decode the default prompt's prefix and keep its cells: even the first start after install has them."""
        if self._cells_cache is None:
            return
        before, _ = self._prompt(TranscribeOptions())
        lane.prefill(before, np.zeros((0, lane.n_embd), np.float32), [])
        self._cells_to_store = False
        prefix_cache.store(self._cells_cache, self._cells_fields(before), lane, before)

    def _cells_fields(self, before: list[int]) -> dict:
        return prefix_cache.entry_fields(self._manifest, before, self.exact)

    def close(self) -> None:
        self.fallback.close()
        self.llm.close()

    def _prompt(self, options: TranscribeOptions) -> tuple[list[int], list[int]]:
        raise NotImplementedError

    def prompt_ids(self, key: Hashable, texts: Callable[[], tuple[str, str]]) -> tuple[list[int], list[int]]:
        """Token ids of the prompt text before and after the audio rows, tokenised once per key."""
        if key not in self._prompts:
            before, after = texts()
            self._prompts[key] = (self.llm.tokenize(before), self.llm.tokenize(after))
        return self._prompts[key]

    def decode(
        self,
        lane: LlamaContext,
        rows: np.ndarray,
        options: TranscribeOptions,
        timings: dict[str, float],
        cancel: CancelCheck | None,
        draft: Sequence[int] = (),
    ) -> DecodeResult:
        """Greedy tokens after the prompt around `rows`; adds the prefill and generation seconds to `timings`.

        A `draft` (the answer guessed in the decoder's tokens) is verified in blocks (`generation`):
        the tokens are the same, and `timings` gets `draft_tokens` fed and `draft_accepted`.
        """
        before, after = self._prompt(options)
        opts = DecodeOptions(
            max_tokens=options.max_tokens, guard=not (self.exact or options.ignore_eos), ignore_eos=options.ignore_eos
        )
        drafter = Drafter(draft, self.llm.token_bytes, self.draft_policy) if draft and options.draft else None
        decoded = self.fallback.run(
            lane, lambda ctx: ctx.generate(before, rows, after, opts, cancel=cancel, drafter=drafter)
        )
        timings["prefill"] = decoded.prefill_s
        timings["generate"] = decoded.generate_s
        if drafter is not None or not options.draft:  # what was drafted; 0 with drafting off (--no-draft)
            timings["draft_tokens"] = float(decoded.drafted)
            timings["draft_accepted"] = float(decoded.accepted)
        if self._cells_to_store and self._cells_cache is not None and before == self._prompt(TranscribeOptions())[0]:
            # Once per model and machine: this window's prefix cells serve every later load.
            self._cells_to_store = False
            prefix_cache.store(self._cells_cache, self._cells_fields(before), lane, before)
        return decoded


def load_together(
    path: Path | None, options: LoadOptions, make_encoder: Callable[[], Encoder]
) -> tuple[Encoder, LlamaModel]:
    """The encoder's ONNX sessions and the decoder's weights; at the same time where possible.

    Both loads spend their time in native code that releases the GIL (ONNX
    Runtime optimising and prepacking the graphs, llama.cpp mapping and
    prefetching the GGUF), so on two cores the decoder loads in a thread for
    free while ONNX Runtime builds the encoder. That needs the decoder's GPU
    layers decided up front: they are when the encoder runs on the CPU or the
    caller fixed them; otherwise the decoder waits to learn whether the GPU
    provider came up (a GPU that falls back to the CPU keeps the LLM there too).
    """
    known = options.decoder_gpu_layers
    if known is None and pick_provider(options.provider) == "cpu" and decoder_device.placement().device is None:
        known = 0
    if known is None:
        encoder = make_encoder()
        return encoder, load_for_provider(path, encoder.graphs.provider)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="tingji-decoder-load") as pool:
        decoder = pool.submit(LlamaModel, path, gpu_layers=known)
        try:
            encoder = make_encoder()
        except BaseException:
            if decoder.exception() is None:
                decoder.result().close()
            raise
        return encoder, decoder.result()
