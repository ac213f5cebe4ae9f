"""An LLM decoder in llama.cpp, fed audio embeddings directly.

The LLM families (Fun-ASR-Nano, Qwen3-ASR) read a ChatML prompt whose user
turn holds the audio encoder's output rows in place of tokens. llama.cpp
accepts a batch of embeddings instead of token ids; with the text tokens'
own embedding rows read from the GGUF (`token_rows.py`) the whole prompt is
one batch of rows - one pass over the weights instead of three. The tokens
before the audio are the same for every window of a file (system prompt,
task, hotwords); their KV cache is kept and only what follows is recomputed.

`LlamaModel` holds the weights and vocabulary, `LlamaContext` one KV cache:
a lane of the engine (files, or live dictation) owns one context. Two of
the context's concerns have modules of their own: sizing its KV cells -
grown as prompts need, parked between windows - (`decoder_cells.KvCells`)
and reusing the prompt's prefix - the common prefix kept, its cells saved
and restored, decoded ahead after a load - (`decoder_prefix.PromptPrefix`).

How tokens are generated - greedy steps, verified drafts, the loop guard -
is `generation.py`; a context gives it `decode_block` (logits at every
position of a block) and `rollback` (KV positions past a point removed).
"""

from __future__ import annotations

import ctypes
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ModelError
from . import messages
from .decoder_cells import KvCells
from .decoder_prefix import PromptPrefix
from .generation import CancelCheck, DecodeOptions, DecodeResult, forward_logits, generate
from .pages import LargePages, map_in_large_pages
from .threads import ThreadTuner, decoder_threads
from .token_rows import TokenRows

if TYPE_CHECKING:
    from .draft import Drafter

log = logging.getLogger(__name__)


# llama.cpp logs through one process-wide C callback; the Python function must
# stay referenced for as long as the library may call it, hence module level.
_LOG_CALLBACK = None
_INIT_LOCK = threading.Lock()


def _init_llama() -> None:
    """Initialise llama.cpp once and route its chatter to Python logging (debug level)."""
    global _LOG_CALLBACK
    from .decoder_device import use_cpu_library

    use_cpu_library()  # Linux's patched CPU set, unless a Vulkan choice or the user named a folder
    import llama_cpp

    with _INIT_LOCK:
        if _LOG_CALLBACK is not None:
            return

        @llama_cpp.llama_log_callback
        def _forward(level: int, text: bytes, _user: ctypes.c_void_p) -> None:
            if text:
                log.debug("llama.cpp: %s", text.decode("utf-8", "replace").rstrip())

        llama_cpp.llama_log_set(_forward, ctypes.c_void_p(0))
        _LOG_CALLBACK = _forward
        llama_cpp.llama_backend_init()


