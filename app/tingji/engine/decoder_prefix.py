"""Prompt prefix reuse for a llama.cpp context: what `LlamaContext` does with the tokens before the audio.

The tokens before the audio (system prompt, task, hotwords) are the same for
every window of a file, so their KV cells are kept and only what follows is
decoded again (`prefill`); they are copied out and back for the graph cache
(`prefix_cells`, `restore_prefix`: `prefix_cache`), and after a load they
are decoded on a background thread that yields to a take (`prefill_ahead`).
With the text tokens' embedding rows from the GGUF (`token_rows`) the prompt
- text, audio rows, text - is one batch, and a first draft's token rows can
ride at its end (`prefill_drafted`; never part of the cached prefix).

`PromptPrefix` is a part of `decoder.LlamaContext`, kept here by concern: it
uses the context's cache (`_cached`, `_grow`, `_truncate`, `_decode`).
"""

from __future__ import annotations

import ctypes
import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ModelError
from . import messages

if TYPE_CHECKING:
    from .decoder import LlamaModel

log = logging.getLogger(__name__)

# Decoding a prefix ahead (LlamaContext.prefill_ahead) waits this long for the lane to stay idle,
# then goes AHEAD_CHUNK prompt tokens per batch, so a take that comes meanwhile waits at most one.
AHEAD_AFTER_S = 0.3
AHEAD_CHUNK = 8


