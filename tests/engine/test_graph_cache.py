"""ONNX Runtime's optimised graphs kept between loads (engine/ort_cache.py): used, checked, rebuilt, never fatal."""

from __future__ import annotations

import json

import pytest

from tingji.engine import Engine, ort_cache
from tingji.engine.manifest import load_manifest


def _entries(cache, roles=("ctc", "encoder")):
    """The cache's entries for these roles (the prompt prefix's cells are kept there too: prefix_cache)."""
    return sorted(
        p
        for p in cache.iterdir()
        if (p / ort_cache.ENTRY).is_file() and json.loads((p / ort_cache.ENTRY).read_text())["fields"]["role"] in roles
    )


def _tokens(engine, speech):
    return engine.transcribe(speech).window_tokens


@pytest.fixture(scope="module")
def plain_tokens(tiny_model, speech_en):
    engine = Engine(tiny_model, "cpu")
    try:
        return _tokens(engine, speech_en)
    finally:
        engine.close()


def test_first_load_saves_the_graphs_and_later_loads_use_them(tiny_model, speech_en, plain_tokens, tmp_path):
    cache = tmp_path / "graphs"
    first = Engine(tiny_model, "cpu", graph_cache=cache)
    built = _entries(cache)
    stamps = {p: (p / ort_cache.GRAPH).stat().st_mtime_ns for p in built}
    roles = sorted(json.loads((p / ort_cache.ENTRY).read_text())["fields"]["role"] for p in built)
    assert roles == ["ctc", "encoder"]  # one per session of the CPU policy
    assert _tokens(first, speech_en) == plain_tokens
    first.close()
    again = Engine(tiny_model, "cpu", graph_cache=cache)
    print(f"{len(built)} entries built, reused by the second load; transcripts equal to an uncached engine's")
    assert _entries(cache) == built and {p: (p / ort_cache.GRAPH).stat().st_mtime_ns for p in built} == stamps
    assert _tokens(again, speech_en) == plain_tokens
    again.close()


@pytest.mark.parametrize("damage", ["graph bytes", "weights size", "entry"])
def test_a_damaged_entry_is_rebuilt(tiny_model, speech_en, plain_tokens, tmp_path, damage):
    cache = tmp_path / "graphs"
    Engine(tiny_model, "cpu", graph_cache=cache).close()
    entry = next(p for p in _entries(cache) if "encoder" in (p / ort_cache.ENTRY).read_text())
    if damage == "graph bytes":  # same size, other content: the graph's hash catches it
        data = bytearray((entry / ort_cache.GRAPH).read_bytes())
        data[len(data) // 2] ^= 0xFF
        (entry / ort_cache.GRAPH).write_bytes(bytes(data))
    elif damage == "weights size":
        with open(entry / ort_cache.WEIGHTS, "ab") as fh:
            fh.write(b"\0")
    else:
        (entry / ort_cache.ENTRY).write_text("{", encoding="utf-8")
    engine = Engine(tiny_model, "cpu", graph_cache=cache)
    tokens = _tokens(engine, speech_en)
    engine.close()
    fields = json.loads((entry / ort_cache.ENTRY).read_text())["fields"]
    print(f"{damage}: entry rebuilt for {fields['role']}, transcript unchanged")
    assert tokens == plain_tokens
    assert ort_cache._valid(entry, fields)


def test_entries_of_another_runtime_are_dropped_and_forget_removes_a_models_entries(tiny_model, tmp_path):
    cache = tmp_path / "graphs"
    old = cache / "made-by-an-older-onnxruntime"
    old.mkdir(parents=True)
    manifest = load_manifest(tiny_model)
    fields = dict(ort_cache.entry_fields(manifest, "encoder", 99, None), onnxruntime="0.0.1")
    (old / ort_cache.ENTRY).write_text(json.dumps({"fields": fields}), encoding="utf-8")
    Engine(tiny_model, "cpu", graph_cache=cache).close()
    assert not old.exists() and len(_entries(cache)) == 2
    ort_cache.forget(cache, manifest)
    assert _entries(cache) == []


def test_an_unusable_cache_folder_never_fails_a_load(tiny_model, speech_en, plain_tokens, tmp_path):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would be")
    engine = Engine(tiny_model, "cpu", graph_cache=blocked)
    assert _tokens(engine, speech_en) == plain_tokens
    engine.close()
    assert blocked.read_text() == "a file where the cache folder would be"