class LlamaModel:
    """A GGUF decoder's weights and vocabulary, loaded once and shared by its contexts.

    Splitting weights from contexts is what lets two threads decode at once
    (the file queue and a dictation take): each uses its own `LlamaContext`
    - its own KV cache - over these weights. Only contexts cost memory per
    lane; the weights are mapped once.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        gpu_layers: int = 0,
        device_name: str | None = None,
        fault: str | None = None,
    ) -> None:
        """Load the weights (`decoder_device.load` decides where for the families).

        Args:
            path: The GGUF file.
            gpu_layers: Layers offloaded to llama.cpp's GPU device (999: all, with the KV cache);
                0 keeps everything on the CPU, even in a process that loaded the Vulkan build.
            device_name: How transcripts name where it runs (`vulkan:0 (...)`); "cpu" or "gpu" when None.
            fault: `decoder_device`'s injected fault for tests (`nan`, `nan-after:K`); None in real use.
        """
        _init_llama()  # first: it picks the library set llama_cpp loads
        import llama_cpp

        self._ll = llama_cpp
        self.path = Path(path)
        self.gpu_layers = gpu_layers
        self.on_gpu = gpu_layers > 0
        self.device_name = device_name or ("gpu" if self.on_gpu else "cpu")
        self.fault = fault or None
        self.warnings: list = []  # ErrorReports: why a GPU that was asked for does not hold these weights
        # Weights streamed by the CPU for every token: in 2 MB pages where the system allows (see pages.py).
        self.large_pages: LargePages | None = None if gpu_layers else map_in_large_pages(self.path)
        mparams = llama_cpp.llama_model_default_params()
        mparams.n_gpu_layers = gpu_layers
        if not gpu_layers:
            # No devices at all, not "every device": a process with the Vulkan build would otherwise
            # still hand large batches' matrix products to the GPU (llama.cpp's op offload).
            self._no_devices = (ctypes.c_void_p * 1)()
            mparams.devices = ctypes.addressof(self._no_devices)
        # No "extra" CPU buffer types (AMX tiles, repacked weights): llama-cpp-python
        # 0.3.36 built on an AMX CPU crashes inside ggml_backend_amx_mul_mat for
        # q8_0 weights (SIGSEGV, seen on this project's Xeon build machine), and
        # the same model must compute the same way on every user's CPU.
        mparams.use_extra_bufts = False
        self._model = llama_cpp.llama_model_load_from_file(str(self.path).encode("utf-8"), mparams)
        if not self._model:
            raise ModelError(messages.DECODER_UNLOADABLE, path=self.path)
        self._vocab = llama_cpp.llama_model_get_vocab(self._model)
        self.n_embd = int(llama_cpp.llama_model_n_embd(self._model))
        self.n_vocab = int(llama_cpp.llama_vocab_n_tokens(self._vocab))
        # None for a table type whose rows cannot be reproduced exactly: prompts then go as token batches.
        self.token_rows = TokenRows.open(self.path, self.n_embd)
        self._contexts: list[LlamaContext] = []

    def close(self) -> None:
        """Free every context first (they point into the weights), then the weights."""
        for ctx in self._contexts:
            ctx.close()
        self._contexts = []
        if self._model:
            self._ll.llama_model_free(self._model)
        self._model = None

    def __del__(self) -> None:  # pragma: no cover - best effort at interpreter exit
        try:
            self.close()
        except Exception:
            pass

    # -- tokens ---------------------------------------------------------------

    def tokenize(self, text: str) -> list[int]:
        """Token ids as the reference's HF tokenizer gives them (special tokens parsed, no BOS)."""
        raw = text.encode("utf-8")
        cap = len(raw) + 16
        buf = (self._ll.llama_token * cap)()
        n = self._ll.llama_tokenize(self._vocab, raw, len(raw), buf, cap, False, True)
        if n < 0:
            raise ModelError(messages.PROMPT_TOO_LONG)
        return list(buf[:n])

    def token_bytes(self, token: int) -> bytes:
        buf = ctypes.create_string_buffer(64)
        n = self._ll.llama_token_to_piece(self._vocab, token, buf, 64, 0, False)
        if n < 0:
            buf = ctypes.create_string_buffer(-n)
            n = self._ll.llama_token_to_piece(self._vocab, token, buf, -n, 0, False)
        return buf.raw[:n]

    def detokenize(self, tokens: Sequence[int]) -> str:
        """Text of the ids, special tokens skipped (as `skip_special_tokens=True`)."""
        return b"".join(self.token_bytes(t) for t in tokens).decode("utf-8", "replace")


