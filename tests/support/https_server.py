"""A real HTTPS file server on 127.0.0.1 for model-manager tests, with fault injection.

Its certificate comes from a certificate authority made for this test run
(`local_ca()`, with the `cryptography` package, else the `openssl` command);
the downloader trusts it only where a test says so (`trust_local_ca`, which
points OpenSSL's standard `SSL_CERT_FILE` at the CA). `FileServer(tls=False)`
is a plain-http server, for what the downloader must refuse.

    trust_local_ca(monkeypatch)
    with FileServer({"/a.bin": data}) as srv:
        srv.faults["/a.bin"] = [Fault("cut", after=1000)]   # next request: cut after 1000 bytes
        srv.behaviour["/a.bin"] = {"ignore_range": True}    # every request
        download([srv.url("/a.bin")], ...)
        srv.requests  # [Request(path, range, status), ...]

Every file has an ETag (from its bytes) and a Last-Modified date, and the server
honours `If-Range`: a validator that no longer matches gets the whole file (200).
Replacing `files[path]` is a file that changed on the server.

One-shot faults (consumed in order, one per request): "cut" (send `after` body
bytes of a full response, then close), "stall" (send `after` bytes, then go
silent until the server stops), "status" (answer `status` with no body),
"bad_range" (a 206 whose Content-Range starts at the wrong byte).
Persistent behaviour keys: "ignore_range" (always 200 with the whole file),
"stall_after" (every response stalls after that many bytes), "redirect" (answer 302 to
that URL), "no_validators" (no ETag, no Last-Modified), "ignore_if_range" (answer
Range as if the file had not changed), "length": "chunked" (no Content-Length:
chunked transfer coding) or "none" (no Content-Length: the body ends when the
connection closes), "content_encoding": "gzip" (a gzip-compressed body, which
the client did not ask for).
"""

from __future__ import annotations

import atexit
import datetime
import email.utils
import functools
import gzip
import hashlib
import importlib.util
import ipaddress
import re
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

SERVER_HOSTS = ("127.0.0.1", "localhost")


# ---------------------------------------------------------------- the test certificate authority


@dataclass(frozen=True)
class LocalCA:
    """A CA made for this test run; `issue(hosts)` gives a server certificate chain for those names."""

    folder: Path
    cert: Path  # the CA certificate (PEM): what a client must be told to trust
    key: Path

    def issue(self, hosts: tuple[str, ...]) -> tuple[Path, Path]:
        """(certificate, key) PEM files for a server known by `hosts` (IP addresses or DNS names)."""
        stem = "server-" + "-".join(h.replace(":", "_") for h in hosts)
        cert, key = self.folder / f"{stem}.crt", self.folder / f"{stem}.key"
        if not cert.exists():
            (_issue_with_cryptography if _has_cryptography() else _issue_with_openssl)(self, hosts, cert, key)
        return cert, key


def _has_cryptography() -> bool:
    return importlib.util.find_spec("cryptography") is not None


@functools.cache
def local_ca() -> LocalCA:
    """The test run's CA (made once per process, deleted at exit)."""
    folder = Path(tempfile.mkdtemp(prefix="tingji-test-ca-"))
    atexit.register(shutil.rmtree, folder, True)
    ca = LocalCA(folder, folder / "ca.crt", folder / "ca.key")
    (_make_ca_with_cryptography if _has_cryptography() else _make_ca_with_openssl)(ca)
    return ca


def trust_local_ca(monkeypatch: pytest.MonkeyPatch) -> LocalCA:
    """Make this test's downloads (and the processes it starts) trust the local CA, and only for this test."""
    ca = local_ca()
    monkeypatch.setenv("SSL_CERT_FILE", str(ca.cert))
    return ca


def _name(common_name: str):
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _make_ca_with_cryptography(ca: LocalCA) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name("Tingji test CA"))
        .issuer_name(_name("Tingji test CA"))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    ca.key.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    ca.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def _issue_with_cryptography(ca: LocalCA, hosts: tuple[str, ...], cert_path: Path, key_path: Path) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID

    ca_key = serialization.load_pem_private_key(ca.key.read_bytes(), None)
    ca_cert = x509.load_pem_x509_certificate(ca.cert.read_bytes())
    key = ec.generate_private_key(ec.SECP256R1())
    names: list[x509.GeneralName] = []
    for host in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(hosts[0]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_cert.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def _openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def _make_ca_with_openssl(ca: LocalCA) -> None:
    _openssl(
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=Tingji test CA",
        "-keyout",
        str(ca.key),
        "-out",
        str(ca.cert),
        "-addext",
        "basicConstraints=critical,CA:TRUE,pathlen:0",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign,digitalSignature",
    )


def _issue_with_openssl(ca: LocalCA, hosts: tuple[str, ...], cert_path: Path, key_path: Path) -> None:
    def san(host: str) -> str:
        try:
            ipaddress.ip_address(host)
            return f"IP:{host}"
        except ValueError:
            return f"DNS:{host}"

    request = cert_path.with_name(cert_path.name + ".csr")
    extensions = cert_path.with_name(cert_path.name + ".ext")
    extensions.write_text(
        f"subjectAltName={','.join(san(h) for h in hosts)}\nbasicConstraints=critical,CA:FALSE\n"
        "extendedKeyUsage=serverAuth\n",
        encoding="ascii",
    )
    _openssl(
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-subj",
        f"/CN={hosts[0]}",
        "-keyout",
        str(key_path),
        "-out",
        str(request),
    )
    _openssl(
        "x509",
        "-req",
        "-in",
        str(request),
        "-CA",
        str(ca.cert),
        "-CAkey",
        str(ca.key),
        "-CAcreateserial",
        "-days",
        "1",
        "-extfile",
        str(extensions),
        "-out",
        str(cert_path),
    )


# ---------------------------------------------------------------- the server


class _Server(ThreadingHTTPServer):
    """Wraps each accepted connection in TLS; the handshake happens in the handler's thread."""

    daemon_threads = True
    context: ssl.SSLContext | None = None
    handshake_failures: list[str]
    failure_seen: threading.Condition

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, address = super().get_request()
        if self.context is not None:
            sock = self.context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        return sock, address

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, (ssl.SSLError, ConnectionError, TimeoutError)):
            with self.failure_seen:
                self.handshake_failures.append(f"{type(exc).__name__}: {exc}")  # a client that refused us
                self.failure_seen.notify_all()
            return
        super().handle_error(request, client_address)


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
    if_range: str | None = None


