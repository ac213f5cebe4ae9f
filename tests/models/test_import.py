"""Importing a model folder the user points at: what may be installed from it, and how.

Real folders with real links, the tiny model (a real ONNX + GGUF model) and
real peer releases made from it; the data folder is a temporary TINGJI_HOME.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.model_store import real_model
from tests.support.paths import ROOT
from tests.support.peer_release import DECODER, make_peer_folder
from tingji.errors import ModelError
from tingji.models import store
from tingji.models.catalog import load_catalog
from tingji.models.installed import list_models, verify
from tingji.paths import catalog_overrides_path, models_dir


def nothing_installed() -> None:
    assert list_models() == [] and [p.name for p in models_dir().iterdir()] == []


def test_a_link_out_of_the_folder_is_refused(tiny_model, tmp_path):
    """tokens.txt links to a file outside the folder whose bytes even match the manifest's hash."""
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.txt"
    shutil.copyfile(tiny_model / "tokens.txt", secret)
    src = shutil.copytree(tiny_model, tmp_path / "model")
    (src / "tokens.txt").unlink()
    (src / "tokens.txt").symlink_to(secret)
    with pytest.raises(ModelError) as info:
        store.import_folder(src, "linked")
    assert str(info.value) == f"{src / 'tokens.txt'}: a link to {secret}, outside the folder; not importing it"
    nothing_installed()
    print(f"refused: {info.value}")


def test_links_inside_the_folder_and_to_the_folder_are_fine(tiny_model, tmp_path):
    src = shutil.copytree(tiny_model, tmp_path / "real" / "model")
    (src / "sub").mkdir()
    (src / "tokens.txt").rename(src / "sub" / "tokens.txt")
    (src / "tokens.txt").symlink_to(Path("sub") / "tokens.txt")  # stays inside
    alias = tmp_path / "alias"
    alias.symlink_to(src, target_is_directory=True)  # the folder itself reached through a link
    result = store.import_folder(alias, "inside")
    installed = result.path / "tokens.txt"
    assert not installed.is_symlink() and installed.read_bytes() == (tiny_model / "tokens.txt").read_bytes()
    verify("inside")
    print("a link within the folder was installed as a copy of its file; a linked folder imported as usual")


def test_a_peer_release_with_a_link_out_is_refused(tiny_model, tmp_path):
    src = make_peer_folder(tiny_model, tmp_path / "release")
    decoder = src / DECODER.format("q5_k")
    elsewhere = tmp_path / "elsewhere.gguf"
    decoder.rename(elsewhere)
    decoder.symlink_to(elsewhere)
    with pytest.raises(ModelError, match=r"a link to .*elsewhere\.gguf, outside the folder; not importing it") as info:
        store.import_folder(src, "peer")
    assert "\n" not in str(info.value)
    nothing_installed()
    print(f"refused: {info.value}")


