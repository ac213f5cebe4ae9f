"""tingji.models.download against a real HTTPS server on 127.0.0.1 with injected faults.

The server's certificate comes from a CA made for the test run; every test here
trusts it (SSL_CERT_FILE) unless it says otherwise.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

import pytest

from tests.support.https_server import Fault, FileServer, trust_local_ca
from tingji.errors import Cancelled, ModelError
from tingji.models import http_range
from tingji.models.download import NotFound, download
from tingji.models.http_range import check_url

DATA = os.urandom(300_000)
SHA = hashlib.sha256(DATA).hexdigest()
FAST = {"backoff": 0.005, "max_backoff": 0.02, "chunk": 8192}


@pytest.fixture(autouse=True)
def trusted(monkeypatch):
    return trust_local_ca(monkeypatch)


@pytest.fixture
def server():
    with FileServer({"/m.bin": DATA}) as srv:
        yield srv


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_plain_download_reports_progress_and_hash(server, tmp_path):
    seen: list[tuple[int, int | None, float]] = []
    dest = tmp_path / "m.bin"
    result = download(
        [server.url("/m.bin")],
        dest,
        sha256=None,
        size=None,
        progress=lambda d, t, bps: seen.append((d, t, bps)),
        **FAST,
    )
    assert dest.read_bytes() == DATA
    assert result.sha256 == SHA  # computed when none is known, for the caller to pin
    assert result.size == len(DATA) and result.url_used == server.url("/m.bin")
    assert seen and seen[-1][0] == len(DATA) and seen[-1][1] == len(DATA)
    assert [d for d, _, _ in seen] == sorted(d for d, _, _ in seen)
    assert _leftovers(tmp_path) == ["m.bin"]


def test_cut_connection_resumes_with_range(server, tmp_path):
    server.faults["/m.bin"] = [Fault("cut", after=100_000)]
    dest = tmp_path / "m.bin"
    result = download([server.url("/m.bin")], dest, sha256=SHA, size=len(DATA), **FAST)
    reqs = server.requests_for("/m.bin")
    assert [r.status for r in reqs] == [200, 206]
    assert reqs[0].range is None and reqs[1].range == "bytes=100000-"
    assert reqs[0].if_range is None and reqs[1].if_range == FileServer.etag(DATA)
    assert result.sha256 == SHA and hashlib.sha256(dest.read_bytes()).hexdigest() == SHA
    assert _leftovers(tmp_path) == ["m.bin"]


def test_part_file_from_earlier_run_is_resumed(server, tmp_path):
    dest = tmp_path / "m.bin"
    (tmp_path / "m.bin.part").write_bytes(DATA[:123_456])
    download([server.url("/m.bin")], dest, sha256=SHA, size=len(DATA), **FAST)
    assert [r.range for r in server.requests_for("/m.bin")] == ["bytes=123456-"]
    assert dest.read_bytes() == DATA


def test_server_ignoring_range_restarts_cleanly(server, tmp_path):
    server.behaviour["/m.bin"] = {"ignore_range": True}
    dest = tmp_path / "m.bin"
    # A .part whose bytes are wrong: appending the 200 body to it would corrupt the file.
    # (With a known hash, bytes of unknown origin are resumed: the hash would catch a splice.)
    (tmp_path / "m.bin.part").write_bytes(b"\xff" * 50_000)
    result = download([server.url("/m.bin")], dest, sha256=SHA, size=len(DATA), **FAST)
    reqs = server.requests_for("/m.bin")
    assert reqs[0].range == "bytes=50000-" and reqs[0].status == 200
    assert dest.read_bytes() == DATA and result.sha256 == SHA


def test_bad_content_range_falls_back_to_next_mirror(tmp_path):
    with FileServer({"/m.bin": DATA}) as a, FileServer({"/m.bin": DATA}) as b:
        a.faults["/m.bin"] = [Fault("bad_range")]
        (tmp_path / "m.bin.part").write_bytes(DATA[:1000])
        result = download([a.url("/m.bin"), b.url("/m.bin")], tmp_path / "m.bin", sha256=SHA, size=len(DATA), **FAST)
        assert result.url_used == b.url("/m.bin")
        assert (tmp_path / "m.bin").read_bytes() == DATA


def test_wrong_hash_refused_and_part_deleted(server, tmp_path):
    dest = tmp_path / "m.bin"
    wrong = hashlib.sha256(b"something else").hexdigest()
    with pytest.raises(ModelError, match="SHA-256") as info:
        download([server.url("/m.bin")], dest, sha256=wrong, size=None, **FAST)
    assert "\n" not in str(info.value)
    assert not dest.exists()
    assert _leftovers(tmp_path) == []


@pytest.fixture
def watchdog_fired(monkeypatch) -> list[str]:
    """Why each download watchdog fired, in order ("stall", "cancel"): the real watchdog, watched."""
    fired: list[str] = []
    fire = http_range.Watchdog._fire

    def spy(self: http_range.Watchdog, reason: str) -> None:
        fired.append(reason)
        fire(self, reason)

    monkeypatch.setattr(http_range.Watchdog, "_fire", spy)
    return fired


@pytest.mark.load_sensitive
def test_stall_watchdog_retries_then_falls_back_to_mirror(tmp_path, watchdog_fired):
    with FileServer({"/m.bin": DATA}) as a, FileServer({"/m.bin": DATA}) as b:
        a.behaviour["/m.bin"] = {"stall_after": 20_000}
        result = download(
            [a.url("/m.bin"), b.url("/m.bin")],
            tmp_path / "m.bin",
            sha256=SHA,
            size=len(DATA),
            stall_timeout=0.3,
            retries=1,
            **FAST,
        )
        a_reqs = a.requests_for("/m.bin")
        # 1 + retries attempts on the stalled mirror, the second resuming after the first's bytes.
        assert len(a_reqs) == 2 and a_reqs[1].range == "bytes=20000-"
        b_reqs = b.requests_for("/m.bin")
        assert len(b_reqs) == 1 and b_reqs[0].range == "bytes=40000-"
        assert result.url_used == b.url("/m.bin")
        assert (tmp_path / "m.bin").read_bytes() == DATA
        # Each stalled attempt was ended by the watchdog (0.3 s), not by the socket's backstop timeout.
        assert watchdog_fired == ["stall", "stall"]


def test_server_errors_are_retried_with_backoff(server, tmp_path):
    server.faults["/m.bin"] = [Fault("status", status=503), Fault("status", status=500)]
    download([server.url("/m.bin")], tmp_path / "m.bin", sha256=SHA, size=None, retries=2, **FAST)
    assert [r.status for r in server.requests_for("/m.bin")] == [503, 500, 200]


def test_retries_exhausted_gives_one_line_error(server, tmp_path):
    server.faults["/m.bin"] = [Fault("status", status=503)] * 3
    with pytest.raises(ModelError, match="HTTP 503") as info:
        download([server.url("/m.bin")], tmp_path / "m.bin", sha256=SHA, size=None, retries=2, **FAST)
    assert "\n" not in str(info.value)
    assert len(server.requests_for("/m.bin")) == 3
    assert not (tmp_path / "m.bin").exists()


def test_not_found_everywhere_raises_notfound(server, tmp_path):
    with pytest.raises(NotFound):
        download([server.url("/missing.bin")], tmp_path / "x", sha256=None, size=None, **FAST)
    assert _leftovers(tmp_path) == []


def test_not_enough_disk_space_before_any_request(server, tmp_path):
    asked: list[Path] = []

    def full_disk(folder: Path) -> int:
        asked.append(folder)
        return 1_000

    with pytest.raises(ModelError, match=r"not enough disk space: need .* free"):
        download([server.url("/m.bin")], tmp_path / "m.bin", sha256=SHA, size=len(DATA), disk_free=full_disk, **FAST)
    assert asked == [tmp_path]
    assert server.requests == []
    assert _leftovers(tmp_path) == []


def test_unknown_size_checks_space_from_content_length(server, tmp_path):
    with pytest.raises(ModelError, match="not enough disk space"):
        download(
            [server.url("/m.bin")], tmp_path / "m.bin", sha256=None, size=None, disk_free=lambda folder: 10, **FAST
        )
    assert not (tmp_path / "m.bin").exists()


def test_cancel_mid_download_leaves_only_part(server, tmp_path):
    cancel = threading.Event()

    def progress(done: int, total: int | None, bps: float) -> None:
        if done > 0:
            cancel.set()  # the first report comes after the first chunk

    dest = tmp_path / "m.bin"
    with pytest.raises(Cancelled):
        download([server.url("/m.bin")], dest, sha256=SHA, size=len(DATA), progress=progress, cancel=cancel, **FAST)
    assert not dest.exists()
    # The partial bytes and the version of the file they came from (for If-Range).
    assert _leftovers(tmp_path) == ["m.bin.part", "m.bin.part.resume"]
    assert 0 < (tmp_path / "m.bin.part").stat().st_size < len(DATA)
    # ... and a later call resumes from it.
    download([server.url("/m.bin")], dest, sha256=SHA, size=len(DATA), **FAST)
    last = server.requests_for("/m.bin")[-1]
    assert last.range is not None and last.if_range == FileServer.etag(DATA) and last.status == 206
    assert dest.read_bytes() == DATA
    assert _leftovers(tmp_path) == ["m.bin"]


@pytest.mark.load_sensitive
def test_cancel_during_stall_is_prompt(tmp_path, watchdog_fired):
    cancel = threading.Event()
    with FileServer({"/m.bin": DATA}) as srv:
        srv.behaviour["/m.bin"] = {"stall_after": 1000}
        timer = threading.Timer(0.2, cancel.set)  # most likely while the read waits on the silent server
        timer.start()
        with pytest.raises(Cancelled):
            download(
                [srv.url("/m.bin")], tmp_path / "m.bin", sha256=SHA, size=None, cancel=cancel, stall_timeout=30, **FAST
            )
        # The cancel ended it (in the watchdog, or at a check before the read), not the stall's 30 s.
        assert "stall" not in watchdog_fired, watchdog_fired
    assert not (tmp_path / "m.bin").exists()


def test_plain_http_refused_even_on_loopback(tmp_path):
    check_url("https://huggingface.co/x")
    check_url("https://127.0.0.1:8000/x")
    with FileServer({"/m.bin": DATA}, tls=False) as plain:
        for bad in (
            plain.url("/m.bin"),
            "http://localhost/x",
            "http://example.com/model.zip",
            "ftp://127.0.0.1/x",
            "file:///etc/passwd",
        ):
            with pytest.raises(ModelError, match="only https:// downloads are allowed"):
                download([bad], tmp_path / "x", sha256=None, size=None)
        assert plain.requests == []  # refused before connecting
    assert _leftovers(tmp_path) == []
    print("plain http refused before any connection, 127.0.0.1 and localhost included")


def test_https_server_trusted_only_when_its_ca_is_given(server, tmp_path, monkeypatch):
    monkeypatch.delenv("SSL_CERT_FILE")  # the system's trust store alone: the test CA is not in it
    with pytest.raises(
        ModelError, match=r"TLS certificate rejected \(unable to get local issuer certificate\)"
    ) as info:
        download([server.url("/m.bin")], tmp_path / "m.bin", sha256=None, size=None, **FAST)
    assert "\n" not in str(info.value)
    assert server.requests == [] and len(server.wait_handshake_failures(1)) == 1  # it ended in the handshake
    assert _leftovers(tmp_path) == []

    trust_local_ca(monkeypatch)
    result = download([server.url("/m.bin")], tmp_path / "m.bin", sha256=SHA, size=None, **FAST)
    assert result.url_used == server.url("/m.bin") and (tmp_path / "m.bin").read_bytes() == DATA
    print(f"untrusted CA refused ({info.value}); trusted once SSL_CERT_FILE names the test CA")


def test_certificate_for_another_host_is_refused(tmp_path):
    """A certificate from the trusted CA, but for another name: refused by IP address and by host name."""
    with FileServer({"/m.bin": DATA}, hosts=("files.example.invalid",)) as wrong:
        messages = []
        for url, expected in (
            (wrong.url("/m.bin"), "IP address mismatch"),
            (f"https://localhost:{wrong.port}/m.bin", "Hostname mismatch"),
        ):
            with pytest.raises(ModelError, match=rf"TLS certificate rejected \({expected}") as info:
                download([url], tmp_path / "m.bin", sha256=None, size=None, **FAST)
            messages.append(str(info.value))
        assert wrong.requests == [] and len(wrong.wait_handshake_failures(2)) == 2
    assert _leftovers(tmp_path) == []
    print(f"a certificate for files.example.invalid refused at 127.0.0.1 and at localhost: {messages}")


def test_redirect_from_https_to_http_is_refused(tmp_path):
    with (
        FileServer({"/m.bin": DATA}, tls=False) as plain,
        FileServer({"/m.bin": DATA}) as secure,
        FileServer({"/m.bin": DATA}) as moved,
    ):
        moved.behaviour["/m.bin"] = {"redirect": secure.url("/m.bin")}
        result = download([moved.url("/m.bin")], tmp_path / "a.bin", sha256=SHA, size=None, **FAST)
        assert result.url_used == moved.url("/m.bin") and (tmp_path / "a.bin").read_bytes() == DATA

        moved.behaviour["/m.bin"] = {"redirect": plain.url("/m.bin")}
        with pytest.raises(
            ModelError, match=r"redirected to http://127\.0\.0\.1:\d+/m\.bin, which is not https"
        ) as info:
            download([moved.url("/m.bin")], tmp_path / "b.bin", sha256=SHA, size=None, **FAST)
        assert plain.requests == []  # the http server never heard from us
        assert [r.status for r in moved.requests_for("/m.bin")] == [302, 302]
    assert _leftovers(tmp_path) == ["a.bin"]
    print(f"https -> https redirect followed; https -> http refused: {info.value}")


def test_existing_verified_destination_is_not_downloaded_again(server, tmp_path):
    dest = tmp_path / "m.bin"
    dest.write_bytes(DATA)
    result = download([server.url("/m.bin")], dest, sha256=SHA, size=len(DATA), **FAST)
    assert result.url_used is None and server.requests == []


# ---------------------------------------------------------------- resuming a file that may have changed

NEW = os.urandom(len(DATA))  # the server's file, replaced by another of the same length
NEW_SHA = hashlib.sha256(NEW).hexdigest()


def _interrupted(server: FileServer, dest: Path, validator: bool = True) -> None:
    """A first run that got 100000 bytes and gave up (no retries), leaving .part and .part.resume."""
    server.faults["/m.bin"] = [Fault("cut", after=100_000)]
    with pytest.raises(ModelError, match="connection closed"):
        download([server.url("/m.bin")], dest, sha256=None, size=None, retries=0, **FAST)
    assert _leftovers(dest.parent) == ["m.bin.part"] + (["m.bin.part.resume"] if validator else [])


def test_file_changed_between_runs_starts_over_not_spliced(server, tmp_path):
    dest = tmp_path / "m.bin"
    _interrupted(server, dest)
    server.files["/m.bin"] = NEW  # the mirror now serves another file
    result = download([server.url("/m.bin")], dest, sha256=None, size=None, **FAST)
    last = server.requests_for("/m.bin")[-1]
    # The resume named the old version; the server answered with the whole new file.
    assert (last.range, last.if_range, last.status) == ("bytes=100000-", FileServer.etag(DATA), 200)
    assert dest.read_bytes() == NEW and result.sha256 == NEW_SHA  # not DATA[:100000] + NEW[100000:]
    assert _leftovers(tmp_path) == ["m.bin"]
    print(f"resume sent If-Range {last.if_range}; the changed file came whole (200), {result.size} bytes, no splice")


def test_unchanged_file_resumes_with_if_range(server, tmp_path):
    dest = tmp_path / "m.bin"
    _interrupted(server, dest)
    result = download([server.url("/m.bin")], dest, sha256=None, size=None, **FAST)
    last = server.requests_for("/m.bin")[-1]
    assert (last.range, last.if_range, last.status) == ("bytes=100000-", FileServer.etag(DATA), 206)
    assert dest.read_bytes() == DATA and result.sha256 == SHA
    print("an unchanged file resumed from byte 100000 (206) under If-Range")


def test_last_modified_serves_when_there_is_no_strong_etag(server, tmp_path):
    dest = tmp_path / "m.bin"
    _interrupted(server, dest)
    resume = tmp_path / "m.bin.part.resume"
    recorded = json.loads(resume.read_text())
    resume.write_text(json.dumps({**recorded, "etag": "W/" + recorded["etag"]}))  # a weak ETag
    server.files["/m.bin"] = NEW
    download([server.url("/m.bin")], dest, sha256=None, size=None, **FAST)
    last = server.requests_for("/m.bin")[-1]
    assert last.if_range == FileServer.last_modified(DATA) and last.status == 200
    assert dest.read_bytes() == NEW
    print(f"with only a weak ETag, If-Range carried the date {last.if_range}; the changed file came whole")


def test_server_that_ignores_if_range_is_caught_by_its_etag(server, tmp_path):
    dest = tmp_path / "m.bin"
    _interrupted(server, dest)
    server.files["/m.bin"] = NEW
    server.behaviour["/m.bin"] = {"ignore_if_range": True}  # answers 206 with the new file's tail
    result = download([server.url("/m.bin")], dest, sha256=None, size=None, **FAST)
    statuses = [(r.range, r.status) for r in server.requests_for("/m.bin")[1:]]
    assert statuses == [("bytes=100000-", 206), (None, 200)]  # the 206 was thrown away; from zero
    assert dest.read_bytes() == NEW and result.sha256 == NEW_SHA
    print(f"a 206 carrying another ETag was refused and the download started over: {statuses}")


def test_part_of_unknown_version_is_resumed_only_under_a_known_hash(server, tmp_path):
    # From a server without validators (or an older Tingji): nothing says which version these bytes are.
    server.behaviour["/m.bin"] = {"no_validators": True}
    dest = tmp_path / "m.bin"
    _interrupted(server, dest, validator=False)  # no validator to keep
    server.files["/m.bin"] = NEW
    download([server.url("/m.bin")], dest, sha256=None, size=None, **FAST)
    assert server.requests_for("/m.bin")[-1].range is None  # started over: a splice could not be told
    assert dest.read_bytes() == NEW

    dest.unlink()
    (tmp_path / "m.bin.part").write_bytes(NEW[:100_000])
    download([server.url("/m.bin")], dest, sha256=NEW_SHA, size=None, **FAST)
    last = server.requests_for("/m.bin")[-1]
    assert (last.range, last.if_range, last.status) == ("bytes=100000-", None, 206)  # the hash guards it
    assert dest.read_bytes() == NEW
    print("bytes of unknown version: discarded without a hash, resumed (no If-Range) with one")


def test_416_on_a_complete_part_finishes_without_a_body(server, tmp_path):
    dest = tmp_path / "m.bin"
    _interrupted(server, dest)
    (tmp_path / "m.bin.part").write_bytes(DATA)  # as if every byte had arrived before the connection broke
    result = download([server.url("/m.bin")], dest, sha256=None, size=None, **FAST)
    last = server.requests_for("/m.bin")[-1]
    assert (last.range, last.status) == (f"bytes={len(DATA)}-", 416)
    assert result.sha256 == SHA and dest.read_bytes() == DATA and result.url_used == server.url("/m.bin")
    assert _leftovers(tmp_path) == ["m.bin"]
    print(f"416 'bytes */{len(DATA)}' for a .part holding the whole file: complete, SHA-256 {SHA[:12]}...")


def test_416_for_another_length_starts_over(server, tmp_path):
    dest = tmp_path / "m.bin"
    (tmp_path / "m.bin.part").write_bytes(DATA + b"extra")  # longer than the file is now
    download([server.url("/m.bin")], dest, sha256=SHA, size=None, **FAST)
    assert [(r.range, r.status) for r in server.requests_for("/m.bin")] == [
        (f"bytes={len(DATA) + 5}-", 416),
        (None, 200),
    ]
    assert dest.read_bytes() == DATA
    print("416 naming another length: the .part was discarded and the file fetched from zero")


def test_unexpected_content_encoding_is_refused(tmp_path):
    with FileServer({"/m.bin": DATA}) as gz, FileServer({"/m.bin": DATA}) as plain:
        gz.behaviour["/m.bin"] = {"content_encoding": "gzip"}
        with pytest.raises(ModelError, match="unexpected Content-Encoding 'gzip'") as info:
            download([gz.url("/m.bin")], tmp_path / "m.bin", sha256=None, size=None, **FAST)
        assert "\n" not in str(info.value) and _leftovers(tmp_path) == []
        result = download([gz.url("/m.bin"), plain.url("/m.bin")], tmp_path / "m.bin", sha256=None, size=None, **FAST)
        assert result.url_used == plain.url("/m.bin") and (tmp_path / "m.bin").read_bytes() == DATA
    print(f"a gzip body the client did not ask for was refused ({info.value}); the next mirror served it")


def test_unknown_length_chunked_download_and_resume(server, tmp_path):
    server.behaviour["/m.bin"] = {"length": "chunked"}
    seen: list[int | None] = []
    result = download(
        [server.url("/m.bin")],
        tmp_path / "a.bin",
        sha256=None,
        size=None,
        progress=lambda d, t, bps: seen.append(t),
        **FAST,
    )
    assert result.sha256 == SHA and (tmp_path / "a.bin").read_bytes() == DATA
    assert seen and set(seen) == {None}  # no total to show: the length was never stated

    # A chunked body cut short is seen as cut (the final chunk never came) and resumed.
    server.faults["/m.bin"] = [Fault("cut", after=100_000)]
    download([server.url("/m.bin")], tmp_path / "b.bin", sha256=None, size=None, **FAST)
    reqs = server.requests_for("/m.bin")[1:]
    assert [(r.range, r.status) for r in reqs] == [(None, 200), ("bytes=100000-", 206)]
    assert (tmp_path / "b.bin").read_bytes() == DATA
    print("no Content-Length (chunked): progress without a total, a cut body resumed, bytes exact")


def test_unknown_length_cut_body_never_passes_a_known_hash(tmp_path):
    """Without Content-Length or chunking, a cut looks like the end; the hash is what catches it."""
    with FileServer({"/m.bin": DATA}) as cut, FileServer({"/m.bin": DATA}) as good:
        cut.behaviour["/m.bin"] = {"length": "none"}
        cut.faults["/m.bin"] = [Fault("cut", after=100_000)]
        with pytest.raises(ModelError, match="fails its SHA-256 check") as info:
            download([cut.url("/m.bin")], tmp_path / "m.bin", sha256=SHA, size=None, **FAST)
        assert _leftovers(tmp_path) == []
        result = download([cut.url("/m.bin"), good.url("/m.bin")], tmp_path / "m.bin", sha256=SHA, size=None, **FAST)
        assert (tmp_path / "m.bin").read_bytes() == DATA and result.sha256 == SHA
    print(f"a close-delimited body cut at 100000 bytes was refused by its hash: {info.value}")
