"""A damaged model folder is one coded line naming the key, never an internal error.

The corpus of broken manifests is generated from the dataclasses each family
declares for its manifest (`FRONTEND`, `SECTION`, and the core `Window` or its own `WINDOW`), so a
key added to any of them is covered without touching this file: every key of
every family, of its `frontend` and of the window, missing (where required),
misspelled, of the wrong type and out of range (each rule its field has), plus
unknown keys, unknown file roles and a section that disagrees with its
front-end. Each case goes through `Engine(folder)` and through the `tingji
transcribe` command's own error handling; a sample also through a real
`python -m tingji` process.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union, get_args, get_origin

import pytest

from tests.support.manifests import manifests
from tests.support.paths import ROOT
from tingji.cli.main import main as cli_main
from tingji.engine import Engine, messages
from tingji.engine.families import family_module
from tingji.engine.families.kit import KITS
from tingji.engine.manifest import MANIFEST_NAME, Window, load_manifest
from tingji.engine.schema import field_types, join, required, rules
from tingji.errors import Message, ModelError

FIXTURES = {f.name: f.tiny.model_fixture for f in KITS}  # each family's exported tiny model
DEMO = ROOT / "tests" / "fixtures" / "models" / "demo"  # format 1: the Nano section's keys at the top level


@dataclass(frozen=True)
class Case:
    """One broken manifest and the error it must give: its code and the key it names (None: it loads)."""

    label: str
    data: dict[str, Any]
    code: str | None
    key: str


def _get(data: dict[str, Any], where: tuple[str, ...]) -> dict[str, Any]:
    for name in where:
        data = data[name]
    return data


def _changed(base: dict[str, Any], where: tuple[str, ...], change: Callable[[dict], object]) -> dict[str, Any]:
    """A copy of `base` with `change` applied to the object at `where`."""
    data = copy.deepcopy(base)
    change(_get(data, where))
    return data


def _misspelt(name: str) -> str:
    return name.replace("_", "-") if "_" in name else name + "s"


def _wrong(tp: Any) -> tuple[Any, str]:
    """A JSON value that is not of type `tp`, and the code that says so."""
    origin, args = get_origin(tp), get_args(tp)
    if origin is Union or type(tp).__name__ == "UnionType":
        return _wrong(next(a for a in args if a is not type(None)))
    if dataclasses.is_dataclass(tp) or origin is dict:
        return ["x"], messages.KEY_NOT_OBJECT.code
    if origin is tuple:
        return "x", messages.KEY_NOT_LIST.code
    return {
        bool: ("yes", messages.KEY_NOT_BOOL.code),
        int: ("7", messages.KEY_NOT_INTEGER.code),
        float: ("7", messages.KEY_NOT_NUMBER.code),
        str: (7, messages.KEY_NOT_TEXT.code),
    }[tp]


def _default(f: dataclasses.Field) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    return f.default_factory() if f.default_factory is not dataclasses.MISSING else None


def _plain(tp: Any) -> Any:
    origin, args = get_origin(tp), get_args(tp)
    if origin is Union or type(tp).__name__ == "UnionType":
        return _plain(next(a for a in args if a is not type(None)))
    return tp


def _out_of_range(tp: Any, r: dict[str, Any], value: Any) -> Iterator[tuple[str, Any, Message, str]]:
    """(what, a value breaking one rule, the message, the sub-key it is named by) for every rule in `r`."""
    tp = _plain(tp)
    origin, args = get_origin(tp), get_args(tp)
    if r.get("nonempty"):
        yield "empty", {str: "", tuple: [], dict: {}}.get(origin or tp), messages.KEY_EMPTY, ""
    for name in r.get("keys", ()):
        yield f"without {name}", {k: v for k, v in value.items() if k != name}, messages.MISSING_KEY, name
    scalar = args[0] if origin is tuple else args[1] if origin is dict else tp
    bad: list[tuple[str, Any, Message]] = []
    step = 1 if scalar is int else 0.5
    if "min" in r:
        bad.append(("below min", r["min"] - step, messages.KEY_BELOW))
    if "above" in r:
        bad.append(("not above bound", r["above"], messages.KEY_NOT_ABOVE))
    if "max" in r:
        bad.append(("above max", r["max"] + step, messages.KEY_ABOVE))
    if "choices" in r:
        bad.append(("not a choice", False if scalar is bool else "bogus", messages.KEY_NOT_A_CHOICE))
    if "placeholders" in r:
        bad.append(("unknown placeholder", "{bogus}", messages.KEY_PLACEHOLDERS))
    for what, item, message in bad:
        if origin is tuple:
            yield what, [item], message, "[0]"
        elif origin is dict:
            yield what, {**value, "zz": item}, message, "zz"
        else:
            yield what, item, message, ""


def cases_of(
    cls: type, base: dict[str, Any], where: tuple[str, ...], key: str, *, open_: bool = True
) -> Iterator[Case]:
    """Every way each key of `cls` (read from `_get(base, where)`, named `key`) can be wrong.

    `open_` False: the object keeps keys it does not know (the manifest's top level), so a
    misspelt key is simply absent.
    """
    here = _get(base, where)
    types = field_types(cls)
    if open_:
        yield Case(
            f"{key or 'top'}: unknown key",
            _changed(base, where, lambda d: d.update(bogus=1)),
            messages.UNKNOWN_KEY.code,
            join(key, "bogus"),
        )
    for f in dataclasses.fields(cls):
        name, tp, k = f.name, types[f.name], join(key, f.name)
        value = here[name] if name in here else _default(f)
        absent = (messages.MISSING_KEY.code if required(f) else None), k
        if name in here:
            yield Case(f"{k}: missing", _changed(base, where, lambda d, n=name: d.pop(n)), *absent)
            typo = _misspelt(name)
            yield Case(
                f"{k}: misspelt {typo}",
                _changed(base, where, lambda d, n=name, t=typo: d.update({t: d.pop(n)})),
                *((messages.UNKNOWN_KEY.code, join(key, typo)) if open_ else absent),
            )
        wrong, code = _wrong(tp)
        yield Case(f"{k}: wrong type", _changed(base, where, lambda d, n=name, w=wrong: d.update({n: w})), code, k)
        plain = _plain(tp)
        origin = get_origin(plain)
        if origin is tuple:
            item, code = _wrong(get_args(plain)[0])
            yield Case(
                f"{k}: wrong item type",
                _changed(base, where, lambda d, n=name, i=item: d.update({n: [i]})),
                code,
                k + "[0]",
            )
        if origin is dict:
            item, code = _wrong(get_args(plain)[1])
            yield Case(
                f"{k}: wrong value type",
                _changed(base, where, lambda d, n=name, i=item: d.update({n: {"x": i}})),
                code,
                join(k, "x"),
            )
        for what, bad, message, sub in _out_of_range(tp, rules(f), value):
            yield Case(
                f"{k}: {what}",
                _changed(base, where, lambda d, n=name, b=bad: d.update({n: b})),
                message.code,
                join(k, sub),
            )
        if dataclasses.is_dataclass(plain):
            if not isinstance(here.get(name), dict):  # a default the writer left out: spell it out
                base = _changed(base, where, lambda d, n=name, v=value: d.update({n: dataclasses.asdict(v)}))
            yield from cases_of(plain, base, (*where, name), k)


def corpus(base: dict[str, Any]) -> Iterator[Case]:
    """The broken manifests made from one good one: the window, `frontend`, the family's section, the files."""
    module = family_module(base["family"])
    v1 = base.get("format", 1) == 1
    section_where, section_key = ((), "") if v1 else ((base["family"],), base["family"])
    yield from cases_of(getattr(module, "WINDOW", Window), base, (), "", open_=False)
    yield from cases_of(module.FRONTEND, base, ("frontend",), "frontend")
    yield from cases_of(module.SECTION, base, section_where, section_key, open_=not v1)
    entry = {"path": "x.bin", "sha256": "0" * 64, "size": 1}
    for role in ("bogus", "encoder_datum", "cmvn" if "cmvn" not in module.FILE_ROLES else "ctc"):
        yield Case(
            f"files: unknown role {role}",
            _changed(base, ("files",), lambda d, r=role: d.update({r: entry})),
            messages.UNKNOWN_ROLE.code,
            role,
        )
    data_role = next(r for r in module.FILE_ROLES if r.endswith("_data")) + "_2"  # e.g. encoder_data_2
    yield Case(
        "files: a second weights file",
        _changed(base, ("files",), lambda d: d.update({data_role: entry})),
        None,
        data_role,
    )
    yield from _disagreements(base, section_key, section_where)


def _disagreements(base: dict[str, Any], key: str, where: tuple[str, ...]) -> Iterator[Case]:
    """A front-end that is valid alone but not for this model, and values only wrong together."""
    frontend = base["frontend"]
    if "lfr_m" in frontend:  # the Kaldi front-end: the encoder takes n_mels x lfr_m wide rows
        # The section names that width as its encoder's input_size, or, with no encoder part (CAM++), feat_dim.
        width = "feat_dim" if "feat_dim" in _get(base, where) else "encoder.input_size"
        yield Case(
            "frontend.lfr_m: not the encoder's width",
            _changed(base, ("frontend",), lambda d: d.update(lfr_m=5)),
            messages.KEY_MISMATCH.code,
            join(key, width),
        )
        yield Case(
            "frontend.n_mels: filters do not fit",
            _changed(base, ("frontend",), lambda d: d.update(n_mels=300)),
            messages.MEL_FILTERS_DO_NOT_FIT.code,
            "frontend.n_mels",
        )
        yield Case(
            "frontend.frame_shift_ms: under a sample",
            _changed(base, ("frontend",), lambda d: d.update(frame_shift_ms=0.01)),
            messages.FRAMES_TOO_SHORT.code,
            "frontend.frame_shift_ms",
        )
    elif "fmin" in frontend:  # the log-mel front-end
        yield Case(
            "frontend.n_mels: not the encoder's",
            _changed(base, ("frontend",), lambda d: d.update(n_mels=80)),
            messages.KEY_MISMATCH.code,
            join(key, "encoder.n_mels"),
        )
        yield Case(
            "frontend.fmax: not above fmin",
            _changed(base, ("frontend",), lambda d: d.update(fmin=9000.0)),
            messages.KEY_NOT_ABOVE.code,
            "frontend.fmax",
        )
        yield Case(
            "frontend.min_samples: under one hop",
            _changed(base, ("frontend",), lambda d: d.update(min_samples=100)),
            messages.KEY_BELOW.code,
            "frontend.min_samples",
        )


@pytest.fixture(scope="module")
def bases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict[str, Any]]]:
    """A manifest of each family as its writer makes it, and the committed format-1 one: name -> (folder, JSON)."""
    folder = tmp_path_factory.mktemp("bases")
    made = {family: (folder, m.to_dict()) for family, m in manifests(folder).items()}
    made["fun-asr-nano (format 1)"] = (DEMO, json.loads((DEMO / MANIFEST_NAME).read_text(encoding="utf-8")))
    for _, data in made.values():
        load_manifest(_write(tmp_path_factory.mktemp("base"), data))  # each loads as it is
    return made


