"""The Qwen3 decoder in llama.cpp, fed audio embeddings directly.

Fun-ASR-Nano's LLM reads a ChatML prompt whose user turn holds the adaptor's
output rows in place of tokens. llama.cpp accepts a batch of embeddings
instead of token ids, so the prompt is decoded in three batches: the tokens
before the audio, the audio rows, the tokens after it. The tokens before the
audio are the same for every window of a file (system prompt, task, hotwords);
their KV cache is kept and only what follows is recomputed.

Decoding is greedy, as the reference's `generate()` is. Greedy decoding can
fall into a loop; with the guard on, a run whose recent tokens cycle through a
handful of ids is stopped and retried with a little temperature, as peers do.
`guard=False` is the reference mode.
"""

from __future__ import annotations

import ctypes
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from .errors import Cancelled, ModelError
from .threads import ThreadTuner, decoder_threads

log = logging.getLogger(__name__)

CancelCheck = Callable[[], bool]


@dataclass(frozen=True)
class DecodeOptions:
    max_tokens: int = 512
    guard: bool = True
    loop_window: int = 30  # a loop: the last `loop_window` tokens hold
    loop_distinct: int = 3  # at most this many distinct ids
    retries: int = 2
    retry_temperature: float = 0.4
    seed: int = 1234


@dataclass
class DecodeResult:
    tokens: list[int]
    text: str
    stop: str  # "eos", "limit", "loop"
    prompt_tokens: int
    reused_tokens: int
    prefill_s: float
    generate_s: float
    retries: int = 0
    attempts: list[list[int]] = field(default_factory=list)


# llama.cpp logs through one process-wide C callback; the Python function must
# stay referenced for as long as the library may call it, hence module level.
_LOG_CALLBACK = None
_INIT_LOCK = threading.Lock()


def _init_llama() -> None:
    """Initialise llama.cpp once and route its chatter to Python logging (debug level)."""
    global _LOG_CALLBACK
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


