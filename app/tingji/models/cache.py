"""The download cache (`paths.cache_dir()`): what an interrupted download resumes from.

Downloads go here rather than into the staging folder so that a failed or
cancelled install keeps its bytes; a retry then fetches only what is missing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ..paths import cache_dir
from .catalog import NAME_RE
from .partfile import RESUME_SUFFIX


def cache_subdir(*parts: str) -> Path:
    """A folder under the download cache, created on first use."""
    path = cache_dir().joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def cached_bytes(name: str) -> int:
    """Bytes kept for catalog model `name` (finished files and `.part`s): what a retry resumes from."""
    if not NAME_RE.match(name):
        return 0
    root = cache_dir() / name
    if not root.is_dir():
        return 0
    return sum(f.stat().st_size for f in root.rglob("*") if f.is_file() and not f.name.endswith(RESUME_SUFFIX))


def discard_cached(name: str) -> None:
    """Forget a catalog model's partial download (the next download starts from zero)."""
    if NAME_RE.match(name):
        shutil.rmtree(cache_dir() / name, ignore_errors=True)
