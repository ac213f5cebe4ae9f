"""Dictation history: rows with recordings, retention, orphans, clipboard-restoring output."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import soundfile as sf

from tests.support.clipboard import MemoryClipboard
from tingji.dictation import messages
from tingji.dictation.history import DictationHistory, DictationTake
from tingji.dictation.output import OutputError, TextOutput

pytestmark = pytest.mark.dictation


def _wav(history: DictationHistory) -> str:
    path = history.new_recording_path()
    sf.write(str(path), np.zeros(1600, np.float32), 16000, subtype="PCM_16")
    return path.name


def test_dictation_history_stores_takes_newest_first(tmp_path) -> None:
    h = DictationHistory(tmp_path / "d.sqlite3", tmp_path / "rec")
    first = h.add(DictationTake("hello", 1.0, recording=_wav(h), created=100.0))
    second = h.add(DictationTake("你好", 2.0, recording=_wav(h), created=200.0, language="zh"))
    assert [t.text for t in h.recent()] == ["你好", "hello"]
    assert h.recording_path(first).is_file() and first.recording != second.recording
    first.output, first.latency_s = "paste", 0.7
    h.update(first)
    assert h.get(first.id).output == "paste" and h.get(first.id).latency_s == pytest.approx(0.7)
    h.close()
    again = DictationHistory(tmp_path / "d.sqlite3", tmp_path / "rec")  # survives a restart
    assert again.count() == 2
    again.delete(first.id)
    assert again.count() == 1 and not (tmp_path / "rec" / first.recording).exists()


def test_dictation_history_retention_deletes_only_old_recordings(tmp_path) -> None:
    h = DictationHistory(tmp_path / "d.sqlite3", tmp_path / "rec")
    takes = [h.add(DictationTake(f"take {i}", 1.0, recording=_wav(h), created=float(i))) for i in range(5)]
    assert h.apply_retention(None) == 0
    assert h.apply_retention(2) == 3
    kept = {t.text: h.recording_path(t) for t in h.recent()}
    assert [k for k, v in kept.items() if v is not None] == ["take 4", "take 3"]
    assert h.count() == 5  # the text stays
    assert h.apply_retention(0) == 2
    assert not list((tmp_path / "rec").glob("*.wav"))
    assert all(t.recording is None for t in h.recent())
    assert takes[0].id is not None


def test_dictation_history_finds_orphan_recordings(tmp_path) -> None:
    h = DictationHistory(tmp_path / "d.sqlite3", tmp_path / "rec")
    h.add(DictationTake("stored", 1.0, recording=_wav(h)))
    orphan = _wav(h)
    (tmp_path / "rec" / "someone-elses.wav").write_bytes(b"")
    assert [p.name for p in h.orphan_recordings()] == [orphan]


class _Keys:
    def __init__(self, clipboard: MemoryClipboard | None = None, fail: bool = False) -> None:
        self.pasted: list[str] = []
        self.typed: list[str] = []
        self.clipboard = clipboard
        self.fail = fail

    def paste(self) -> None:
        if self.fail:
            raise OutputError(messages.CANNOT_SEND_KEYS, reason="test")
        self.pasted.append(self.clipboard.text() if self.clipboard else "")

    def type_text(self, text: str) -> None:
        self.typed.append(text)


def test_dictation_paste_restores_previous_clipboard() -> None:
    clip = MemoryClipboard("the user's own clipboard")
    keys = _Keys(clip)
    out = TextOutput(clip, keys, restore_delay_s=0.01)
    assert out.insert("dictated text") == "paste"
    assert keys.pasted == ["dictated text"]
    assert clip.text() == "the user's own clipboard"
    # a failed key send still gives the clipboard back
    keys.fail = True
    with pytest.raises(OutputError):
        out.insert("more")
    assert clip.text() == "the user's own clipboard"
    assert out.insert("") == "none"


def test_dictation_paste_keeps_what_the_user_copied_meanwhile() -> None:
    clip = MemoryClipboard("old")
    keys = _Keys(clip)
    slept = threading.Event()

    def sleep(s: float) -> None:
        if s == 0.3:  # the restore delay: the user copies something during it
            clip.set_text("copied during the paste")
            slept.set()

    out = TextOutput(clip, keys, restore_delay_s=0.3, sleep=sleep)
    out.insert("dictated")
    assert slept.is_set() and clip.text() == "copied during the paste"


def test_dictation_type_mode_leaves_clipboard_alone() -> None:
    clip = MemoryClipboard("old")
    keys = _Keys(clip)
    out = TextOutput(clip, keys, mode="type")
    assert out.insert("typed") == "type"
    assert keys.typed == ["typed"] and keys.pasted == [] and clip.text() == "old"
    assert TextOutput(None, keys).insert("no clipboard") == "type"
    with pytest.raises(ValueError):
        TextOutput(clip, keys, mode="telepathy")


def test_dictation_recording_that_cannot_be_deleted_yet_is_retried_not_recovered(tmp_path) -> None:
    """An unlink that fails (a file in use on Windows; here a folder in the WAV's place) keeps the name
    listed as deleted: it is no orphan for recovery, no new take gets the name, the next open retries."""
    h = DictationHistory(tmp_path / "d.sqlite3", tmp_path / "rec")
    take = h.add(DictationTake("private", 1.0, recording=_wav(h)))
    wav = tmp_path / "rec" / take.recording
    wav.unlink()
    wav.mkdir()
    (wav / "busy").write_bytes(b"x")
    h.delete(take.id)
    assert h.get(take.id) is None and wav.exists()
    assert h.orphan_recordings() == []
    h.close()
    (wav / "busy").unlink()
    wav.rmdir()
    wav.write_bytes(b"RIFF")  # the same name appears again before the next start
    again = DictationHistory(tmp_path / "d.sqlite3", tmp_path / "rec")
    assert not wav.exists() and again.orphan_recordings() == [] and again.count() == 0
    print("undeletable recording: stays listed, never an orphan, deleted on the next open")


def test_dictation_deleted_text_is_not_left_in_the_database_files(tmp_path) -> None:
    """Deleted means gone from the bytes on disk too: not in free space, not in the write-ahead log."""
    secret = "my bank PIN is 4711, zebra " * 200  # long enough to need overflow pages
    h = DictationHistory(tmp_path / "d.sqlite3", tmp_path / "rec")
    for i in range(4):
        h.add(DictationTake(f"take {i}", 1.0))
    take = h.add(DictationTake(secret, 1.0, recording=_wav(h)))
    take.output = "paste"
    h.update(take)
    needle = b"PIN is 4711"
    files = sorted(tmp_path.glob("d.sqlite3*"))
    assert sum(p.read_bytes().count(needle) for p in files) > 0  # it was there
    h.delete(take.id)
    found = {p.name: p.read_bytes().count(needle) for p in tmp_path.glob("d.sqlite3*")}
    assert not any(found.values()), found
    assert h._db.execute("PRAGMA secure_delete").fetchone()[0] == 1
    assert [t.text for t in h.recent()] == [f"take {i}" for i in reversed(range(4))]
    h.close()
    print(f"deleted text: 0 copies left in {sorted(found)}")


def test_dictation_recording_is_synced_before_the_rename_that_publishes_it(tmp_path, monkeypatch) -> None:
    """The real os calls run; the test only records their order."""
    import os
    import stat

    h = DictationHistory(tmp_path / "d.sqlite3", tmp_path / "rec")
    calls: list[tuple] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        kind = "folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file"
        size = os.fstat(fd).st_size
        real_fsync(fd)
        calls.append(("fsync", kind, size))

    def replace(src, dst) -> None:
        calls.append(("replace", os.path.basename(src), os.path.basename(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    samples = (np.sin(np.arange(16000) / 9) * 0.5).astype(np.float32)
    path = h.write_recording(samples, 16000)
    monkeypatch.undo()
    assert [c[:2] for c in calls] == [("fsync", "file"), ("replace", f".{path.name}.partial"), ("fsync", "folder")], (
        calls
    )
    assert calls[0][2] == path.stat().st_size  # the whole file was written when it was synced
    assert calls[1][2] == path.name and path.name.startswith("dictation-")
    assert sorted(p.name for p in (tmp_path / "rec").iterdir()) == [path.name]
    back, rate = sf.read(str(path), dtype="float32")
    assert rate == 16000 and np.abs(back - samples).max() < 1e-4
    print(f"recording: fsync(file, {calls[0][2]} bytes) -> rename to {path.name} -> fsync(folder)")