class LlamaDecoder:
    """One llama.cpp model + context, used from one thread at a time."""

    def __init__(self, path: str | os.PathLike[str], *, eos_ids: Sequence[int], n_ctx: int = 1024,
                 n_threads: int | None = None, gpu_layers: int = 0, n_batch: int = 512,
                 exact: bool = False) -> None:
        import llama_cpp

        self._ll = llama_cpp
        _init_llama()
        self.path = Path(path)
        self.eos_ids = frozenset(int(i) for i in eos_ids)
        # Thread count: see threads.py. Fixed when the caller says so, and in
        # exact (reference) mode; otherwise tuned per token from measured times.
        # Prefill uses the same count: on the 2-core build machine it ran 244
        # tokens/s on two threads when idle, 43 when another job woke up, and a
        # steady 160 on one (full-size q5_k, 150-token prompt).
        self.tuner = None if (n_threads or exact) else ThreadTuner.for_machine()
        self.n_threads = n_threads or (self.tuner.current if self.tuner else decoder_threads())
        self.n_batch = n_batch
        # The fast settings (f16 KV cache, flash attention where available) move
        # logits by ~1e-3 relative; `exact` keeps the KV cache in f32 and uses
        # plain attention, which agrees with transformers to ~1e-6 relative.
        self.exact = exact
        self.kv_type = llama_cpp.GGML_TYPE_F32 if exact else llama_cpp.GGML_TYPE_F16
        self.flash_attn = (llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED if exact
                           else llama_cpp.LLAMA_FLASH_ATTN_TYPE_AUTO)
        mparams = llama_cpp.llama_model_default_params()
        mparams.n_gpu_layers = gpu_layers
        # No "extra" CPU buffer types (AMX tiles, repacked weights): llama-cpp-python
        # 0.3.36 built on an AMX CPU crashes inside ggml_backend_amx_mul_mat for
        # q8_0 weights (SIGSEGV, seen on this project's Xeon build machine), and
        # the same model must compute the same way on every user's CPU.
        mparams.use_extra_bufts = False
        self._model = llama_cpp.llama_model_load_from_file(str(self.path).encode("utf-8"), mparams)
        if not self._model:
            raise ModelError(f"{self.path}: llama.cpp could not load the decoder")
        self._vocab = llama_cpp.llama_model_get_vocab(self._model)
        self.n_embd = int(llama_cpp.llama_model_n_embd(self._model))
        self.n_vocab = int(llama_cpp.llama_vocab_n_tokens(self._vocab))
        self._owns_model = True
        self._forks: list[LlamaDecoder] = []
        self._ctx = None
        self.n_ctx = 0
        self._cached: list[int] = []  # token ids whose KV sits at positions 0..len-1
        self._new_context(n_ctx)

    def fork(self, n_ctx: int | None = None) -> "LlamaDecoder":
        """A second context over the same loaded weights (costs only its KV cache).

        Two contexts can decode in two threads at once; the engine uses one for
        files and one for live dictation, so a take never waits for a long file.
        """
        twin = object.__new__(LlamaDecoder)
        twin.__dict__.update({k: v for k, v in self.__dict__.items() if k not in ("_ctx", "_cached", "_forks")})
        twin._owns_model = False
        twin._forks = []
        twin.tuner = ThreadTuner.for_machine() if self.tuner is not None else None
        twin._ctx = None
        twin._cached = []
        twin._new_context(n_ctx or self.n_ctx)
        self._forks.append(twin)
        return twin

    # -- context management -------------------------------------------------

    def _new_context(self, n_ctx: int) -> None:
        ll = self._ll
        if self._ctx:
            ll.llama_free(self._ctx)
        cparams = ll.llama_context_default_params()
        cparams.n_ctx = n_ctx
        cparams.n_batch = self.n_batch
        cparams.n_ubatch = self.n_batch
        cparams.n_seq_max = 1
        cparams.n_threads = self.n_threads
        cparams.n_threads_batch = self.n_threads
        cparams.no_perf = True
        cparams.type_k = self.kv_type
        cparams.type_v = self.kv_type
        cparams.flash_attn_type = self.flash_attn
        self._ctx = ll.llama_init_from_model(self._model, cparams)
        if not self._ctx:
            raise ModelError(f"{self.path}: llama.cpp could not create a context of {n_ctx} tokens")
        self.n_ctx = int(ll.llama_n_ctx(self._ctx))
        self._cached = []

    def ensure_context(self, n_needed: int) -> None:
        """Grow the context (in 256-token steps) when a prompt plus output would not fit."""
        if n_needed > self.n_ctx:
            self._new_context((n_needed + 255) // 256 * 256)

    def close(self) -> None:
        ll = self._ll
        for twin in self._forks:  # contexts first: they point into the model
            twin.close()
        self._forks = []
        if self._ctx:
            ll.llama_free(self._ctx)
            self._ctx = None
        if self._model and self._owns_model:
            ll.llama_model_free(self._model)
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
            raise ModelError("prompt too long to tokenize")
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

    # -- batches --------------------------------------------------------------

    def _decode(self, pos0: int, *, tokens: Sequence[int] | None = None, embd: np.ndarray | None = None) -> None:
        """Feed tokens or embedding rows at positions pos0.., logits for the last row only."""
        ll = self._ll
        n = len(tokens) if tokens is not None else int(embd.shape[0])
        for start in range(0, n, self.n_batch):
            stop = min(n, start + self.n_batch)
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
                    batch.seq_id[i][0] = 0
                    batch.logits[i] = 1 if (stop == n and i == m - 1) else 0
                batch.n_tokens = m
                rc = ll.llama_decode(self._ctx, batch)
            finally:
                ll.llama_batch_free(batch)
            if rc != 0:
                raise ModelError(f"llama.cpp decode failed (code {rc})")

    def _logits(self) -> np.ndarray:
        ptr = self._ll.llama_get_logits_ith(self._ctx, -1)
        return np.ctypeslib.as_array(ptr, shape=(self.n_vocab,))

    def _truncate(self, n_keep: int) -> None:
        mem = self._ll.llama_get_memory(self._ctx)
        self._ll.llama_memory_seq_rm(mem, 0, n_keep, -1)

    def prefill(self, before: Sequence[int], audio: np.ndarray, after: Sequence[int]) -> tuple[int, int]:
        """Put prompt + audio into the KV cache, reusing the cached common token prefix.

        Returns (prompt length, tokens reused). Logits of the last prompt row are ready.
        """
        if audio.ndim != 2 or audio.shape[1] != self.n_embd:
            raise ModelError(f"audio embeddings have shape {audio.shape}, decoder expects [n, {self.n_embd}]")
        before = list(before)
        reuse = 0
        for a, b in zip(self._cached, before):
            if a != b:
                break
            reuse += 1
        # Always recompute at least the last prefix token, so the next batch
        # starts on a clean boundary even when everything matched.
        reuse = min(reuse, len(before) - 1) if before else 0
        self._truncate(reuse)
        self._cached = before[:reuse]
        if before[reuse:]:
            self._decode(reuse, tokens=before[reuse:])
        self._cached = before
        pos = len(before)
        if len(audio):
            self._decode(pos, embd=audio)
        pos += len(audio)
        if after:
            self._decode(pos, tokens=after)
        pos += len(after)
        return pos, reuse

    # -- generation -----------------------------------------------------------

    def generate(self, before: Sequence[int], audio: np.ndarray, after: Sequence[int],
                 opts: DecodeOptions = DecodeOptions(), cancel: CancelCheck | None = None) -> DecodeResult:
        self.ensure_context(len(before) + len(audio) + len(after) + opts.max_tokens + 1)
        t0 = time.perf_counter()
        n_prompt, reused = self.prefill(before, audio, after)
        t1 = time.perf_counter()
        first_logits = self._logits().copy()
        attempts: list[list[int]] = []
        rng = np.random.default_rng(opts.seed)
        result_tokens, stop = [], "limit"
        for attempt in range(opts.retries + 1 if opts.guard else 1):
            temperature = 0.0 if attempt == 0 else opts.retry_temperature
            if attempt:
                self._truncate(n_prompt)
            tokens, stop = self._run(first_logits, n_prompt, opts, temperature, rng, cancel)
            attempts.append(tokens)
            result_tokens = tokens
            if stop != "loop":
                break
        if stop == "loop":
            # Every attempt looped: keep the one with the most text before its loop took over.
            result_tokens = max((_cut_loop(a, opts.loop_window) for a in attempts), key=len)
        t2 = time.perf_counter()
        return DecodeResult(
            tokens=result_tokens,
            text=self.detokenize([t for t in result_tokens if t not in self.eos_ids]),
            stop=stop,
            prompt_tokens=n_prompt,
            reused_tokens=reused,
            prefill_s=t1 - t0,
            generate_s=t2 - t1,
            retries=len(attempts) - 1,
            attempts=attempts,
        )

    def _run(self, logits: np.ndarray, pos: int, opts: DecodeOptions, temperature: float,
             rng: np.random.Generator, cancel: CancelCheck | None) -> tuple[list[int], str]:
        tokens: list[int] = []
        while len(tokens) < opts.max_tokens:
            if cancel is not None and cancel():
                raise Cancelled()
            if temperature > 0:
                z = logits.astype(np.float64) / temperature
                p = np.exp(z - z.max())
                token = int(rng.choice(len(p), p=p / p.sum()))
            else:
                token = int(np.argmax(logits))
            if token in self.eos_ids:
                return tokens, "eos"
            tokens.append(token)
            if opts.guard and _is_loop(tokens, opts.loop_window, opts.loop_distinct):
                return tokens, "loop"
            if len(tokens) == opts.max_tokens:
                break
            if self.tuner is None:
                self._decode(pos, tokens=[token])
            else:
                self._tuned_decode(pos, token)
            pos += 1
            logits = self._logits()
        return tokens, "limit"

    def _tuned_decode(self, pos: int, token: int) -> None:
        """One generation step on the thread count the tuner picks, timed for it."""
        assert self.tuner is not None
        start = time.perf_counter()
        threads = self.tuner.next_threads(start)
        if threads != self.n_threads:
            self._ll.llama_set_n_threads(self._ctx, threads, threads)
            self.n_threads = threads
        self._decode(pos, tokens=[token])
        end = time.perf_counter()
        self.tuner.record(threads, end - start, end)

    def forward_logits(self, before: Sequence[int], audio: np.ndarray, after: Sequence[int],
                       forced: Sequence[int]) -> np.ndarray:
        """Logits at every step of a forced continuation (for equivalence tests and scoring)."""
        self.ensure_context(len(before) + len(audio) + len(after) + len(forced) + 1)
        pos, _ = self.prefill(before, audio, after)
        rows = [self._logits().copy()]
        for token in forced:
            self._decode(pos, tokens=[int(token)])
            pos += 1
            rows.append(self._logits().copy())
        return np.stack(rows)


def _is_loop(tokens: list[int], window: int, distinct: int) -> bool:
    return len(tokens) >= window and len(set(tokens[-window:])) <= distinct


def _cut_loop(tokens: list[int], window: int) -> list[int]:
    """Drop the repeating tail: keep tokens up to the first occurrence of the looping pattern."""
    tail = set(tokens[-window:])
    cut = len(tokens)
    while cut > 0 and tokens[cut - 1] in tail:
        cut -= 1
    # Keep one pass of the repeated material: it is usually a real word said once.
    return tokens[: cut + len(tail)]
