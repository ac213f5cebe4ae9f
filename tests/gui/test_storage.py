"""The GUI's Qt-free parts: the SQLite queue, the settings file, folder expansion, model choice."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tingji.engine import messages as engine_messages
from tingji.engine.options import TranscribeOptions
from tingji.engine.transcript import Segment, Transcript
from tingji.errors import TingjiError, reports_from_json, warning
from tingji.gui import settings as settings_mod
from tingji.gui.files.folders import expand
from tingji.gui.files.storage import Status, Store
from tingji.gui.model_choice import choose_model
from tingji.gui.settings import Settings
from tingji.paths import models_dir


def _transcript(text: str = "hello there") -> Transcript:
    return Transcript(
        segments=[Segment(0.0, 1.5, text), Segment(1.5, 3.0, "second")],
        duration=3.0,
        model="m",
        provider="cpu",
        decoder_device="cpu",
        source="/x/a.wav",
    )


def test_store_life_cycle_and_order(tmp_path: Path) -> None:
    store = Store(tmp_path / "q.sqlite3")
    a, b, c = store.add(["/m/a.wav", "/m/b.mp3", "/m/c.flac"])
    assert [j.status for j in store.jobs()] == [Status.WAITING] * 3
    assert store.next_waiting().id == a.id

    store.start(a.id)
    store.finish(a.id, _transcript(), elapsed_s=1.25)
    store.start(b.id)
    store.fail(b.id, "not an audio or video file Tingji can read")
    store.reorder([c.id, a.id, b.id])
    assert [j.id for j in store.jobs()] == [c.id, a.id, b.id]
    store.close()

    again = Store(tmp_path / "q.sqlite3")
    jobs = {j.id: j for j in again.jobs()}
    assert jobs[a.id].status is Status.DONE and jobs[a.id].elapsed_s == 1.25
    assert jobs[a.id].duration == 3.0  # taken from the transcript when the probe had not run
    assert jobs[b.id].status is Status.FAILED and "not an audio" in jobs[b.id].error
    t = again.transcript(a.id)
    assert [s.text for s in t.segments] == ["hello there", "second"] and t.text == "hello there second"
    assert again.transcript(b.id) is None
    # The engine's own whole text survives storage exactly (it is not re-joined from segments).
    odd = _transcript()
    odd.window_texts = ["hello there,second"]
    again.finish(c.id, odd)
    assert again.transcript(c.id).text == "hello there,second"
    assert [j.id for j in again.jobs()] == [c.id, a.id, b.id]


def test_store_recover_cancel_requeue_remove(tmp_path: Path) -> None:
    store = Store(tmp_path / "q.sqlite3")
    a, b = store.add(["/m/a.wav", "/m/b.wav"])
    store.start(a.id)
    assert store.recover() == 1  # what a restart after a crash does
    assert store.get(a.id).status is Status.WAITING

    partial = Transcript(
        segments=[Segment(0, 1, "part")], duration=60.0, model="m", provider="cpu", decoder_device="cpu"
    )
    store.cancel(a.id, partial)
    assert store.get(a.id).status is Status.CANCELLED
    assert store.transcript(a.id).text == "part"  # the partial result is kept
    store.requeue([a.id])
    assert store.get(a.id).status is Status.WAITING and store.transcript(a.id) is None
    store.remove([b.id])
    assert [j.id for j in store.jobs()] == [a.id]


def test_store_uses_wal_and_commits_each_result(tmp_path: Path) -> None:
    path = tmp_path / "q.sqlite3"
    store = Store(path)
    (a,) = store.add(["/m/a.wav"])
    store.finish(a.id, _transcript())
    # Another connection (another process after a crash) sees the result at once.
    other = sqlite3.connect(path)
    assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    status, data = other.execute("SELECT status, transcript FROM jobs WHERE id=?", (a.id,)).fetchone()
    assert status == "done" and json.loads(data)["text"] == "hello there second"


def test_settings_round_trip_and_atomic_write(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    s = Settings(
        model="/models/x",
        provider="cpu",
        language="zh",
        hotwords=["通义", "Tingji"],
        formats=["srt", "json"],
        auto_export=True,
        ui_language="zh_CN",
        appearance="dark",
    )
    settings_mod.save(s, path)
    assert settings_mod.load(path) == s
    assert json.loads(path.read_text(encoding="utf-8"))["hotwords"] == ["通义", "Tingji"]
    assert not list(tmp_path.glob(".*tmp"))  # no temporary file left behind


def test_one_transcribe_options_for_files_and_dictation(tmp_path: Path) -> None:
    """The language, hotwords and ITN live once, in the app's settings; an older file that kept ITN (and a
    language the app overwrote) in its dictation part keeps its ITN choice and loses nothing else."""
    path = tmp_path / "settings.json"
    path.write_text(
        json.dumps(
            {"language": "en", "hotwords": ["Tingji"], "dictation": {"mode": "toggle", "language": "ja", "itn": False}}
        )
    )
    s = settings_mod.load(path)
    assert s.transcribe_options() == TranscribeOptions(language="en", hotwords=("Tingji",), itn=False)
    assert s.dictation.mode == "toggle"
    settings_mod.save(s, path)
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert stored["itn"] is False and not {"language", "hotwords", "itn"} & set(stored["dictation"])
    assert Settings().transcribe_options() == TranscribeOptions()  # "" is detect: None


def test_settings_survive_bad_files(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    assert settings_mod.load(path) == Settings()  # missing: defaults
    path.write_text('{"provider": "quantum", "formats": ["txt", "docx"], "auto_export": "yes", "future": 1}')
    s = settings_mod.load(path)
    assert (s.provider, s.formats, s.auto_export) == ("auto", ["txt"], False)
    path.write_text("{ truncated")
    assert settings_mod.load(path) == Settings()
    assert (tmp_path / "settings.json.bad").exists()  # set aside, not silently overwritten


def test_folders_expand_to_media_files(tmp_path: Path) -> None:
    (tmp_path / "talks" / "day 2").mkdir(parents=True)
    (tmp_path / "talks" / ".hidden").mkdir()
    for name in ("talks/b10.mp3", "talks/b2.wav", "talks/notes.txt", "talks/day 2/c.MKV", "talks/.hidden/d.wav"):
        (tmp_path / name).write_bytes(b"x")
    single = tmp_path / "explicit.xyz"
    single.write_bytes(b"x")
    out = [Path(p).relative_to(tmp_path).as_posix() for p in expand([tmp_path / "talks", single, single])]
    assert out == ["talks/b2.wav", "talks/b10.mp3", "talks/day 2/c.MKV", "explicit.xyz"]


def test_model_choice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tiny_model: Path) -> None:
    monkeypatch.setenv("TINGJI_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("TINGJI_CATALOG", raising=False)
    none = choose_model("")
    assert none.none_installed and not none.ok
    assert choose_model(str(tiny_model)).path == Path(tiny_model).resolve()
    missing = choose_model("no-such-model")
    assert not missing.ok and "no-such-model" in str(missing.problem)

    # Nothing named: of the installed models, the one the catalog ranks first for files.
    models_dir().mkdir(parents=True, exist_ok=True)
    for name in ("a-model", "fun-asr-nano-2512", "sense-voice-small"):
        shutil.copytree(tiny_model, models_dir() / name)
    assert choose_model("").name == "fun-asr-nano-2512"  # the built-in catalog: sense-voice-small is for dictation
    about = {"family": "fun-asr-nano", "languages": ["en"], "speed": "fast", "best_for": ["files"]}
    catalog = tmp_path / "catalog.json"
    entries = [
        {"name": name, "kind": "tingji-model", "files": [{"path": "manifest.json"}], "mirrors": ["https://x/{path}"]}
        | {"about": {**about, "rank": rank}}
        for name, rank in (("a-model", 6), ("fun-asr-nano-2512", 7), ("sense-voice-small", 5))
    ]
    catalog.write_text(json.dumps({"format": 1, "models": entries}), encoding="utf-8")
    monkeypatch.setenv("TINGJI_CATALOG", str(catalog))
    assert choose_model("").name == "sense-voice-small"  # the catalog decides, not a name in the code
    catalog.write_text("not json", encoding="utf-8")
    assert choose_model("").name == "a-model"  # an unreadable catalog: the first installed one, never a failure


def test_store_keeps_the_speakers_across_a_restart(tmp_path: Path) -> None:
    """A labelled transcript comes back with each segment's speaker and the names, so exports keep them."""
    from tingji.engine.writers import render

    store = Store(tmp_path / "q.sqlite3")
    (job,) = store.add(["/m/interview.wav"])
    labelled = _transcript()
    labelled.segments[0].speaker, labelled.segments[1].speaker = 1, 0
    labelled.speakers = ["Speaker 1", "Ann"]
    store.start(job.id)
    store.finish(job.id, labelled)
    store.close()

    again = Store(tmp_path / "q.sqlite3")
    t = again.transcript(job.id)
    assert [s.speaker for s in t.segments] == [1, 0] and t.speakers == ["Speaker 1", "Ann"]
    assert render(t, "txt") == render(labelled, "txt") == "Ann: hello there\nSpeaker 1: second\n"
    plain = _transcript()
    again.finish(job.id, plain)  # a transcript without speakers stays without
    assert again.transcript(job.id).speakers == [] and all(s.speaker is None for s in again.transcript(job.id).segments)


