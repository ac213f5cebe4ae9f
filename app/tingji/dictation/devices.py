"""Audio devices through PortAudio (sounddevice): finding, opening, re-scanning, playback.

The input stream is opened at the device's own default sample rate and (up to
two) channels, because asking PortAudio for 16 kHz makes some drivers (MME,
some USB mics) resample badly or refuse; conversion to 16 kHz mono is
`resample.py`'s. ALSA's "default"/"pulse" devices claim 32 channels; we take
at most two, which is all a microphone really delivers.

PortAudio's errors become `MicrophoneError` with a one-line message.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import TingjiError
from ..system_libraries import PORTAUDIO, missing_from
from . import messages


class MicrophoneError(TingjiError):
    """The microphone cannot be opened or used; the message is one line for the user."""


@dataclass(frozen=True)
class OpenedStream:
    stream: Any  # a started sounddevice.InputStream
    name: str
    rate: int
    channels: int


def sounddevice() -> Any:
    """The sounddevice module, imported at first use so the app starts without PortAudio.

    Raises MicrophoneError naming the missing library and its package (`portaudio_missing`)."""
    try:
        import sounddevice as sd
    except OSError as exc:
        raise portaudio_missing(exc) from None
    return sd


def portaudio_missing(exc: BaseException) -> MicrophoneError:
    """What dictation says when sounddevice cannot load PortAudio (or a library PortAudio links).

    sounddevice raises OSError "PortAudio library not found" when the loader cannot find it at
    all, and the loader's own text (which names the file) when one is there but does not load."""
    lib = missing_from(exc) or PORTAUDIO
    if not lib.package:
        return MicrophoneError(messages.INPUT_UNAVAILABLE, reason=oneline(exc))
    return MicrophoneError(messages.INPUT_LIBRARY_MISSING, library=lib.soname, package=lib.package)


def refresh_devices() -> None:
    """Re-scan audio devices (PortAudio only enumerates them at initialisation).

    Needed after a device was plugged in, or when the sound server started
    after us. It ends every open PortAudio stream in the process, so call it
    only while none is open.
    """
    sd = sounddevice()
    try:
        sd._terminate()
    finally:
        sd._initialize()


def open_input_stream(
    device: int | str | None, callback: Callable[[np.ndarray, int, Any, Any], None], finished: Callable[[], None]
) -> OpenedStream:
    """Start an input stream on `device` (None: the default) in its native format. Raises MicrophoneError."""
    sd = sounddevice()
    try:
        info = sd.query_devices(device, kind="input")
    except (sd.PortAudioError, ValueError) as exc:
        if device is None:
            raise MicrophoneError(messages.NO_MICROPHONE) from None
        raise MicrophoneError(messages.MICROPHONE_NOT_FOUND, device=device, reason=oneline(exc)) from None
    rate = int(round(info["default_samplerate"]))
    channels = max(1, min(2, int(info["max_input_channels"])))
    if channels < 1 or info["max_input_channels"] < 1:
        raise MicrophoneError(messages.NOT_AN_INPUT, name=info["name"])
    try:
        stream = sd.InputStream(
            device=device,
            samplerate=rate,
            channels=channels,
            dtype="float32",
            callback=callback,
            finished_callback=finished,
        )
        stream.start()
    except (sd.PortAudioError, ValueError) as exc:
        raise MicrophoneError(messages.CANNOT_OPEN, name=info["name"], reason=oneline(exc)) from None
    return OpenedStream(stream, info["name"], rate, channels)


def play_file(path: str) -> None:
    """Play a recording on the default output (non-blocking; for the history's Play button)."""
    import soundfile as sf

    sd = sounddevice()
    data, rate = sf.read(str(path), dtype="float32", always_2d=False)
    try:
        sd.play(data, rate)
    except (sd.PortAudioError, ValueError) as exc:
        raise MicrophoneError(messages.CANNOT_PLAY, path=path, reason=oneline(exc)) from None


def stop_playback() -> None:
    try:
        sounddevice().stop()
    except Exception:  # noqa: BLE001
        pass


def oneline(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__
