"""The download cache under `data_dir()/cache/`: what an interrupted download resumes from.

Downloads go here rather than into the staging folder so that a failed or
cancelled install keeps its bytes; a retry then fetches only what is missing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ..paths import data_dir
from .catalog import NAME_RE


def cache_dir(*parts: str) -> Path:
    path = data_dir().joinpath("cache", *parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def clear_cache() -> None:
    """Drop downloaded checkpoints and partial downloads kept for resuming."""
    shutil.rmtree(data_dir() / "cache", ignore_errors=True)


def cached_bytes(name: str) -> int:
    """Bytes kept for catalog model `name` (finished files and `.part`s): what a retry resumes from."""
    if not NAME_RE.match(name):
        return 0
    root = data_dir() / "cache" / name
    return sum(f.stat().st_size for f in root.rglob("*") if f.is_file()) if root.is_dir() else 0


def discard_cached(name: str) -> None:
    """Forget a catalog model's partial download (the next download starts from zero)."""
    if NAME_RE.match(name):
        shutil.rmtree(data_dir() / "cache" / name, ignore_errors=True)
