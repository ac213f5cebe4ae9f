"""Turn any common audio or video file into 16 kHz mono float32 samples.

The recogniser wants one thing: mono float32 at 16 kHz. Users bring WAV, FLAC,
MP3, phone recordings in M4A, whole meetings as MP4/MKV/WebM, sometimes three
hours long. So decoding is *streaming*: a file is read, downmixed and resampled
a few seconds at a time and handed out in blocks, and a long file never sits
whole in memory (a 3 h 48 kHz stereo WAV is 2 GB; as 16 kHz float32 it is still
700 MB).

Two decoders, tried in this order:

* libsndfile (``soundfile``) for the formats it owns (WAV, FLAC, Ogg, AIFF,
  CAF ...): exact, fast, and it reads block by block;
* FFmpeg (``av``/PyAV) for everything else (MP3, AAC/M4A, Opus, and the audio
  track of video containers). Only the first audio stream's packets are
  decoded; video packets are demuxed and dropped, never decoded.

Every decoded chunk goes through the same normalisation (`_Normaliser`):
integer PCM scaled to [-1, 1), channels averaged, non-finite samples zeroed,
then a `soxr.ResampleStream` fed chunk by chunk (never the whole file).

Anything that goes wrong on purpose raises `AudioError`, whose message is one
plain line naming the file; library messages such as "Error opening ...:
Format not recognised." never reach the user. A file that is damaged part-way
keeps what decoded before the damage - a transcript of the first 50 minutes
is worth more than an error - and `AudioStream.problems` says exactly what is
missing, so the transcript is never passed off as complete.
"""

from __future__ import annotations

import logging
import os
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NoReturn

import numpy as np
import soundfile as sf
import soxr

from ..errors import AudioError, ErrorReport, TingjiError, warning
from . import messages

if TYPE_CHECKING:
    import av

__all__ = ["SAMPLE_RATE", "AudioInfo", "AudioStream", "probe", "stream", "load", "decode_array"]

SAMPLE_RATE = 16000
"""The rate every function here returns, and the one the models expect."""

log = logging.getLogger(__name__)

# Extensions libsndfile decodes itself. Everything else goes to FFmpeg, also
# because libsndfile's MP3 support (libmpg123) varies between builds and prints
# to stderr on bad input.
_SNDFILE_EXTENSIONS = frozenset(
    "wav wave bwf rf64 w64 flac ogg oga opus aif aiff aifc au snd caf voc "
    "ircam sf mat4 mat5 pvf xi htk sds avr wve paf nist sph".split()
)
# Frames read from libsndfile per call: about 1.4 s at 48 kHz, small enough
# that 8-channel float input stays a few MB, big enough that call overhead is nil.
_SNDFILE_CHUNK = 1 << 16
# Give up on a file whose first packets all fail to decode: it is not media.
_MAX_LEADING_BAD_PACKETS = 50


@dataclass
class AudioInfo:
    """What a header says about a file, before decoding it.

    `duration_s` is None where the container does not say (raw streams,
    some broadcast captures); `sample_rate`/`channels` describe the source,
    not the 16 kHz mono output. `container` and `codec` are human-readable
    names for a details pane ("WAV (Microsoft)", "Signed 16 bit PCM";
    "QuickTime / MOV", "AAC (Advanced Audio Coding)"). `warnings` are worth
    showing next to the file ("has 3 audio tracks; using the first"), as
    coded reports (`tingji.errors.warning`).
    """

    path: str
    duration_s: float | None
    sample_rate: int
    channels: int
    container: str
    codec: str
    warnings: list[ErrorReport] = field(default_factory=list)


# --------------------------------------------------------------------------
# Public API


