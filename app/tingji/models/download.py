"""Resumable, verified downloads of large model files (standard library only).

`download()` fetches one file from a list of mirrors into `<dest>.part`,
resuming with HTTP Range requests after a cut connection, retrying with
exponential back-off, aborting attempts that stall, and falling back to the
next mirror. The file appears under its final name (`os.replace`) only after it
is complete and, when a SHA-256 is known, matches it; when none is known the
hash is computed and returned so the caller can pin it.

Only HTTPS URLs are accepted, loopback hosts included: any other URL, and a
redirect to one, is refused before a connection is made. (The test suite's
local server speaks HTTPS with a certificate from a CA made for the test.)

This module is the policy (attempts, back-off, mirrors, the final hash check);
one ranged GET with its stall watchdog is `http_range`, free-space checks and
human sizes are `diskspace`.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from ..engine.manifest import sha256_file
from ..errors import Cancelled, ModelError
from . import messages
from .diskspace import ensure_space
from .http_range import Meter, NextMirror, Progress, Retry, Transfer, attempt, check_url
from .partfile import MiB, PartFile

#: An attempt that delivered at least this much before failing is not counted
#: against the retry budget: a flaky but working link should finish a large file.
PROGRESS_RESET_BYTES = 8 * MiB
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class DownloadResult:
    path: Path
    sha256: str
    size: int
    url_used: str | None  # None when `dest` was already present and verified


class NotFound(ModelError):
    """Every mirror answered 404/410: the file does not exist there."""


def _host(url: str) -> str:
    return urlsplit(url).netloc or url


def download(
    urls: list[str],
    dest: Path,
    *,
    sha256: str | None,
    size: int | None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    stall_timeout: float = 30.0,
    retries: int = 5,
    chunk: int = MiB,
    backoff: float = 1.0,
    max_backoff: float = 60.0,
    disk_free: Callable[[Path], int] | None = None,
) -> DownloadResult:
    """Download one file from `urls` (mirrors, tried in order) to `dest`.

    - HTTPS only (redirects too); certificates are checked as `ssl.create_default_context()` does.
    - Free space is checked first when `size` is known (`disk_free(folder)`,
      default `shutil.disk_usage`), else as soon as the server states a length.
    - Bytes go to `<dest>.part`; a later attempt or call resumes from its length,
      with `If-Range` naming the version of the file those bytes came from; a
      file that changed starts over (`partfile`). Bytes of an unknown version
      are resumed only when `sha256` is given, else discarded.
    - Each mirror gets `1 + retries` attempts, back-off `backoff * 2**n` seconds
      capped at `max_backoff`; an attempt with no bytes for `stall_timeout`
      seconds is aborted; then the next mirror continues the same `.part`.
    - `progress(done, total, bytes_per_second)`; `cancel.set()` raises
      `Cancelled`, leaving at most the `.part` file.
    - A SHA-256 mismatch deletes the `.part` and raises ModelError. Without a
      known hash the computed one is returned for the caller to pin.
    """
    urls, dest, expected = _checked_request(urls, dest, sha256)
    if cancel is not None and cancel.is_set():
        raise Cancelled()
    dest.parent.mkdir(parents=True, exist_ok=True)
    if expected is not None and _already_there(dest, expected, size):
        return DownloadResult(dest, expected, dest.stat().st_size, None)
    part = _open_part(dest, size, disk_free)
    how = Transfer(size, stall_timeout, chunk, cancel, Meter(progress, size), disk_free, checked=expected is not None)
    return _from_mirrors(
        urls, dest, part, how, expected, size, retries=retries, backoff=backoff, max_backoff=max_backoff
    )


def _already_there(dest: Path, expected: str, size: int | None) -> bool:
    """Whether `dest` is already the file: its size (when known) and then its SHA-256 match."""
    return dest.is_file() and (size is None or dest.stat().st_size == size) and sha256_file(dest) == expected


def _from_mirrors(
    urls: list[str],
    dest: Path,
    part: PartFile,
    how: Transfer,
    expected: str | None,
    size: int | None,
    *,
    retries: int,
    backoff: float,
    max_backoff: float,
) -> DownloadResult:
    """Each mirror in turn continues `part` until one gives the whole file (the right size and hash), which then
    becomes `dest`; else one error for them all (`_failure`)."""
    failures: list[str] = []
    not_found = 0
    mismatch: str | None = None
    resumed_stale = part.length > 0  # bytes from an earlier run: suspect on a mismatch
    index = 0
    while index < len(urls):
        url = urls[index]
        try:
            _fetch_mirror(url, part, how, retries=retries, backoff=backoff, max_backoff=max_backoff)
        except NextMirror as exc:
            failures.append(f"{_host(url)}: {exc}")
            not_found += exc.not_found
            index += 1
            continue
        actual = part.hasher.hexdigest()
        if size is not None and part.length != size:
            failures.append(f"{_host(url)}: got {part.length} bytes, expected {size}")
            part.delete()
            index += 1
            continue
        if expected is not None and actual != expected:
            mismatch = actual
            part.delete()
            if resumed_stale:
                resumed_stale = False  # the old .part may be the culprit: same mirror, from zero
                continue
            failures.append(f"{_host(url)}: SHA-256 mismatch")
            index += 1
            continue
        length = part.length
        part.finished(dest)
        return DownloadResult(dest, actual, length, url)

    raise _failure(dest, expected, mismatch, failures, not_found == len(urls))


def _open_part(dest: Path, size: int | None, disk_free: Callable[[Path], int] | None) -> PartFile:
    """`<dest>.part` to resume from (one longer than `size` starts over), with room left for the rest."""
    part = PartFile(dest.with_name(dest.name + ".part"))
    if size is not None:
        if part.length > size:
            part.reset()
        ensure_space(dest.parent, size - part.length, disk_free)
    return part


def _failure(
    dest: Path, expected: str | None, mismatch: str | None, failures: list[str], all_not_found: bool
) -> ModelError:
    """One error for all mirrors: a hash mismatch everywhere, 404 everywhere, or each mirror's reason."""
    if mismatch is not None and all(f.endswith("SHA-256 mismatch") for f in failures):
        return ModelError(messages.HASH_MISMATCH, name=dest.name, expected=expected, actual=mismatch)
    if all_not_found:
        return NotFound(messages.NOT_ON_ANY_MIRROR, name=dest.name, reasons="; ".join(failures))
    return ModelError(messages.DOWNLOAD_FAILED, name=dest.name, reasons="; ".join(failures))


