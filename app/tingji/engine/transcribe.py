"""`Engine`: a warmed model that turns audio into a timed transcript.

Data flow for one file, the same for every model family:

    audio.stream (16 kHz blocks) -> WindowPlanner (Silero VAD, cuts <= the
    model's window at quiet points) -> per window: skip if silent, trim to
    speech -> recognizer.recognize (the family: features, encoder, decoder)
    -> text (+ character times) -> sentences placed in time -> segments

Everything is streaming: a 3-hour file costs one window of memory.
Cancellation is honoured between windows and inside the family's decoding,
and what finished before it is kept (`Cancelled.partial`).

Threads: see `Lane`. The engine is used by at most two threads at once, one
per lane; the lanes share the loaded weights and each has its own state.

`exact=True` is the reference mode used by the equivalence tests: no VAD
trimming or skipping, one window for clips that fit, and the family's own
reference settings (for Fun-ASR-Nano: plain greedy decoding with the
reference's stop token, f32 KV cache).
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import Cancelled
from . import audio
from .align import MAX_SEGMENT_S, speech_char_times, timed_sentences
from .families import family_module
from .families.base import LaneState, LoadOptions, RecognizeOptions, Recognizer
from .heap import map_large_blocks
from .languages import normalise
from .manifest import load_manifest, verify
from .threads import single_thread_blas
from .transcript import Progress, Segment, Transcript, WindowInfo
from .vad import SAMPLE_RATE, SileroVad
from .windows import Window, WindowPlanner, trimmed

CancelLike = Callable[[], bool] | threading.Event | None
MIN_SPEECH_S = 0.1  # shorter input cannot hold a word; say so rather than return silence unexplained


class Lane:
    """One thread's way into a loaded engine: `engine.files` or `engine.live`.

    The file queue and the CLI use `files` (what `Engine.transcribe` runs
    on); dictation takes use `live`. A lane holds a lock - a second caller on
    the same lane waits its turn - and the family's private state for it (for
    the LLM families a llama.cpp context: a KV cache over the shared weights),
    made on first use because it costs memory. Calls on different lanes may
    run at the same time; while a live take runs, the files lane pauses
    between decoding steps, so dictation never waits for a long file.
    """

    def __init__(self, name: str, engine: Engine, *, parks: bool = False) -> None:
        self.name = name
        self.engine = engine
        # Park the state after each window (LaneState.park): right for the files lane, whose
        # windows take seconds and whose KV cache would otherwise sit under the next window's
        # encoder peak; not for the live lane, where the rebuild would be felt as latency.
        self.parks = parks
        self.lock = threading.Lock()
        self._state: LaneState | None = None

    @property
    def state(self) -> LaneState:
        """The lane's family state, opened on first use (call with `lock` held, or before others use it)."""
        if self._state is None:
            self._state = self.engine.recognizer.open_lane()
            if self.parks:  # nothing resident under the first window's encoder either
                self._state.park()
        return self._state

    @property
    def opened(self) -> bool:
        return self._state is not None

    def transcribe(self, source: str | os.PathLike[str] | np.ndarray, **options: Any) -> Transcript:
        """`Engine.transcribe` on this lane (same arguments)."""
        return self.engine._transcribe_on(self, source, **options)

    def close(self) -> None:
        if self._state is not None:
            self._state.close()
            self._state = None