def probe(path: str | os.PathLike[str]) -> AudioInfo:
    """Read the header (and decode the first packets): duration, rate, format.

    Cheap enough for a file list. Raises AudioError for anything that
    `stream()` would refuse at the start (missing, unreadable, not media,
    no audio track, zero samples), so a queue can reject a file up front.
    Decoding the first packets is what tells random bytes named .mp3 from
    an MP3: FFmpeg happily "finds" an audio stream in both.
    """
    source = _open(path)
    try:
        first = next(source.chunks(), None)
    finally:
        source.close()
    if first is None:
        _nothing_decoded(source)
    return source.info


def stream(path: str | os.PathLike[str], *, block_seconds: float = 30.0) -> AudioStream:
    """The file as consecutive 16 kHz mono float32 blocks (an iterator), read lazily.

    Every block holds exactly ``round(block_seconds * 16000)`` samples except
    the last, which is shorter; together they cover what could be decoded,
    in order, and the stream's `problems` say afterwards what could not.
    The file is opened and checked *now*, so a bad path raises AudioError at
    the call, not at the first ``next()``.
    """
    if not block_seconds > 0:
        raise ValueError(f"block_seconds must be positive, got {block_seconds!r}")
    source = _open(path)
    return AudioStream(source, max(1, round(block_seconds * SAMPLE_RATE)))


def load(path: str | os.PathLike[str]) -> np.ndarray:
    """Decode a whole (short) file at once: the concatenation of `stream()`."""
    blocks = list(stream(path, block_seconds=60.0))
    return np.concatenate(blocks) if blocks else np.zeros(0, np.float32)


def decode_array(samples: np.ndarray, sample_rate: int) -> np.ndarray:
    """Normalise in-memory audio exactly as files are normalised.

    `samples` is 1-D (mono) or 2-D shaped (frames, channels), as sounddevice
    and soundfile deliver it; integer dtypes are scaled to [-1, 1). Used for
    microphone input and tests, so both paths feed the model identical data.
    """
    x = np.asarray(samples)
    if x.ndim == 1:
        x = x[:, None]
    if x.ndim != 2:
        raise ValueError(f"samples must be 1-D or (frames, channels), got shape {x.shape}")
    if sample_rate <= 0:
        raise ValueError(f"sample_rate must be positive, got {sample_rate!r}")
    norm = _Normaliser("audio")
    return np.concatenate([norm.push(_to_float32(x), int(sample_rate)), norm.flush()])


# --------------------------------------------------------------------------
# Normalisation shared by files and arrays


def _to_float32(x: np.ndarray) -> np.ndarray:
    """Integer PCM to [-1, 1) floats; floats just become float32."""
    kind = x.dtype.kind
    if kind == "f":
        return x.astype(np.float32, copy=False)
    if kind == "i":
        return x.astype(np.float32) * np.float32(2.0 ** (1 - 8 * x.dtype.itemsize))
    if kind == "u":  # unsigned PCM (8-bit WAV) is centred on 2^(bits-1)
        half = 2.0 ** (8 * x.dtype.itemsize - 1)
        return ((x.astype(np.float64) - half) / half).astype(np.float32)
    raise ValueError(f"unsupported sample type {x.dtype}")


class _Normaliser:
    """Downmix, sanitise and resample a stream of chunks to 16 kHz mono.

    Holds one `soxr.ResampleStream` so chunk boundaries are seamless; if the
    source rate changes mid-file (it happens in broadcast captures) the old
    resampler is flushed and a new one started.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.rate: int | None = None
        self._resampler: soxr.ResampleStream | None = None
        self.nonfinite = 0

    def push(self, x: np.ndarray, rate: int) -> np.ndarray:
        """x: (frames, channels) float32 at `rate`; returns 16 kHz mono."""
        mono = x[:, 0] if x.shape[1] == 1 else x.mean(axis=1, dtype=np.float32)
        mono = self._finite(np.ascontiguousarray(mono, dtype=np.float32))
        head = self.flush() if rate != self.rate and self.rate is not None else None
        if rate != self.rate:
            self.rate = rate
            self._resampler = (
                None
                if rate == SAMPLE_RATE
                else soxr.ResampleStream(rate, SAMPLE_RATE, 1, dtype="float32", quality="HQ")
            )
        out = mono if self._resampler is None else self._resampler.resample_chunk(mono, last=False)
        return out if head is None or not len(head) else np.concatenate([head, out])

    def flush(self) -> np.ndarray:
        """Drain the resampler's delay line at the end of the input."""
        if self._resampler is None:
            return np.zeros(0, np.float32)
        out = self._resampler.resample_chunk(np.zeros(0, np.float32), last=True)
        self._resampler, self.rate = None, None
        return self._finite(out)

    def _finite(self, mono: np.ndarray) -> np.ndarray:
        # One corrupt sample must not kill a three-hour transcript, and a NaN
        # fed to the resampler would smear over its whole filter length.
        bad = ~np.isfinite(mono)
        if bad.any():
            if not self.nonfinite:
                log.warning("%s: replacing NaN/infinite samples with silence", self.name)
            self.nonfinite += int(bad.sum())
            mono = np.where(bad, np.float32(0), mono)
        return mono