def spoiled(tiny_model: Path, dest: Path, role: str, data: bytes) -> Path:
    """The tiny model with one file replaced and the manifest updated to match: only loading can tell."""
    src = shutil.copytree(tiny_model, dest)
    manifest = json.loads((src / "manifest.json").read_text(encoding="utf-8"))
    entry = manifest["files"][role]
    (src / entry["path"]).write_bytes(data)
    entry["sha256"], entry["size"] = hashlib.sha256(data).hexdigest(), len(data)
    (src / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return src


@pytest.mark.parametrize(
    "role, file, data, reason",
    [
        ("encoder", "encoder.fp32.onnx", b"\x08\x07" + bytes(range(256)) * 40, "ONNX Runtime cannot load the encoder"),
        ("decoder", "decoder.f32.gguf", b"GGUF" + bytes(range(256)) * 40, "llama.cpp could not load the decoder"),
        # Weights too short for the CTC graph: the graph that cannot be loaded is named.
        ("ctc_data", "ctc.fp32.onnx", b"\0" * 1000, "External initializer"),
    ],
    ids=["onnx", "gguf", "onnx-weights"],
)
def test_a_model_that_cannot_be_loaded_is_refused_at_import(tiny_model, tmp_path, role, file, data, reason):
    src = spoiled(tiny_model, tmp_path / "model", role, data)
    stages: list[str] = []
    with pytest.raises(ModelError) as info:
        store.import_folder(src, "spoiled", progress=lambda stage, *_: stages.append(stage))
    message = str(info.value)
    assert message.startswith(f"{src / file}: cannot be loaded (") and reason in message
    assert "\n" not in message and ".incoming-" not in message  # names the user's file, not our staging copy
    assert "verifying" in stages and "loading" in stages  # the hashes matched; loading is what refused it
    nothing_installed()
    print(f"refused at import: {message[:160]}")


# ---------------------------------------------------------------- durability


def traced(argv: list[str], env: dict[str, str], trace: Path) -> list[tuple[str, str]]:
    """Run `python -m tingji ARGV` under strace; its fsyncs ("fsync", path) and renames ("rename", "a -> b")."""
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed: the system calls cannot be observed")
    r = subprocess.run(
        [
            strace,
            "-f",
            "-y",
            "-qq",
            "-o",
            str(trace),
            "-e",
            "trace=fsync,fdatasync,rename,renameat,renameat2",
            sys.executable,
            "-m",
            "tingji",
            *argv,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    events: list[tuple[str, str]] = []
    for line in trace.read_text().splitlines():
        if m := re.search(r"f(?:data)?sync\(\d+<([^>]*)>", line):
            events.append(("fsync", m.group(1)))
        elif m := re.search(r'rename(?:at2?)?\((?:\d+<[^>]*>, )?"([^"]*)", (?:\d+<[^>]*>, )?"([^"]*)"', line):
            events.append(("rename", f"{m.group(1)} -> {m.group(2)}"))
    return events


def test_install_commit_flushes_files_and_folders_before_the_rename(tiny_model, tmp_path):
    """`tingji models import` traced by strace: every staged file and folder is fsynced before the
    rename that publishes the model, and the models folder after it."""
    src = real_model(tiny_model, tmp_path / "src")  # with a sub-folder (vocab/)
    home = tmp_path / "home"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "app"), TINGJI_HOME=str(home))
    events = traced(["models", "import", str(src), "--name", "durable"], env, tmp_path / "trace.txt")
    final = home / "models" / "durable"
    publish = next(i for i, (kind, what) in enumerate(events) if kind == "rename" and what.endswith(f" -> {final}"))
    staged = Path(events[publish][1].split(" -> ")[0])
    assert staged.parent.name.startswith(".incoming-durable-")
    flushed = {what for kind, what in events[:publish] if kind == "fsync"}
    files = sorted(p.relative_to(final).as_posix() for p in final.rglob("*"))
    assert {str(staged / rel) for rel in files} | {str(staged)} <= flushed
    assert ("fsync", str(final.parent)) in events[publish + 1 :]
    print(
        f"before the rename: fsync of all {len(files)} staged files and folders and the model folder; "
        f"after it: fsync of {final.parent.name}/"
    )


def test_catalog_overrides_are_flushed_before_their_rename(tmp_path, monkeypatch):
    """The pins file: an unreadable one would stop every catalog download, so a crash must not tear it."""
    catalog = tmp_path / "catalog.json"
    catalog.write_text(
        json.dumps(
            {
                "format": 1,
                "models": [
                    {
                        "name": "m",
                        "kind": "tingji-model",
                        "archives": [{"name": "m.zip", "urls": ["https://127.0.0.1/m.zip"]}],
                        "files": [{"path": "manifest.json"}],
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    monkeypatch.setenv("TINGJI_CATALOG", str(catalog))
    load_catalog().pin("m", {"archive:m.zip": ("ab" * 32, 10)})
    env = dict(os.environ, PYTHONPATH=str(ROOT / "app"))
    events = traced(["models", "forget-pin", "m"], env, tmp_path / "trace.txt")
    target = catalog_overrides_path()
    publish = next(i for i, (kind, what) in enumerate(events) if kind == "rename" and what.endswith(f" -> {target}"))
    tmp = events[publish][1].split(" -> ")[0]
    assert ("fsync", tmp) in events[:publish]
    assert json.loads(target.read_text()).get("pins") == {}
    print(f"{Path(tmp).name} was fsynced before it replaced {target.name}")