class Engine:
    """Load a model folder once (warm), transcribe many times."""

    def __init__(
        self,
        model: str | os.PathLike[str],
        provider: str = "auto",
        *,
        exact: bool = False,
        threads: int | None = None,
        policy: str | None = None,
        buckets: Sequence[int] | None = None,
        warm: bool = True,
        n_ctx: int = 256,
        decoder_gpu_layers: int | None = None,
        graph_cache: str | os.PathLike[str] | None = None,
        punctuation: str | os.PathLike[str] | None = None,
    ) -> None:
        """`model` is a model folder (a name is the model manager's business: tingji.models).

        `graph_cache` is a folder where ONNX Runtime's optimised graphs are kept
        between runs (`ort_cache`; the app passes `tingji.paths.graph_cache_dir()`):
        a start then skips optimising them. None optimises at every load.
        `punctuation` is a punctuation model folder (`engine.punctuation`), used
        only when the model writes no punctuation of its own
        (`Capabilities.punctuation`); None: no punctuation is added.
        """
        t0 = time.perf_counter()
        self.model_path = Path(model)
        self.manifest = load_manifest(self.model_path)
        verify(self.manifest, check_hashes=False)  # sizes only: hashing GBs at every start is too slow
        single_thread_blas()  # NumPy's BLAS workers would spin through the encoder runs (engine.threads)
        self.exact = exact
        self.model_name = self.model_path.name
        options = LoadOptions(
            provider=provider,
            exact=exact,
            threads=threads,
            policy=policy,
            buckets=buckets,
            warm=warm,
            n_ctx=n_ctx,
            decoder_gpu_layers=decoder_gpu_layers,
            graph_cache=Path(graph_cache) if graph_cache is not None else None,
        )
        # The VAD's session is built beside the model's: on 2 cores it fits in the gap the decoder's
        # loading thread leaves while ONNX Runtime builds the encoder (families/llm.load_together).
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="tingji-vad-load") as pool:
            vad = pool.submit(SileroVad)
            self.recognizer: Recognizer = family_module(self.manifest.family, self.model_path).load(
                self.manifest, options
            )
        self.family = self.manifest.family
        self.capabilities = self.recognizer.capabilities
        self.decoder_device = self.recognizer.decoder_device
        self.warnings = self.recognizer.warnings  # load-time problems; a later GPU fallback adds to it
        self.punctuator = None
        if punctuation is not None and not self.capabilities.punctuation:
            from .punctuation import Punctuator

            try:
                self.punctuator = Punctuator(punctuation, threads)
            except BaseException:
                self.recognizer.close()
                raise
        self.files = Lane("files", self, parks=True)
        self.live = Lane("live", self)
        self._live_idle = threading.Event()  # cleared while a live take runs: the files lane pauses
        self._live_idle.set()
        try:
            self.vad = vad.result()
            if warm:
                # The lane where waiting is felt: a dictation take is seconds of audio and its
                # latency is the product, while a file's first window takes long enough that
                # opening the files lane on first use does not show.
                self.recognizer.warm((self.live if self.capabilities.live_lane else self.files).state)
        except BaseException:
            self.close()
            raise
        map_large_blocks()  # from here on, what the windows free goes back whole (engine.heap)
        self.load_s = time.perf_counter() - t0

    def build_caches(self) -> None:
        """Build what later loads of this model reuse (the model manager calls it at install, beside
        the optimised graphs that loading saved): nothing without a `graph_cache`."""
        lane = self.live if self.capabilities.live_lane else self.files
        with lane.lock:
            self.recognizer.build_caches(lane.state)

    @property
    def provider(self) -> str:
        """The ONNX Runtime provider in use now (a failing GPU provider falls back to the CPU mid-file)."""
        return self.recognizer.provider

    def close(self) -> None:
        """Free the lanes' state, then the model. The caller makes sure no lane is in use."""
        self.live.close()
        self.files.close()
        self.recognizer.close()

    # -- transcription ----------------------------------------------------------

    def transcribe(
        self,
        source: str | os.PathLike[str] | np.ndarray,
        *,
        language: str | None = None,
        hotwords: Sequence[str] = (),
        itn: bool = True,
        max_tokens: int = 512,
        on_progress: Callable[[Progress], None] | None = None,
        cancel: CancelLike = None,
        ignore_eos: bool = False,
        timestamps: bool = True,
    ) -> Transcript:
        """Transcribe a media file (path) or 16 kHz mono float32 samples on the files lane.

        Dictation uses `engine.live.transcribe(...)` instead (see `Lane`).
        `ignore_eos=True` makes every decoded window generate exactly
        `max_tokens` (benchmarks compare equal amounts of work).
        `timestamps=False` skips what only times the text (Nano's CTC head:
        15 ms of a 3 s take); segments are then timed by their window.
        """
        return self._transcribe_on(
            self.files,
            source,
            language=language,
            hotwords=hotwords,
            itn=itn,
            max_tokens=max_tokens,
            on_progress=on_progress,
            cancel=cancel,
            ignore_eos=ignore_eos,
            timestamps=timestamps,
        )

    def _transcribe_on(
        self,
        lane: Lane,
        source: str | os.PathLike[str] | np.ndarray,
        *,
        language: str | None = None,
        hotwords: Sequence[str] = (),
        itn: bool = True,
        max_tokens: int = 512,
        on_progress: Callable[[Progress], None] | None = None,
        cancel: CancelLike = None,
        ignore_eos: bool = False,
        timestamps: bool = True,
    ) -> Transcript:
        user_cancel = _cancel_check(cancel)
        options, warnings = self._options(language, hotwords, itn, max_tokens)
        options = replace(options, ignore_eos=ignore_eos, timestamps=timestamps)
        if lane is self.live and self.capabilities.live_lane:
            with lane.lock:
                self._live_idle.clear()
                try:
                    return self._run(source, options, warnings, on_progress, user_cancel, lane)
                finally:
                    self._live_idle.set()

        def check() -> bool:
            self._live_idle.wait()  # yield the cores to a dictation take in progress
            return user_cancel() if user_cancel is not None else False

        lane = self.files  # a family without a live lane serves dictation on the files lane
        with lane.lock:
            return self._run(source, options, warnings, on_progress, check, lane)

    def _options(
        self, language: str | None, hotwords: Sequence[str], itn: bool, max_tokens: int
    ) -> tuple[RecognizeOptions, list[str]]:
        """The caller's choices as this model can take them, and a warning for each it cannot."""
        caps, warnings = self.capabilities, []
        code = normalise(language)
        if code is not None and code not in caps.languages and not caps.open_languages:
            shown = ", ".join(caps.languages) or "none"
            warnings.append(
                f"this model cannot be told the language {language!r} (it knows {shown}); "
                + ("detecting it instead" if caps.detects_language else "ignored")
            )
            code = None
        words = tuple(w.strip() for w in hotwords if w and w.strip())
        if words and not caps.hotwords:
            warnings.append(f"this model ({self.family}) has no hotword support; hotwords ignored")
            words = ()
        if not itn and not caps.itn:
            warnings.append(f"this model ({self.family}) cannot switch text normalisation off")
        return RecognizeOptions(language=code, hotwords=words, itn=itn, max_tokens=max_tokens), warnings

    def _run(
        self,
        source: str | os.PathLike[str] | np.ndarray,
        options: RecognizeOptions,
        warnings: list[str],
        on_progress: Callable[[Progress], None] | None,
        cancelled: Callable[[], bool] | None,
        lane: Lane,
    ) -> Transcript:
        t_start = time.perf_counter()
        timings = dict.fromkeys(("read", "vad", *self.recognizer.stages), 0.0)
        stream: audio.AudioStream | None = None
        if isinstance(source, np.ndarray):
            blocks: Iterator[np.ndarray] = iter([audio.decode_array(source, SAMPLE_RATE)])
            total, name, file_warnings = len(source) / SAMPLE_RATE, None, []
        else:
            info = audio.probe(source)
            total, name, file_warnings = info.duration_s, os.fspath(source), list(info.warnings)
            blocks = stream = audio.stream(source)
        result = Transcript(
            segments=[],
            duration=0.0,
            model=self.model_name,
            provider=self.provider,
            decoder_device=self.decoder_device,
            language=options.language,
            source=name,
            timings=timings,
            warnings=file_warnings + list(self.warnings) + warnings,
            family=self.family,
        )
        planner = WindowPlanner(self.vad, max_s=self.manifest.window_seconds)
        seen = [0]  # samples read so far
        try:
            for window in _windows(blocks, planner, timings, seen):
                if cancelled is not None and cancelled():
                    raise Cancelled()
                new = self._window(window, options, cancelled, result, lane)
                result.segments.extend(new)
                if on_progress is not None:
                    on_progress(Progress(window.end / SAMPLE_RATE, total, window.index, new))
        except Cancelled as exc:
            self._finish(result, seen[0], t_start, options)
            raise Cancelled(exc.message, partial=result, **exc.fields) from None
        finally:
            if stream is not None:
                stream.close()
        self._finish(result, seen[0], t_start, options)
        if stream is not None and not stream.complete:  # a damaged file: keep the text, say what is missing
            result.complete = False
            result.warnings.extend(stream.problems)
        if result.duration < MIN_SPEECH_S:
            result.warnings.append(f"only {result.duration * 1000:.0f} ms of audio: too short to hold speech")
        return result

    @staticmethod
    def _finish(result: Transcript, samples: int, t_start: float, options: RecognizeOptions) -> None:
        result.duration = samples / SAMPLE_RATE
        result.timings["total"] = time.perf_counter() - t_start
        if options.language is None:  # what the model heard most, where it says
            heard = Counter(w.language for w in result.window_info if w.language)
            result.language = heard.most_common(1)[0][0] if heard else None

    def _window(
        self,
        window: Window,
        options: RecognizeOptions,
        cancelled: Callable[[], bool] | None,
        result: Transcript,
        lane: Lane,
    ) -> list[Segment]:
        result.windows += 1
        if self.exact:
            a, b = 0, len(window.samples)
        else:
            if not window.has_speech:
                result.skipped_windows += 1  # no speech: decoding would only invent text
                return []
            a, b = trimmed(window)
        recognized = self.recognizer.recognize(window.samples[a:b], options, lane.state, cancelled)
        if lane.parks:
            lane.state.park()
        for stage, seconds in recognized.timings.items():
            result.timings[stage] = result.timings.get(stage, 0.0) + seconds
        result.window_tokens.append(recognized.tokens)
        text = recognized.text
        if self.punctuator is not None and text:
            t = time.perf_counter()
            text = self.punctuator.punctuate(text).text  # the marks go into the words' own text
            result.timings["punctuation"] = result.timings.get("punctuation", 0.0) + time.perf_counter() - t
        result.window_texts.append(text)
        offset = window.start_s + a / SAMPLE_RATE
        span = (0.0, (b - a) / SAMPLE_RATE)
        result.window_info.append(
            WindowInfo(window.index, offset, offset + span[1], recognized.language, dict(recognized.extras))
        )
        chars, max_s = recognized.char_times, None
        if chars is None and self.capabilities.timestamps == "speech":
            # No character times: place the text on the speech the VAD found in this window.
            shift = a / SAMPLE_RATE
            spans = [(max(0.0, s - shift), min(span[1], e - shift)) for s, e in window.speech if e > shift]
            chars, max_s = speech_char_times(text, spans or [span]), MAX_SEGMENT_S
        return [
            Segment(offset + s, offset + e, piece, window.index)
            for s, e, piece in timed_sentences(text, span, chars, max_s)
        ]