def _checked_request(urls: list[str], dest: Path, sha256: str | None) -> tuple[list[str], Path, str | None]:
    """Refuse a bad request before anything is touched: no URL, a non-https URL, a malformed hash."""
    urls = [str(u) for u in urls]
    if not urls:
        raise ModelError(messages.NO_URL, name=Path(dest).name)
    for url in urls:
        check_url(url)
    dest = Path(dest)
    expected = sha256.strip().lower() if sha256 else None
    if expected is not None and not _HEX64.match(expected):
        raise ModelError(messages.NOT_A_HASH, name=dest.name, value=sha256)
    return urls, dest, expected


def _fetch_mirror(url: str, part: PartFile, how: Transfer, *, retries: int, backoff: float, max_backoff: float) -> None:
    """Attempts at one mirror until the file is complete, with back-off between them (`NextMirror`: give up)."""
    cancel = how.cancel
    failures = 0
    while True:
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        try:
            attempt(url, part, how)
            return
        except Retry as exc:
            if exc.progressed < PROGRESS_RESET_BYTES:
                failures += 1
            if failures > retries:
                raise NextMirror(f"{exc} (gave up after {failures} attempts)") from None
            delay = min(backoff * (2 ** max(failures - 1, 0)), max_backoff)
            if cancel is not None:
                if cancel.wait(delay):
                    raise Cancelled() from None
            else:
                time.sleep(delay)
