"""Resumable, verified downloads of large model files (standard library only).

`download()` fetches one file from a list of mirrors into `<dest>.part`,
resuming with HTTP Range requests after a cut connection, retrying with
exponential back-off, aborting attempts that stall, and falling back to the
next mirror. The file appears under its final name (`os.replace`) only after it
is complete and, when a SHA-256 is known, matches it; when none is known the
hash is computed and returned so the caller can pin it.

Only HTTPS URLs are accepted. Plain http is allowed for loopback hosts
(127.0.0.1, ::1, localhost) only, which is what the test suite's local server
uses; any other http URL is refused before a connection is made.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import re
import shutil
import socket
import ssl
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from urllib.parse import urljoin, urlsplit

from .. import __version__
from ..engine.errors import Cancelled, ModelError
from ..engine.manifest import sha256_file

MiB = 1 << 20
#: An attempt that delivered at least this much before failing is not counted
#: against the retry budget: a flaky but working link should finish a large file.
PROGRESS_RESET_BYTES = 8 * MiB
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
_MAX_REDIRECTS = 10
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CONTENT_RANGE = re.compile(r"^\s*bytes\s+(\d+)-(\d+)/(\d+|\*)\s*$", re.I)
_HEX64 = re.compile(r"^[0-9a-f]{64}$")

Progress = Callable[[int, "int | None", float], None]
"""progress(done_bytes, total_bytes_or_None, bytes_per_second)"""


@dataclass(frozen=True)
class DownloadResult:
    path: Path
    sha256: str
    size: int
    url_used: str | None  # None when `dest` was already present and verified


class NotFound(ModelError):
    """Every mirror answered 404/410: the file does not exist there."""


class _Retry(Exception):
    """This attempt failed in a way another attempt may fix."""

    def __init__(self, message: str, progressed: int = 0) -> None:
        super().__init__(message)
        self.progressed = progressed


class _NextMirror(Exception):
    """This mirror cannot serve the file; retrying it is pointless."""

    def __init__(self, message: str, not_found: bool = False) -> None:
        super().__init__(message)
        self.not_found = not_found


def format_bytes(n: float) -> str:
    """Human size for messages: GB for large amounts, MB/kB below."""
    if n >= 100e6:
        return f"{n / 1e9:.1f} GB"
    if n >= 1e6:
        return f"{n / 1e6:.1f} MB"
    if n >= 1e3:
        return f"{n / 1e3:.1f} kB"
    return f"{int(n)} bytes"


def default_disk_free(folder: Path) -> int:
    """Free bytes on the file system holding `folder`."""
    return shutil.disk_usage(folder).free


def check_url(url: str) -> None:
    """Refuse anything but https (and http to a loopback host, for tests)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if not host:
        raise ModelError(f"not a download URL: {url}")
    if scheme == "https":
        return
    if scheme == "http" and host in LOOPBACK_HOSTS:
        return
    raise ModelError(f"refusing {url}: only https:// downloads are allowed")


def ensure_space(folder: Path, need: int, disk_free: Callable[[Path], int] | None = None) -> None:
    """Raise ModelError when `folder`'s file system has less than `need` bytes free."""
    if need <= 0:
        return
    free = (disk_free or default_disk_free)(folder)
    if free < need:
        raise ModelError(
            f"not enough disk space: need {format_bytes(need)}, {format_bytes(free)} free in {folder}"
        )


def _host(url: str) -> str:
    return urlsplit(url).netloc or url


