"""A funasr checkpoint's `frontend_conf` as the engine's front-end settings.

Fun-ASR-Nano and SenseVoice-Small both use funasr's `WavFrontend`; their
config.yaml files name its settings in funasr's words (`fs`, `frame_length`,
...). The engine's `FrontendConfig` takes them in its own, always without
dither: funasr's default dither of 1.0 adds random noise to every window,
which is a training-time augmentation, not part of the model.
"""

from __future__ import annotations

from typing import Any

from ..engine.frontend import FrontendConfig


def frontend_settings(conf: dict[str, Any]) -> FrontendConfig:
    """The manifest's `frontend` for a funasr `frontend_conf` (CMVN is not part of it)."""
    return FrontendConfig(
        sample_rate=int(conf.get("fs", 16000)),
        n_mels=int(conf.get("n_mels", 80)),
        frame_length_ms=float(conf.get("frame_length", 25)),
        frame_shift_ms=float(conf.get("frame_shift", 10)),
        lfr_m=int(conf.get("lfr_m", 7)),
        lfr_n=int(conf.get("lfr_n", 6)),
        window=str(conf.get("window", "hamming")),
    )
