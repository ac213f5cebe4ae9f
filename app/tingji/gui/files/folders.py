"""Which files a drop or an "Add folder" means. Imports no Qt.

A file the user names explicitly is always queued, whatever its extension: if
it is not media, the queue shows why, which is more useful than silently
ignoring it. A folder, though, is walked recursively and only files that look
like audio or video are taken, so dropping a project folder does not queue its
PDFs and spreadsheets as errors.

Walking a big folder can take seconds, so the GUI runs `expand` on a worker
thread (files.workers.ScanWorker); `on_found` lets it show progress and stop early.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

MEDIA_EXTENSIONS = frozenset(
    # audio
    "wav wave flac mp3 m4a m4b aac ogg oga opus wma aif aiff aifc caf amr ac3 mka ape wv au snd spx "
    # video (their audio track is transcribed)
    "mp4 m4v mov mkv webm avi wmv flv mpg mpeg ts mts m2ts 3gp 3g2 ogv vob".split()
)


def is_media(path: str | os.PathLike[str]) -> bool:
    return Path(path).suffix.lower().lstrip(".") in MEDIA_EXTENSIONS


def _natural_key(path: Path) -> list[object]:
    """ "track 2" before "track 10", as a file manager sorts."""
    return [int(t) if t.isdigit() else t.casefold() for t in re.split(r"(\d+)", str(path))]


def has_folder(paths: Iterable[str | os.PathLike[str]]) -> bool:
    """Whether expanding `paths` means walking a folder (one stat per item given)."""
    return any(Path(p).is_dir() for p in paths)


def expand(paths: Iterable[str | os.PathLike[str]], on_found: Callable[[int], bool] | None = None) -> list[str]:
    """Files as given, folders replaced by the media files inside them (recursively, sorted).

    Hidden files and folders (dot names) inside a folder are skipped; the
    result has no duplicates and keeps the order the user gave. `on_found` is
    called with the number of media files found so far after each folder
    visited; when it returns False the walk stops (what was found is returned).
    """
    out: list[str] = []
    seen: set[str] = set()

    def take(p: Path) -> None:
        key = os.path.normcase(os.path.abspath(p))
        if key not in seen:
            seen.add(key)
            out.append(os.path.abspath(p))

    for item in paths:
        p = Path(item)
        if p.is_dir():
            found: list[Path] = []
            for root, dirs, files in os.walk(p):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                found.extend(Path(root, f) for f in files if not f.startswith(".") and is_media(f))
                if on_found is not None and not on_found(len(out) + len(found)):
                    break
            for f in sorted(found, key=_natural_key):
                take(f)
        else:
            take(p)
    return out


FILE_DIALOG_PATTERNS = " ".join(f"*.{e}" for e in sorted(MEDIA_EXTENSIONS))