class LlamaContext(KvCells, PromptPrefix):
    """One llama.cpp context (KV cache) over a `LlamaModel`, used from one thread at a time.

    The model closes its contexts before it frees the weights they point into.
    """

    def __init__(
        self,
        model: LlamaModel,
        *,
        eos_ids: Sequence[int],
        n_ctx: int = 256,
        n_threads: int | None = None,
        n_batch: int = 512,
        exact: bool = False,
        cores_free: bool = False,
    ) -> None:
        if model._model is None:
            raise ModelError(messages.DECODER_CLOSED, path=model.path)
        model._contexts.append(self)
        ll = model._ll
        self._ll = ll
        self.model = model
        self.n_embd = model.n_embd
        self.n_vocab = model.n_vocab
        self.eos_ids = frozenset(int(i) for i in eos_ids)
        # Thread count: see threads.py. Fixed when the caller says so, and in
        # exact (reference) mode; otherwise tuned per token from measured times,
        # starting on every core when the caller saw them free (threads.BusyMeter).
        # Prefill uses the same count: its barriers break under load the same way
        # (benchmarks/README.md#llamacpps-thread-count-on-a-shared-machine).
        self.tuner = None if (n_threads or exact) else ThreadTuner.for_machine(cores_free)
        self.n_threads = n_threads or (self.tuner.current if self.tuner else decoder_threads())
        self.n_batch = n_batch
        # The fast settings (f16 KV cache, flash attention where available) move
        # logits by ~1e-3 relative; `exact` keeps the KV cache in f32 and uses
        # plain attention, which agrees with transformers to ~1e-6 relative.
        self.exact = exact
        self.kv_type = ll.GGML_TYPE_F32 if exact else ll.GGML_TYPE_F16
        self.flash_attn = ll.LLAMA_FLASH_ATTN_TYPE_DISABLED if exact else ll.LLAMA_FLASH_ATTN_TYPE_AUTO
        self._ctx = None
        self.n_ctx = 0
        self._cached: list[int] = []  # token ids whose KV sits at positions 0..len-1
        self._ahead: threading.Thread | None = None  # a prefix being decoded in the background
        self._stop_ahead = threading.Event()  # set: that thread stops at its next chunk
        self._parked = False  # the context is freed until the next use (park)
        self._parked_cells: ctypes.Array | None = None  # meanwhile, the cached prefix's cells
        self._new_context(n_ctx)

    def tokenize(self, text: str) -> list[int]:
        return self.model.tokenize(text)

    def detokenize(self, tokens: Sequence[int]) -> str:
        return self.model.detokenize(tokens)

    def close(self) -> None:
        self._join_ahead()
        self._parked, self._parked_cells = False, None
        self._free_context()

    # -- batches --------------------------------------------------------------

    def _decode(
        self,
        pos0: int,
        *,
        tokens: Sequence[int] | None = None,
        embd: np.ndarray | None = None,
        every: bool = False,
        seq: int = 0,
        logits_from: int | None = None,
    ) -> list[np.ndarray]:
        """Feed tokens or embedding rows at positions pos0.. of sequence `seq`, logits for the last row only.

        With `every`, logits for every row; with `logits_from`, for the rows from that index on (a
        prompt with draft rows after it): returned as copies, one array per batch that has any.
        """
        ll = self._ll
        n = len(tokens) if tokens is not None else int(embd.shape[0])
        first = 0 if every else (n - 1 if logits_from is None else logits_from)
        out: list[np.ndarray] = []
        for start in range(0, n, self._batch_rows):
            stop = min(n, start + self._batch_rows)
            m = stop - start
            batch = ll.llama_batch_init(m, 0 if tokens is not None else self.n_embd, 1)
            try:
                if tokens is not None:
                    for i in range(m):
                        batch.token[i] = int(tokens[start + i])
                else:
                    rows = np.ascontiguousarray(embd[start:stop], dtype=np.float32)
                    ctypes.memmove(batch.embd, rows.ctypes.data, rows.nbytes)
                for i in range(m):
                    batch.pos[i] = pos0 + start + i
                    batch.n_seq_id[i] = 1
                    batch.seq_id[i][0] = seq
                    batch.logits[i] = 1 if start + i >= first else 0
                batch.n_tokens = m
                rc = ll.llama_decode(self._ctx, batch)
            finally:
                ll.llama_batch_free(batch)
            if rc != 0:
                raise ModelError(messages.DECODE_STEP_FAILED, status=rc)
            with_logits = stop - max(start, first)
            if (every or logits_from is not None) and with_logits > 0:
                rows = np.ctypeslib.as_array(ll.llama_get_logits(self._ctx), shape=(with_logits, self.n_vocab))
                out.append(rows.copy())
        return out

    def _logits(self) -> np.ndarray:
        ptr = self._ll.llama_get_logits_ith(self._ctx, -1)
        return self.check_finite(np.ctypeslib.as_array(ptr, shape=(self.n_vocab,)))

    def check_finite(self, logits: np.ndarray) -> np.ndarray:
        """`logits` as they are when finite; ModelError (decoder.not_finite) when the GPU's are not.

        Only a model on a GPU is checked (llama.cpp issue 18969: NaN from some iGPU drivers), and
        one with an injected fault; `decoder_device.Fallback` then redoes the window on the CPU.
        """
        model = self.model
        if not model.on_gpu and model.fault is None:
            return logits
        if model.fault is not None:
            self._reads = getattr(self, "_reads", 0) + 1
            after = int(model.fault.partition(":")[2] or 1)
            if model.fault.startswith("nan") and self._reads >= after:
                logits = np.full_like(logits, np.nan)
        if not np.isfinite(logits).all():
            raise ModelError(messages.DECODER_NOT_FINITE, device=model.device_name)
        return logits

    def _truncate(self, n_keep: int) -> None:
        mem = self._ll.llama_get_memory(self._ctx)
        self._ll.llama_memory_seq_rm(mem, 0, n_keep, -1)

    def last_logits(self) -> np.ndarray:
        """The logits of the last row decoded (a view, valid until the next decode)."""
        return self._logits()

    def decode_block(self, pos: int, tokens: Sequence[int]) -> np.ndarray:
        """Feed `tokens` at positions pos.. in one batch; their logits, shape (len(tokens), n_vocab).

        Row i predicts the token after `tokens[i]`. Verifying a draft costs one
        block instead of one step per token: a token in a block of 32 costs a
        fraction of one alone (benchmarks/README.md#draft-verified-decoding).

        Args:
            pos: The KV position of the first token; the cache must hold exactly 0..pos-1
                (`rollback` first otherwise).
            tokens: The token ids, at least one.
        """
        self.ensure_context(pos + len(tokens))
        return self.check_finite(np.concatenate(self._decode(pos, tokens=tokens, every=True)))

    def rollback(self, n_keep: int) -> None:
        """Remove KV positions >= `n_keep` (a rejected draft's), so the next decode continues at `n_keep`.

        Args:
            n_keep: How many positions stay; a cached prompt prefix longer than that is cut too.
        """
        self._join_ahead()
        self._truncate(n_keep)
        del self._cached[n_keep:]

    def set_threads(self, n_threads: int) -> None:
        """Decode on `n_threads` threads from the next batch on (the thread tuner's choice)."""
        if n_threads != self.n_threads:
            self._ll.llama_set_n_threads(self._ctx, n_threads, n_threads)
            self.n_threads = n_threads

    # -- generation (generation.py) --------------------------------------------

    def generate(
        self,
        before: Sequence[int],
        audio: np.ndarray,
        after: Sequence[int],
        opts: DecodeOptions = DecodeOptions(),
        cancel: CancelCheck | None = None,
        drafter: Drafter | None = None,
    ) -> DecodeResult:
        """`generation.generate` on this context."""
        return generate(self, before, audio, after, opts, cancel, drafter)

    def forward_logits(
        self, before: Sequence[int], audio: np.ndarray, after: Sequence[int], forced: Sequence[int]
    ) -> np.ndarray:
        """`generation.forward_logits` on this context."""
        return forward_logits(self, before, audio, after, forced)


