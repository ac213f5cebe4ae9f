"""No second homes in dictation: every name is imported from the module that defines it.

A non-`__init__` module of `tingji/dictation/` or `tingji/gui/dictation_*` may
only hand out names it defines itself: its `__all__`, and what other modules
(the app and the tests) import from it or reach as `module.attr`. A package's
`__init__` stays its public front. The scan reads the source (ast), so it
also sees imports inside functions and test subprocess code kept in files.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.dictation

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app"


def _module_name(path: Path) -> str:
    base = APP if path.is_relative_to(APP) else ROOT / "tests"
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _checked_modules() -> dict[str, Path]:
    """The modules whose exports are checked: dictation's and the GUI's dictation modules."""
    files = [p for p in (APP / "tingji" / "dictation").glob("*.py") if p.name != "__init__.py"]
    files += list((APP / "tingji" / "gui").glob("dictation_*.py"))
    return {_module_name(p): p for p in files}


def _defined(tree: ast.Module) -> set[str]:
    """Names a module binds itself at top level (not by importing them)."""
    names: set[str] = set()

    def bind(target: ast.AST) -> None:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                names.add(node.id)

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    bind(target)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                bind(node.target)
            elif isinstance(node, (ast.For, ast.With)):
                bind(node.target if isinstance(node, ast.For) else ast.Tuple(
                    [i.optional_vars for i in node.items if i.optional_vars], ast.Load()))
                visit(node.body)
            elif isinstance(node, ast.If):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)
    visit(tree.body)
    return names


def _all_entries(tree: ast.Module) -> list[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return [e.value for e in ast.walk(node.value) if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _resolve(module: str | None, level: int, importer: str, is_package: bool) -> str:
    if not level:
        return module or ""
    package = importer.split(".") if is_package else importer.split(".")[:-1]
    base = package[: len(package) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _dotted(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def second_homes() -> tuple[list[str], int]:
    """(problems, how many uses were checked) over app/ and tests/."""
    checked = _checked_modules()
    trees = {name: ast.parse(path.read_text("utf-8")) for name, path in checked.items()}
    defined = {name: _defined(tree) for name, tree in trees.items()}
    problems: list[str] = []
    uses = 0
    for name, tree in trees.items():
        for entry in _all_entries(tree):
            uses += 1
            if entry not in defined[name]:
                problems.append(f"{checked[name].relative_to(ROOT)}: __all__ lists {entry!r}, defined elsewhere")

    for path in sorted([*APP.rglob("*.py"), *(ROOT / "tests").rglob("*.py")]):
        importer = _module_name(path)
        tree = ast.parse(path.read_text("utf-8"))
        aliases: dict[str, str] = {}  # local name -> checked module it stands for
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _resolve(node.module, node.level, importer, path.name == "__init__.py")
                for alias in node.names:
                    if f"{source}.{alias.name}" in checked:  # `from tingji.dictation import capture`
                        aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
                    elif source in checked:
                        uses += 1
                        if alias.name not in defined[source]:
                            problems.append(f"{path.relative_to(ROOT)}:{node.lineno}: imports {alias.name} from "
                                            f"{source}, which does not define it")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in checked and alias.asname:
                        aliases[alias.asname] = alias.name
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute):
                continue
            dotted = _dotted(node.value)
            if dotted is None:
                continue
            head, _, rest = dotted.partition(".")
            module = aliases.get(head, head)
            module = f"{module}.{rest}" if rest else module
            if module in checked:
                uses += 1
                if node.attr not in defined[module]:
                    problems.append(f"{path.relative_to(ROOT)}:{node.lineno}: uses {module}.{node.attr}, "
                                    "defined elsewhere")
    return problems, uses


def test_dictation_modules_export_only_their_own_names() -> None:
    problems, uses = second_homes()
    assert not problems, "\n".join(problems)
    assert uses > 50  # the scan did see the app's and the tests' imports
    print(f"second homes: {uses} imports/__all__ entries/attribute uses of {len(_checked_modules())} "
          "dictation modules checked, none re-exports a name")


def test_second_home_scan_finds_a_re_export(tmp_path: Path) -> None:
    """The checker itself: a re-exported name in __all__, a `from` import and a `module.attr` use."""
    source = ("from .devices import MicrophoneError\n__all__ = ['Microphone', 'MicrophoneError']\n"
              "class Microphone: ...\n")
    tree = ast.parse(source)
    assert _all_entries(tree) == ["Microphone", "MicrophoneError"]
    assert "MicrophoneError" not in _defined(tree) and "Microphone" in _defined(tree)
    assert _resolve("capture", 1, "tingji.dictation.controller", False) == "tingji.dictation.capture"
    assert _resolve(None, 2, "tingji.gui.dictation_host", False) == "tingji"
    assert _dotted(ast.parse("tingji.dictation.capture.RATE", mode="eval").body.value) == "tingji.dictation.capture"
    print("scanner: finds an imported name in __all__, resolves relative imports and dotted uses")
