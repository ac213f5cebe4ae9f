"""One HTTP GET that appends to a `.part` file from its current length (standard library only).

This is the transport under `download.download`: it connects (following
redirects, HTTPS only, certificates checked against the system's trust store
or OpenSSL's `SSL_CERT_FILE`), asks for the missing bytes with a Range header, checks
what the server answers, and streams the body into the `.part` file while a
watchdog thread aborts a connection that stalls. A resume names the version of
the file the `.part` came from (`If-Range`, see `partfile`), so a changed file
starts over instead of being spliced. How often to try, and which
mirror next, is `download`'s policy: this module only says, by the exception
it raises, whether another attempt may help (`Retry`) or not (`NextMirror`).
"""

from __future__ import annotations

import http.client
import os
import re
import socket
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from .. import __version__
from ..errors import Cancelled, ModelError
from . import messages
from .diskspace import ensure_space
from .partfile import PartFile, Validator

_MAX_REDIRECTS = 10
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CONTENT_RANGE = re.compile(r"^\s*bytes\s+(\d+)-(\d+)/(\d+|\*)\s*$", re.I)
_COMPLETE = object()  # the `.part` already holds the whole file: nothing to read

Progress = Callable[[int, "int | None", float], None]
"""progress(done_bytes, total_bytes_or_None, bytes_per_second)"""


class Retry(Exception):
    """This attempt failed in a way another attempt may fix."""

    def __init__(self, message: str, progressed: int = 0) -> None:
        super().__init__(message)
        self.progressed = progressed


class NextMirror(Exception):
    """This mirror cannot serve the file; retrying it is pointless."""

    def __init__(self, message: str, not_found: bool = False) -> None:
        super().__init__(message)
        self.not_found = not_found


