"""Microphone capture: device-native stream -> 16 kHz mono, with a pre-roll.

The stream is opened at the device's own native format (devices.py) and
converted to 16 kHz mono by us; a ring buffer keeps the last `pre_roll_s`
seconds so a take starts with the audio from just before the key press
(resample.py). This module is the Microphone: when the stream is open, the
take boundaries, and the threads.

* keep_open=True: the stream runs all the time. Full pre-roll on every take,
  but the OS shows the microphone as in use (privacy indicator, and some
  Bluetooth headsets drop to their low-quality headset profile) and a little
  CPU is spent all day.
* keep_open=False (default): the stream opens when the hotkey is *armed* (its
  modifiers are down, typically 100-300 ms before the trigger key) or, for a
  hotkey without modifiers, on the key press, and stays open `linger_s`
  after a take so that quick follow-up takes get a full pre-roll too. The
  first take after a pause only has the audio from the moment the stream
  opened, plus the time the device needs to start (tens of ms on WASAPI/
  PulseAudio, more on some USB devices).

Threads: PortAudio's callback only copies the block into a queue (it must
not block); one worker thread per Microphone downmixes, resamples, fills the
ring/take and calls `on_audio`. Take boundaries are also queue items, so a
take contains exactly the audio captured before `end()`, in order.

Failures become `MicrophoneError` (opening) or an `on_error(error)` call
(during a take: device unplugged -> PortAudio error -> stream finished
callback; or the stream silently stops delivering). The partial take is kept:
`end()` still returns what was captured.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import messages
from .devices import MicrophoneError, open_input_stream, refresh_devices
from .resample import RATE, PreRoll, make_resampler, to_mono_16k

__all__ = ["Microphone", "TakeAudio"]

log = logging.getLogger(__name__)

_UNSET = object()


@dataclass
class TakeAudio:
    """A finished take: 16 kHz mono float32 samples, and why it ended early if it did."""

    samples: np.ndarray
    pre_roll_s: float = 0.0
    error: MicrophoneError | None = None  # device failure during the take: the samples are partial

    @property
    def duration(self) -> float:
        return len(self.samples) / RATE


# What the worker thread's queue carries (None: quit). Take boundaries travel with the blocks, so a
# take holds exactly the audio captured before its end; `done` is set once the worker handled one.
@dataclass(frozen=True)
class _Block:
    gen: int  # the stream it came from: a block of a closed stream is dropped
    data: np.ndarray
    t: float


@dataclass(frozen=True)
class _Begin:
    done: threading.Event


@dataclass(frozen=True)
class _End:
    done: threading.Event
    box: list[TakeAudio]  # the worker puts the take's audio here


@dataclass(frozen=True)
class _Lost:
    gen: int
    error: MicrophoneError


class Microphone:
    """One input device, opened on demand, with a pre-roll ring buffer."""

    def __init__(
        self,
        device: int | str | None = None,
        *,
        pre_roll_s: float = 0.5,
        keep_open: bool = False,
        linger_s: float = 15.0,
        stall_timeout_s: float = 2.0,
        start_timeout_s: float = 6.0,
        on_audio: Callable[[np.ndarray], None] | None = None,
        on_error: Callable[[MicrophoneError], None] | None = None,
    ) -> None:
        self.device = device
        self.pre_roll_s = pre_roll_s
        self.keep_open = keep_open
        self.linger_s = linger_s
        self.stall_timeout_s = stall_timeout_s
        self.start_timeout_s = start_timeout_s
        self.frames_captured = 0  # 16 kHz samples delivered by the current stream
        self.on_audio = on_audio
        self.on_error = on_error
        self.level = 0.0  # RMS of the last block, for a level meter
        self.device_rate: int | None = None
        self.device_channels: int | None = None
        self.overflows = 0

        self._lock = threading.RLock()
        self._queue: queue.SimpleQueue[_Block | _Begin | _End | _Lost | None] = queue.SimpleQueue()
        self._stream: Any = None
        self._gen = 0  # stream generation: blocks of a closed stream are ignored
        self._closing_gen = -1
        self._dead = False  # the current stream failed
        self._last_block = 0.0
        self._resampler: Any = None
        self._ring = PreRoll()
        self._ring_gen = -1
        self._take: list[np.ndarray] | None = None
        self._take_error: MicrophoneError | None = None
        self._take_pre_roll = 0
        self._armed = False
        self._linger: threading.Timer | None = None
        self._linger_token = 0
        self._taking = False  # between begin() and end()
        self._needs_refresh = False
        self._worker = threading.Thread(target=self._work, name="tingji-mic", daemon=True)
        self._worker.start()

    # -- public API (called from the controller's thread) -------------------------

    @property
    def is_open(self) -> bool:
        return self._stream is not None and not self._dead

    @property
    def recording(self) -> bool:
        return self._take is not None

    def open(self) -> None:
        """Start the stream (idempotent). Raises MicrophoneError."""
        with self._lock:
            self._cancel_linger()
            if self.is_open:
                return
            self._close_stream()
            try:
                self._open_stream()
            except MicrophoneError:
                # The device list may be stale (device plugged in later, sound
                # server restarted): re-scan once and try again.
                refresh_devices()
                self._open_stream()

    def prepare(self, armed: bool = True) -> None:
        """The user is about to talk (hotkey modifiers down): open early for pre-roll."""
        self._armed = armed
        if armed:
            try:
                self.open()
            except MicrophoneError as exc:
                log.info("early open failed: %s", exc)  # begin() will report it
        else:
            self._maybe_linger()

    def begin(self) -> None:
        """Start a take with the pre-roll; audio from now on goes to `on_audio` and the take."""
        with self._lock:
            self._taking = True  # set before the lock is released: a pending linger timer must not close
            try:
                self.open()
            except MicrophoneError:
                self._taking = False
                raise
        done = threading.Event()
        self._queue.put(_Begin(done))
        done.wait(2.0)

    def end(self, tail_s: float | None = None) -> TakeAudio:
        """Finish the take and return its audio (partial when the device failed)."""
        stream = self._stream
        if tail_s is None:
            # What was spoken just before the key release is still in the driver's buffer.
            latency = getattr(stream, "latency", 0.0) if stream is not None and not self._dead else 0.0
            tail_s = min(0.25, float(latency or 0.0) + 0.03)
        if tail_s > 0 and self.is_open:
            time.sleep(tail_s)
        box: list[TakeAudio] = []
        done = threading.Event()
        self._queue.put(_End(done, box))
        done.wait(5.0)
        self._taking = False
        self._maybe_linger()
        return box[0] if box else TakeAudio(np.zeros(0, np.float32))

    def set_options(
        self,
        *,
        device: int | str | None | object = _UNSET,
        pre_roll_s: float | None = None,
        keep_open: bool | None = None,
    ) -> None:
        """Apply changed settings; a new device takes effect at the next take."""
        with self._lock:
            if pre_roll_s is not None:
                self.pre_roll_s = pre_roll_s
            if keep_open is not None:
                self.keep_open = keep_open
            if device is not _UNSET and device != self.device:
                self.device = device
                if not self._taking:
                    self._close_stream()
            if self.keep_open and not self._taking:
                try:
                    self.open()
                except MicrophoneError as exc:
                    self._report(exc)
            else:
                self._maybe_linger()

    def close(self) -> None:
        """Stop the stream and the worker thread."""
        with self._lock:
            self._cancel_linger()
            self._close_stream()
        self._queue.put(None)
        self._worker.join(5.0)

    # -- stream handling ----------------------------------------------------------

    def _open_stream(self) -> None:
        self._gen += 1
        gen = self._gen

        def callback(indata: np.ndarray, frames: int, t: Any, status: Any) -> None:
            if status and status.input_overflow:
                self.overflows += 1
            self._queue.put(_Block(gen, indata.copy(), time.monotonic()))

        def finished() -> None:
            # Runs on PortAudio's thread when the stream ends: normal after our
            # own stop(), a failure otherwise (device unplugged, server gone).
            if self._closing_gen != gen:
                self._queue.put(_Lost(gen, MicrophoneError(messages.DISCONNECTED)))

        opened = open_input_stream(self.device, callback, finished)
        rate, channels = opened.rate, opened.channels
        self._resampler = make_resampler(rate)
        self._stream = opened.stream
        self._dead = False
        self._last_block = time.monotonic()
        self.frames_captured = 0
        self.device_rate, self.device_channels = rate, channels
        log.info("microphone open: %s, %d Hz, %d ch", opened.name, rate, channels)

    def _close_stream(self) -> None:
        stream, self._stream = self._stream, None
        if stream is None:
            return
        self._closing_gen = self._gen
        try:
            stream.stop()
        except Exception:  # noqa: BLE001 - a dead device may fail to stop; closing is what matters
            pass
        try:
            stream.close()
        except Exception:  # noqa: BLE001
            pass
        if self._dead or self._needs_refresh:
            self._needs_refresh = False
            try:
                refresh_devices()
            except Exception as exc:  # noqa: BLE001
                log.warning("device re-scan failed: %s", exc)

    def _maybe_linger(self) -> None:
        with self._lock:
            self._cancel_linger()
            if self.keep_open or self._armed or self._taking or self._stream is None:
                return
            if self.linger_s <= 0:
                self._close_stream()
                return
            self._linger = threading.Timer(self.linger_s, self._linger_close, (self._linger_token,))
            self._linger.daemon = True
            self._linger.start()

    def _linger_close(self, token: int) -> None:
        with self._lock:
            # A timer that fired while begin()/prepare() held the lock was cancelled too late: the token says so.
            if token == self._linger_token and not self.keep_open and not self._armed and not self._taking:
                self._close_stream()

    def _cancel_linger(self) -> None:
        self._linger_token += 1
        if self._linger is not None:
            self._linger.cancel()
            self._linger = None

    def _report(self, error: MicrophoneError) -> None:
        if self.on_error is not None:
            try:
                self.on_error(error)
            except Exception:  # noqa: BLE001
                log.exception("on_error callback failed")

    # -- worker thread ---------------------------------------------------------------

    def _work(self) -> None:
        while True:
            try:
                item = self._queue.get(timeout=0.25)
            except queue.Empty:
                self._check_stall()
                continue
            if item is None:
                return
            try:
                match item:
                    case _Block(gen, data, t):
                        self._on_block(gen, data, t)
                    case _Begin():
                        self._on_begin()
                    case _End(box=box):
                        box.append(self._on_end())
                    case _Lost(gen, error):
                        self._on_lost(gen, error)
            except Exception:  # noqa: BLE001 - the worker must survive a bad block or callback
                log.exception("microphone worker")
            finally:
                if isinstance(item, (_Begin, _End)):
                    item.done.set()  # whoever waits for the boundary goes on, handled or not

    def _on_block(self, gen: int, block: np.ndarray, t: float) -> None:
        if gen != self._gen or self._dead:
            return
        self._last_block = t
        if gen != self._ring_gen:  # the ring of a previous stream is stale audio
            self._ring.clear()
            self._ring_gen = gen
        out = to_mono_16k(block, self._resampler)
        if not len(out):
            return
        self.frames_captured += len(out)
        self.level = float(np.sqrt(np.mean(out * out)))
        self._ring.push(out, int(self.pre_roll_s * RATE))
        if self._take is not None:
            self._take.append(out)
            self._deliver(out)

    def _on_begin(self) -> None:
        pre = self._ring.last(self.pre_roll_s)
        self._take = [pre]
        self._take_pre_roll = len(pre)
        self._take_error = None
        if len(pre):
            self._deliver(pre)

    def _on_end(self) -> TakeAudio:
        parts, self._take = self._take or [], None
        samples = np.concatenate(parts) if parts else np.zeros(0, np.float32)
        return TakeAudio(samples.astype(np.float32, copy=False), self._take_pre_roll / RATE, self._take_error)

    def _on_lost(self, gen: int, error: MicrophoneError) -> None:
        if gen != self._gen or self._dead:
            return
        self._dead = True
        self._needs_refresh = True
        log.warning("%s", error)
        if self._take is not None:
            self._take_error = error
            self._report(error)
        # Lost while idle (sleep/resume, a USB hub reset): nobody is waiting for
        # audio, so no message; the next take reopens the stream and reports
        # if that fails.

    def _check_stall(self) -> None:
        stream = self._stream
        if stream is None or self._dead or self.stall_timeout_s <= 0:
            return
        # Some devices (and PulseAudio monitors) take a second or more to
        # deliver the first block; a stall only counts once audio flowed.
        started = self.frames_captured > 0
        limit = self.stall_timeout_s if started else max(self.stall_timeout_s, self.start_timeout_s)
        if time.monotonic() - self._last_block > limit:
            self._on_lost(
                self._gen, MicrophoneError(messages.STOPPED_DELIVERING if started else messages.DELIVERS_NOTHING)
            )

    def _deliver(self, block: np.ndarray) -> None:
        if self.on_audio is not None:
            self.on_audio(block)