def _write(folder: Path, data: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MANIFEST_NAME).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return folder


@pytest.mark.parametrize("fixture", FIXTURES.values())
def test_each_family_reads_back_what_its_writer_wrote(fixture, request):
    """The writer is asdict of the dataclasses the reader parses: an exported model's manifest is a fixed point."""
    folder = request.getfixturevalue(fixture)
    data = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
    m = load_manifest(folder)
    assert json.loads(json.dumps(m.to_dict())) == data
    print(
        f"{m.family}: {len(data[m.family])} section keys, {len(data['frontend'])} front-end keys read and written back"
    )


def test_a_format_1_folder_comes_back_as_format_2_with_its_defaults_spelt_out():
    m = load_manifest(DEMO)
    written = m.to_dict()
    assert written["format"] == 2 and set(written["fun-asr-nano"]) == {f.name for f in dataclasses.fields(m.section)}
    assert (
        written["fun-asr-nano"]["ctc"]["mask"] is True and written["fun-asr-nano"]["encoder"]["input_dtype"] == "fp32"
    )


def test_every_broken_key_is_one_coded_line_naming_it(bases, tmp_path, capsys):
    seen: dict[str, int] = {}
    loaded, internal, wrong = 0, [], []
    n = 0
    for name, (_, base) in bases.items():
        for case in corpus(base):
            n += 1
            folder = _write(tmp_path / f"m{n}", case.data)
            path = folder.resolve() / MANIFEST_NAME
            try:
                if case.code is None:
                    load_manifest(folder)  # a model folder without its files: loading stops at them
                else:
                    Engine(folder)
            except ModelError as exc:
                text = str(exc)
                got = (exc.code, exc.fields.get("key", exc.fields.get("role")))
                if case.code is None or got != (case.code, case.key) or str(folder) not in text or "\n" in text:
                    wrong.append(f"{name} {case.label}: {exc.code} {text}")
                seen[exc.code] = seen.get(exc.code, 0) + 1
            except Exception as exc:  # what this test is about: nothing else may escape
                internal.append(f"{name} {case.label}: {type(exc).__name__}: {exc}")
                continue
            else:
                if case.code is not None:
                    wrong.append(f"{name} {case.label}: loaded")
                loaded += 1
                continue
            # The command's own error path: one line, the same as the error, no "internal error".
            status = cli_main(
                ["transcribe", str(folder / "a.wav"), "--model", str(folder), "--out", str(tmp_path / "out")]
            )
            err = capsys.readouterr().err.strip().splitlines()
            if status != 1 or err[-1:] != [f"tingji: {text}"] or str(path) not in err[-1]:
                wrong.append(f"{name} {case.label}: the command said {err}")
    print(f"{n} broken manifests: {sum(seen.values())} coded errors, {loaded} loaded, {len(internal)} internal errors")
    for code, count in sorted(seen.items()):
        print(f"  {count:4d} {code}")
    assert n > 500 and not internal and not wrong, (internal + wrong)[:20]