def load_for_provider(path: str | os.PathLike[str], provider: str, gpu_layers: int | None = None) -> LlamaModel:
    """A family's decoder weights where `decoder_device` places them (the process's
    `--decoder-device`: a Vulkan GPU that passed its self-check, else the CPU); `gpu_layers` overrides.

    A llama.cpp built for another GPU (CUDA, Metal) and no Vulkan choice: offloaded whole when a
    GPU provider runs the encoder, as before the Vulkan build existed.
    """
    from . import decoder_device

    if gpu_layers is not None:
        return LlamaModel(path, gpu_layers=gpu_layers)
    here = decoder_device.placement()
    if here.device is None and here.choice.kind == "auto" and not here.warnings and provider != "cpu":
        try:
            decoder_device.use_cpu_library()  # the set this process keeps (pip's lib, CUDA's included)
            import llama_cpp

            if llama_cpp.llama_supports_gpu_offload():
                return LlamaModel(path, gpu_layers=999)
        except Exception:
            pass
    return decoder_device.load(path)


def open_decoder(path: str | os.PathLike[str], *, gpu_layers: int = 0, **context_options) -> LlamaContext:
    """Weights and one context in one call, for single-threaded callers (tools, tests, benchmarks)."""
    return LlamaContext(LlamaModel(path, gpu_layers=gpu_layers), **context_options)