# --------------------------------------------------------------------------
# Opening files


def _check_file(path: str) -> None:
    """Catch the reasons a path cannot be media before any decoder guesses."""
    try:
        st = os.stat(path)
        if stat.S_ISDIR(st.st_mode):
            raise AudioError(messages.FOLDER, path=path)
        if not stat.S_ISREG(st.st_mode):
            raise AudioError(messages.NOT_REGULAR, path=path)
        if st.st_size == 0:
            raise AudioError(messages.EMPTY, path=path)
        with open(path, "rb") as f:  # stat() succeeds on files we may not read
            f.read(1)
    except FileNotFoundError:
        raise AudioError(messages.NOT_FOUND, path=path) from None
    except PermissionError:
        raise AudioError(messages.PERMISSION, path=path) from None
    except OSError as e:
        raise AudioError(messages.UNREADABLE, path=path, reason=e.strerror or "system error") from None


def _open(path: str | os.PathLike[str]) -> _SndfileSource | _AVSource:
    """Open with libsndfile where it owns the format, else with FFmpeg."""
    p = os.fspath(path)
    _check_file(p)
    if os.path.splitext(p)[1].lower().lstrip(".") in _SNDFILE_EXTENSIONS:
        try:
            f = sf.SoundFile(p)
        except (sf.LibsndfileError, RuntimeError):
            pass  # wrong extension or a variant libsndfile lacks: FFmpeg may know it
        else:
            if f.format != "MP3":
                return _SndfileSource(p, f)
            f.close()
    return _AVSource(p)


def _reason(exc: BaseException) -> TingjiError:
    """A library exception in plain words, for 'decoding failed at ...' (a field: translated with it)."""
    av = sys.modules.get("av")  # not imported: the exception cannot be one of FFmpeg's
    if isinstance(exc, EOFError) or (av is not None and isinstance(exc, av.error.EOFError)):
        return TingjiError(messages.REASON_ENDS_EARLY)
    if isinstance(exc, OSError) and not (av is not None and isinstance(exc, av.FFmpegError)):
        return TingjiError(messages.REASON_READ_ERROR, detail=exc.strerror or type(exc).__name__)
    return TingjiError(messages.REASON_DAMAGED)  # InvalidDataError, libsndfile errors, anything else


class _SndfileSource:
    """A file libsndfile opened; reads float32 frames block by block."""

    def __init__(self, path: str, f: sf.SoundFile) -> None:
        self.path, self._f = path, f
        self.error: tuple[float, TingjiError] | None = None
        self.bad_packets = 0  # libsndfile reads frames, not packets: it skips nothing (see _AVSource)
        self.first_bad: float | None = None
        self.info = AudioInfo(
            path=path,
            duration_s=f.frames / f.samplerate if f.frames >= 0 else None,
            sample_rate=f.samplerate,
            channels=f.channels,
            container=f.format_info,
            codec=f.subtype_info,
        )
        if f.frames == 0:
            f.close()
            raise AudioError(messages.NO_SAMPLES, path=path)

    def chunks(self) -> Iterator[tuple[np.ndarray, int]]:
        done = 0
        while True:
            try:
                x = self._f.read(_SNDFILE_CHUNK, dtype="float32", always_2d=True)
            except (sf.LibsndfileError, RuntimeError) as e:
                self.error = (done / self._f.samplerate, _reason(e))
                return
            if not len(x):
                return
            done += len(x)
            yield x, self._f.samplerate

    def close(self) -> None:
        self._f.close()


