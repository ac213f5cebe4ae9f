"""A real HTTP file server on 127.0.0.1 for model-manager tests, with fault injection.

    with FileServer({"/a.bin": data}) as srv:
        srv.faults["/a.bin"] = [Fault("cut", after=1000)]   # next request: cut after 1000 bytes
        srv.behaviour["/a.bin"] = {"ignore_range": True}    # every request
        download([srv.url("/a.bin")], ...)
        srv.requests  # [Request(path, range, status), ...]

One-shot faults (consumed in order, one per request): "cut" (send `after` body
bytes of a full response, then close), "stall" (send `after` bytes, then go
silent until the server stops), "status" (answer `status` with no body),
"bad_range" (a 206 whose Content-Range starts at the wrong byte).
Persistent behaviour keys: "ignore_range" (always 200 with the whole file),
"stall_after" (every response stalls after that many bytes).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Fault:
    kind: str
    after: int = 0
    status: int = 500


@dataclass(frozen=True)
class Request:
    path: str
    range: str | None
    status: int


@dataclass
class FileServer:
    files: dict[str, bytes] = field(default_factory=dict)
    faults: dict[str, list[Fault]] = field(default_factory=dict)
    behaviour: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    block: int = 16 * 1024

    def __post_init__(self) -> None:
        self._release = threading.Event()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle
    def start(self) -> "FileServer":
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:  # noqa: N802
                try:
                    server._serve(self)
                except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
                    pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> "FileServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- helpers
    @property
    def port(self) -> int:
        assert self._httpd is not None
        return self._httpd.server_address[1]

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def requests_for(self, path: str) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.path == path]

    # -- the handler body
    def _serve(self, h: BaseHTTPRequestHandler) -> None:
        path = h.path.split("?", 1)[0]
        range_header = h.headers.get("Range")
        with self._lock:
            queue = self.faults.get(path) or []
            fault = queue.pop(0) if queue else None
            behaviour = dict(self.behaviour.get(path) or {})
        data = self.files.get(path)

        def record(status: int) -> None:
            with self._lock:
                self.requests.append(Request(path, range_header, status))

        if data is None:
            record(404)
            h.send_response(404)
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        if fault is not None and fault.kind == "status":
            record(fault.status)
            h.send_response(fault.status)
            h.send_header("Content-Length", "0")
            h.end_headers()
            return

        total = len(data)
        start, end = 0, total - 1
        status = 200
        match = re.match(r"^bytes=(\d+)-(\d*)$", range_header or "")
        if match and not behaviour.get("ignore_range"):
            start = int(match.group(1))
            end = int(match.group(2)) if match.group(2) else total - 1
            if start >= total:
                record(416)
                h.send_response(416)
                h.send_header("Content-Range", f"bytes */{total}")
                h.send_header("Content-Length", "0")
                h.end_headers()
                return
            status = 206
        body = data[start:end + 1]
        record(status)
        h.send_response(status)
        if status == 206:
            first = start + 1 if fault is not None and fault.kind == "bad_range" else start
            h.send_header("Content-Range", f"bytes {first}-{end}/{total}")
        h.send_header("Content-Length", str(len(body)))
        h.send_header("Content-Type", "application/octet-stream")
        h.end_headers()

        limit = len(body)
        stall = False
        if fault is not None and fault.kind in ("cut", "stall"):
            limit = min(limit, fault.after)
            stall = fault.kind == "stall"
        elif "stall_after" in behaviour:
            limit = min(limit, int(behaviour["stall_after"]))
            stall = True
        sent = 0
        while sent < limit:
            piece = body[sent:min(limit, sent + self.block)]
            h.wfile.write(piece)
            sent += len(piece)
        h.wfile.flush()
        if stall:
            self._release.wait(30)
        h.close_connection = True
