"""A model that writes no punctuation comes with its punctuation model: one download, then punctuated text.

Catalog entries name their companions; `tingji models download` installs the
model and then each companion not installed yet, from a real HTTPS server on
127.0.0.1; `tingji transcribe` then punctuates with it unless told not to.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.models.test_e2e import write_catalog, zip_folder
from tests.support.audio import write_wav
from tests.support.cli_user import Env
from tingji.errors import ModelError
from tingji.models.catalog import load_catalog

MARKS = re.compile(r"[，。？、,.?]")


def _entry(name: str, server, blob_path: str, **extra) -> dict:
    return {
        "name": name,
        "kind": "tingji-model",
        "title": name,
        "archives": [{"name": f"{name}.zip", "urls": [server.url(blob_path)], "size": None, "sha256": None}],
        "files": [{"path": "manifest.json"}],
        **extra,
    }


def test_a_model_and_its_punctuation_are_one_download(server, pf_model, punc_model, speech_zh, tmp_path):
    server.files["/cat/pf.zip"] = zip_folder(pf_model, tmp_path / "pf.zip", "pf")
    server.files["/cat/punc.zip"] = zip_folder(punc_model, tmp_path / "punc.zip", "punc")
    catalog = write_catalog(
        tmp_path / "catalog.json",
        _entry("pf-cat", server, "/cat/pf.zip", companions=["punc-cat"]),
        _entry("punc-cat", server, "/cat/punc.zip"),
    )
    user = Env(tmp_path / "home", catalog)
    user.ok("models", "download", "pf-cat")
    installed = sorted(p.name for p in (tmp_path / "home" / "models").iterdir())
    wav = write_wav(tmp_path / "clip.wav", speech_zh)
    text = user.transcribe("pf-cat", wav, tmp_path / "out")
    bare = user.ok(
        "transcribe",
        str(wav),
        "--model",
        "pf-cat",
        "--no-punctuation",
        "--format",
        "json",
        "--out",
        str(tmp_path / "bare"),
    )
    plain = json.loads((tmp_path / "bare" / "clip.json").read_text(encoding="utf-8"))["text"]
    print(f"\ninstalled {installed} in one download; {text!r}")
    assert installed == ["pf-cat", "punc-cat"] and bare.returncode == 0
    assert MARKS.search(text) and MARKS.sub("", text) == plain and not MARKS.search(plain)
    # A second model needing the same companion does not fetch it again.
    server.files["/cat/pf2.zip"] = server.files["/cat/pf.zip"]
    catalog = write_catalog(
        tmp_path / "catalog.json",
        _entry("pf-two", server, "/cat/pf2.zip", companions=["punc-cat"]),
        _entry("punc-cat", server, "/cat/gone.zip"),
    )
    Env(tmp_path / "home", catalog).ok("models", "download", "pf-two")
    assert sorted(p.name for p in (tmp_path / "home" / "models").iterdir()) == ["pf-cat", "pf-two", "punc-cat"]


def test_companions_must_be_model_names(tmp_path):
    path = write_catalog(
        tmp_path / "catalog.json",
        {
            "name": "m",
            "kind": "tingji-model",
            "mirrors": ["https://example.org/{path}"],
            "files": [{"path": "manifest.json"}],
            "companions": "punc",
        },
    )
    with pytest.raises(ModelError) as err:
        load_catalog(path)
    print(f"\n{err.value}")
    assert "companions must be a list of model names" in str(err.value)


def test_the_builtin_paraformer_entry_brings_punctuation():
    catalog = load_catalog(Path(__file__).resolve().parents[2] / "assets" / "models.json")
    pf, punc = catalog.get("paraformer-zh"), catalog.get("ct-punc-zh")
    assert pf.companions == ("ct-punc-zh",) and punc.about.companion and not pf.about.companion
    assert pf.about.family == "paraformer" and "timestamps" in pf.about.best_for
    assert punc.about.download_mb < pf.about.download_mb  # the model's size includes its companion's