class _AVSource:
    """A file FFmpeg opened; decodes only the first audio stream.

    PyAV is imported here, on the first file libsndfile cannot read: loading
    FFmpeg's libraries costs CPU time and memory that dictation and WAV/FLAC
    files never need, and start-up should not pay (benchmarks/README.md#smaller-choices).
    """

    def __init__(self, path: str) -> None:
        import av

        self.path = path
        self.error: tuple[float, TingjiError] | None = None  # why decoding stopped early
        self.bad_packets = 0
        self.first_bad: float | None = None  # where the first skipped packet was
        try:
            self._c = av.open(path, metadata_errors="ignore")
        except PermissionError:
            raise AudioError(messages.PERMISSION, path=path) from None
        except FileNotFoundError:
            raise AudioError(messages.NOT_FOUND, path=path) from None
        except (av.FFmpegError, OSError, ValueError):
            raise AudioError(messages.NOT_MEDIA, path=path) from None
        audio = self._c.streams.audio
        if not audio:
            has_video = bool(self._c.streams.video)
            self._c.close()
            raise AudioError(messages.NO_AUDIO_TRACK if has_video else messages.NOT_MEDIA, path=path)
        self._s = audio[0]
        cc = self._s.codec_context
        duration = (
            float(self._s.duration * self._s.time_base)
            if self._s.duration and self._s.time_base
            else self._c.duration / av.time_base
            if self._c.duration
            else None
        )
        warnings = [warning(messages.MORE_TRACKS, count=len(audio))] if len(audio) > 1 else []
        if duration is None:
            warnings.append(warning(messages.LENGTH_UNKNOWN))
        self.info = AudioInfo(
            path=path,
            duration_s=duration,
            sample_rate=cc.sample_rate or 0,
            channels=cc.channels or 0,
            container=self._c.format.long_name or self._c.format.name,
            codec=cc.codec.long_name or cc.name,
            warnings=warnings,
        )

    def chunks(self) -> Iterator[tuple[np.ndarray, int]]:
        import av

        decoded = 0  # source frames, for positions in messages
        packets = self._c.demux(self._s)  # the audio stream only: video is never decoded
        while True:
            try:
                packet = next(packets)
            except StopIteration:
                return
            except (av.FFmpegError, OSError) as e:  # container damaged or cut short
                self.error = (self._position(None, decoded), _reason(e))
                return
            try:
                frames = packet.decode()
            except (av.FFmpegError, ValueError):
                # A damaged packet: skip it, the decoder resyncs on the next one.
                self.bad_packets += 1
                if self.first_bad is None:
                    self.first_bad = self._position(packet, decoded)
                if not decoded and self.bad_packets >= _MAX_LEADING_BAD_PACKETS:
                    return
                continue
            for frame in frames:
                x = frame.to_ndarray()  # planar: (channels, n); packed: (1, n * channels)
                x = x.T if frame.format.is_planar else x.reshape(frame.samples, -1)
                decoded += frame.samples
                yield _to_float32(x), frame.sample_rate

    def _position(self, packet: av.Packet | None, decoded: int) -> float:
        if packet is not None and packet.pts is not None and packet.time_base is not None:
            return max(0.0, float(packet.pts * packet.time_base))
        return decoded / (self.info.sample_rate or SAMPLE_RATE)

    def close(self) -> None:
        self._c.close()


# --------------------------------------------------------------------------
# Decoding loop


