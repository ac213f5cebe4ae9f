"""Errors carry codes: every raise names a catalogue message, codes are unique, reports survive storage."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from tests.support.paths import APP as APP_ROOT
from tingji import errors
from tingji.errors import AudioError, ErrorReport, Message, TingjiError, catalogue

APP = APP_ROOT / "tingji"
BASES = {"TingjiError", "AudioError", "ModelError", "Cancelled"}


def catalogue_modules() -> list[str]:
    """Every package's messages.py, found on disk (so a new one cannot be forgotten), and tingji.errors."""
    found = sorted("tingji." + ".".join(p.relative_to(APP).with_suffix("").parts) for p in APP.rglob("messages.py"))
    return ["tingji.errors", *found]


def _error_classes(trees: dict[Path, ast.Module]) -> set[str]:
    """TingjiError and every class deriving from it anywhere in the source, by name."""
    names, grew = set(BASES), True
    while grew:
        grew = False
        for tree in trees.values():
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.ClassDef)
                    and node.name not in names
                    and any(
                        (b.id if isinstance(b, ast.Name) else getattr(b, "attr", None)) in names for b in node.bases
                    )
                ):
                    names.add(node.name)
                    grew = True
    return names


def _is_text(node: ast.expr) -> bool:
    """A str literal, an f-string, a concatenation with one, or str(...): what a raise must not pass."""
    if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return True
    if isinstance(node, ast.BinOp):
        return _is_text(node.left) or _is_text(node.right)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str"


def test_no_error_is_made_from_a_plain_string() -> None:
    trees = {p: ast.parse(p.read_text(encoding="utf-8")) for p in APP.rglob("*.py")}
    classes = _error_classes(trees)
    calls, offenders = 0, []
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
            if name not in classes:
                continue
            calls += 1
            if any(_is_text(a) for a in node.args) or any(_is_text(k.value) for k in node.keywords if k.arg is None):
                offenders.append(f"{path.relative_to(APP)}:{node.lineno}")
    print(f"{calls} constructions of {len(classes)} error classes checked; plain-string ones: {offenders}")
    assert calls > 250 and "OutputError" in classes and "NotFound" in classes
    assert not offenders, "name a Message constant from the package's messages.py (see tingji/errors.py)"


def _catalogue_aliases(path: Path, tree: ast.Module) -> dict[str, str]:
    """The names a module gives the catalogues it imports (`from . import messages`, `... as engine_messages`)."""
    package = ["tingji", *path.relative_to(APP).parent.parts]
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = [*base, *(node.module.split(".") if node.module else [])]
            for alias in node.names:
                if alias.name == "messages" or alias.name.endswith("messages"):
                    aliases[alias.asname or alias.name] = ".".join([*module, alias.name])
    return aliases


def test_no_field_is_quoted_twice() -> None:
    """A template that writes {name!r} gets the raw value: repr() at the raise would show quotes in quotes."""
    checked, offenders = 0, []
    for path in APP.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = _catalogue_aliases(path, tree)
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Call)
                and node.args
                and isinstance(first := node.args[0], ast.Attribute)
                and isinstance(first.value, ast.Name)
                and first.value.id in aliases
            ):
                continue
            message = getattr(importlib.import_module(aliases[first.value.id]), first.attr)
            quoted = {name for name, conversion, _ in errors.placeholders(message.text) if conversion == "r"}
            for k in node.keywords:
                checked += 1
                if k.arg in quoted and isinstance(k.value, ast.Call) and getattr(k.value.func, "id", "") == "repr":
                    offenders.append(f"{path.relative_to(APP)}:{node.lineno} {message.code}.{k.arg}")
    print(f"{checked} fields checked; quoted twice: {offenders}")
    assert checked > 250 and not offenders


def test_no_two_catalogues_share_a_code() -> None:
    owner: dict[str, str] = {}
    clashes = []
    for name in catalogue_modules():
        for message in catalogue(importlib.import_module(name)):
            if message.code in owner:
                clashes.append(f"{message.code}: {owner[message.code]} and {name}")
            owner[message.code] = name
    print(f"{len(owner)} codes in {len(catalogue_modules())} catalogues; clashes: {clashes}")
    assert len(owner) > 250 and not clashes


