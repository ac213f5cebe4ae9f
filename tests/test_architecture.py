"""The package's shape: what imports what, where names live, the family contract, the manifest core."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.manifests import nano_section_json
from tests.support.paths import ROOT

PACKAGE = ROOT / "app" / "tingji"


def test_engine_imports_without_qt_torch_or_the_model_manager():
    """`import tingji.engine` must not load Qt, torch, scipy (only speaker labels use it), the model manager,
    the GUI or dictation."""
    code = (
        "import json, sys, tingji.engine; "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'torch', 'scipy', 'sklearn') "
        "or m.startswith(('tingji.models', 'tingji.gui', 'tingji.dictation', 'tingji.export')))))"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "app"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    loaded = json.loads(out.stdout)
    print(f"modules loaded by `import tingji.engine` outside the engine: {loaded}")
    assert loaded == []


# -- no second homes ---------------------------------------------------------------------


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _defined(tree: ast.Module) -> set[str]:
    """Names a module defines itself (functions, classes, assignments, `import x` bindings of real modules)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.If, ast.Try)):  # definitions under a platform check
            inner = ast.Module(
                body=[n for n in ast.walk(node) if isinstance(n, ast.stmt) and n is not node], type_ignores=[]
            )
            names |= _defined(inner)
    return names


def _absolute(module: str, is_package: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _import_uses(paths: list[Path], modules: dict[str, Path]):
    """(importing file, source module, name) for every `from X import name` and `X.name` use of a project module."""
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        try:
            here, is_pkg = _module_name(path), path.name == "__init__.py"
        except ValueError:  # tests, tools, benchmarks: only absolute imports matter
            here, is_pkg = "", False
        aliases: dict[str, str] = {}  # local name -> project module it is bound to
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _absolute(here, is_pkg, node.level, node.module)
                for alias in node.names:
                    full = f"{source}.{alias.name}"
                    if full in modules:
                        aliases[alias.asname or alias.name] = full
                    elif source in modules:
                        yield path, source, alias.name
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in modules and alias.asname:
                        aliases[alias.asname] = alias.name
        # A module alias that is also assigned in the file (a local variable of the same name) is ambiguous.
        assigned = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.value.id not in assigned
            ):
                yield path, aliases[node.value.id], node.attr


def test_no_second_homes():
    """A name is imported from the module that defines it; only a package's __init__ re-exports."""
    modules = _modules()
    defined = {m: _defined(ast.parse(p.read_text(encoding="utf-8"))) for m, p in modules.items()}
    problems = []
    for module, path in modules.items():
        if path.name == "__init__.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
            ):
                exported = {ast.literal_eval(e) for e in node.value.elts}
                problems += [f"{module}.__all__ lists {n}, defined elsewhere" for n in exported - defined[module]]
    files = [p for d in ("app", "tests", "tools", "benchmarks", "installer") for p in (ROOT / d).rglob("*.py")]
    for path, source, name in _import_uses(files, modules):
        if modules[source].name == "__init__.py" or name in defined[source] or f"{source}.{name}" in modules:
            continue
        problems.append(f"{path.relative_to(ROOT)} takes {name} from {source}, which does not define it")
    print(f"checked {len(modules)} modules and the imports of {len(files)} files; {len(problems)} second homes")
    assert problems == []


def test_the_second_home_scan_sees_a_re_export(tmp_path):
    """The scanner itself: a name taken from a module that only imports it, and one listed in __all__."""
    modules = _modules()
    user = tmp_path / "user.py"
    user.write_text(
        "from tingji.engine.transcribe import Segment\nfrom tingji.engine.transcript import Transcript\n"
        "import tingji.engine.transcribe as t\nt.Transcript\n"
    )
    uses = {(source, name) for _, source, name in _import_uses([user], modules)}
    assert ("tingji.engine.transcribe", "Segment") in uses and ("tingji.engine.transcribe", "Transcript") in uses
    defined = _defined(ast.parse(modules["tingji.engine.transcribe"].read_text(encoding="utf-8")))
    assert "Segment" not in defined and "Transcript" not in defined  # so both uses above are second homes
    tree = ast.parse("from .x import A\n__all__ = ['A', 'B']\nclass B: ...\n")
    assert _defined(tree) == {"__all__", "B"}
    print("scanner: sees `from` imports and module.attr uses of names a module does not define")


# -- the GUI by feature ---------------------------------------------------------------------

GUI_FEATURES = ("files", "dictation", "models")  # tingji.gui's feature folders
GUI_JOINS = {"tingji.gui.app", "tingji.gui.main_window"}  # where the features are made and put together


