"""`Engine`: a warmed model that turns audio into a timed transcript.

Data flow for one file, the same for every model family:

    audio.stream (16 kHz blocks) -> WindowPlanner (Silero VAD, cuts <= the
    model's window at quiet points) -> per window: skip if silent, trim to
    speech -> recognizer.recognize (the family: features, encoder, decoder)
    -> text (+ character times) -> sentences placed in time -> segments

Everything is streaming: a 3-hour file costs one window of memory.
Cancellation is honoured between windows and inside the family's decoding,
and what finished before it is kept (`Cancelled.partial`).

Threads: see `lanes.Lane`. The engine is used by at most two threads at once, one
per lane; the lanes share the loaded weights and each has its own state.

`exact=True` is the reference mode used by the equivalence tests: no VAD
trimming or skipping, one window for clips that fit, and the family's own
reference settings (for Fun-ASR-Nano: plain greedy decoding with the
reference's stop token, f32 KV cache).

One module past 400 lines: `Engine` is one object (its load, the two lanes'
entry and the per-window pipeline share its state), and about a quarter of
the module is its public API's documentation.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import Cancelled, ErrorReport, warning
from . import audio, messages
from .align import MAX_SEGMENT_S, speech_char_times, timed_pieces
from .companions import open_folder
from .families import family_module
from .families.base import Recognizer, stage
from .heap import limit_heaps, map_large_blocks
from .lanes import CancelLike, Lane, cancel_check
from .languages import normalise
from .options import LoadOptions, TranscribeOptions
from .sessions import import_onnxruntime
from .threads import single_thread_blas
from .transcript import Progress, Segment, Transcript, WindowInfo, Word
from .vad import FRAME, SAMPLE_RATE, SileroVad
from .windows import Window, WindowPlanner, split_window, trimmed, turn_cuts

if TYPE_CHECKING:
    from .punctuation import Punctuator
    from .speakers.labels import SpeakerLabels
    from .speakers.model import SpeakerModel

MIN_SPEECH_S = 0.1  # shorter input cannot hold a word; say so rather than return silence unexplained


class Engine:
    """A model folder loaded once and warmed, to transcribe many files and takes.

    Args:
        model: A model folder: `manifest.json` and the files it lists. An
            installed model's name is the model manager's business
            (`tingji.models.installed.resolve_model`).
        provider: Where ONNX Runtime runs the encoder: `"auto"` (DirectML on
            Windows, then CUDA, then the CPU), `"dml"`, `"cuda"` or `"cpu"`. A
            GPU provider that fails falls back to the CPU with a warning.
        device: DirectML's graphics adapter (`engine.adapters.find`): its
            place in the high-performance order, `#` and its DXGI index, or part
            of its name. None: the high-performance one. An adapter that is not
            there gives a warning and the default one.
        exact: Reference mode, used by the equivalence tests: no VAD
            trimming or skipping, one window for clips that fit, and the
            reference's own settings wherever speed changed them (its stop
            tokens, plain greedy decoding, an f32 KV cache).
        threads: CPU threads for ONNX Runtime and llama.cpp. None: the
            usable cores (at most 8) for ONNX Runtime, and a llama.cpp count
            tuned per token while it generates (`engine.threads`).
        policy: Input shapes: `"fixed"` (warmed, zero-padded shapes, what
            DirectML needs) or `"dynamic"` (the real length). None: by provider.
        buckets: The fixed policy's input lengths in feature frames. None:
            the full window and one short bucket for dictation.
        warm: Run everything once at load, so that the first file or take
            pays no first-run costs.
        n_ctx: The decoder context's first size, in positions; it grows when
            a prompt and its generation need more (LLM families only).
        decoder_gpu_layers: Decoder layers offloaded to a GPU. None: all of
            them when a GPU provider runs the encoder, none on the CPU.
        graph_cache: A folder where ONNX Runtime's optimised graphs (and an
            LLM decoder's default prompt prefix) are kept between runs
            (`ort_cache`; the app passes `tingji.paths.graph_cache_dir()`):
            a later load then skips optimising them. None: optimise at every load.
        tune_process: Make three process-wide changes that keep the engine fast
            and its memory returnable: NumPy's BLAS on one thread
            (`threads.single_thread_blas`), glibc's threads sharing two
            heaps (`heap.limit_heaps`, Linux), and, once the model has
            loaded, glibc's mmap threshold fixed at 4 MB
            (`heap.map_large_blocks`, Linux). All last for the life of the
            process and apply to all of its code; pass False when the
            program needs NumPy's threads or its own malloc settings.
        punctuation: A punctuation model folder (`engine.punctuation`), used
            only when the model writes no punctuation of its own
            (`Capabilities.punctuation`). None: no punctuation is added.
        speaker_model: A speaker model folder (family `campplus`,
            `engine.speakers`), loaded here once on the same provider, for
            transcriptions that ask for speaker labels
            (`TranscribeOptions.speakers`). None: none can be labelled.

    Raises:
        ModelError: The folder is not a usable model (manifest, files,
            family) or its runtime cannot load it.

    Attributes:
        model_name: The model folder's name, for display.
        family: The model family (`manifest.json`'s "family").
        capabilities: What the model can do (`Capabilities`).
        decoder_device: Where an LLM decoder runs now: `"cpu"`, or its GPU (`"vulkan:0 (...)"`,
            `"gpu"`); `"cpu"` once a window on the GPU failed and moved it; `""` without one.
        warnings: Load-time problems worth showing (a GPU provider that fell
            back to the CPU, ...); a later fallback adds to it.
        files: The lane `transcribe` runs on (the file queue, the CLI).
        live: The lane for dictation takes (`Lane`).
        vad: The Silero VAD session, which dictation's live VAD shares.
        speaker_model: The speaker model loaded for speaker labels
            (`engine.speakers.model.SpeakerModel`); None without one.
        load_s: Seconds the load and warm-up took.
    """

    def __init__(
        self,
        model: str | os.PathLike[str],
        provider: str = "auto",
        *,
        device: str | None = None,
        exact: bool = False,
        threads: int | None = None,
        policy: str | None = None,
        buckets: Sequence[int] | None = None,
        warm: bool = True,
        n_ctx: int = 256,
        decoder_gpu_layers: int | None = None,
        graph_cache: str | os.PathLike[str] | None = None,
        tune_process: bool = True,
        punctuation: str | os.PathLike[str] | None = None,
        speaker_model: str | os.PathLike[str] | None = None,
    ) -> None:
        """Load and warm the model in a folder; the arguments are the class's `Args`."""
        t0 = time.perf_counter()
        self.model_path = Path(model)
        # Read and verified as every model folder is (companions.open_folder); its family decides the load below.
        self.manifest = open_folder(self.model_path, None, None, check_hashes=False)  # sizes only: GBs at every start
        if tune_process:
            single_thread_blas()  # before the first window: its BLAS workers would spin through the encoder runs
            limit_heaps()  # before the load starts its threads (engine.heap)
        self.exact = exact
        self.model_name = self.model_path.name
        options = LoadOptions(
            provider=provider,
            device=device,
            exact=exact,
            threads=threads,
            policy=policy,
            buckets=buckets,
            warm=warm,
            n_ctx=n_ctx,
            decoder_gpu_layers=decoder_gpu_layers,
            graph_cache=Path(graph_cache) if graph_cache is not None else None,
        )
        vad = self._load_model(options)
        self._load_helpers(punctuation, speaker_model, options)
        self._make_lanes()
        self._take_vad_and_warm(vad, warm)
        if tune_process:
            map_large_blocks()  # only after loading, whose many large blocks the heaps serve faster (engine.heap)
        self.load_s = time.perf_counter() - t0

    def _load_model(self, options: LoadOptions) -> Future[SileroVad]:
        """Load the family's recognizer, with the VAD's session built beside it; the VAD comes back as a future,
        so that a failure to build it is raised where the engine closes what did load (`_take_vad_and_warm`)."""
        # The VAD's session is built beside the model's: on 2 cores it fits in the gap the decoder's
        # loading thread leaves while ONNX Runtime builds the encoder (families/llm.load_together).
        import_onnxruntime()  # before the VAD's thread imports it: its loading chatter stays off the console
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="tingji-vad-load") as pool:
            vad = pool.submit(SileroVad, None, options)  # the engine's graph cache too
            self.recognizer: Recognizer = family_module(self.manifest.family, self.model_path).load(
                self.manifest, options
            )
        self.family = self.manifest.family
        self.capabilities = self.recognizer.capabilities
        self.warnings = self.recognizer.warnings  # load-time problems; a later GPU fallback adds to it
        return vad

    def _make_lanes(self) -> None:
        """The two lanes (`Lane`) and the event by which the files lane yields to a live take."""
        self.files = Lane("files", self, parks=True)
        self.live = Lane("live", self)
        self._live_idle = threading.Event()  # cleared while a live take runs: the files lane pauses
        self._live_idle.set()

    @property
    def _first_lane(self) -> Lane:
        """The lane warmed at load: where waiting is felt. A dictation take is seconds of audio and its latency
        is the product, while a file's first window takes long enough that opening the files lane on first
        use does not show."""
        return self.live if self.capabilities.live_lane else self.files

    def _take_vad_and_warm(self, vad: Future[SileroVad], warm: bool) -> None:
        """The VAD from its loading thread, then, if asked, one warm-up run; a failure closes what loaded."""
        try:
            self.vad = vad.result()
            if warm:
                self.recognizer.warm(self._first_lane.state)
        except BaseException:
            self.close()
            raise

    def _load_helpers(
        self,
        punctuation: str | os.PathLike[str] | None,
        speaker_model: str | os.PathLike[str] | None,
        options: LoadOptions,
    ) -> None:
        """The punctuation model (for a model that writes no punctuation of its own) and the speaker model,
        when asked for, on the model's provider and threads; a failure closes the recognizer."""
        self.punctuator: Punctuator | None = None
        self.speaker_model: SpeakerModel | None = None
        self._load_options = options  # a speaker model loaded later (`load_speaker_model`) loads as the model did
        try:
            if punctuation is not None and not self.capabilities.punctuation:
                from .punctuation import Punctuator

                self.punctuator = Punctuator(punctuation, options, check_hashes=False)  # sizes only, as the model
                self.warnings.extend(w for w in self.punctuator.warnings if w not in self.warnings)
            if speaker_model is not None:
                self.load_speaker_model(speaker_model)
        except BaseException:
            self.recognizer.close()
            raise

    def build_caches(self) -> None:
        """Build what later loads of this model reuse (the model manager calls it at install, beside
        the optimised graphs that loading saved): nothing without a `graph_cache`."""
        lane = self._first_lane
        with lane.lock:
            self.recognizer.build_caches(lane.state)

    @property
    def provider(self) -> str:
        """The ONNX Runtime provider in use now (a failing GPU provider falls back to the CPU mid-file)."""
        return self.recognizer.provider

    @property
    def device(self) -> str:
        """The graphics adapter the model runs on, as people know it (DirectML); "" on the CPU."""
        return self.recognizer.device

    @property
    def decoder_device(self) -> str:
        """Where the LLM decoder runs now (a GPU whose logits turn non-finite moves it to the CPU mid-file)."""
        return self.recognizer.decoder_device

    def load_speaker_model(self, folder: str | os.PathLike[str]) -> None:
        """Load a speaker model (family `campplus`) for the transcriptions that ask for speaker labels, on the
        model's provider; one loaded before is closed. The app loads it when the first file asks; the caller
        makes sure no transcription runs meanwhile.

        Raises:
            ModelError: The folder is not a usable speaker model.
        """
        from .speakers.model import SpeakerModel

        loaded = SpeakerModel(folder, self._load_options, check_hashes=False)  # sizes only, as for the model
        if self.speaker_model is not None:
            self.speaker_model.close()
        self.speaker_model = loaded
        self.warnings.extend(w for w in loaded.warnings if w not in self.warnings)

    def close(self) -> None:
        """Free the lanes' state, then the model. The caller makes sure no lane is in use."""
        self.live.close()
        self.files.close()
        self.recognizer.close()
        if self.speaker_model is not None:
            self.speaker_model.close()

    # -- transcription ----------------------------------------------------------

    def transcribe(
        self,
        source: str | os.PathLike[str] | np.ndarray,
        options: TranscribeOptions | None = None,
        *,
        on_progress: Callable[[Progress], None] | None = None,
        cancel: CancelLike = None,
        vad_probs: np.ndarray | None = None,
    ) -> Transcript:
        """Transcribe a media file or samples on the files lane (dictation uses `engine.live.transcribe`).

        Args:
            source: A media file's path (audio, or video with an audio track) or
                16 kHz mono float32 samples.
            options: What to ask of the model (language, hotwords, ...); None
                takes `TranscribeOptions()`'s defaults.
            on_progress: Called on this thread after each window with a
                `Progress`: how far the transcription is and the window's segments.
            cancel: A `threading.Event`, or a function that returns True, to stop
                at the next window or decoding step.
            vad_probs: For samples whose speech the caller has already found:
                `engine.vad.probabilities(samples, tail=True)`, so the VAD does
                not run twice (dictation checks a take for speech first).

        Returns:
            The `Transcript`. A file damaged part-way gives the text of the part
            before the damage, `complete=False` and a warning saying where.

        Raises:
            AudioError: The source cannot be read (missing, empty, not media).
            Cancelled: `cancel` was set; its `partial` is the transcript so far.
        """
        return self.files.transcribe(source, options, on_progress=on_progress, cancel=cancel, vad_probs=vad_probs)

    def _transcribe_on(
        self,
        lane: Lane,
        source: str | os.PathLike[str] | np.ndarray,
        choices: TranscribeOptions,
        on_progress: Callable[[Progress], None] | None,
        cancel: CancelLike,
        vad_probs: np.ndarray | None = None,
    ) -> Transcript:
        user_cancel = cancel_check(cancel)
        options, warnings = self._options(choices)
        if vad_probs is not None:
            if not isinstance(source, np.ndarray):
                raise ValueError("vad_probs go with samples, not with a file")
            if len(vad_probs) != -(-len(source) // FRAME):
                raise ValueError(f"vad_probs: {len(vad_probs)} frames for {len(source)} samples")
        if lane is self.live and self.capabilities.live_lane:
            with lane.lock:
                self._live_idle.clear()
                try:
                    return self._run(source, options, warnings, on_progress, user_cancel, lane, vad_probs)
                finally:
                    self._live_idle.set()

        def check() -> bool:
            self._live_idle.wait()  # yield the cores to a dictation take in progress
            return user_cancel() if user_cancel is not None else False

        lane = self.files  # a family without a live lane serves dictation on the files lane
        with lane.lock:
            return self._run(source, options, warnings, on_progress, check, lane, vad_probs)

    def _options(self, choices: TranscribeOptions) -> tuple[TranscribeOptions, list[ErrorReport]]:
        """The caller's choices as this model can take them, and a warning for each it cannot."""
        caps, warnings = self.capabilities, []
        language, hotwords, itn = choices.language, choices.hotwords, choices.itn
        code = normalise(language)
        if code is not None and code not in caps.languages and not caps.open_languages:
            why = messages.LANGUAGE_DETECTED if caps.detects_language else messages.LANGUAGE_IGNORED
            warnings.append(warning(why, language=language, known=", ".join(caps.languages) or "-"))
            code = None
        words = tuple(w.strip() for w in hotwords if w and w.strip())
        if words and not caps.hotwords:
            warnings.append(warning(messages.NO_HOTWORDS, family=self.family))
            words = ()
        if not itn and not caps.itn:
            warnings.append(warning(messages.ITN_ALWAYS_ON, family=self.family))
        if choices.speakers != "off" and self.speaker_model is None:
            warnings.append(warning(messages.NO_SPEAKER_MODEL))
        return replace(choices, language=code, hotwords=words), warnings

    def _run(
        self,
        source: str | os.PathLike[str] | np.ndarray,
        options: TranscribeOptions,
        warnings: list[ErrorReport],
        on_progress: Callable[[Progress], None] | None,
        cancelled: Callable[[], bool] | None,
        lane: Lane,
        vad_probs: np.ndarray | None = None,
    ) -> Transcript:
        t_start = time.perf_counter()
        timings = dict.fromkeys(("read", "vad", *self.recognizer.stages), 0.0)
        blocks, stream, total, name, file_warnings = _open_source(source)
        result = self._new_transcript(options, name, timings, file_warnings, warnings)
        planner = WindowPlanner(self.vad, max_s=self.manifest.window_seconds, probs=vad_probs)
        seen = [0]  # samples read so far
        speakers = self._speaker_labels(options)
        try:
            for window in _windows(blocks, planner, timings, seen):
                if cancelled is not None and cancelled():
                    raise Cancelled()
                parts = [window]
                if speakers is not None:  # windows without speech spans add nothing
                    with stage(timings, "speakers"):
                        changes = speakers.add(window.samples, window.start, window.speech)
                        if not self.exact:
                            parts = split_window(window, turn_cuts(planner, window, changes))
                new = [seg for part in parts for seg in self._window(part, options, cancelled, result, lane)]
                result.segments.extend(new)
                if on_progress is not None:
                    on_progress(Progress(window.end / SAMPLE_RATE, total, window.index, new))
        except Cancelled as exc:
            self._finish(result, seen[0], t_start, options)
            raise Cancelled(exc.message, partial=result, **exc.fields) from None
        finally:
            if stream is not None:
                stream.close()
        if speakers is not None:
            self._label_speakers(result, speakers, options)
        self._finish(result, seen[0], t_start, options)
        if stream is not None and not stream.complete:  # a damaged file: keep the text, say what is missing
            result.complete = False
            result.warnings.extend(stream.problems)
        if result.duration < MIN_SPEECH_S:
            result.warnings.append(warning(messages.TOO_SHORT, ms=result.duration * 1000))
        return result

    def _new_transcript(
        self,
        options: TranscribeOptions,
        name: str | None,
        timings: dict[str, float],
        file_warnings: list[ErrorReport],
        warnings: list[ErrorReport],
    ) -> Transcript:
        """The transcript a run fills in: no segments yet, the model and where it runs, the source's name, the
        source's warnings, then the engine's, then the run's own."""
        return Transcript(
            segments=[],
            duration=0.0,
            model=self.model_name,
            provider=self.provider,
            device=self.device,
            decoder_device=self.decoder_device,
            language=options.language,
            source=name,
            timings=timings,
            warnings=file_warnings + list(self.warnings) + warnings,
            family=self.family,
        )

    def _speaker_labels(self, options: TranscribeOptions) -> SpeakerLabels | None:
        """A run's speaker labeller when the options ask for speakers and a speaker model is loaded."""
        if options.speakers == "off" or self.speaker_model is None:
            return None
        from .speakers.labels import SpeakerLabels

        return SpeakerLabels(self.speaker_model, None if options.speakers == "auto" else int(options.speakers))

    def _label_speakers(self, result: Transcript, speakers: SpeakerLabels, options: TranscribeOptions) -> None:
        """Label the finished transcript's segments (or words, where they have times) by speaker."""
        with stage(result.timings, "speakers"):
            result.speakers, notes = speakers.label(result.segments)
            result.voice_prints = speakers.prints
            timed = self.capabilities.word_speakers and options.timestamps  # segments have words
            result.speaker_granularity = "words" if timed else "segments"
        result.warnings.extend(notes)

    def _finish(self, result: Transcript, samples: int, t_start: float, options: TranscribeOptions) -> None:
        # A GPU that failed mid-file fell back to the CPU: the transcript says so (the warning names the
        # device the file started on), and what finished it.
        result.warnings.extend(w for w in self.warnings if w not in result.warnings)
        result.provider, result.device, result.decoder_device = self.provider, self.device, self.decoder_device
        result.duration = samples / SAMPLE_RATE
        result.timings["total"] = time.perf_counter() - t_start
        if options.language is None:  # what the model heard most, where it says
            heard = Counter(w.language for w in result.window_info if w.language)
            result.language = heard.most_common(1)[0][0] if heard else None

    def _window(
        self,
        window: Window,
        options: TranscribeOptions,
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
        for name, seconds in recognized.timings.items():
            result.timings[name] = result.timings.get(name, 0.0) + seconds
        result.window_tokens.append(recognized.tokens)
        text = recognized.text
        if self.punctuator is not None and text:
            with stage(result.timings, "punctuation"):
                text = self.punctuator.punctuate(text).text  # the marks go into the words' own text
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
        timed_words = recognized.char_times is not None  # the model's own token times: words of their own
        return [
            Segment(
                offset + s,
                offset + e,
                piece,
                window.index,
                words=None if words is None else [Word(offset + a, offset + b, w) for a, b, w in words],
            )
            for s, e, piece, words in timed_pieces(text, span, chars, max_s, words=timed_words)
        ]


def _open_source(
    source: str | os.PathLike[str] | np.ndarray,
) -> tuple[Iterator[np.ndarray], audio.AudioStream | None, float, str | None, list[ErrorReport]]:
    """A source's blocks of samples, its stream (a file's, to close), its duration in seconds, its name (a
    file's path) and its reader's warnings."""
    if isinstance(source, np.ndarray):
        return iter([audio.decode_array(source, SAMPLE_RATE)]), None, len(source) / SAMPLE_RATE, None, []
    info = audio.probe(source)
    total, name, file_warnings = info.duration_s, os.fspath(source), list(info.warnings)
    stream = audio.stream(source)
    return stream, stream, total, name, file_warnings


def _windows(
    blocks: Iterator[np.ndarray], planner: WindowPlanner, timings: dict[str, float], seen: list[int]
) -> Iterator[Window]:
    """The planner's windows, with decoding time counted as "read" and VAD + cutting as "vad"."""
    while True:
        with stage(timings, "read"):
            block = next(blocks, None)
        if block is None:
            break
        seen[0] += len(block)
        with stage(timings, "vad"):
            ready = list(planner.feed(block))
        yield from ready
    with stage(timings, "vad"):
        ready = list(planner.finish())
    yield from ready


def transcribe(
    source: str | os.PathLike[str] | np.ndarray,
    model: str | os.PathLike[str],
    options: TranscribeOptions | None = None,
    *,
    provider: str = "auto",
    exact: bool = False,
    threads: int | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    cancel: CancelLike = None,
) -> Transcript:
    """One-shot convenience: load a model folder, transcribe one source, release the model.

    Args:
        source: As for `Engine.transcribe`.
        model: A model folder, as for `Engine`.
        options: As for `Engine.transcribe`.
        provider: As for `Engine`.
        exact: As for `Engine`.
        threads: As for `Engine`.
        on_progress: As for `Engine.transcribe`.
        cancel: As for `Engine.transcribe`.

    Returns:
        The `Transcript`, as `Engine.transcribe` returns it.
    """
    engine = Engine(model, provider, exact=exact, threads=threads)
    try:
        return engine.transcribe(source, options, on_progress=on_progress, cancel=cancel)
    finally:
        engine.close()