def _read_back(m, family: str, key: str) -> tuple[Any, dataclasses.Field]:
    """The value a dotted key was read as, and its field."""
    first, *rest = key.split(".")
    if first in ("window_seconds", "window_frames"):  # the core window (a family's own WINDOW has defaults)
        window = getattr(family_module(family), "WINDOW", Window)
        return getattr(m, first), {f.name: f for f in dataclasses.fields(window)}[first]
    obj, parts = {"frontend": (m.frontend, rest), family: (m.section, rest)}.get(first, (m.section, [first, *rest]))
    *parents, last = parts
    for name in parents:
        obj = getattr(obj, name)
    return getattr(obj, last), {f.name: f for f in dataclasses.fields(obj)}[last]


def test_a_missing_optional_key_is_its_default(bases, tmp_path):
    """Keys with a default (older exports lacked some) load as the default, not as an error."""
    checked = 0
    for name, (_, base) in bases.items():
        for case in corpus(base):
            if case.code is not None or not case.label.endswith(": missing"):
                continue
            m = load_manifest(_write(tmp_path / f"m{checked}", case.data))
            value, f = _read_back(m, base["family"], case.key)
            assert value == _default(f), (name, case.key)
            checked += 1
    print(f"{checked} optional keys left out: each read as its default")
    assert checked > 40