def _nothing_decoded(source: _SndfileSource | _AVSource) -> NoReturn:
    """Explain a file that opened but gave not a single sample."""
    if source.error is not None:
        at, why = source.error
        raise AudioError(messages.DECODE_FAILED, path=source.path, at=at, reason=why)
    if source.bad_packets:  # packets found, none decodable: random bytes, media name
        raise AudioError(messages.NOT_MEDIA, path=source.path)
    raise AudioError(messages.NO_SAMPLES, path=source.path)


class AudioStream:
    """A file's 16 kHz mono blocks, and what went wrong while decoding them.

    Iterate it like any iterator. Once it is exhausted, `problems` holds one
    warning (`tingji.errors.warning`) per way the file was not read completely (decoding stopped
    early, damaged packets skipped, far less audio than the header promised),
    so a caller can keep the partial transcript *and* say it is partial:
    `complete` is False whenever `problems` is not empty.
    """

    def __init__(self, source: _SndfileSource | _AVSource, size: int) -> None:
        self.path = source.path
        self.info = source.info
        self.problems: list[ErrorReport] = []
        self.samples = 0  # 16 kHz samples handed out so far
        self._blocks = self._generate(source, size)

    def __iter__(self) -> AudioStream:
        return self

    def __next__(self) -> np.ndarray:
        block = next(self._blocks)
        self.samples += len(block)
        return block

    @property
    def complete(self) -> bool:
        return not self.problems

    def close(self) -> None:
        """Stop early and release the file (a cancelled transcription must not keep it open)."""
        self._blocks.close()

    def _generate(self, source: _SndfileSource | _AVSource, size: int) -> Iterator[np.ndarray]:
        """Drive a source through the normaliser and cut fixed-size blocks."""
        norm = _Normaliser(self.path)
        pending: list[np.ndarray] = []
        have = 0
        frames_in = produced = 0
        try:
            for x, rate in source.chunks():
                frames_in += len(x)
                out = norm.push(x, rate)
                produced += len(out)
                if len(out):
                    pending.append(out)
                    have += len(out)
                while have >= size:
                    joined = np.concatenate(pending) if len(pending) > 1 else pending[0]
                    rest = joined[size:].copy()
                    pending, have = ([rest] if len(rest) else []), len(rest)
                    yield joined[:size]
            tail = norm.flush()
        finally:
            source.close()
        if not frames_in:
            _nothing_decoded(source)
        self.problems = _read_problems(source, (produced + len(tail)) / SAMPLE_RATE)
        for problem in self.problems:  # info: the caller shows `problems` itself, once
            log.info("%s: %s", self.path, problem.text)
        if len(tail):
            pending.append(tail)
        if pending:
            last = np.concatenate(pending)
            for start in range(0, len(last), size):  # flush may add a few samples past a block
                yield last[start : start + size]


# A file whose decoded length falls short of its header's by more than this is
# called incomplete (header lengths are exact to a frame or two; a little
# encoder padding or priming must not count).
_SHORTFALL_S = 1.0
_SHORTFALL_FRACTION = 0.005


def _read_problems(source: _SndfileSource | _AVSource, decoded_s: float) -> list[ErrorReport]:
    """A warning for every way `source` was not read to its end (empty: read completely)."""
    problems = []
    total = source.info.duration_s
    if source.error is not None:
        at, why = source.error
        if total:
            problems.append(warning(messages.STOPPED_AT, at=at, total=total, reason=why))
        else:
            problems.append(warning(messages.STOPPED_AT_UNKNOWN_LENGTH, at=at, reason=why))
    bad = source.bad_packets
    if bad:
        problems.append(warning(messages.DAMAGED_PACKETS, count=bad, at=source.first_bad))
    if not problems and total and total - decoded_s > max(_SHORTFALL_S, _SHORTFALL_FRACTION * total):
        problems.append(warning(messages.ENDS_EARLY, decoded=decoded_s, total=total))
    return problems
