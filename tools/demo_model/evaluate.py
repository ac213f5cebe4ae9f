"""The exported demo model judged through the real inference path: word error rate on held-out speech."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .speech import HeldOutUtterance
from .text import normalise_words, wer


def evaluate(model_dir: Path, utterances: Sequence[HeldOutUtterance], threads: int = 2) -> dict:
    """WER through the real inference path: Engine.transcribe (numpy features, ONNX, llama.cpp)."""
    from tingji.engine import Engine

    engine = Engine(model_dir, threads=threads)
    try:
        hyps = [engine.transcribe(u.samples).text for u in utterances]
    finally:
        engine.close()
    refs = [u.text for u in utterances]
    return {
        "wer": wer(refs, hyps),
        "utterances": len(refs),
        "exact": sum(normalise_words(r) == normalise_words(h) for r, h in zip(refs, hyps)),
        "errors": [
            {"ref": r, "hyp": h, "voice": u.speaker.voice, "speed": u.speaker.speed}
            for r, h, u in zip(refs, hyps, utterances)
            if normalise_words(r) != normalise_words(h)
        ],
    }
