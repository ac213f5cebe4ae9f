"""Converting hands back the checkpoint pages it has used (`export.resident`), and no value changes."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tingji.export import resident
from tingji.export.safetensors_file import load_file_numpy


def _rss_file_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssFile:"):
            return int(line.split()[1])
    raise AssertionError("no RssFile in /proc/self/status")


def _write_safetensors(path: Path, arrays: dict[str, np.ndarray]) -> None:
    import json
    import struct

    header, offset, blobs = {}, 0, []
    for name, array in arrays.items():
        data = np.ascontiguousarray(array).tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="MADV_PAGEOUT is Linux's")
def test_released_checkpoint_pages_leave_the_process_and_read_back_the_same(tmp_path: Path):
    rng = np.random.default_rng(0)
    arrays = {f"w{i}": rng.standard_normal((1024, 4096), dtype=np.float32) for i in range(4)}  # 64 MB
    path = tmp_path / "model.safetensors"
    _write_safetensors(path, arrays)
    mapped = load_file_numpy(path)
    sums = {name: float(np.asarray(a, np.float64).sum()) for name, a in mapped.items()}  # every page read
    before = _rss_file_kb()
    resident.release(mapped.values())
    after = _rss_file_kb()
    print(f"\nresident file pages: {before / 1024:.0f} MB after reading, {after / 1024:.0f} MB after release")
    # At least half: pages the kernel is still writing back (the file was written just now) may stay.
    assert before - after >= 32 * 1024, "the 64 MB of read pages should have left the process"
    for name, array in mapped.items():  # read again from the file: the same values
        assert float(np.asarray(array, np.float64).sum()) == sums[name]
        assert np.array_equal(array, arrays[name])


def test_arrays_that_are_not_mapped_files_are_left_alone():
    array = np.arange(1 << 20, dtype=np.float32)
    assert not resident._mapped(array)
    resident.release([array, array[10:]])
    assert np.array_equal(array, np.arange(1 << 20, dtype=np.float32))