def test_an_error_needs_a_message_and_exactly_its_fields() -> None:
    message = Message("test.sample", "{path}: cannot write ({reason})")
    with pytest.raises(TypeError, match="Message constant"):
        TingjiError("file not found")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="needs the fields"):
        TingjiError(message, path="a.txt")
    with pytest.raises(ValueError, match="named"):
        Message("test.positional", "cannot write {0}")
    with pytest.raises(ValueError, match="<area>.<what>"):
        Message("NoDot", "text")
    error = TingjiError(message, path=Path("a.txt"), reason="disk\nfull")
    print(f"{error.code}: {error}")
    assert str(error) == "a.txt: cannot write (disk full)" and error.fields["path"] == "a.txt"


def test_a_report_survives_storage_with_nested_errors_and_the_file_name() -> None:
    inner = TingjiError(Message("test.inner", "disk {name!r} is full"), name="D")
    outer = AudioError(Message("test.outer", "cannot be read ({reason})"), path="/x/a.mp3", reason=inner)
    report = outer.report()
    stored = report.to_json()
    again = ErrorReport.from_json(report.text, stored)
    print(f"{outer} -> {stored}")
    assert str(outer) == "/x/a.mp3: cannot be read (disk 'D' is full)"
    assert again == report and again.where == "/x/a.mp3" and again.fields["reason"].code == "test.inner"
    assert ErrorReport.from_json("old text", "not json") == ErrorReport("old text")  # unreadable: the text
    assert ErrorReport("plain").to_json() is None  # nothing to translate by


def test_cancelled_keeps_its_partial_result_and_code() -> None:
    error = errors.Cancelled(partial=[1, 2])
    print(f"{error.code}: {error}, partial {error.partial}")
    assert str(error) == "cancelled" and error.code == "tingji.cancelled" and error.partial == [1, 2]


def _receiver(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def test_no_warning_is_made_from_a_plain_string() -> None:
    """Warnings are coded too: `warning(messages.X, ...)` with a WarningMessage, never a sentence put in a list."""
    made, offenders = 0, []
    for path in APP.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = _catalogue_aliases(path, tree)
        where = path.relative_to(APP)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in ("append", "extend", "insert"):
                if _receiver(func.value).endswith(("warnings", "problems")):
                    values = [e for a in node.args for e in (a.elts if isinstance(a, (ast.List, ast.Tuple)) else [a])]
                    if any(_is_text(v) for v in values):
                        offenders.append(f"{where}:{node.lineno} a sentence added to {_receiver(func.value)}")
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            first = node.args[0] if node.args else None
            if not (isinstance(first, ast.Attribute) and isinstance(first.value, ast.Name)):
                continue
            if first.value.id not in aliases:
                continue
            message = getattr(importlib.import_module(aliases[first.value.id]), first.attr, None)
            if name == "warning":
                made += 1
                if not isinstance(message, errors.WarningMessage):
                    offenders.append(f"{where}:{node.lineno} warning() of {first.attr}, not a WarningMessage")
            elif isinstance(message, errors.WarningMessage) and name in _error_classes({path: tree}):
                offenders.append(f"{where}:{node.lineno} raises the warning {message.code}")
    print(f"{made} warnings made with warning(); offenders: {offenders}")
    assert made >= 10 and not offenders


def test_a_warning_is_a_report_with_a_code_and_exactly_its_fields() -> None:
    message = errors.WarningMessage("test.partly", "only {done:.1f} s of {total:.1f} s ({reason})")
    with pytest.raises(TypeError, match="WarningMessage"):
        errors.warning(Message("test.plain", "x"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="needs the fields"):
        errors.warning(message, done=1.0)
    with pytest.raises(TypeError, match="Message constant"):
        TingjiError(message, done=1.0, total=2.0, reason="x")  # a warning is never raised
    report = errors.warning(message, done=1.25, total=9.0, reason=TingjiError(Message("test.why", "cut short")))
    print(f"{report.code}: {report.text}")
    assert report.text == "only 1.2 s of 9.0 s (cut short)" and report.fields["reason"].code == "test.why"
    assert errors.reports_from_json(errors.reports_to_json([report, report])) == [report, report]
    assert errors.reports_from_json(None) is None and errors.reports_from_json("{}") is None
