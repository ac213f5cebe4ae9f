"""The default prompt's prefix cells kept beside the optimised graphs (engine/prefix_cache.py)."""

from __future__ import annotations

import json

import pytest

from tingji.engine import Engine, ort_cache, prefix_cache
from tingji.engine.options import TranscribeOptions


def _prefix_entries(cache):
    return sorted(
        p
        for p in cache.iterdir()
        if (p / ort_cache.ENTRY).is_file()
        and json.loads((p / ort_cache.ENTRY).read_text())["fields"]["role"] == "prefix"
    )


def _before(engine):
    return engine.recognizer._prompt(TranscribeOptions())[0]


@pytest.fixture(scope="module")
def plain(tiny_model, speech_en):
    """Tokens of a take and a file on an engine without any cache."""
    engine = Engine(tiny_model, "cpu")
    try:
        return engine.live.transcribe(speech_en).window_tokens, engine.transcribe(speech_en).window_tokens
    finally:
        engine.close()


def test_the_first_window_stores_the_cells_and_later_loads_start_with_them(tiny_model, speech_en, plain, tmp_path):
    cache = tmp_path / "graphs"
    first = Engine(tiny_model, "cpu", graph_cache=cache)
    assert _prefix_entries(cache) == []  # nothing decoded yet
    assert first.live.transcribe(speech_en).window_tokens == plain[0]
    first.close()
    [entry] = _prefix_entries(cache)
    stamp = (entry / prefix_cache.CELLS).stat().st_mtime_ns
    again = Engine(tiny_model, "cpu", graph_cache=cache)
    try:
        lane = again.live.state
        # In the cache at "ready", restored in line: no thread decoding it in the background.
        assert lane._ahead is None and lane._cached == _before(again)
        assert again.live.transcribe(speech_en).window_tokens == plain[0]
        assert again.transcribe(speech_en).window_tokens == plain[1]
    finally:
        again.close()
    assert _prefix_entries(cache) == [entry] and (entry / prefix_cache.CELLS).stat().st_mtime_ns == stamp
    print(
        f"prefix of {len(lane._cached)} tokens restored from {(entry / prefix_cache.CELLS).stat().st_size} "
        "bytes; take and file equal to an uncached engine's"
    )


@pytest.mark.parametrize("damage", ["cells bytes", "cells size", "entry"])
def test_damaged_cells_are_dropped_and_stored_again(tiny_model, speech_en, plain, tmp_path, damage):
    cache = tmp_path / "graphs"
    engine = Engine(tiny_model, "cpu", graph_cache=cache)
    engine.live.transcribe(speech_en)
    engine.close()
    [entry] = _prefix_entries(cache)
    cells = entry / prefix_cache.CELLS
    if damage == "cells bytes":  # same size, other content: the hash catches it
        data = bytearray(cells.read_bytes())
        data[len(data) // 2] ^= 0xFF
        cells.write_bytes(bytes(data))
    elif damage == "cells size":
        cells.write_bytes(cells.read_bytes()[:-7])
    else:
        (entry / ort_cache.ENTRY).write_text("{not json")
    engine = Engine(tiny_model, "cpu", graph_cache=cache)
    try:
        assert engine.live.state._cached == [] or engine.live.state._ahead is not None  # not restored
        assert not entry.exists()
        assert engine.live.transcribe(speech_en).window_tokens == plain[0]
    finally:
        engine.close()
    assert len(_prefix_entries(cache)) == 1  # stored again by that take


def test_cells_that_llama_cpp_refuses_are_not_used(tiny_model, tmp_path):
    """Cells with a valid hash but of another shape (e.g. written by another build) fall back to decoding."""
    engine = Engine(tiny_model, "cpu", warm=False)
    try:
        lane = engine.live.state
        before = _before(engine)
        assert not lane.restore_prefix(before, b"\0" * 64)
        assert lane._cached == []
        lane.prefill(before, __import__("numpy").zeros((0, lane.n_embd), "float32"), [])
        tokens, cells = lane.prefix_cells()
        assert tokens == before
        assert not lane.restore_prefix(before[:-1], cells)  # cells of more positions than tokens given
        assert lane.restore_prefix(before, cells) and lane._cached == before
    finally:
        engine.close()


def test_build_caches_at_install_leaves_the_cells_for_the_first_start(tiny_model, speech_en, plain, tmp_path):
    """What the model manager's install check does (models/staging.check_loads): the first start restores them."""
    cache = tmp_path / "graphs"
    checked = Engine(tiny_model, "cpu", warm=False, graph_cache=cache)
    checked.build_caches()
    checked.close()
    [entry] = _prefix_entries(cache)
    first_start = Engine(tiny_model, "cpu", graph_cache=cache)
    try:
        assert first_start.live.state._cached == _before(first_start) and first_start.live.state._ahead is None
        assert first_start.live.transcribe(speech_en).window_tokens == plain[0]
    finally:
        first_start.close()
    assert _prefix_entries(cache) == [entry]
    uncached = Engine(tiny_model, "cpu", warm=False)  # without a graph cache there is nothing to build
    uncached.build_caches()
    assert uncached.live.state._cached == []
    uncached.close()