def test_store_keeps_an_incomplete_transcript_as_done_with_warnings(tmp_path: Path) -> None:
    store = Store(tmp_path / "q.sqlite3")
    a, b = store.add(["/m/damaged.flac", "/m/whole.wav"])
    partial = _transcript()
    partial.complete = False
    damaged = TingjiError(engine_messages.REASON_DAMAGED)
    partial.warnings = [warning(engine_messages.STOPPED_AT, at=1.5, total=9.0, reason=damaged)]
    store.start(a.id)
    store.finish(a.id, partial)
    store.start(b.id)
    store.finish(b.id, _transcript())
    store.close()

    again = Store(tmp_path / "q.sqlite3")
    bad, good = again.get(a.id), again.get(b.id)
    assert (
        bad.warning
        == "decoding stopped at 1.5 s of 9.0 s (the data is damaged); the transcript covers only the audio before it"
    )
    assert bad.status is Status.DONE and bad.incomplete and bad.warning == partial.warnings[0].text
    assert reports_from_json(bad.warning_code) == partial.warnings  # the code and fields, nested reason included
    assert good.status is Status.DONE and not good.incomplete and good.warning is None and good.warning_code is None
    assert again.transcript(a.id).complete is False and again.transcript(b.id).complete is True
    assert again.transcript(a.id).warnings == partial.warnings  # the stored transcript keeps them as data too
    again.requeue([a.id])
    assert again.get(a.id).warning is None and again.get(a.id).warning_code is None and not again.get(a.id).incomplete
    print(f"\nstored: {bad.name} done with warnings ({bad.warning}); {good.name} done; a retry clears it")


