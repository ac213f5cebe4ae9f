"""Where Tingji keeps user data.

Everything a user accumulates (models, settings, the transcription queue and
history, dictation recordings, logs) lives under one folder so that it can be
backed up, wiped or moved as a whole. `TINGJI_HOME` relocates it; otherwise
the platform's per-user data folder is used (via platformdirs).
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "Tingji"


def data_dir() -> Path:
    """The root of all user data; created on first use."""
    home = os.environ.get("TINGJI_HOME")
    if home:
        root = Path(home).expanduser()
    else:
        from platformdirs import user_data_dir

        root = Path(user_data_dir(APP_NAME, appauthor=False, roaming=False))
    root.mkdir(parents=True, exist_ok=True)
    return root


def models_dir() -> Path:
    """Installed models, one sub-folder per model name."""
    path = data_dir() / "models"
    path.mkdir(parents=True, exist_ok=True)
    return path


def graph_cache_dir() -> Path:
    """Built once per machine for the installed models: ONNX Runtime's optimised graphs (tingji.engine.ort_cache)
    and the prompt prefix's cells (tingji.engine.prefix_cache); safe to delete."""
    return data_dir() / "cache" / "onnxruntime"


def logs_dir() -> Path:
    path = data_dir() / "logs"
    path.mkdir(parents=True, exist_ok=True)
    return path


def recordings_dir() -> Path:
    """Dictation takes kept until their text is safely stored."""
    path = data_dir() / "recordings"
    path.mkdir(parents=True, exist_ok=True)
    return path


def voices_dir() -> Path:
    """The voice library: one JSON voice print per remembered speaker (tingji.engine.speakers.library); not
    created here."""
    return data_dir() / "voices"


def settings_path() -> Path:
    return data_dir() / "settings.json"


def database_path() -> Path:
    """The file queue and its results (the GUI's storage)."""
    return data_dir() / "tingji.sqlite3"


def dictation_database_path() -> Path:
    """Dictation history: one row per take, next to the WAVs in `recordings_dir()`."""
    return data_dir() / "dictation.sqlite3"


def cache_dir() -> Path:
    """Partial and finished downloads that an interrupted install resumes from (not created here)."""
    return data_dir() / "cache"


def catalog_overrides_path() -> Path:
    """Hashes pinned by downloads and user additions to the built-in model catalog."""
    return data_dir() / "catalog-overrides.json"


def gui_lock_path() -> Path:
    """Held by the running desktop app: one app per data folder."""
    return data_dir() / "gui.lock"


def gui_log_path() -> Path:
    return logs_dir() / "tingji-gui.log"
