"""Hashes the catalog does not publish: pinned only once the model verified, forgotten on request.

A catalog entry whose files have no SHA-256 cannot be checked on its first
download; Tingji pins what it got, and later downloads must match. Everything
here runs against the real local HTTPS server with the tiny model, zipped.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest

from tests.support.model_store import FAST, run_cli, write_catalog
from tingji.errors import ModelError
from tingji.models import store
from tingji.models.catalog import load_catalog
from tingji.models.installed import list_models, remove
from tingji.paths import catalog_overrides_path

NAME = "tiny"


def zip_model(folder: Path, dest: Path, *, spoil: str | None = None, extra: bytes | None = None) -> bytes:
    """The model folder as a release zip; `spoil` flips a byte of that file, `extra` adds a README."""
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.iterdir()):
            data = path.read_bytes()
            if path.name == spoil:
                data = data[:-2] + bytes([data[-2] ^ 1]) + data[-1:]
            zf.writestr("tiny/" + path.name, data)
        if extra is not None:
            zf.writestr("tiny/README.txt", extra)
    return dest.read_bytes()


@pytest.fixture(scope="module")
def zips(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    folder = tmp_path_factory.mktemp("zips")
    return {
        "good": zip_model(tiny_model, folder / "good.zip"),
        "bad": zip_model(tiny_model, folder / "bad.zip", spoil="tokens.txt"),  # one bad byte on the way
        "update": zip_model(tiny_model, folder / "update.zip", extra=b"release 2\n"),  # a new, valid release
    }


def tiny_entry(url: str) -> dict:
    return {
        "name": NAME,
        "kind": "tingji-model",
        "title": "Tiny",
        "archives": [{"name": "tiny.zip", "urls": [url], "size": None, "sha256": None}],
        "files": [{"path": "manifest.json"}, {"path": "decoder.f32.gguf"}],
    }


def pins() -> dict:
    path = catalog_overrides_path()
    return json.loads(path.read_text()).get("pins", {}) if path.exists() else {}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_pin_only_after_the_whole_model_verified(server, tmp_path, zips):
    server.files["/tiny.zip"] = zips["bad"]
    catalog = write_catalog(tmp_path / "catalog.json", [tiny_entry(server.url("/tiny.zip"))])
    with pytest.raises(ModelError, match=r"tokens\.txt fails its SHA-256 check"):
        store.download_catalog_model(NAME, catalog=load_catalog(catalog), download_options=FAST)
    assert pins() == {} and list_models() == []  # the bad response taught nothing

    server.files["/tiny.zip"] = zips["good"]  # the mirror recovers: the model is not locked out
    result = store.download_catalog_model(NAME, catalog=load_catalog(catalog), download_options=FAST)
    assert result.pinned["tiny.zip"] == sha(zips["good"])
    assert pins()[NAME]["archive:tiny.zip"] == {"sha256": sha(zips["good"]), "size": len(zips["good"])}
    assert set(pins()[NAME]) == {"archive:tiny.zip", "file:manifest.json", "file:decoder.f32.gguf"}
    assert load_catalog(catalog).get(NAME).archives[0].sha256 == sha(zips["good"])
    print(f"a bad first response pinned nothing; the good one pinned {sha(zips['good'])[:12]}... after install")


def test_a_source_that_failed_pins_nothing(server, tmp_path, tiny_model, zips):
    """The archive arrives (its hash computed) but lacks a file; the per-file mirror then installs the model."""
    server.files["/tiny.zip"] = zips["good"]
    for path in tiny_model.iterdir():
        server.files["/files/" + path.name] = path.read_bytes()
    entry = {
        **tiny_entry(server.url("/tiny.zip")),
        "mirrors": [server.url("/files/{path}")],
        "files": [{"path": p.name} for p in sorted(tiny_model.iterdir())] + [{"path": "missing.txt"}],
    }
    server.files["/files/missing.txt"] = b"only on the mirror\n"
    catalog = write_catalog(tmp_path / "catalog.json", [entry])
    store.download_catalog_model(NAME, catalog=load_catalog(catalog), download_options=FAST)
    keys = set(pins()[NAME])
    assert "archive:tiny.zip" not in keys and "file:missing.txt" in keys and "file:manifest.json" in keys
    print(f"the archive that failed left no pin; the mirror's {len(keys)} files were pinned")


def test_forget_pin_after_a_legitimate_update(server, tmp_path, zips, capsys, monkeypatch):
    server.files["/tiny.zip"] = zips["good"]
    monkeypatch.setenv("TINGJI_CATALOG", str(write_catalog(tmp_path / "c.json", [tiny_entry(server.url("/tiny.zip"))])))
    assert run_cli(["models", "download", NAME]) == 0
    err = capsys.readouterr().err
    assert f"tiny.zip: not checked (the catalog publishes no SHA-256); pinned {sha(zips['good'])}" in err
    remove(NAME)

    server.files["/tiny.zip"] = zips["update"]  # the publisher ships a new release under the same URL
    assert run_cli(["models", "download", NAME]) == 1
    # Held to the pin (its size is pinned too, so the new release is refused before it is fetched).
    assert f"file has {len(zips['update'])} bytes, expected {len(zips['good'])}" in capsys.readouterr().err

    assert run_cli(["models", "forget-pin", NAME]) == 0
    assert capsys.readouterr().out.strip() == f"{NAME}: forgot 3 pinned SHA-256 hash(es); the next download pins anew"
    assert pins() == {}
    assert run_cli(["models", "forget-pin", NAME]) == 0
    assert capsys.readouterr().out.strip() == f"{NAME}: no SHA-256 hashes are pinned"
    assert run_cli(["models", "forget-pin", "nope"]) == 1
    assert "no downloadable model named 'nope'" in capsys.readouterr().err

    assert run_cli(["models", "download", NAME]) == 0
    assert pins()[NAME]["archive:tiny.zip"]["sha256"] == sha(zips["update"])
    print("pinned, refused an update against the pin, forgot it with `tingji models forget-pin`, re-pinned the update")


def test_cli_says_when_a_download_cannot_be_checked(server, tmp_path, zips, capsys, monkeypatch):
    server.files["/tiny.zip"] = zips["good"]
    monkeypatch.setenv("TINGJI_CATALOG", str(write_catalog(tmp_path / "c.json", [tiny_entry(server.url("/tiny.zip"))])))
    assert run_cli(["models", "list"]) == 0
    listed = capsys.readouterr().out
    unchecked = (
        "not checked: the catalog publishes no SHA-256 for 3 of 3 files; they are pinned once the model verifies"
    )
    assert f"  {NAME}  Tiny  [{unchecked}]" in listed

    assert run_cli(["models", "download", NAME]) == 0
    err = capsys.readouterr().err
    assert err.splitlines()[0] == f"{NAME}: {unchecked}"  # said before a byte is fetched
    assert "checked against" not in err.replace("not checked", "")

    remove(NAME)
    assert run_cli(["models", "list"]) == 0
    assert (
        f"  {NAME}  Tiny  [checked against SHA-256 pinned by your first download (3 of 3)]" in capsys.readouterr().out
    )
    print(f"`tingji models list` and `download` said: {unchecked}")
