"""End to end: models come from a real HTTP server on 127.0.0.1, get installed by the
`tingji models` command, and `tingji transcribe --model NAME` then gives the same text
as the engine on the original folder.

Every way a model reaches a user is covered: a packaged model by URL and hash, a
packaged model from the catalog, the official checkpoint converted on this machine,
and a CapsWriter-style peer release (imported from a folder, and from the catalog).
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tests.support.audio import write_wav
from tests.support.cli_user import Env, error_line
from tests.support.peer_release import bf16_reference, make_peer_folder
from tingji.engine import Engine


def zip_folder(folder: Path, dest: Path, top: str) -> bytes:
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zf.write(path, f"{top}/{path.relative_to(folder).as_posix()}")
    return dest.read_bytes()


def write_catalog(path: Path, *entries: dict) -> Path:
    path.write_text(json.dumps({"format": 1, "models": list(entries)}), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def wav(speech_en: np.ndarray, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_wav(tmp_path_factory.mktemp("audio") / "talk.wav", speech_en)


@pytest.fixture(scope="module")
def expected(tiny_model: Path, wav: Path) -> str:
    engine = Engine(tiny_model)
    text = engine.transcribe(wav).text
    engine.close()
    assert text
    return text


def test_install_by_url_and_hash_then_transcribe(server, tiny_model, wav, expected, tmp_path):
    blob = zip_folder(tiny_model, tmp_path / "tiny.zip", "tiny-model")
    server.files["/releases/tiny.zip"] = blob
    user = Env(tmp_path / "home")
    url = server.url("/releases/tiny.zip")

    wrong = user.tingji("models", "install", url, "--sha256", "0" * 64, "--name", "tiny-url")
    assert wrong.returncode == 1 and "SHA-256" in error_line(wrong)
    assert not (tmp_path / "home" / "models" / "tiny-url").exists()
    r = user.ok("models", "install", url, "--sha256", hashlib.sha256(blob).hexdigest(), "--name", "tiny-url")
    assert "installed tiny-url" in r.stdout
    assert user.transcribe("tiny-url", wav, tmp_path / "out") == expected
    assert "tiny-url" in user.ok("models", "list").stdout


def test_catalog_download_of_a_packaged_model(server, tiny_model, wav, expected, tmp_path):
    blob = zip_folder(tiny_model, tmp_path / "tiny.zip", "tiny")
    server.files["/cat/tiny.zip"] = blob
    catalog = write_catalog(
        tmp_path / "catalog.json",
        {
            "name": "tiny-cat",
            "kind": "tingji-model",
            "title": "Tiny",
            "archives": [{"name": "tiny.zip", "urls": [server.url("/cat/tiny.zip")], "size": None, "sha256": None}],
            "files": [{"path": "manifest.json"}, {"path": "decoder.f32.gguf"}],
        },
    )
    user = Env(tmp_path / "home", catalog)
    assert "tiny-cat  Tiny" in user.ok("models", "list").stdout
    r = user.ok("models", "download", "tiny-cat")
    assert (
        f"tiny.zip: not checked (the catalog publishes no SHA-256); pinned {hashlib.sha256(blob).hexdigest()}"
        in r.stderr
    )
    assert user.transcribe("tiny-cat", wav, tmp_path / "out") == expected
    user.ok("models", "verify", "tiny-cat")


@pytest.mark.slow
def test_official_checkpoint_is_converted_on_the_machine(server, tiny_checkpoint, tiny_model, wav, expected, tmp_path):
    files = sorted(p.relative_to(tiny_checkpoint).as_posix() for p in tiny_checkpoint.rglob("*") if p.is_file())
    for rel in files:
        server.files["/hub/" + rel] = (tiny_checkpoint / rel).read_bytes()
    catalog = write_catalog(
        tmp_path / "catalog.json",
        {
            "name": "tiny-official",
            "kind": "official-checkpoint",
            "title": "Tiny checkpoint",
            "mirrors": [server.url("/gone/{path}"), server.url("/hub/{path}")],
            "files": [{"path": rel, "size": None, "sha256": None} for rel in files],
            # The fixture's model has an f32 decoder; convert the same way to get the same text.
            "export": {"decoder_quant": "f32"},
        },
    )
    user = Env(tmp_path / "home", catalog)
    r = user.ok("models", "download", "tiny-official")
    assert r.stderr.count("now that the model verified; later downloads must match") == len(files)
    assert "installed tiny-official" in r.stdout
    manifest = json.loads((tmp_path / "home" / "models" / "tiny-official" / "manifest.json").read_text())
    ours = json.loads((tiny_model / "manifest.json").read_text())
    assert manifest["source"]["model_pt_sha256"] == ours["source"]["model_pt_sha256"]
    assert manifest["fun-asr-nano"]["decoder"]["quant"] == "f32"
    assert user.transcribe("tiny-official", wav, tmp_path / "out") == expected


def test_peer_release_imported_and_downloaded(server, tiny_model, wav, tmp_path):
    peer_dir = make_peer_folder(tiny_model, tmp_path / "Fun-ASR-Nano-GGUF")
    reference = Engine(bf16_reference(tiny_model, tmp_path / "ref"))
    expected = reference.transcribe(wav).text
    reference.close()

    user = Env(tmp_path / "home")
    r = user.ok("models", "import", str(peer_dir), "--name", "peer")
    assert "installed peer" in r.stdout
    assert user.transcribe("peer", wav, tmp_path / "out1") == expected

    # The catalog's peer-release kind: a release zip, adopted after download.
    server.files["/rel/Fun-ASR-Nano-GGUF.zip"] = zip_folder(peer_dir, tmp_path / "rel.zip", "Fun-ASR-Nano-GGUF")
    user.catalog = write_catalog(
        tmp_path / "catalog.json",
        {
            "name": "peer-cat",
            "kind": "peer-release",
            "title": "Peer",
            "archives": [
                {
                    "name": "Fun-ASR-Nano-GGUF.zip",
                    "urls": [server.url("/rel/Fun-ASR-Nano-GGUF.zip")],
                    "size": None,
                    "sha256": None,
                }
            ],
            "files": [
                {
                    "any_of": [
                        {"path": "Fun-ASR-Nano-Encoder-Adaptor.int4.onnx"},
                        {"path": "Fun-ASR-Nano-Encoder-Adaptor.fp32.onnx"},
                    ]
                },
                {"path": "Fun-ASR-Nano-CTC.fp32.onnx"},
                {"path": "Fun-ASR-Nano-Decoder.q5_k.gguf"},
                {"path": "tokens.txt"},
            ],
        },
    )
    user.ok("models", "download", "peer-cat")
    assert user.transcribe("peer-cat", wav, tmp_path / "out2") == expected

    # A folder that does not fit is refused in one line, and nothing is installed.
    (peer_dir / "Fun-ASR-Nano-Decoder.q5_k.gguf").write_bytes(b"not a gguf")
    bad = user.tingji("models", "import", str(peer_dir), "--name", "broken")
    assert bad.returncode == 1 and "llama.cpp cannot read it" in error_line(bad)
    assert sorted(p.name for p in (tmp_path / "home" / "models").iterdir()) == ["peer", "peer-cat"]
