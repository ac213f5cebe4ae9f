"""`Engine`: a warmed model that turns audio into a timed transcript.

Data flow for one file:

    audio.stream (16 kHz blocks) -> WindowPlanner (VAD, cuts <= 60 s at quiet
    points) -> per window: trim to speech -> frontend.features -> encoder
    (+ CTC) -> first n_audio adaptor rows -> LLM prompt -> llama.cpp greedy
    -> text -> sentences timed by CTC -> segments

Everything is streaming: a 3-hour file costs one window of memory. One
Engine is meant to live in one worker thread (calls are serialised by a
lock); cancellation is honoured between windows and between decode steps,
and what finished before it is kept (`Cancelled.partial`).

`exact=True` is the reference mode used by the equivalence tests: no VAD
trimming or skipping, one window for clips that fit, plain greedy decoding
with the reference's stop token, f32 KV cache.
"""

from __future__ import annotations

import os
import re
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from . import audio
from .align import ctc_greedy, load_ctc_tokens, timed_sentences
from .decoder import DecodeOptions, LlamaDecoder
from .encoder import AudioEncoder
from .errors import Cancelled, ModelError
from .frontend import FrontendConfig, features, num_audio_tokens
from .manifest import load_manifest, verify
from .prompt import build_prompt, language_name
from .vad import SAMPLE_RATE, SileroVad
from .windows import Window, WindowPlanner, trimmed

CancelLike = Callable[[], bool] | threading.Event | None
MIN_SPEECH_S = 0.1  # shorter input cannot hold a word; say so rather than return silence unexplained


@dataclass
class Segment:
    start: float
    end: float
    text: str
    window: int = 0


@dataclass
class Progress:
    """Reported after each window: how far, and the segments it produced."""

    done_s: float
    total_s: float | None
    window: int
    segments: list[Segment]

    @property
    def fraction(self) -> float | None:
        if not self.total_s:
            return None
        return min(1.0, self.done_s / self.total_s)


@dataclass
class Transcript:
    segments: list[Segment]
    duration: float
    model: str
    provider: str
    decoder_device: str
    language: str | None = None
    source: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    windows: int = 0
    skipped_windows: int = 0
    warnings: list[str] = field(default_factory=list)
    window_tokens: list[list[int]] = field(default_factory=list)
    window_texts: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The whole transcript: each window's text as decoded (segments are a display split of it)."""
        parts = [t for t in self.window_texts if t]
        if not parts and self.segments:  # e.g. rebuilt from stored segments
            parts = [s.text.strip() for s in self.segments if s.text.strip()]
        if not parts:
            return ""
        out = parts[0]
        for p in parts[1:]:  # no space between CJK sentences, one between Latin ones
            out += p if (_is_cjk(out[-1]) or _is_cjk(p[0])) else " " + p
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "segments": [{"start": round(s.start, 3), "end": round(s.end, 3), "text": s.text} for s in self.segments],
            "source": self.source,
            "duration": round(self.duration, 3),
            "language": self.language,
            "model": self.model,
            "provider": self.provider,
            "decoder_device": self.decoder_device,
            "windows": self.windows,
            "skipped_windows": self.skipped_windows,
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
            "warnings": self.warnings,
        }


def _is_cjk(ch: str) -> bool:
    return "\u2e80" <= ch <= "\u9fff" or "\u3000" <= ch <= "\u303f" or "\uff00" <= ch <= "\uffef"


def _cancel_check(cancel: CancelLike) -> Callable[[], bool] | None:
    if cancel is None:
        return None
    if isinstance(cancel, threading.Event):
        return cancel.is_set
    return cancel


def clean_text(text: str) -> str:
    """The reference's post-processing: `/sil` markers to spaces, whitespace runs collapsed."""
    return re.sub(r"\s+", " ", text.replace("/sil", " ")).strip()


