"""Issue 47, proof 5: a token id outside its vocabulary is one coded line at load, for every kind of id.

The ids are the fields a family's manifest section declares with `entry(id_of=...)` (CTC
blanks, EOS and ChatML ids, Qwen3-ASR's audio markers, Paraformer's blank/sos/eos, the
punctuation model's unknown word and sentence-end class); the cases are made from those
declarations, so an id field added later is covered here without a change. Each case
starts from a real exported tiny model's manifest (its files beside it), puts the first
id past the end of the vocabulary the manifest declares, and goes through the `tingji
transcribe` command's error handling; one also through a real `python -m tingji` process.
A manifest whose CTC blank_id was 999999 loaded and transcribed without a word before.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Union, get_args, get_origin

import pytest

from tests.support.paths import ROOT
from tingji.cli.main import main as cli_main
from tingji.engine import Engine, messages
from tingji.engine.families import family_module
from tingji.engine.families.kit import KITS, SPEECH
from tingji.engine.manifest import MANIFEST_NAME, load_manifest
from tingji.engine.schema import field_types, id_fields
from tingji.errors import ModelError


def _dataclass_of(tp: Any) -> type | None:
    if get_origin(tp) in (Union, type(int | None)):
        tp = next((a for a in get_args(tp) if a is not type(None)), None)
    return tp if dataclasses.is_dataclass(tp) else None


def id_paths(cls: type, where: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], str, str]]:
    """(the object's keys, the id field, the field sizing its vocabulary) for each declared id under `cls`."""
    for name, size_key in id_fields(cls).items():
        yield where, name, size_key
    for name, tp in field_types(cls).items():
        inner = _dataclass_of(tp)
        if inner is not None:
            yield from id_paths(inner, (*where, name))


# (family, its tiny model's fixture, the keys to the object, the id field, its size field), from the declarations.
CASES = [
    (kit.name, kit.tiny.model_fixture, where, name, size_key)
    for kit in KITS
    for where, name, size_key in id_paths(family_module(kit.name).SECTION)
]


def test_every_family_with_a_vocabulary_declares_its_ids() -> None:
    """A guard on the declarations themselves: the families whose sections hold ids declare them."""
    declared = {family for family, *_ in CASES}
    assert {"fun-asr-nano", "sense-voice-small", "qwen3-asr", "paraformer", "ct-punc"} <= declared, declared
    assert ("fun-asr-nano", ("ctc",), "blank_id") in {(f, w, n) for f, _, w, n, _ in CASES}


def _broken(source: Path, folder: Path, where: tuple[str, ...], name: str, size_key: str) -> tuple[Path, str, int]:
    """A copy of the model folder `source` (files linked) whose id `name` is one past its vocabulary.

    Returns the folder, the key the error must name, and the value written."""
    data = json.loads((source / MANIFEST_NAME).read_text(encoding="utf-8"))
    family = data["family"]
    obj = data[family]
    for key in where:
        obj = obj.setdefault(key, {})  # a part the writer left at its defaults is spelled out
    size = obj.get(size_key)
    assert size is not None, f"{family}: the export writes no {'.'.join((*where, size_key))}"
    count = size if isinstance(size, int) else len(size)
    value = count  # the first id past the end
    if isinstance(obj.get(name), list):
        obj[name] = [value, *obj[name]]
        key = ".".join((family, *where, name)) + "[0]"
    else:
        obj[name] = value
        key = ".".join((family, *where, name))
    folder.mkdir(parents=True)
    for item in source.iterdir():
        if item.name != MANIFEST_NAME:
            (folder / item.name).symlink_to(item.resolve())
    (folder / MANIFEST_NAME).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return folder, key, value


@pytest.mark.parametrize(
    ("family", "fixture", "where", "name", "size_key"),
    CASES,
    ids=[f"{c[0]}:{'.'.join((*c[2], c[3]))}" for c in CASES],
)
def test_an_id_outside_the_vocabulary_is_one_coded_line(
    family: str,
    fixture: str,
    where: tuple[str, ...],
    name: str,
    size_key: str,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = request.getfixturevalue(fixture)
    load_manifest(source)  # the export itself is within range
    folder, key, value = _broken(source, tmp_path / "model", where, name, size_key)
    with pytest.raises(ModelError) as caught:
        load_manifest(folder)
    exc = caught.value
    assert exc.code == messages.ID_OUT_OF_RANGE.code, str(exc)
    assert exc.fields["key"] == key and exc.fields["most"] == value - 1, exc.fields
    text = str(exc)
    assert "\n" not in text and str(folder.resolve() / MANIFEST_NAME) in text and f"0..{value - 1}" in text, text
    if family in {k.name for k in KITS if k.kind == SPEECH}:
        with pytest.raises(ModelError) as again:
            Engine(folder, "cpu")  # the engine refuses it before anything loads
        assert again.value.code == messages.ID_OUT_OF_RANGE.code
    # The command: one line, exit 1, no traceback and no "internal error".
    status = cli_main(["transcribe", str(tmp_path / "a.wav"), "--model", str(folder), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 1 and err == [f"tingji: {text}"], err


def test_the_issue_s_blank_id_in_a_real_process(sv_model: Path, tmp_path: Path) -> None:
    """The case the issue reported, through `python -m tingji`: one line on stderr, exit 1."""
    folder, key, _ = _broken(sv_model, tmp_path / "model", ("ctc",), "blank_id", "vocab_size")
    data = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
    data["sense-voice-small"]["ctc"]["blank_id"] = 999999
    (folder / MANIFEST_NAME).write_text(json.dumps(data), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "app"), str(ROOT)]))
    child = subprocess.run(
        [sys.executable, "-m", "tingji", "transcribe", str(tmp_path / "a.wav"), "--model", str(folder)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = child.stderr.strip().splitlines()
    assert child.returncode == 1 and len(lines) == 1, child.stderr
    assert key in lines[0] and "999999" in lines[0] and "token id" in lines[0] and "Traceback" not in lines[0]
