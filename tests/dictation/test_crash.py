"""Dictation history through a crash: a deleted take stays deleted (issue 17 item 4: privacy),
and a recording is published complete or not at all (item 8).

A child process deletes a take (or applies retention over many takes, or
writes a recording) and is stopped at an exact step: it prints where it is and blocks,
and this process kills it with SIGKILL right there. No sleeps: the child
cannot move on before the kill. Then a fresh `DictationHistory` is opened on
the same files and crash recovery runs with the real engine on real speech
WAVs, so a recording left behind as an "orphan" would come back as text.

The stop points are the steps of the protocol in history.py:
  commit         inside the transaction that marks the deletion, before COMMIT
  checkpoint     committed; the write-ahead log still holds the deleted text
  unlink:K:before  the marking is committed, the K-th WAV not yet unlinked
  unlink:K:after   the K-th WAV is unlinked, later ones (and the forgetting of
                 the names) not yet done; K = the last one is "all files gone,
                 names not yet forgotten"
  rename         a recording is written and fsynced under its temporary name,
                 not yet renamed to the `dictation-*.wav` that recovery reads
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from tests.support.paths import ROOT
from tingji.dictation.history import DictationHistory, DictationTake
from tingji.dictation.recovery import recover_orphans
from tingji.engine import Engine, TranscribeOptions

pytestmark = pytest.mark.dictation

# The child: runs one operation and stops at argv[5] ("commit", "checkpoint", "unlink:K:before|after", "rename").
_CHILD = r"""
import os, pathlib, sys
import numpy as np
from tingji.dictation.history import DictationHistory

db, rec, op, arg, stop = sys.argv[1:6]

def pause(where):
    print("STOPPED " + where, flush=True)
    sys.stdin.readline()  # the parent kills this process while it waits here
    sys.exit("not killed")

history = DictationHistory(db, rec)

class Connection:
    # history's sqlite3 connection, stopping before the COMMIT of the deletion's transaction
    def __init__(self, con):
        self.con = con
    def execute(self, sql, *args):
        if stop == "commit" and sql.strip().upper() == "COMMIT":
            pause("before COMMIT")
        if stop == "checkpoint" and "wal_checkpoint" in sql:
            pause("after COMMIT, before the checkpoint")
        return self.con.execute(sql, *args)
    def executemany(self, sql, *args):
        return self.con.executemany(sql, *args)
    def close(self):
        self.con.close()

history._db = Connection(history._db)
real_unlink = pathlib.Path.unlink
unlinked = 0

def unlink(self, missing_ok=False):
    global unlinked
    if self.suffix != ".wav" or not stop.startswith("unlink:"):
        return real_unlink(self, missing_ok=missing_ok)
    _, k, when = stop.split(":")
    if unlinked + 1 == int(k) and when == "before":
        pause(f"before unlinking WAV {k}")
    real_unlink(self, missing_ok=missing_ok)
    unlinked += 1
    if unlinked == int(k) and when == "after":
        pause(f"after unlinking WAV {k}")

real_replace = os.replace

def replace(src, dst):
    if stop == "rename":
        pause("before renaming the written recording")
    real_replace(src, dst)

pathlib.Path.unlink = unlink
os.replace = replace
if op == "delete":
    history.delete(int(arg))
elif op == "retention":
    history.apply_retention(int(arg))
else:
    history.write_recording(np.full(16000 * int(arg), 0.25, np.float32), 16000)
print("FINISHED", flush=True)
"""


def _history_with_takes(folder: Path, speech: np.ndarray, n: int) -> tuple[Path, Path, list[DictationTake]]:
    """n takes, oldest first, each with a real speech recording (different, so each is findable)."""
    db, rec = folder / "dictation.sqlite3", folder / "recordings"
    history = DictationHistory(db, rec)
    takes = []
    for i in range(n):
        wav = history.new_recording_path()
        sf.write(str(wav), np.roll(speech, i * 1600), 16000, subtype="PCM_16")
        takes.append(
            history.add(DictationTake(f"private take {i}", len(speech) / 16000, recording=wav.name, created=1000.0 + i))
        )
    history.close()
    return db, rec, takes


def _kill_at(db: Path, rec: Path, op: str, arg: int, stop: str) -> str:
    """Run the deletion in a child, SIGKILL it at `stop`; returns where it said it stopped."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "app"), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(db), str(rec), op, str(arg), stop],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline().strip()
        assert line.startswith("STOPPED "), f"{stop}: the child did not stop there: {line!r} {proc.stderr.read()}"
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(30) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()
    return line.removeprefix("STOPPED ")


def _reopen_and_recover(db: Path, rec: Path, engine: Engine) -> tuple[DictationHistory, int]:
    """What the next start of the app does: open the history, transcribe orphans into it."""
    history = DictationHistory(db, rec)
    stored = recover_orphans(
        engine.live, history, TranscribeOptions, model_name=None, cancel=threading.Event(), emit=lambda event: None
    )
    return history, stored


