"""One install, one mirror: a catalog entry's files never come from two mirrors (two copies of a release).

Fun-ASR-Nano-2512's `model.pt` differs between its two homes (FunASR issue #3496): ModelScope's has
the CTC head that times words, Hugging Face's has none. The catalog lists ModelScope first, and a
download that a mirror cannot finish starts over from the next mirror instead of taking the rest of
the files from it. Here two mirrors on the local HTTPS server hold two copies of the tiny model
that differ in their manifest; the first lacks the last file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.model_store import FAST, write_catalog
from tingji.engine.manifest import load_manifest
from tingji.errors import ModelError
from tingji.models import messages, store
from tingji.models.catalog import load_catalog
from tingji.models.installed import list_models
from tingji.paths import data_dir, models_dir


def _copy(tiny_model: Path, mark: str) -> dict[str, bytes]:
    """The tiny model's files, its manifest marked as copy `mark` (manifest.json first)."""
    files = {p.relative_to(tiny_model).as_posix(): p.read_bytes() for p in sorted(tiny_model.rglob("*")) if p.is_file()}
    manifest = json.loads(files.pop("manifest.json"))
    manifest["source"] = {**manifest.get("source", {}), "copy": mark}
    return {"manifest.json": json.dumps(manifest).encode(), **files}


def _entry(server, files: dict[str, bytes]) -> dict:
    return {
        "name": "two-homes",
        "kind": "tingji-model",
        "title": "A model with two copies",
        "mirrors": [server.url("/a/{path}"), server.url("/b/{path}")],
        "files": [{"path": rel, "size": None, "sha256": None} for rel in files],
    }


def test_a_mirror_that_lacks_a_file_is_given_up_and_the_next_serves_every_file(server, tmp_path, tiny_model):
    a, b = _copy(tiny_model, "A"), _copy(tiny_model, "B")
    last = list(a)[-1]
    for rel, data in a.items():
        if rel != last:  # mirror A has every file but the last
            server.files["/a/" + rel] = data
    for rel, data in b.items():
        server.files["/b/" + rel] = data
    catalog = load_catalog(write_catalog(tmp_path / "catalog.json", [_entry(server, a)]))

    result = store.download_catalog_model("two-homes", catalog=catalog, download_options=FAST)

    manifest = load_manifest(result.path)
    assert manifest.source["copy"] == "B"  # not A's manifest with B's last file
    assert manifest.source["mirror"] == f"127.0.0.1:{server.port}"
    assert manifest.source["mirror_url"] == server.url("/b/{path}")
    for rel, data in b.items():
        if rel != "manifest.json":  # the installed one also names its mirror
            assert (result.path / rel).read_bytes() == data, rel
    served = [(r.path, r.status) for r in server.requests]
    from_a = [path for path, status in served if path.startswith("/a/") and status == 200]
    from_b = [path for path, status in served if path.startswith("/b/") and status == 200]
    assert from_a == ["/a/" + rel for rel in a if rel != last]  # A served files before it failed...
    assert sorted(from_b) == sorted("/b/" + rel for rel in b)  # ...and B served every file again, A's too
    last_a = max(i for i, (path, _) in enumerate(served) if path.startswith("/a/"))
    assert all(path.startswith("/b/") for path, _ in served[last_a + 1 :])
    assert result.pinned.keys() == b.keys()  # the hashes pinned are B's, every one of them
    print(
        f"\nmirror A served {len(from_a)} of {len(a)} files and lacked {last}; mirror B then served all "
        f"{len(from_b)}: installed copy {manifest.source['copy']} from {manifest.source['mirror_url']}"
    )


def test_no_mirror_with_every_file_is_one_coded_error_and_nothing_mixed(server, tmp_path, tiny_model):
    a, b = _copy(tiny_model, "A"), _copy(tiny_model, "B")
    names = list(a)
    for rel in names[:-1]:  # A lacks the last file, B the second: together they have all
        server.files["/a/" + rel] = a[rel]
    for rel in names[:1] + names[2:]:
        server.files["/b/" + rel] = b[rel]
    catalog = load_catalog(write_catalog(tmp_path / "catalog.json", [_entry(server, a)]))

    with pytest.raises(ModelError) as err:
        store.download_catalog_model("two-homes", catalog=catalog, download_options=FAST)

    assert err.value.message is messages.NO_WHOLE_MIRROR
    text = str(err.value)
    assert text.startswith("two-homes: no mirror served every file (") and "never mixed" in text
    assert names[-1] in text and names[1] in text and "\n" not in text
    assert list_models() == [] and not (models_dir() / "two-homes").exists()
    # Each mirror's files wait in a folder of their own (for resuming), never side by side.
    folders = sorted((data_dir() / "cache" / "two-homes" / "files").iterdir())
    assert len(folders) == 2
    kept = [json.loads((f / "manifest.json").read_text())["source"]["copy"] for f in folders]
    assert sorted(kept) == ["A", "B"]
    print(f"\n{text}")
