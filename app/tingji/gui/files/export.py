"""Writing transcripts where the user keeps files, without ever replacing one Tingji did not write. No Qt.

A transcript's formats go to `<stem>.<format>` when those names are free,
else to the first `<stem> (2).<format>`, `<stem> (3).<format>`, ... where
every format's name is free, so the files of one transcript keep one name. A
name is taken by creating it with O_EXCL before the content is written
(atomically, by tingji.engine.writers), so a file that appears in between is
not replaced either. The paths used are returned for the app to show.

Automatic export writes beside the source file, and there one more kind of
name counts as free: a file Tingji wrote for that same source and nobody
changed since (the queue database remembers what it wrote, `Store.written`),
so transcribing a file again updates its own output instead of piling up
copies. The user's `meeting.txt`, or the output of `a.wav` when this is
`a.mp3`, is never replaced.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from ...engine.transcript import Transcript
from ...engine.writers import write
from .storage import WrittenFile, file_key

MAX_NUMBER = 10_000


def stems(stem: str) -> Iterator[str]:
    """`stem`, then `stem (2)`, `stem (3)`, ..."""
    yield stem
    for n in range(2, MAX_NUMBER):
        yield f"{stem} ({n})"


def claim(path: Path) -> bool:
    """Create `path` empty if nobody has it yet; False when it exists."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        return False
    os.close(fd)
    return True


def write_free(
    transcript: Transcript,
    folder: Path,
    stem: str,
    formats: Sequence[str],
    reusable: Callable[[Path], bool] = lambda path: False,
) -> list[Path]:
    """Write every format under the first name whose files are all free or `reusable` (files Tingji
    wrote itself and may replace); returns the paths written. OSError/TingjiError when the folder
    cannot be written: the empty names already claimed are removed again."""
    for name in stems(stem):
        paths = [folder / f"{name}.{fmt}" for fmt in formats]
        if any(p.exists() and not reusable(p) for p in paths):
            continue
        claimed = []
        try:
            for path in paths:
                if not reusable(path):
                    if not claim(path):
                        raise FileExistsError(path)  # appeared just now: try the next name
                    claimed.append(path)
            return [write(transcript, path, fmt) for path, fmt in zip(paths, formats)]
        except FileExistsError:
            for path in claimed:
                path.unlink(missing_ok=True)
        except BaseException:
            for path in claimed:
                path.unlink(missing_ok=True)
            raise
    raise FileExistsError(folder / f"{stem}.{formats[0]}")


def save_to_folder(items: Sequence[tuple[str, Transcript]], folder: Path, formats: Sequence[str]) -> list[Path]:
    """Each (source path, transcript) in every format into `folder`, named after its source; never
    replaces a file. Returns the paths written."""
    return [
        path
        for source, transcript in items
        for path in write_free(transcript, folder, Path(source).stem or "transcript", formats)
    ]


def replaceable(record: WrittenFile | None, path: Path, source: str) -> bool:
    """True for a file Tingji wrote for this very source and nobody changed since (same size and
    modification time as recorded): re-transcribing the source may replace it. Anything else, the
    user's own `meeting.txt` or the output of `a.wav` when this is `a.mp3`, is left alone."""
    if record is None or record.source != file_key(source):
        return False
    try:
        st = path.stat()
    except OSError:
        return False
    return (st.st_size, st.st_mtime_ns) == (record.size, record.mtime_ns)


def export_beside_source(
    transcript: Transcript, source: str, formats: Sequence[str], written: Callable[[Path], WrittenFile | None]
) -> list[Path]:
    """Automatic export: `<source stem>.<format>` beside the source, or the first free `<stem> (n)`
    name; `written(path)` is what the store recorded for a path Tingji wrote. Returns the paths."""
    src = Path(source)
    return write_free(
        transcript,
        src.parent,
        src.stem or "transcript",
        formats,
        reusable=lambda path: replaceable(written(path), path, source),
    )