def _windows(
    blocks: Iterator[np.ndarray], planner: WindowPlanner, timings: dict[str, float], seen: list[int]
) -> Iterator[Window]:
    """The planner's windows, with decoding time counted as "read" and VAD + cutting as "vad"."""
    while True:
        t = time.perf_counter()
        block = next(blocks, None)
        timings["read"] += time.perf_counter() - t
        if block is None:
            break
        seen[0] += len(block)
        t = time.perf_counter()
        ready = list(planner.feed(block))
        timings["vad"] += time.perf_counter() - t
        yield from ready
    t = time.perf_counter()
    ready = list(planner.finish())
    timings["vad"] += time.perf_counter() - t
    yield from ready


def _cancel_check(cancel: CancelLike) -> Callable[[], bool] | None:
    if cancel is None:
        return None
    if isinstance(cancel, threading.Event):
        return cancel.is_set
    return cancel


def transcribe(source: str | os.PathLike[str] | np.ndarray, model: str | os.PathLike[str], **kwargs: Any) -> Transcript:
    """One-shot convenience: load the model folder, transcribe, release."""
    options = {k: kwargs.pop(k) for k in ("provider", "exact", "threads") if k in kwargs}
    engine = Engine(model, **options)
    try:
        return engine.transcribe(source, **kwargs)
    finally:
        engine.close()
