"""A decoder file left in 2 MB page-cache folios, checked through a mapping of our own.

`map_in_large_pages` reports how much of the file a mapping gets in 2 MB
pages; the checks here map the file afterwards the way llama.cpp does (plain
`mmap`, no advice) and read the kernel's own count for that mapping, so a
report that does not match what a later mapping gets fails.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from tingji.engine import pages
from tingji.engine.pages import HUGE, map_in_large_pages

LINUX = sys.platform.startswith("linux")


def _write(path: Path, size: int) -> str:
    """Written 4 KB at a time, as a streaming exporter writes: the page cache gets small folios
    (one large write may already get 2 MB ones)."""
    data = np.random.default_rng(7).integers(0, 256, size, dtype=np.uint8).tobytes()
    with open(path, "wb") as f:
        for i in range(0, size, 4096):
            f.write(data[i : i + 4096])
    return hashlib.sha256(data).hexdigest()


def _plain_mapping_fraction(path: Path) -> float:
    """The fraction of the file's whole 2 MB blocks a plain shared mapping gets in 2 MB pages."""
    whole = path.stat().st_size // HUGE * HUGE
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        view = np.frombuffer(m, np.uint8)
        int(view[::4096].sum())  # fault every page in, as llama.cpp's MAP_POPULATE does
        start = int(view.ctypes.data)
        kb = pages._pmd_mapped_kb(start)
        del view
    return kb * 1024 / whole


@pytest.mark.skipif(not LINUX, reason="2 MB page-cache folios are a Linux feature")
def test_a_freshly_written_file_is_reread_in_large_pages_then_kept(tmp_path):
    if not pages.thp_enabled():
        pytest.skip("transparent huge pages are off on this system")
    path = tmp_path / "décodeur.gguf"  # a non-ASCII name, as users' model folders have
    digest = _write(path, 6 * HUGE + 12345)
    first = map_in_large_pages(path)
    assert first is not None
    print(f"\nfirst: {first}")
    if first.action == "unsupported":
        # The trial block came back in small folios: this file system has no large folios.
        assert first.after == first.before
        assert _plain_mapping_fraction(path) < pages.GOOD
        return
    # Written through the page cache, the file held small folios: dropped and read again.
    assert first.action == "reread" and first.before < pages.GOOD
    assert first.after >= pages.GOOD
    second = map_in_large_pages(path)
    print(f"second: {second}")
    assert second is not None and second.action == "kept" and second.before >= pages.GOOD
    # What llama.cpp's later mapping gets is what was reported, and the bytes are the file's.
    plain = _plain_mapping_fraction(path)
    print(f"a plain mapping afterwards: {plain:.2f} of the file in 2 MB pages")
    assert plain >= pages.GOOD
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


def test_small_missing_and_unsupported_cases_do_nothing(tmp_path, monkeypatch):
    small = tmp_path / "small.gguf"
    _write(small, pages.MIN_FILE - 1)
    assert map_in_large_pages(small) is None
    assert map_in_large_pages(tmp_path / "missing.gguf") is None
    big = tmp_path / "big.gguf"
    _write(big, pages.MIN_FILE + HUGE)
    monkeypatch.setattr(pages, "thp_enabled", lambda: False)
    assert map_in_large_pages(big) is None
    monkeypatch.setattr(pages, "_libc", lambda: None)  # Windows, macOS, musl
    monkeypatch.setattr(pages, "thp_enabled", lambda: True)
    assert map_in_large_pages(big) is None


@pytest.mark.skipif(not LINUX, reason="reads /proc/self/smaps")
def test_the_smaps_reader_finds_only_the_mapping_asked_for(tmp_path):
    path = tmp_path / "data.bin"
    _write(path, 3 * HUGE)
    assert pages._pmd_mapped_kb(1) == 0  # no mapping starts there
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        view = np.frombuffer(m, np.uint8)
        start = int(view.ctypes.data)
        kb = pages._pmd_mapped_kb(start)
        del view
    assert 0 <= kb <= 3 * HUGE // 1024
    assert os.path.getsize(path) == 3 * HUGE