class _Part:
    """The `.part` file plus a running SHA-256 of exactly the bytes it holds."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.hasher = hashlib.sha256()
        self.length = 0
        self.resync()

    def resync(self) -> None:
        self.hasher = hashlib.sha256()
        self.length = 0
        if not self.path.is_file():
            return
        with open(self.path, "rb") as fh:
            while block := fh.read(MiB):
                self.hasher.update(block)
                self.length += len(block)

    def reset(self) -> None:
        with open(self.path, "wb"):
            pass
        self.hasher = hashlib.sha256()
        self.length = 0

    def delete(self) -> None:
        self.path.unlink(missing_ok=True)
        self.hasher = hashlib.sha256()
        self.length = 0


class _Watchdog:
    """Closes the current socket when no bytes came for `stall` seconds or on cancel.

    Blocking reads cannot poll, so a helper thread shuts the socket down, which
    makes the blocked read return; `reason` then says why.
    """

    def __init__(self, stall: float, cancel: threading.Event | None) -> None:
        self.stall = stall
        self.cancel = cancel
        self.sock: socket.socket | None = None
        self.reason: str | None = None
        self._last = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tingji-download-watchdog", daemon=True)

    def __enter__(self) -> "_Watchdog":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def touch(self) -> None:
        self._last = time.monotonic()

    def _run(self) -> None:
        tick = max(0.01, min(0.1, self.stall / 4))
        while not self._stop.wait(tick):
            if self.cancel is not None and self.cancel.is_set():
                self._fire("cancel")
                return
            if time.monotonic() - self._last > self.stall:
                self._fire("stall")
                return

    def _fire(self, reason: str) -> None:
        self.reason = reason
        sock = self.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Meter:
    """Progress reporting, throttled, with speed over the last few seconds."""

    def __init__(self, progress: Progress | None, total: int | None) -> None:
        self.progress = progress
        self.total = total
        self.samples: deque[tuple[float, int]] = deque()
        self.last_report = 0.0

    def update(self, done: int, *, force: bool = False) -> None:
        if self.progress is None:
            return
        now = time.monotonic()
        self.samples.append((now, done))
        while len(self.samples) > 2 and now - self.samples[0][0] > 3.0:
            self.samples.popleft()
        if not force and now - self.last_report < 0.1:
            return
        self.last_report = now
        t0, d0 = self.samples[0]
        bps = (done - d0) / (now - t0) if now > t0 and done >= d0 else 0.0
        self.progress(done, self.total, bps)


def _connect(url: str, timeout: float) -> http.client.HTTPConnection:
    parts = urlsplit(url)
    port = parts.port
    if parts.scheme.lower() == "https":
        conn: http.client.HTTPConnection = http.client.HTTPSConnection(
            parts.hostname, port, timeout=timeout, context=ssl.create_default_context()
        )
    else:
        conn = http.client.HTTPConnection(parts.hostname, port, timeout=timeout)
    return conn


def _open(url: str, offset: int, stall: float, wd: _Watchdog):
    """GET `url` (following redirects) from byte `offset`; returns (conn, response, final_url)."""
    headers = {
        "User-Agent": f"Tingji/{__version__}",
        "Accept-Encoding": "identity",
    }
    if offset > 0:
        headers["Range"] = f"bytes={offset}-"
    current = url
    for _ in range(_MAX_REDIRECTS + 1):
        try:
            check_url(current)
        except ModelError:
            raise _NextMirror(f"redirected to {current}, which is not https") from None
        parts = urlsplit(current)
        target = parts.path or "/"
        if parts.query:
            target += "?" + parts.query
        # Connecting cannot be interrupted by the watchdog (no socket yet), so
        # it gets its own, shorter limit; reads get a backstop timeout longer
        # than the watchdog's so that the watchdog is what normally fires.
        conn = _connect(current, timeout=min(stall, 10.0))
        try:
            conn.connect()
            conn.sock.settimeout(stall * 1.5 + 1)
            wd.sock = conn.sock  # then check: the watchdog may have fired meanwhile
            if wd.reason == "cancel":
                raise Cancelled()
            if wd.reason == "stall":
                raise _Retry(f"no response for {stall:g} s")
            conn.request("GET", target, headers=headers)
            resp = conn.getresponse()
        except BaseException:
            conn.close()
            raise
        if resp.status in _REDIRECTS:
            location = resp.getheader("Location")
            resp.close()
            conn.close()
            if not location:
                raise _NextMirror(f"redirect without Location ({resp.status})")
            current = urljoin(current, location)
            wd.touch()
            continue
        return conn, resp, current
    raise _NextMirror("too many redirects")


def _attempt(url: str, part: _Part, *, size: int | None, stall: float, chunk: int,
             cancel: threading.Event | None, meter: _Meter,
             disk_free: Callable[[Path], int] | None) -> None:
    """One GET that appends to `part`; returns once the file is complete."""
    offset = part.length
    if size is not None and offset == size:
        return
    received = 0
    with _Watchdog(stall, cancel) as wd:
        conn = None
        try:
            try:
                conn, resp, final_url = _open(url, offset, stall, wd)
            except ssl.SSLCertVerificationError as exc:
                raise _NextMirror(f"TLS certificate rejected ({exc.verify_message})") from None
            except (OSError, http.client.HTTPException) as exc:
                if wd.reason == "cancel":
                    raise Cancelled() from None
                if wd.reason == "stall" or isinstance(exc, TimeoutError):
                    raise _Retry(f"no response for {stall:g} s") from None
                raise _Retry(f"connection failed ({exc or type(exc).__name__})") from None
            wd.touch()
            status = resp.status
            total: int | None
            if status == 206:
                match = _CONTENT_RANGE.match(resp.getheader("Content-Range") or "")
                if not match or int(match.group(1)) != offset:
                    raise _NextMirror(
                        f"bad Content-Range {resp.getheader('Content-Range')!r} for a request from byte {offset}"
                    )
                # A server may send less than asked (end < total - 1): the
                # short read then ends the attempt and the next one resumes.
                total = None if match.group(3) == "*" else int(match.group(3))
            elif status == 200:
                if offset > 0:
                    # The server ignored Range: start over from byte zero.
                    part.reset()
                    offset = 0
                length = resp.getheader("Content-Length")
                total = int(length) if length and length.isdigit() else None
            elif status == 416 and offset > 0:
                match = re.match(r"^\s*bytes\s+\*/(\d+)\s*$", resp.getheader("Content-Range") or "")
                if match and int(match.group(1)) == offset and (size is None or size == offset):
                    return  # the .part already holds the whole file
                part.reset()
                raise _Retry("server refused to resume; starting over")
            elif status in (404, 410):
                raise _NextMirror(f"HTTP {status}", not_found=True)
            elif status in (408, 429) or status >= 500:
                raise _Retry(f"HTTP {status} {resp.reason}".strip())
            else:
                raise _NextMirror(f"HTTP {status} {resp.reason}".strip())
            encoding = (resp.getheader("Content-Encoding") or "identity").strip().lower()
            if encoding not in ("identity", ""):
                raise _NextMirror(f"unexpected Content-Encoding {encoding!r}")
            if size is not None and total is not None and total != size:
                raise _NextMirror(f"file has {total} bytes, expected {size}")
            if size is None and total is not None:
                ensure_space(part.path.parent, total - offset, disk_free)
            meter.total = total if total is not None else size
            with open(part.path, "ab") as fh:
                while True:
                    if cancel is not None and cancel.is_set():
                        raise Cancelled()
                    try:
                        data = resp.read1(chunk)
                    except (OSError, http.client.HTTPException) as exc:
                        if wd.reason == "cancel":
                            raise Cancelled() from None
                        if wd.reason == "stall" or isinstance(exc, TimeoutError):
                            raise _Retry(f"stalled: no data for {stall:g} s", received) from None
                        raise _Retry(f"connection lost ({exc or type(exc).__name__})", received) from None
                    if wd.reason == "cancel":
                        raise Cancelled()
                    if wd.reason == "stall":
                        raise _Retry(f"stalled: no data for {stall:g} s", received)
                    if not data:
                        break
                    wd.touch()
                    try:
                        fh.write(data)
                    except OSError as exc:
                        fh.close()
                        part.resync()
                        raise ModelError(f"cannot write {part.path}: {exc.strerror or exc}") from None
                    part.hasher.update(data)
                    part.length += len(data)
                    received += len(data)
                    limit = total if total is not None else size
                    if limit is not None and part.length > limit:
                        part.reset()
                        raise _NextMirror(f"sent more than {limit} bytes")
                    meter.update(part.length)
                fh.flush()
                os.fsync(fh.fileno())
            expected_total = total if total is not None else size
            if expected_total is not None and part.length < expected_total:
                raise _Retry(f"connection closed at {part.length} of {expected_total} bytes", received)
            meter.update(part.length, force=True)
        finally:
            if conn is not None:
                conn.close()


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

    - HTTPS only; http is accepted for 127.0.0.1 / ::1 / localhost (tests).
    - Free space is checked first when `size` is known (`disk_free(folder)`,
      default `shutil.disk_usage`), else as soon as the server states a length.
    - Bytes go to `<dest>.part`; a later attempt or call resumes from its length.
    - Each mirror gets `1 + retries` attempts, back-off `backoff * 2**n` seconds
      capped at `max_backoff`; an attempt with no bytes for `stall_timeout`
      seconds is aborted; then the next mirror continues the same `.part`.
    - `progress(done, total, bytes_per_second)`; `cancel.set()` raises
      `Cancelled`, leaving at most the `.part` file.
    - A SHA-256 mismatch deletes the `.part` and raises ModelError. Without a
      known hash the computed one is returned for the caller to pin.
    """
    urls = [str(u) for u in urls]
    if not urls:
        raise ModelError(f"{Path(dest).name}: no download URL")
    for url in urls:
        check_url(url)
    dest = Path(dest)
    expected = sha256.strip().lower() if sha256 else None
    if expected is not None and not _HEX64.match(expected):
        raise ModelError(f"{dest.name}: {sha256!r} is not a SHA-256 (64 hex digits)")
    if cancel is not None and cancel.is_set():
        raise Cancelled()
    dest.parent.mkdir(parents=True, exist_ok=True)
    part_path = dest.with_name(dest.name + ".part")

    if expected is not None and dest.is_file() and (size is None or dest.stat().st_size == size):
        if sha256_file(dest) == expected:
            return DownloadResult(dest, expected, dest.stat().st_size, None)

    part = _Part(part_path)
    if size is not None and part.length > size:
        part.reset()
    if size is not None:
        ensure_space(dest.parent, size - part.length, disk_free)

    meter = _Meter(progress, size)
    failures: list[str] = []
    not_found = 0
    mismatch: str | None = None
    resumed_stale = part.length > 0  # bytes from an earlier run: suspect on a mismatch
    index = 0
    while index < len(urls):
        url = urls[index]
        try:
            _fetch_mirror(url, part, size=size, stall=stall_timeout, chunk=chunk, cancel=cancel,
                          meter=meter, retries=retries, backoff=backoff, max_backoff=max_backoff,
                          disk_free=disk_free)
        except _NextMirror as exc:
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
        os.replace(part.path, dest)
        return DownloadResult(dest, actual, part.length, url)

    if mismatch is not None and all(f.endswith("SHA-256 mismatch") for f in failures):
        raise ModelError(
            f"{dest.name}: downloaded file fails its SHA-256 check "
            f"(expected {expected}, got {mismatch}); it was deleted"
        )
    if not_found == len(urls):
        raise NotFound(f"{dest.name}: not found on any mirror ({'; '.join(failures)})")
    raise ModelError(f"{dest.name}: download failed ({'; '.join(failures)})")


def _fetch_mirror(url: str, part: _Part, *, size: int | None, stall: float, chunk: int,
                  cancel: threading.Event | None, meter: _Meter, retries: int, backoff: float,
                  max_backoff: float, disk_free: Callable[[Path], int] | None) -> None:
    failures = 0
    while True:
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        try:
            _attempt(url, part, size=size, stall=stall, chunk=chunk, cancel=cancel, meter=meter,
                     disk_free=disk_free)
            return
        except _Retry as exc:
            if exc.progressed < PROGRESS_RESET_BYTES:
                failures += 1
            if failures > retries:
                raise _NextMirror(f"{exc} (gave up after {failures} attempts)") from None
            delay = min(backoff * (2 ** max(failures - 1, 0)), max_backoff)
            if cancel is not None:
                if cancel.wait(delay):
                    raise Cancelled() from None
            else:
                time.sleep(delay)