class Engine:
    """Load once (warm), transcribe many times."""

    def __init__(self, model: str | os.PathLike[str], provider: str = "auto", *, exact: bool = False,
                 threads: int | None = None, policy: str | None = None, buckets: Sequence[int] | None = None,
                 warm: bool = True, n_ctx: int = 1024, decoder_gpu_layers: int | None = None) -> None:
        t0 = time.perf_counter()
        self.model_path = _resolve(model)
        self.manifest = load_manifest(self.model_path)
        verify(self.manifest, check_hashes=False)  # sizes only: hashing GBs at every start is too slow
        self.exact = exact
        self.model_name = self.model_path.name
        self.frontend = FrontendConfig.from_dict(self.manifest.frontend)
        self.encoder = AudioEncoder(self.manifest, provider, policy=policy, buckets=buckets, threads=threads,
                                    warm=warm, exact=exact)
        special = self.manifest.special_tokens
        stop_ids = special.get("eos_ids") if exact else special.get("stop_ids") or special.get("eos_ids")
        gpu_layers = decoder_gpu_layers if decoder_gpu_layers is not None else _gpu_layers(self.encoder.provider)
        self.decoder = LlamaDecoder(self.manifest.file("decoder"), eos_ids=stop_ids or [], n_ctx=n_ctx,
                                    n_threads=threads, gpu_layers=gpu_layers, exact=exact)
        self.decoder_device = "gpu" if gpu_layers > 0 else "cpu"
        self.vad = SileroVad()
        tokens = self.manifest.file("tokens")
        ctc = self.manifest.extra.get("ctc") or {}
        self.ctc_tokens = load_ctc_tokens(tokens) if tokens is not None and self.encoder.has_ctc else None
        self.ctc_blank = int(ctc.get("blank_id", -1))
        self.ctc_frame_s = float(ctc.get("frame_seconds", 0.06))
        self.llm_input_dtype = str((self.manifest.extra.get("decoder") or {}).get("input_dtype", "fp32"))
        self._lock = threading.Lock()  # the file lane
        self._live_lock = threading.Lock()  # the live (dictation) lane
        self._live_idle = threading.Event()
        self._live_idle.set()
        self._live_decoder: LlamaDecoder | None = None
        if warm:
            self._warm_decoder()
        self.load_s = time.perf_counter() - t0

    @property
    def provider(self) -> str:
        return self.encoder.provider

    @property
    def warnings(self) -> list[str]:
        return list(self.encoder.warnings)

    def _warm_decoder(self) -> None:
        prompt = build_prompt(self.manifest.prompt)
        audio_rows = np.zeros((2, self.decoder.n_embd), np.float32)
        self.decoder.generate(self.decoder.tokenize(prompt.before), audio_rows,
                              self.decoder.tokenize(prompt.after), DecodeOptions(max_tokens=1, guard=False))

    def close(self) -> None:
        self.decoder.close()

    # -- transcription ----------------------------------------------------------

    def transcribe(self, source: str | os.PathLike[str] | np.ndarray, *, language: str | None = None,
                   hotwords: Sequence[str] = (), itn: bool = True, max_tokens: int = 512,
                   on_progress: Callable[[Progress], None] | None = None, cancel: CancelLike = None,
                   priority: bool = False) -> Transcript:
        """Transcribe a media file (path) or 16 kHz mono float32 samples.

        `priority=True` is the live lane for dictation: it runs on its own
        llama.cpp context (same weights) and a file being transcribed at the
        same time pauses between decode steps until the take is done.
        """
        user_cancel = _cancel_check(cancel)
        if priority:
            with self._live_lock:
                self._live_idle.clear()
                try:
                    if self._live_decoder is None:
                        self._live_decoder = self.decoder.fork()
                    return self._transcribe(source, language, hotwords, itn, max_tokens, on_progress,
                                            user_cancel, self._live_decoder)
                finally:
                    self._live_idle.set()

        def check() -> bool:
            self._live_idle.wait()  # yield the cores to a dictation take in progress
            return user_cancel() if user_cancel is not None else False

        with self._lock:
            return self._transcribe(source, language, hotwords, itn, max_tokens, on_progress, check, self.decoder)

    def _transcribe(self, source, language, hotwords, itn, max_tokens, on_progress, cancelled,
                    decoder: LlamaDecoder) -> Transcript:
        t_start = time.perf_counter()
        timings = dict.fromkeys(("read", "features", "encode", "ctc", "prefill", "generate"), 0.0)
        if isinstance(source, np.ndarray):
            blocks = iter([audio.decode_array(source, SAMPLE_RATE)])
            total = len(source) / SAMPLE_RATE
            name = None
            warnings: list[str] = []
        else:
            info = audio.probe(source)
            total, name, warnings = info.duration_s, os.fspath(source), list(info.warnings)
            blocks = audio.stream(source)
        prompt = build_prompt(self.manifest.prompt, language=language, hotwords=hotwords, itn=itn)
        before, after = decoder.tokenize(prompt.before), decoder.tokenize(prompt.after)
        opts = DecodeOptions(max_tokens=max_tokens, guard=not self.exact)
        result = Transcript(segments=[], duration=0.0, model=self.model_name, provider=self.provider,
                            decoder_device=self.decoder_device, language=language_name(language), source=name,
                            timings=timings, warnings=warnings + self.warnings)
        planner = WindowPlanner(self.vad, max_s=self.manifest.window_seconds)
        samples_seen = 0

        def windows():
            nonlocal samples_seen
            t = time.perf_counter()
            for block in blocks:
                samples_seen += len(block)
                timings["read"] += time.perf_counter() - t
                yield from planner.feed(block)
                t = time.perf_counter()
            timings["read"] += time.perf_counter() - t
            yield from planner.finish()

        try:
            for window in windows():
                if cancelled is not None and cancelled():
                    raise Cancelled()
                new = self._window(window, before, after, opts, cancelled, result, decoder)
                result.segments.extend(new)
                if on_progress is not None:
                    on_progress(Progress(window.end / SAMPLE_RATE, total, window.index, new))
        except Cancelled as exc:
            result.duration = samples_seen / SAMPLE_RATE
            result.timings["total"] = time.perf_counter() - t_start
            raise Cancelled(str(exc), partial=result) from None
        result.duration = samples_seen / SAMPLE_RATE
        result.timings["total"] = time.perf_counter() - t_start
        if result.duration < MIN_SPEECH_S:
            result.warnings.append(f"only {result.duration * 1000:.0f} ms of audio: too short to hold speech")
        return result

    def _window(self, window: Window, before: list[int], after: list[int], opts: DecodeOptions,
                cancelled: Callable[[], bool] | None, result: Transcript, decoder: LlamaDecoder) -> list[Segment]:
        result.windows += 1
        if self.exact:
            a, b = 0, len(window.samples)
        else:
            if not window.has_speech:
                result.skipped_windows += 1  # no speech: decoding would only invent text
                return []
            a, b = trimmed(window)
        t = time.perf_counter()
        feats = features(window.samples[a:b], self.frontend)
        result.timings["features"] += time.perf_counter() - t
        if feats.shape[0] == 0:
            return []  # shorter than one 25 ms frame
        t = time.perf_counter()
        out = self.encoder.encode(feats)
        result.timings["encode"] += time.perf_counter() - t
        ctc_chars = None
        if self.ctc_tokens is not None:
            t = time.perf_counter()
            _, ids = self.encoder.ctc(out.enc)
            ctc_chars = ctc_greedy(ids, self.ctc_blank, self.ctc_tokens, self.ctc_frame_s)
            result.timings["ctc"] += time.perf_counter() - t
        n_audio = num_audio_tokens(out.frames)
        rows = round_to(out.adaptor[:n_audio], self.llm_input_dtype)
        decoded = decoder.generate(before, rows, after, opts, cancel=cancelled)
        result.timings["prefill"] += decoded.prefill_s
        result.timings["generate"] += decoded.generate_s
        result.window_tokens.append(decoded.tokens)
        text = clean_text(decoded.text)
        result.window_texts.append(text)
        offset = window.start_s + a / SAMPLE_RATE
        span = (0.0, (b - a) / SAMPLE_RATE)
        return [Segment(offset + s, offset + e, piece, window.index)
                for s, e, piece in timed_sentences(text, span, ctc_chars)]


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


def _gpu_layers(provider: str) -> int:
    """Offload the whole LLM when a GPU provider runs and llama.cpp was built with GPU support."""
    if provider == "cpu":
        return 0
    try:
        import llama_cpp

        return 999 if llama_cpp.llama_supports_gpu_offload() else 0
    except Exception:
        return 0


def _resolve(model: str | os.PathLike[str]) -> Path:
    path = Path(model)
    if (path / "manifest.json").is_file():
        return path
    try:
        from ..models.installed import resolve_model
    except ImportError as exc:  # pragma: no cover - the package ships it
        raise ModelError(f"{model}: not a model folder ({exc})") from None
    return Path(resolve_model(model))


def transcribe(source: str | os.PathLike[str] | np.ndarray, model: str | os.PathLike[str], **kwargs: Any) -> Transcript:
    """One-shot convenience: load, transcribe, release."""
    options = {k: kwargs.pop(k) for k in ("provider", "exact", "threads") if k in kwargs}
    engine = Engine(model, **options)
    try:
        return engine.transcribe(source, **kwargs)
    finally:
        engine.close()


__all__ = ["Engine", "Transcript", "Segment", "Progress", "transcribe", "clean_text", "asdict"]
