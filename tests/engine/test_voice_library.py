"""The voice library (engine/speakers/library.py): voice prints from a transcription, stored as plain JSON,
matched, renamed and deleted; a corrupt file set aside with one coded warning.

Matching is checked on chosen prints (orthogonal directions, a known cosine) and, end to end, on the same
file transcribed twice with the random-weight speaker model: the same audio gives the same print, so the
speaker remembered from the first run is named in the second. Whether different voices are told apart is
the trained demo speaker model's business (issue 33's proof 3).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.support.paths import ROOT
from tests.support.speakers import three_speakers
from tingji.engine import TranscribeOptions
from tingji.engine.speakers import library as lib
from tingji.engine.transcript import VoicePrint
from tingji.errors import TingjiError

DEMO = ROOT / "tests" / "fixtures" / "models" / "demo"
E = 192


def _unit(i: int, j: int | None = None, angle: float = 0.0) -> np.ndarray:
    """Axis i, turned `angle` radians towards axis j: cosine(_unit(i), _unit(i, j, a)) = cos(a)."""
    v = np.zeros(E, np.float32)
    v[i] = np.cos(angle)
    if j is not None:
        v[j] = np.sin(angle)
    return v


def _print(v: np.ndarray, model: str = "m1", windows: int = 10) -> VoicePrint:
    return VoicePrint(v.astype(np.float32), windows, model)


def test_remember_list_rename_and_delete(tmp_path: Path):
    voices = lib.VoiceLibrary(tmp_path / "voices")
    assert voices.voices() == []  # no folder yet: an empty library
    ann = voices.remember("  Ann  ", _print(_unit(0)))
    bob = voices.remember("Bob", _print(_unit(1)))
    assert [v.name for v in voices.voices()] == ["Ann", "Bob"]
    data = json.loads((tmp_path / "voices" / f"{ann.id}.json").read_text(encoding="utf-8"))
    assert data["name"] == "Ann" and data["format"] == lib.FORMAT and len(data["embedding"]) == E  # plain JSON

    # the same name again (any case) folds the new print into the voice, weighed by windows
    again = voices.remember("ANN", _print(_unit(0, 2, np.pi / 2), windows=30))
    assert again.id == ann.id and again.windows == 40 and len(voices.voices()) == 2
    assert again.embedding[0] == pytest.approx(0.25) and again.embedding[2] == pytest.approx(0.75)

    assert voices.rename(bob.id, "Robert").name == "Robert"
    with pytest.raises(TingjiError) as taken:
        voices.rename(bob.id, "ann")
    assert taken.value.code == "voices.name_taken"
    for bad in ("", "   ", "a\x00b", "x" * 65):
        with pytest.raises(TingjiError) as info:
            voices.remember(bad, _print(_unit(3)))
        assert info.value.code == "voices.name" and "\n" not in str(info.value)

    secret = (tmp_path / "voices" / f"{bob.id}.json").read_bytes()
    voices.delete(bob.id)
    assert [v.name for v in voices.voices()] == ["Ann"]
    left = b"".join(p.read_bytes() for p in (tmp_path / "voices").rglob("*") if p.is_file())
    print(f"after deleting Robert: {sorted(p.name for p in (tmp_path / 'voices').iterdir())}")
    assert b"Robert" not in left and secret not in left  # the print is gone from disk, not just unlisted


def test_a_corrupt_voice_file_is_set_aside_once_and_the_rest_still_work(tmp_path: Path):
    folder = tmp_path / "voices"
    voices = lib.VoiceLibrary(folder)
    ann = voices.remember("Ann", _print(_unit(0)))
    bad = folder / "0badfile.json"
    bad.write_text('{"format": 1, "name": "Eve", "embedding": [0.1, ', encoding="utf-8")
    nan = folder / "1nan.json"
    nan.write_text(json.dumps({"format": 1, "name": "Nan", "model": "m1", "windows": 3, "embedding": ["x"]}))
    assert [v.id for v in voices.voices()] == [ann.id]
    codes = [p.code for p in voices.problems]
    print(f"set aside: {[p.text for p in voices.problems]}")
    assert codes == ["voices.bad_file", "voices.bad_file"]
    assert all("\n" not in p.text for p in voices.problems)
    kept = sorted(p.name for p in folder.iterdir() if ".bad-" in p.name)
    assert len(kept) == 2 and kept[0].startswith("0badfile.json.bad-")
    assert (folder / kept[0]).read_text(encoding="utf-8").endswith("[0.1, ")  # kept as it was, not rewritten
    voices.problems.clear()
    voices.voices()
    assert voices.problems == []  # said once: the file is no longer where the library reads


def test_match_names_known_voices_only_each_once_and_per_model(tmp_path: Path):
    voices = lib.VoiceLibrary(tmp_path)
    ann = voices.remember("Ann", _print(_unit(0)))
    voices.remember("Bob", _print(_unit(1)))
    voices.remember("Other model", _print(_unit(4), model="m2"))
    close = np.arccos(lib.MATCH_COSINE) * 0.9  # a little more similar than the threshold
    far = np.arccos(lib.MATCH_COSINE) * 1.1  # a little less
    found = voices.match(
        [
            _print(_unit(0, 5, close)),  # Ann, a bit off
            _print(_unit(1, 6, far)),  # not Bob enough
            _print(_unit(3)),  # nobody
            _print(_unit(0, 7, close / 2)),  # Ann even closer: takes her; the first gets nobody
            _print(_unit(4)),  # the other model's voice exactly, but from model m1
        ]
    )
    assert [v.name if v else None for v in found] == [None, None, None, "Ann", None]
    assert found[3].id == ann.id


def test_name_speakers_renames_matches_and_keeps_the_rest(tmp_path: Path):
    voices = lib.VoiceLibrary(tmp_path)
    voices.remember("Ann", _print(_unit(1)))
    voices.remember("Speaker 1", _print(_unit(2)))  # named like another speaker of the file: not given
    t = three_speakers([_print(_unit(0)), _print(_unit(1)), _print(_unit(2))])
    assert lib.name_speakers(t, voices) == ["Ann"]
    assert t.speakers == ["Speaker 1", "Ann", "Speaker 3"]
    assert "voice" not in json.dumps(t.to_dict())  # prints are never written out with a transcript


@pytest.fixture(scope="module")
def engine(speaker_model: Path):
    from tingji.engine import Engine

    eng = Engine(DEMO, "cpu", threads=2)
    eng.load_speaker_model(speaker_model)  # as the app does when the first file asks for speakers
    yield eng
    eng.close()


def test_a_remembered_speaker_is_named_in_a_later_file(engine, two_voices, tmp_path: Path):
    first = engine.transcribe(two_voices, TranscribeOptions(speakers=2))
    assert len(first.voice_prints) == len(first.speakers) >= 1
    for p in first.voice_prints:
        assert p.embedding.shape == (engine.speaker_model.section.embedding_size,) and p.windows >= 1
        assert p.model == engine.speaker_model.identity and 0 < np.linalg.norm(p.embedding) <= 1 + 1e-5
    voices = lib.VoiceLibrary(tmp_path / "voices")
    voices.remember("Host", first.voice_prints[0])
    again = engine.transcribe(two_voices, TranscribeOptions(speakers=2))
    assert lib.name_speakers(again, voices) == ["Host"]
    print(f"first run {first.speakers}, again {again.speakers}")
    assert again.speakers[0] == "Host" and again.speakers[1:] == first.speakers[1:]
    plain = engine.transcribe(two_voices)
    assert plain.voice_prints == [] and lib.name_speakers(plain, voices) == []


def test_loading_a_speech_model_as_the_speaker_model_is_refused_and_keeps_the_one_loaded(engine):
    from tingji.errors import ModelError

    before = engine.speaker_model
    with pytest.raises(ModelError) as info:
        engine.load_speaker_model(DEMO)
    assert info.value.code == "speakers.not_a_speaker_model" and "\n" not in str(info.value)
    assert engine.speaker_model is before