def _project_imports(here: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules that module `here` (its file: `path`) imports, anywhere (inside functions too)."""
    is_pkg = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            source = _absolute(here, is_pkg, node.level, node.module)
            found |= {f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in modules}
    return found


def _gui_feature(module: str) -> str | None:
    """The feature folder a tingji.gui module belongs to, None for a shared one."""
    parts = module.split(".")
    return parts[2] if len(parts) > 3 and parts[:2] == ["tingji", "gui"] and parts[2] in GUI_FEATURES else None


def _gui_import_problems(modules: dict[str, Path]) -> list[str]:
    problems = []
    for module, path in modules.items():
        if not module.startswith("tingji.gui.") or module in GUI_JOINS:
            continue
        own = _gui_feature(module)
        for target in sorted(_project_imports(module, path, modules)):
            feature = _gui_feature(target)
            if feature is not None and feature != own:
                who = f"the {own} feature" if own else "a shared GUI module"
                problems.append(f"{module} ({who}) imports {target}")
    return problems


def test_shared_gui_modules_import_no_feature_and_features_not_each_other():
    """Shared tingji.gui modules import none of files/, dictation/, models/; those never import each other.
    Only app.py and main_window.py, which put the features together, import them all."""
    modules = _modules()
    problems = _gui_import_problems(modules)
    joined = {_gui_feature(t) for m in GUI_JOINS for t in _project_imports(m, modules[m], modules)} - {None}
    assert joined == set(GUI_FEATURES)  # the scan sees feature imports where they are allowed
    shared = [m for m in modules if m.startswith("tingji.gui.") and _gui_feature(m) is None and m not in GUI_JOINS]
    print(f"{len(shared)} shared GUI modules and the three feature folders checked; {len(problems)} problems")
    assert problems == []


def test_the_gui_import_scan_sees_a_shared_module_importing_a_feature(tmp_path):
    """The scanner itself: a shared module importing a feature (at the top or inside a function), a feature
    importing another; a feature importing a shared module is fine."""
    gui = tmp_path / "tingji" / "gui"
    for folder in ("files", "models"):
        (gui / folder).mkdir(parents=True)
        (gui / folder / "__init__.py").write_text("")
    (gui / "__init__.py").write_text("")
    (gui / "files" / "storage.py").write_text("")
    (gui / "theme.py").write_text("def f():\n    from .files.storage import Status\n")
    (gui / "models" / "uses.py").write_text("from .. import theme\nfrom ..files import storage\n")
    names = {
        "tingji.gui": gui / "__init__.py",
        "tingji.gui.theme": gui / "theme.py",
        "tingji.gui.files": gui / "files" / "__init__.py",
        "tingji.gui.files.storage": gui / "files" / "storage.py",
        "tingji.gui.models": gui / "models" / "__init__.py",
        "tingji.gui.models.uses": gui / "models" / "uses.py",
    }
    assert _gui_import_problems(names) == [
        "tingji.gui.theme (a shared GUI module) imports tingji.gui.files.storage",
        "tingji.gui.models.uses (the models feature) imports tingji.gui.files.storage",
    ]


def test_the_provider_precision_and_quant_lists_have_one_home():
    """The CLI's choices and the settings' check read the engine's and the converters' lists (the same objects)."""
    import argparse

    from tingji.cli.main import build_parser
    from tingji.engine.families.kit import PRECISIONS
    from tingji.engine.sessions import PROVIDER_CHOICES, PROVIDER_NAMES, PROVIDERS
    from tingji.export.choices import QUANTS
    from tingji.gui.settings import Settings

    def choices(command: str, option: str):
        sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
        return next(a for a in sub.choices[command]._actions if option in a.option_strings).choices

    assert choices("transcribe", "--provider") is PROVIDER_CHOICES
    assert choices("export-model", "--precision") is PRECISIONS
    assert choices("export-model", "--decoder-quant") is QUANTS
    assert PROVIDER_CHOICES == ("auto", *PROVIDERS) and set(PROVIDER_NAMES) == set(PROVIDERS)
    kept = [Settings(provider=p).normalised().provider for p in (*PROVIDER_CHOICES, "tpu")]
    assert kept == [*PROVIDER_CHOICES, "auto"]  # every choice is a valid setting, anything else is "auto"


# -- the family contract ----------------------------------------------------------------------


def test_every_family_and_converter_provides_the_contract():
    from tingji.engine.families import FAMILIES
    from tingji.export import CONVERTERS

    for family, module_name in FAMILIES.items():
        module = importlib.import_module(module_name)
        assert module.FAMILY == family
        assert set(module.REQUIRED_FILES) <= set(module.FILE_ROLES)
        assert callable(module.load)
        # The manifest parts it reads are typed (engine.schema), and it says how they must agree.
        assert dataclasses.is_dataclass(module.FRONTEND) and dataclasses.is_dataclass(module.SECTION)
        assert callable(module.SECTION.check_frontend)
    for family, module_name in CONVERTERS.items():
        module = importlib.import_module(module_name)
        assert module.FAMILY == family and family in FAMILIES
        assert callable(module.is_checkpoint) and callable(module.convert)
    print(f"families: {sorted(FAMILIES)}; converters: {sorted(CONVERTERS)}")


# -- the manifest's common core ------------------------------------------------------------------


def _write_manifest(folder: Path, **changes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "encoder.onnx").write_bytes(b"e")
    (folder / "decoder.gguf").write_bytes(b"d")
    data = {
        "format": 2,
        "family": "fun-asr-nano",
        "files": {
            "encoder": {"path": "encoder.onnx", "sha256": "0" * 64, "size": 1},
            "decoder": {"path": "decoder.gguf", "sha256": "0" * 64, "size": 1},
        },
        "window_seconds": 60,
        "window_frames": 1000,
        "frontend": {},
        "source": {},
        "fun-asr-nano": nano_section_json(),
    }
    data.update(changes)
    (folder / "manifest.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    "changes, expected",
    [
        ({"family": "whisper-large-v3"}, "unknown model family 'whisper-large-v3'"),
        ({"format": 3}, "made by a newer Tingji (format 3)"),
        ({"format": "1.0"}, "manifest format '1.0' is not a format number"),
        ({"format": True}, "manifest format True is not a format number"),
        ({"fun-asr-nano": None}, "no 'fun-asr-nano' section"),
        ({"files": {"encoder": {"path": "encoder.onnx", "sha256": "0" * 64, "size": 1}}}, "lists no decoder file"),
    ],
)
def test_bad_manifests_are_one_line_errors(tmp_path, changes, expected):
    from tingji.engine.manifest import load_manifest
    from tingji.errors import ModelError

    folder = _write_manifest(tmp_path / "m", **changes)
    with pytest.raises(ModelError) as info:
        load_manifest(folder)
    message = str(info.value)
    print(f"{changes}: {message}")
    assert expected in message and "\n" not in message and str(folder) in message


@pytest.mark.parametrize(
    "rel",
    [
        "/etc/passwd",
        "\\Windows\\win.ini",
        "/Windows/win.ini",
        "C:secret.txt",
        "C:\\models\\x.onnx",
        "c:/x.onnx",
        "\\\\server\\share\\x.onnx",
        "//server/share/x.onnx",
        "\\\\?\\C:\\x.onnx",
        "../x.onnx",
        "a/../../x.onnx",
        "a\\..\\..\\x.onnx",
        "encoder.onnx:hidden",
        "encoder.onnx::$DATA",
        "CON",
        "nul.txt",
        "sub/aux.onnx",
        "COM1.gguf",
        "x.onnx.",
        "x.onnx ",
        "",
        "a\x00b",
    ],
)
def test_manifest_paths_stay_inside_the_folder_under_windows_rules(tmp_path, rel):
    from tingji.engine.manifest import is_safe_relative, load_manifest
    from tingji.errors import ModelError

    files = {
        "encoder": {"path": rel, "sha256": "0" * 64, "size": 1},
        "decoder": {"path": "decoder.gguf", "sha256": "0" * 64, "size": 1},
    }
    folder = _write_manifest(tmp_path / "m", files=files)
    assert not is_safe_relative(rel)
    with pytest.raises(ModelError, match="points outside the model folder"):
        load_manifest(folder)
    print(f"refused {rel!r}")


@pytest.mark.parametrize(
    "rel", ["encoder.onnx", "sub/encoder.onnx", "./encoder.onnx", "a.b.c.onnx", "模型/编码器.onnx"]
)
def test_ordinary_relative_paths_are_accepted(rel):
    from tingji.engine.manifest import is_safe_relative

    assert is_safe_relative(rel)


def test_format_1_folders_still_load_and_save_as_format_2(tmp_path):
    """The committed demo model predates families: its top-level Nano keys become the family section."""
    import shutil
    from dataclasses import asdict

    from tingji.engine.manifest import FORMAT_VERSION, load_manifest, save_manifest, verify

    demo = ROOT / "tests" / "fixtures" / "models" / "demo"
    old = json.loads((demo / "manifest.json").read_text(encoding="utf-8"))
    assert old.get("format") == 1 and "prompt" in old
    m = load_manifest(demo)
    assert m.family == "fun-asr-nano" and asdict(m.section.prompt) == old["prompt"]
    assert asdict(m.section.special_tokens) == {**old["special_tokens"], "eos_ids": (762,), "stop_ids": (760, 762)}
    assert {k: v for k, v in asdict(m.section.ctc).items() if k in old["ctc"]} == old["ctc"]
    copy = tmp_path / "demo"
    shutil.copytree(demo, copy)
    m.folder = copy
    save_manifest(m)
    new = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    assert new["format"] == FORMAT_VERSION and new["fun-asr-nano"]["prompt"] == old["prompt"]
    assert "prompt" not in new and new["exporter"] == old["exporter"]  # unknown keys survive
    again = load_manifest(copy)
    verify(again)
    assert again.section == m.section and again.files == m.files
    print(f"format 1 -> {FORMAT_VERSION}: {sorted(new['fun-asr-nano'])} in the family section")


def test_every_package_ships_in_the_wheel():
    """A subpackage missing from pyproject's list installs fine in editable mode and breaks only the wheel."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(p.parent.relative_to(ROOT / "app").parts) for p in (ROOT / "app" / "tingji").rglob("__init__.py")
    }
    print(f"{len(on_disk)} packages under app/tingji, {len(listed)} listed")
    assert on_disk - listed == set()