class PromptPrefix:
    """The prompt-prefix half of `decoder.LlamaContext` (see the module's docstring)."""

    # The context's own, set by `LlamaContext.__init__`.
    model: LlamaModel
    n_embd: int
    _ll: Any
    _ctx: Any
    _cached: list[int]
    _ahead: threading.Thread | None
    _stop_ahead: threading.Event

    if TYPE_CHECKING:  # the context's other parts: declared for the checker only, never to shadow them

        def _grow(self, n_needed: int) -> None: ...
        def _truncate(self, n_keep: int) -> None: ...
        def _save(self) -> ctypes.Array | None: ...
        def _decode(
            self,
            pos0: int,
            *,
            tokens: Sequence[int] | None = None,
            embd: np.ndarray | None = None,
            every: bool = False,
            seq: int = 0,
            logits_from: int | None = None,
        ) -> list[np.ndarray]: ...

    def prefix_cells(self) -> tuple[list[int], bytes] | None:
        """The cached prompt prefix's tokens and a copy of their cells (None when nothing is cached).

        Cells past the prefix (the last window's audio and text) are dropped
        first: the next prompt would drop them anyway.
        """
        self._join_ahead()
        if not self._cached:
            return None
        self._grow(len(self._cached) + 1)
        self._truncate(len(self._cached))
        state = self._save()
        return (list(self._cached), bytes(state)) if state is not None else None

    def restore_prefix(self, tokens: Sequence[int], cells: bytes) -> bool:
        """Put cells `prefix_cells` gave (same model and settings) back as the cached prefix.

        Returns False if they do not fit.
        """
        self._join_ahead()
        tokens = list(tokens)
        self._grow(len(tokens) + 1)
        self._truncate(0)
        self._cached = []
        data = (ctypes.c_uint8 * len(cells)).from_buffer_copy(cells)
        if not tokens or int(self._ll.llama_state_seq_set_data(self._ctx, data, len(cells), 0)) == 0:
            return False
        if int(self._ll.llama_memory_seq_pos_max(self._ll.llama_get_memory(self._ctx), 0)) != len(tokens) - 1:
            self._truncate(0)
            return False
        self._cached = tokens
        return True

    def prefill_ahead(self, before: Sequence[int]) -> None:
        """Decode a prompt prefix into the cache on a background thread, a few tokens per batch.

        Background work that yields to a take: it starts after the lane has
        been idle for AHEAD_AFTER_S, and a take that starts (`stop_ahead`, or
        any use of the context) stops it at the next chunk and decodes the
        rest in its own prompt batch. So a take some time after loading finds
        the warm-up's prefix cached, and one that comes at once does not
        compete with it: decoded as soon as loading ended, the prefix's
        llama.cpp threads and the take's ONNX Runtime threads shared the
        cores, and the take waited for it
        (benchmarks/README.md#the-decoders-context-and-prompt). A failure is
        only logged: the take then decodes the prefix itself and reports an
        error that persists.
        """
        self._join_ahead()
        before = list(before)
        self._stop_ahead.clear()

        def run() -> None:
            if self._stop_ahead.wait(AHEAD_AFTER_S):
                return  # a take came first: it decodes the prefix in its own batch
            try:
                self._grow(len(before) + 1)
                done = 0
                for a, b in zip(self._cached, before):
                    if a != b:
                        break
                    done += 1
                self._truncate(done)
                self._cached = before[:done]
                while done < len(before) and not self._stop_ahead.is_set():
                    chunk = before[done : done + AHEAD_CHUNK]
                    self._decode(done, tokens=chunk)
                    done += len(chunk)
                    self._cached = before[:done]
            except Exception as exc:  # noqa: BLE001 - see the docstring
                self._cached = []
                log.debug("prefix decoded ahead failed: %s", exc)

        # Not a daemon: an interpreter that exits while the prefix decodes must wait for it, or
        # its finalisation frees the weights under llama_decode (SIGSEGV at exit, seen with a
        # script that loaded the full-size Engine and returned at once).
        self._ahead = threading.Thread(target=run, name="tingji-prefix-ahead", daemon=False)
        self._ahead.start()

    def stop_ahead(self) -> None:
        """A take is starting: a prefix still decoding ahead stops at its next chunk (what it did stays cached)."""
        self._stop_ahead.set()

    def _join_ahead(self) -> None:
        if self._ahead is not None:
            self._stop_ahead.set()
            self._ahead.join()
            self._ahead = None

    def prefill(self, before: Sequence[int], audio: np.ndarray, after: Sequence[int]) -> tuple[int, int]:
        """Put prompt + audio into the KV cache, reusing the cached common token prefix.

        Returns (prompt length, tokens reused). Logits of the last prompt row are ready.
        """
        self._join_ahead()
        self._grow(len(before) + len(audio) + len(after) + 1)
        n_prompt, reused, _, _ = self._prefill(before, audio, after)
        return n_prompt, reused

    def prefill_drafted(
        self,
        before: Sequence[int],
        audio: np.ndarray,
        after: Sequence[int],
        propose: Callable[[int], Sequence[int]],
    ) -> tuple[int, int, list[int], np.ndarray | None]:
        """`prefill`, with draft token rows after the prompt in the same batch: a first draft verified
        for what its rows add to the prompt's batch, the weights streamed once for both.

        The draft's cells follow the prompt's (positions prompt length..); they are never part of
        the cached prefix, and the caller rolls back those it rejects.

        Args:
            before: Prompt token ids before the audio rows.
            audio: Audio embedding rows [n, n_embd].
            after: Prompt token ids after the audio rows.
            propose: Given the rows the prompt's batch decodes (what the cache does not hold), the
                draft tokens to feed after them (`draft.Drafter.propose_first`); not called where the
                prompt cannot be one batch of rows (no token rows in the GGUF).

        Returns:
            (prompt length, tokens reused, the draft fed, logits [1 + len(draft), n_vocab]: the
            prompt's last row, then each draft row). With no draft fed the logits are None and
            `last_logits` holds the prompt's, as after `prefill`.
        """
        self._join_ahead()
        self._grow(len(before) + len(audio) + len(after) + 1)
        return self._prefill(before, audio, after, propose)

    def _prefill(
        self,
        before: Sequence[int],
        audio: np.ndarray,
        after: Sequence[int],
        propose: Callable[[int], Sequence[int]] | None = None,
    ) -> tuple[int, int, list[int], np.ndarray | None]:
        if audio.ndim != 2 or audio.shape[1] != self.n_embd:
            raise ModelError(messages.EMBEDDINGS_SHAPE, shape=audio.shape, width=self.n_embd)
        before, after = list(before), list(after)
        reuse = 0
        for a, b in zip(self._cached, before):
            if a != b:
                break
            reuse += 1
        rows = self.model.token_rows
        one_batch = rows is not None and (len(audio) > 0 or len(after) > 0)
        if not one_batch:
            # The logits must come from a decode: recompute at least the last prefix token.
            reuse = min(reuse, len(before) - 1) if before else 0
        n = len(before) - reuse + len(audio) + len(after)
        draft = [int(t) for t in propose(n)] if one_batch and propose is not None else []
        self._grow(len(before) + len(audio) + len(after) + len(draft) + 1)
        self._truncate(reuse)
        self._cached = before[:reuse]
        pos = reuse
        logits = None
        if one_batch:
            assert rows is not None
            parts = [rows.rows(before[reuse:]), np.asarray(audio, np.float32), rows.rows(after)]
            if draft:
                parts.append(rows.rows(draft))
            prompt = np.concatenate(parts)
            if draft:  # logits from the prompt's last row on
                out = self._decode(pos, embd=prompt, logits_from=n - 1)
                logits = out[0] if len(out) == 1 else np.concatenate(out)
            else:
                self._decode(pos, embd=prompt)
            pos += n
        else:
            if before[reuse:]:
                self._decode(pos, tokens=before[reuse:])
            pos = len(before)
            if len(audio):
                self._decode(pos, embd=audio)
                pos += len(audio)
            if after:
                self._decode(pos, tokens=after)
                pos += len(after)
        self._cached = before
        return pos, reuse, draft, logits