def check_url(url: str) -> None:
    """Refuse anything but https, loopback hosts included: a redirect to plain http is never followed."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "https":
        raise ModelError(messages.HTTPS_ONLY, url=url)
    if not parts.hostname:
        raise ModelError(messages.NOT_A_URL, url=url)


class Watchdog:
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

    def __enter__(self) -> Watchdog:
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


class Meter:
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


def _connect(url: str, timeout: float) -> http.client.HTTPSConnection:
    """An HTTPS connection that checks the certificate chain and the host name (`check_url` came first)."""
    parts = urlsplit(url)
    return http.client.HTTPSConnection(
        parts.hostname, parts.port, timeout=timeout, context=ssl.create_default_context()
    )


def _open(url: str, offset: int, if_range: str | None, stall: float, wd: Watchdog):
    """GET `url` (following redirects) from byte `offset`; returns (conn, response, final_url)."""
    headers = {
        "User-Agent": f"Tingji/{__version__}",
        "Accept-Encoding": "identity",
    }
    if offset > 0:
        headers["Range"] = f"bytes={offset}-"
        if if_range:
            headers["If-Range"] = if_range
    current = url
    for _ in range(_MAX_REDIRECTS + 1):
        try:
            check_url(current)
        except ModelError:
            raise NextMirror(f"redirected to {current}, which is not https") from None
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
                raise Retry(f"no response for {stall:g} s")
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
                raise NextMirror(f"redirect without Location ({resp.status})")
            current = urljoin(current, location)
            wd.touch()
            continue
        return conn, resp, current
    raise NextMirror("too many redirects")


def _open_classified(url: str, offset: int, if_range: str | None, stall: float, wd: Watchdog):
    """`_open`, with connection failures turned into Retry / NextMirror / Cancelled."""
    try:
        return _open(url, offset, if_range, stall, wd)
    except ssl.SSLCertVerificationError as exc:
        raise NextMirror(f"TLS certificate rejected ({exc.verify_message})") from None
    except (OSError, http.client.HTTPException) as exc:
        if wd.reason == "cancel":
            raise Cancelled() from None
        if wd.reason == "stall" or isinstance(exc, TimeoutError):
            raise Retry(f"no response for {stall:g} s") from None
        raise Retry(f"connection failed ({exc or type(exc).__name__})") from None


def _response_total(resp: http.client.HTTPResponse, part: PartFile, offset: int, size: int | None):
    """The file's total length by the server's answer (None: not stated), or `_COMPLETE`.

    A 200 means the whole file follows: to a ranged request, because the file
    changed (If-Range did not match) or the server ignores Range. `part` is
    emptied and remembers this version's validator. A 206 for another version
    (a server that ignores If-Range but says its ETag) empties `part` too.
    """
    status = resp.status
    total: int | None
    if status == 206:
        match = _CONTENT_RANGE.match(resp.getheader("Content-Range") or "")
        if not match or int(match.group(1)) != offset:
            raise NextMirror(f"bad Content-Range {resp.getheader('Content-Range')!r} for a request from byte {offset}")
        # A server may send less than asked (end < total - 1): the
        # short read then ends the attempt and the next one resumes.
        total = None if match.group(3) == "*" else int(match.group(3))
        changed = part.validator.differs(Validator.of(resp, total), total) if part.validator else None
        if changed is not None:
            part.reset()
            raise Retry(f"the file changed on the server ({changed}); starting over")
    elif status == 200:
        length = resp.getheader("Content-Length")
        total = int(length) if length and length.isdigit() else None
        part.reset(Validator.of(resp, total))  # from byte zero, whatever the .part held
    elif status == 416 and offset > 0:
        match = re.match(r"^\s*bytes\s+\*/(\d+)\s*$", resp.getheader("Content-Range") or "")
        if match and int(match.group(1)) == offset and (size is None or size == offset):
            return _COMPLETE  # the .part already holds the whole file
        part.reset()
        raise Retry("server refused to resume; starting over")
    elif status in (404, 410):
        raise NextMirror(f"HTTP {status}", not_found=True)
    elif status in (408, 429) or status >= 500:
        raise Retry(f"HTTP {status} {resp.reason}".strip())
    else:
        raise NextMirror(f"HTTP {status} {resp.reason}".strip())
    return total


def _receive(
    resp: http.client.HTTPResponse,
    part: PartFile,
    wd: Watchdog,
    *,
    total: int | None,
    size: int | None,
    stall: float,
    chunk: int,
    cancel: threading.Event | None,
    meter: Meter,
) -> int:
    """Append the body to `part` (flushed to disk); returns the bytes received."""
    received = 0
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
                    raise Retry(f"stalled: no data for {stall:g} s", received) from None
                raise Retry(f"connection lost ({exc or type(exc).__name__})", received) from None
            if wd.reason == "cancel":
                raise Cancelled()
            if wd.reason == "stall":
                raise Retry(f"stalled: no data for {stall:g} s", received)
            if not data:
                break
            wd.touch()
            try:
                fh.write(data)
            except OSError as exc:
                fh.close()
                part.resync()
                raise ModelError(messages.CANNOT_WRITE_PART, path=part.path, reason=exc.strerror or str(exc)) from None
            part.hasher.update(data)
            part.length += len(data)
            received += len(data)
            limit = total if total is not None else size
            if limit is not None and part.length > limit:
                part.reset()
                raise NextMirror(f"sent more than {limit} bytes")
            meter.update(part.length)
        fh.flush()
        os.fsync(fh.fileno())
    return received


def attempt(
    url: str,
    part: PartFile,
    *,
    size: int | None,
    stall: float,
    chunk: int,
    cancel: threading.Event | None,
    meter: Meter,
    disk_free: Callable[[Path], int] | None,
    checked: bool,
) -> None:
    """One GET that appends to `part`; returns once the file is complete.

    `checked`: the caller holds the file to a known SHA-256. Only then may
    bytes whose version is unknown (no validator was recorded) be resumed: a
    splice would fail that check. Otherwise they are discarded.
    """
    if part.length > 0 and part.validator is None and not checked:
        part.reset()
    offset = part.length
    if size is not None and offset == size:
        return
    if_range = part.validator.if_range if part.validator is not None else None
    with Watchdog(stall, cancel) as wd:
        conn = None
        try:
            conn, resp, final_url = _open_classified(url, offset, if_range, stall, wd)
            wd.touch()
            encoding = (resp.getheader("Content-Encoding") or "identity").strip().lower()
            if encoding not in ("identity", "") and resp.status in (200, 206):
                raise NextMirror(f"unexpected Content-Encoding {encoding!r}")
            total = _response_total(resp, part, offset, size)
            if total is _COMPLETE:
                return
            offset = part.length  # zero when the whole file is coming
            if size is not None and total is not None and total != size:
                raise NextMirror(f"file has {total} bytes, expected {size}")
            if size is None and total is not None:
                ensure_space(part.path.parent, total - offset, disk_free)
            meter.total = total if total is not None else size
            received = _receive(
                resp, part, wd, total=total, size=size, stall=stall, chunk=chunk, cancel=cancel, meter=meter
            )
            expected_total = total if total is not None else size
            if expected_total is not None and part.length < expected_total:
                raise Retry(f"connection closed at {part.length} of {expected_total} bytes", received)
            meter.update(part.length, force=True)
        finally:
            if conn is not None:
                conn.close()
