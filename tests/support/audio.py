"""Test audio made on the spot: espeak-ng speech, tones, files in many formats."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import soundfile as sf


def espeak(path: Path, text: str, *, voice: str = "en", speed: int = 160, pitch: int = 50) -> np.ndarray:
    """Synthesise `text` to `path` (espeak's native 22.05 kHz WAV) and return it at 16 kHz mono."""
    from tingji.engine import audio

    subprocess.run(
        ["espeak-ng", "-v", voice, "-s", str(speed), "-p", str(pitch), "-w", str(path), text],
        check=True,
        capture_output=True,
    )
    return audio.load(path)


def write_wav(path: Path, samples: np.ndarray, rate: int = 16000, subtype: str = "PCM_16") -> Path:
    sf.write(str(path), samples, rate, subtype=subtype)
    return path


def ffmpeg(*args: str) -> None:
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", *args], check=True)


def damaged_at(path: Path, fraction: float) -> Path:
    """A copy of `path` with 4 KiB of random bytes written over the byte `fraction` of the way in."""
    raw = bytearray(path.read_bytes())
    at = int(len(raw) * fraction)
    raw[at : at + 4096] = np.random.default_rng(3).bytes(4096)
    damaged = path.with_name("damaged " + path.name)
    damaged.write_bytes(bytes(raw))
    return damaged