def test_rows_from_before_warning_codes_keep_their_english_text(tmp_path: Path) -> None:
    """A version-4 queue (warnings as English text only) opens as the current version; its rows stay readable."""
    path = tmp_path / "q.sqlite3"
    con = sqlite3.connect(path)
    con.executescript(
        """
        CREATE TABLE jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, path TEXT NOT NULL, position REAL NOT NULL,
            status TEXT NOT NULL, duration REAL, error TEXT, error_code TEXT, added_at REAL NOT NULL,
            finished_at REAL, elapsed_s REAL, transcript TEXT, warning TEXT, exported TEXT);
        INSERT INTO jobs(path, position, status, added_at, warning, transcript) VALUES
            ('/m/old.flac', 1, 'done', 0, 'decoding stopped at 4.0 s of 9.0 s (the data is damaged)',
             '{"segments": [], "warnings": ["decoding stopped at 4.0 s of 9.0 s (the data is damaged)"]}');
        PRAGMA user_version=4;
        """
    )
    con.close()
    store = Store(path)
    (job,) = store.jobs()
    print(f"\nmigrated row: {job.warning!r}, code {job.warning_code!r}")
    assert job.incomplete and job.warning.startswith("decoding stopped at 4.0 s") and job.warning_code is None
    assert [w.text for w in store.transcript(job.id).warnings] == [job.warning]
    assert store._db.execute("PRAGMA user_version").fetchone()[0] == 6  # on through every later version
    store.close()