@pytest.mark.parametrize(
    "family, change, key",
    [
        ("fun-asr-nano", lambda d: d["fun-asr-nano"]["ctc"].update(blank_idd=3), "fun-asr-nano.ctc.blank_idd"),
        ("sense-voice-small", lambda d: d["frontend"].update(n_mels="80"), "frontend.n_mels"),
        ("qwen3-asr", lambda d: d["qwen3-asr"]["encoder"].update(chunk_frames=0), "qwen3-asr.encoder.chunk_frames"),
        ("qwen3-asr", lambda d: d["files"].update(cmvn={"path": "am.mvn", "sha256": "0" * 64, "size": 1}), "cmvn"),
    ],
)
def test_the_command_says_one_coded_line(bases, tmp_path, family, change, key):
    """A real `python -m tingji transcribe ... --model BROKEN`: exit 1, one line naming the folder and the key."""
    data = copy.deepcopy(bases[family][1])
    change(data)
    folder = _write(tmp_path / "broken", data)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "app"), TINGJI_HOME=str(tmp_path / "home"))
    r = subprocess.run(
        [sys.executable, "-m", "tingji", "transcribe", "a.wav", "--model", str(folder), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    print(r.stderr.strip())
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1 and "internal error" not in r.stderr
    assert str(folder) in lines[0] and key in lines[0]
