"""A llama.cpp context's KV cells: made at the size the first prompt needs, grown, parked and brought back.

The KV cache is the context's memory (112 KB per position for Qwen3-0.6B in
f16, all touched when the context is made), so `decoder.LlamaContext` sizes
it here: it starts at what its first prompt needs and grows in 256-position
steps while generating, copying its cells across (`ensure_context`), and a
lane idle between windows frees it and comes back at the same size with the
cached prefix's cells (`park`). A second sequence over the same cells
re-decodes one position alone while a drafted block's cells stay
(`decode_aside`).

`KvCells` is a part of `decoder.LlamaContext`, kept here by concern.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ModelError
from . import messages
from .heap import release_free_heap

if TYPE_CHECKING:
    from .decoder import LlamaModel


class KvCells:
    """The KV-cache half of `decoder.LlamaContext` (see the module's docstring)."""

    # The context's own, set by `LlamaContext.__init__`.
    model: LlamaModel
    _ll: Any
    _ctx: Any
    n_ctx: int
    n_batch: int
    n_threads: int
    kv_type: int
    flash_attn: int
    _batch_rows: int
    _cached: list[int]
    _parked: bool
    _parked_cells: ctypes.Array | None

    if TYPE_CHECKING:  # the context's other parts: declared for the checker only, never to shadow them

        def _join_ahead(self) -> None: ...
        def _truncate(self, n_keep: int) -> None: ...
        def rollback(self, n_keep: int) -> None: ...
        def check_finite(self, logits: np.ndarray) -> np.ndarray: ...
        def _decode(
            self,
            pos0: int,
            *,
            tokens: Sequence[int] | None = None,
            embd: np.ndarray | None = None,
            every: bool = False,
            seq: int = 0,
        ) -> list[np.ndarray]: ...

    # -- context management -------------------------------------------------

    def _free_context(self) -> None:
        if self._ctx:
            self._ll.llama_free(self._ctx)
            self._ctx = None
            # A KV cache under 32 MB (256 positions) lands in glibc's heap once a bigger block has
            # been freed, and would stay resident there (benchmarks/README.md#the-decoders-context-and-prompt).
            release_free_heap()

    def _new_context(self, n_ctx: int) -> None:
        ll = self._ll
        self._free_context()
        cparams = ll.llama_context_default_params()
        cparams.n_ctx = n_ctx
        cparams.n_batch = min(self.n_batch, n_ctx)
        cparams.n_ubatch = min(self.n_batch, n_ctx)
        # A second sequence over the same cells (one unified cache: copying a sequence's cells to it
        # only tags them) re-decodes a drafted block's near tie alone (`LlamaContext.decode_aside`).
        cparams.n_seq_max = 2
        cparams.kv_unified = True
        cparams.n_threads = self.n_threads
        cparams.n_threads_batch = self.n_threads
        cparams.no_perf = True
        cparams.type_k = self.kv_type
        cparams.type_v = self.kv_type
        cparams.flash_attn_type = self.flash_attn
        self._ctx = ll.llama_init_from_model(self.model._model, cparams)
        if not self._ctx:
            raise ModelError(messages.CONTEXT_FAILED, path=self.model.path, tokens=n_ctx)
        self.n_ctx = int(ll.llama_n_ctx(self._ctx))
        self._batch_rows = int(ll.llama_n_batch(self._ctx))
        self._cached = []

    def ensure_context(self, n_needed: int) -> None:
        """Grow the context (in 256-token steps) to hold `n_needed` positions, keeping what it holds.

        The KV cache is the context's memory: 112 KB per position for
        Qwen3-0.6B in f16, all of it touched when the context is made. So a
        context starts at what its first prompt needs (`generate` adds room
        for 128 tokens) and grows while generating, rather than reserving
        the prompt plus `max_tokens` up
        front (a 3 s dictation take needs ~60 positions, not 1024). Growing
        copies this sequence's cells into the new context, so a generation
        continues where it was and the cached prompt prefix stays reusable;
        it happens a few times in a lane's life. It only shrinks by `park`.
        """
        self._join_ahead()
        self._grow(n_needed)

    def _grow(self, n_needed: int) -> None:
        if self._parked:  # come back at the size it had, or what is needed now
            state, cached = self._parked_cells, self._cached
            self._parked, self._parked_cells = False, None
            self._new_context(max(self.n_ctx, (n_needed + 255) // 256 * 256))
            self._restore(state, cached)
            return
        if n_needed <= self.n_ctx:
            return
        state, cached = self._save(), self._cached
        self._new_context((n_needed + 255) // 256 * 256)
        self._restore(state, cached)

    def _save(self) -> ctypes.Array | None:
        """A copy of the sequence's cells (None when it holds none)."""
        ll = self._ll
        size = int(ll.llama_state_seq_get_size(self._ctx, 0))
        if not size:
            return None
        state = (ctypes.c_uint8 * size)()
        if int(ll.llama_state_seq_get_data(self._ctx, state, size, 0)) != size:
            raise ModelError(messages.STATE_COPY_FAILED)
        return state

    def _restore(self, state: ctypes.Array | None, cached: list[int]) -> None:
        if state is None:
            return
        if int(self._ll.llama_state_seq_set_data(self._ctx, state, len(state), 0)) == 0:
            raise ModelError(messages.STATE_RESTORE_FAILED)
        self._cached = cached

    def park(self) -> None:
        """Free the KV cache and compute buffers until the next use, keeping the cached prompt prefix.

        For a lane that sits idle between bursts of work: the files lane
        while the next window's audio is encoded. Its context (512 positions
        for a 60 s Nano window and 200 tokens: 56 MB of f16 cache, plus the
        compute buffer's touched pages) is then not resident under the
        encoder's own peak. The next use makes a context of the same size
        again and restores the prefix's few cells, so prefix reuse still
        holds. Both cost little beside a window
        (benchmarks/README.md#the-decoders-context-and-prompt).
        """
        self._join_ahead()
        if self._ctx is None:
            return
        self._truncate(len(self._cached))
        state, cached = self._save(), self._cached
        self._free_context()
        self._parked, self._parked_cells = True, state
        self._cached = cached if state is not None else []

    # -- a second sequence (the tie guard of drafted blocks) --------------------

    def decode_aside(self, pos: int, token: int) -> np.ndarray:
        """The logits of `token` at `pos` decoded alone over the cache's positions 0..pos-1, keeping the rest.

        A drafted block's near tie is re-checked without losing the block: positions 0..pos-1 are
        shared with a second sequence (a tag on the same cells, no copy) and `token` is decoded
        there, so the block's positions from `pos` on stay. `end_aside` then drops it or adopts it.

        Args:
            pos: The position to decode at; the cache holds at least 0..pos-1.
            token: The token id.
        """
        ll = self._ll
        self._join_ahead()
        mem = ll.llama_get_memory(self._ctx)
        self.ensure_context(int(ll.llama_memory_seq_pos_max(mem, 0)) + 2)  # the cells in use and one more
        mem = ll.llama_get_memory(self._ctx)  # (a grown context has another memory)
        ll.llama_memory_seq_rm(mem, 1, -1, -1)
        ll.llama_memory_seq_cp(mem, 0, 1, 0, pos)
        try:
            return self.check_finite(self._decode(pos, tokens=[token], every=True, seq=1)[0][0])
        except BaseException:
            ll.llama_memory_seq_rm(mem, 1, -1, -1)  # no cells of it left behind
            raise

    def end_aside(self, adopt: bool) -> None:
        """Drop the token `decode_aside` decoded; with `adopt`, it replaces the main sequence's from its position on.

        Args:
            adopt: True: the main sequence ends with the token decoded aside (its later positions go).
        """
        ll = self._ll
        mem = ll.llama_get_memory(self._ctx)
        if adopt:
            pos = int(ll.llama_memory_seq_pos_max(mem, 1))
            self.rollback(pos)
            ll.llama_memory_seq_cp(mem, 1, 0, pos, pos + 1)
        ll.llama_memory_seq_rm(mem, 1, -1, -1)

    @property
    def parked(self) -> bool:
        """True while the context's memory is freed (`park`) and not yet rebuilt by a use."""
        return self._parked