def _pending_names(db: Path) -> int:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute("SELECT COUNT(*) FROM deleted_recordings").fetchone()[0]
    finally:
        con.close()


@pytest.mark.parametrize("stop", ["checkpoint", "unlink:1:before", "unlink:1:after"])
def test_deleted_take_stays_deleted_when_killed_mid_delete(
    tmp_path: Path, engine: Engine, speech_en: np.ndarray, stop: str
) -> None:
    db, rec, (keep, gone) = _history_with_takes(tmp_path, speech_en, 2)
    where = _kill_at(db, rec, "delete", gone.id, stop)

    history, stored = _reopen_and_recover(db, rec, engine)
    assert stored == 0  # recovery found nothing to bring back
    texts = [t.text for t in history.recent()]
    assert texts == [keep.text] and gone.text not in texts
    assert not (rec / gone.recording).exists()
    assert sorted(p.name for p in rec.glob("*.wav")) == [keep.recording]
    assert history.orphan_recordings() == [] and _pending_names(db) == 0
    assert not any(gone.text.encode() in p.read_bytes() for p in db.parent.glob(db.name + "*"))
    history.close()
    print(
        f"delete killed {where}: after reopen + recovery the take is gone (0 recovered, WAV gone, "
        f"text not in the database files, other take kept)"
    )


def test_delete_killed_before_commit_leaves_the_take_whole(
    tmp_path: Path, engine: Engine, speech_en: np.ndarray
) -> None:
    db, rec, takes = _history_with_takes(tmp_path, speech_en, 2)
    where = _kill_at(db, rec, "delete", takes[1].id, "commit")

    history, stored = _reopen_and_recover(db, rec, engine)
    assert stored == 0
    assert [t.text for t in history.recent()] == [t.text for t in reversed(takes)]  # nothing half-deleted
    assert all(history.recording_path(t) is not None for t in history.recent())
    history.delete(takes[1].id)  # and deleting it again works
    assert history.get(takes[1].id) is None and not (rec / takes[1].recording).exists()
    history.close()
    print(f"delete killed {where}: the take is whole (text + WAV, not an orphan); a new delete removes it")


@pytest.mark.parametrize("stop", ["commit", "unlink:1:before", "unlink:3:after", "unlink:5:after"])
def test_retention_killed_part_way_brings_nothing_back(
    tmp_path: Path, engine: Engine, speech_en: np.ndarray, stop: str
) -> None:
    """Six takes, keep the newest one: five recordings to delete, killed at each kind of step."""
    db, rec, takes = _history_with_takes(tmp_path, speech_en, 6)
    where = _kill_at(db, rec, "retention", 1, stop)

    history, stored = _reopen_and_recover(db, rec, engine)
    assert stored == 0  # no recording came back as a second copy of its take
    recent = history.recent()
    assert [t.text for t in recent] == [t.text for t in reversed(takes)]  # every text stays, once
    on_disk = sorted(p.name for p in rec.glob("*.wav"))
    referenced = sorted(t.recording for t in recent if t.recording)
    assert on_disk == referenced  # every WAV is a take's, and every take's WAV exists
    if stop == "commit":  # killed before the marking was committed: nothing was deleted yet
        assert len(on_disk) == 6
    else:
        assert on_disk == [takes[-1].recording]
    assert history.orphan_recordings() == [] and _pending_names(db) == 0
    assert history.apply_retention(1) == (5 if stop == "commit" else 0)
    history.close()
    print(f"retention killed {where}: 6 texts once each, {len(on_disk)} WAV(s) left, all referenced, 0 recovered")


def test_recording_killed_before_it_is_published_leaves_no_take_behind(
    tmp_path: Path, engine: Engine, speech_en: np.ndarray
) -> None:
    """Killed after writing and syncing, before the rename: no `dictation-*.wav` exists for recovery to
    take for a whole take; the next open removes the unfinished file."""
    db, rec, (take,) = _history_with_takes(tmp_path, speech_en, 1)
    where = _kill_at(db, rec, "write", 3, "rename")
    assert sorted(p.name for p in rec.glob("dictation-*.wav")) == [take.recording]  # nothing published
    (partial,) = rec.glob(".dictation-*.wav.partial")
    assert partial.stat().st_size > 3 * 16000 * 2  # the whole recording was written (and synced)

    history, stored = _reopen_and_recover(db, rec, engine)
    assert stored == 0 and not partial.exists()
    assert sorted(p.name for p in rec.iterdir()) == [take.recording]
    assert [t.text for t in history.recent()] == [take.text]
    history.close()
    print(f"recording killed {where}: nothing published, the unfinished file removed on open, 0 recovered")
