"""Speech-like benchmark audio made with espeak-ng: a long file and a short utterance.

The long file is sentences (English and Mandarin voices, varied speed and
pitch) joined by pauses of 0.3-1.5 s, so the VAD finds real cut points and
the encoder sees speech-shaped spectra, as with a recording of someone
talking. Everything is seeded and cached by content.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import numpy as np

SAMPLE_RATE = 16000

SENTENCES_EN = [
    "The meeting will start at three o'clock this afternoon in the main conference room.",
    "Please remember to bring the quarterly report and the updated budget figures.",
    "We reviewed the design yesterday and agreed to ship the first version next week.",
    "The weather today is sunny with a light breeze from the north.",
    "Our team has finished testing the new speech recognition engine on several laptops.",
    "If you have any questions, send them to the project channel before Friday.",
    "The train to the city leaves every twenty minutes from platform four.",
    "She opened the window, looked at the garden, and decided to go for a walk.",
    "Numbers like one hundred and twenty five are often written as digits.",
    "Offline transcription keeps recordings private because nothing leaves the computer.",
    "The library closes at nine in the evening on weekdays and at six on weekends.",
    "He said the results were better than expected, but more work is needed.",
]
SENTENCES_ZH = [
    "今天天气很好，我们一起去学校吧。",
    "会议记录明天下午三点开始，请大家准时参加。",
    "这个语音识别软件可以在没有网络的情况下使用。",
    "请把文件发给我，谢谢。",
    "我们下周一再讨论这个问题。",
]


def _espeak(text: str, voice: str, speed: int, pitch: int) -> np.ndarray:
    from tingji.engine import audio

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.wav"
        subprocess.run(
            ["espeak-ng", "-v", voice, "-s", str(speed), "-p", str(pitch), "-w", str(path), text],
            check=True,
            capture_output=True,
        )
        return audio.load(path)


def make_long(path: Path, seconds: float, seed: int = 0) -> Path:
    """Write `seconds` of espeak sentences with pauses to `path` (16 kHz mono PCM16 WAV)."""
    import soundfile as sf

    path = Path(path)
    if path.is_file():
        return path
    rng = np.random.default_rng(seed)
    total = int(seconds * SAMPLE_RATE)
    pieces: list[np.ndarray] = []
    n = 0
    i = 0
    while n < total:
        if rng.random() < 0.25:
            text, voice = SENTENCES_ZH[i % len(SENTENCES_ZH)], "cmn"
        else:
            text, voice = SENTENCES_EN[i % len(SENTENCES_EN)], "en"
        i += 1
        speech = _espeak(text, voice, int(rng.integers(140, 190)), int(rng.integers(30, 70)))
        pause = np.zeros(int(rng.uniform(0.3, 1.5) * SAMPLE_RATE), np.float32)
        for part in (speech * 0.8, pause):
            pieces.append(part.astype(np.float32))
            n += len(part)
    samples = np.concatenate(pieces)[:total]
    # A faint noise floor, as in any recording (pure digital silence is unrealistic).
    samples = samples + rng.standard_normal(len(samples)).astype(np.float32) * 1e-3
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".part.wav")
    sf.write(str(tmp), samples, SAMPLE_RATE, subtype="PCM_16")
    tmp.replace(path)
    return path


def make_utterance(seconds: float = 3.0, seed: int = 1) -> np.ndarray:
    """One dictation-like utterance of exactly `seconds` (speech, then a short tail of quiet)."""
    rng = np.random.default_rng(seed)
    speech = _espeak("Please send the report to the team before Friday.", "en", 175, 50) * 0.8
    total = int(seconds * SAMPLE_RATE)
    out = np.zeros(total, np.float32)
    lead = int(0.1 * SAMPLE_RATE)
    take = min(len(speech), total - lead - int(0.2 * SAMPLE_RATE))
    out[lead : lead + take] = speech[:take]
    return out + rng.standard_normal(total).astype(np.float32) * 1e-3