@dataclass
class FileServer:
    files: dict[str, bytes] = field(default_factory=dict)
    faults: dict[str, list[Fault]] = field(default_factory=dict)
    behaviour: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    block: int = 16 * 1024
    tls: bool = True
    hosts: tuple[str, ...] = SERVER_HOSTS  # the names its certificate is valid for

    def __post_init__(self) -> None:
        self._release = threading.Event()
        self._lock = threading.Lock()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle
    def start(self) -> FileServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:  # noqa: N802
                try:
                    server._serve(self)
                except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
                    pass

        self._httpd = _Server(("127.0.0.1", 0), Handler)
        self._httpd.handshake_failures = []
        self._httpd.failure_seen = threading.Condition()
        if self.tls:
            cert, key = local_ca().issue(self.hosts)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(cert, key)
            self._httpd.context = context
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FileServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- helpers
    @property
    def port(self) -> int:
        assert self._httpd is not None
        return self._httpd.server_address[1]

    def url(self, path: str) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}{path}"

    def wait_handshake_failures(self, count: int, timeout: float = 30.0) -> list[str]:
        """Wait until `count` connections have ended in the TLS handshake (the client refused the
        certificate); the server notices a moment after the client gives up."""
        httpd = self._httpd
        assert httpd is not None
        with httpd.failure_seen:
            httpd.failure_seen.wait_for(lambda: len(httpd.handshake_failures) >= count, timeout)
            return list(httpd.handshake_failures)

    def requests_for(self, path: str) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.path == path]

    # -- the handler body
    @staticmethod
    def etag(data: bytes) -> str:
        return '"' + hashlib.sha256(data).hexdigest()[:20] + '"'

    @staticmethod
    def last_modified(data: bytes) -> str:
        """A date that differs between versions of a file (derived from its bytes)."""
        seconds = 1_700_000_000 + int(hashlib.sha256(data).hexdigest()[:6], 16)
        return email.utils.formatdate(seconds, usegmt=True)

    def _serve(self, h: BaseHTTPRequestHandler) -> None:
        path = h.path.split("?", 1)[0]
        range_header = h.headers.get("Range")
        if_range = h.headers.get("If-Range")
        with self._lock:
            queue = self.faults.get(path) or []
            fault = queue.pop(0) if queue else None
            behaviour = dict(self.behaviour.get(path) or {})
        data = self.files.get(path)

        def record(status: int) -> None:
            with self._lock:
                self.requests.append(Request(path, range_header, status, if_range))

        def empty(status: int, **headers: str) -> None:
            record(status)
            h.send_response(status)
            for key, value in headers.items():
                h.send_header(key.replace("_", "-"), value)
            h.send_header("Content-Length", "0")
            h.end_headers()

        if "redirect" in behaviour:
            return empty(302, Location=behaviour["redirect"])
        if data is None:
            return empty(404)
        if fault is not None and fault.kind == "status":
            return empty(fault.status)

        validators = (
            {}
            if behaviour.get("no_validators")
            else {"ETag": self.etag(data), "Last-Modified": self.last_modified(data)}
        )
        total = len(data)
        start, end = 0, total - 1
        status = 200
        match = re.match(r"^bytes=(\d+)-(\d*)$", range_header or "")
        still_same = if_range is None or if_range in validators.values() or behaviour.get("ignore_if_range")
        if match and still_same and not behaviour.get("ignore_range") and "content_encoding" not in behaviour:
            start = int(match.group(1))
            end = int(match.group(2)) if match.group(2) else total - 1
            if start >= total:
                return empty(416, Content_Range=f"bytes */{total}")
            status = 206
        body = data[start : end + 1]
        if behaviour.get("content_encoding") == "gzip":
            body = gzip.compress(data)
        record(status)
        chunked = behaviour.get("length") == "chunked"
        if chunked:
            h.protocol_version = "HTTP/1.1"  # chunked transfer coding needs it
        h.send_response(status)
        if status == 206:
            first = start + 1 if fault is not None and fault.kind == "bad_range" else start
            h.send_header("Content-Range", f"bytes {first}-{end}/{total}")
        if chunked:
            h.send_header("Transfer-Encoding", "chunked")
        elif behaviour.get("length") != "none":
            h.send_header("Content-Length", str(len(body)))
        if "content_encoding" in behaviour:
            h.send_header("Content-Encoding", behaviour["content_encoding"])
        for key, value in validators.items():
            h.send_header(key, value)
        h.send_header("Content-Type", "application/octet-stream")
        h.send_header("Connection", "close")
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
            piece = body[sent : min(limit, sent + self.block)]
            h.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
            sent += len(piece)
        if chunked and sent == len(body):
            h.wfile.write(b"0\r\n\r\n")
        h.wfile.flush()
        if stall:
            self._release.wait(30)
        h.close_connection = True
