"""No second homes in `tingji.models`: every name is imported from the module that defines it.

An AST scan, no imports: for each non-`__init__` module of the package it
collects the names the module defines (functions, classes, assignments that
are not merely another name imported from elsewhere), then checks

- the module's `__all__` lists only those names, and
- every use of the module anywhere in the repository (`from M import x`,
  `M.x` after `from tingji.models import M`, `monkeypatch.setattr(M, "x", ...)`)
  asks it only for names it defines.

`tingji/models/__init__.py` is the package's public front and may re-export.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "tingji.models"
PACKAGE_DIR = ROOT / "app" / "tingji" / "models"
SCANNED = ("app", "tests", "tools", "benchmarks", "installer")


@dataclass(frozen=True)
class Use:
    file: Path
    line: int
    module: str
    name: str


def _top_level(tree: ast.Module) -> list[ast.stmt]:
    """Module-level statements, looking into top-level try/if blocks (optional imports live there)."""
    out: list[ast.stmt] = []
    todo = list(tree.body)
    while todo:
        node = todo.pop(0)
        if isinstance(node, ast.Try):
            todo[:0] = node.body + [s for h in node.handlers for s in h.body] + node.orelse + node.finalbody
        elif isinstance(node, ast.If):
            todo[:0] = node.body + node.orelse
        else:
            out.append(node)
    return out


def defined_names(tree: ast.Module) -> set[str]:
    imported: set[str] = set()
    for node in _top_level(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imported.update((a.asname or a.name).split(".")[0] for a in node.names)
    names: set[str] = set()
    for node in _top_level(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            # `_Alias = Imported` is a second home in disguise, not a definition.
            if isinstance(node.value, ast.Name) and node.value.id in imported:
                continue
            for target in targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        names.add(leaf.id)
    return names


def module_all(tree: ast.Module) -> list[str]:
    for node in _top_level(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return [elt.value for elt in node.value.elts if isinstance(elt, ast.Constant)]  # type: ignore[attr-defined]
    return []


def _package_of(path: Path) -> str | None:
    """The dotted package a file under app/ belongs to (for relative imports)."""
    try:
        rel = path.relative_to(ROOT / "app")
    except ValueError:
        return None
    return ".".join(rel.parent.parts)


def _absolute(node: ast.ImportFrom, package: str | None) -> str | None:
    if node.level == 0:
        return node.module
    if package is None:
        return None
    parts = package.split(".")
    base = parts[: len(parts) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def uses_in(path: Path, modules: set[str]) -> list[Use]:
    """Every name asked of one of `modules` (dotted, e.g. tingji.models.store) in one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = _package_of(path)
    aliases: dict[str, str] = {}
    uses: list[Use] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _absolute(node, package)
            for alias in node.names:
                if source in modules:
                    uses.append(Use(path, node.lineno, source, alias.name))
                elif source is not None and f"{source}.{alias.name}" in modules:
                    aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules and alias.asname:
                    aliases[alias.asname] = alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            uses.append(Use(path, node.lineno, aliases[node.value.id], node.attr))
        elif isinstance(node, ast.Attribute):
            dotted = ast.unparse(node.value)
            if dotted in modules:
                uses.append(Use(path, node.lineno, dotted, node.attr))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in
                ("setattr", "delattr") and len(node.args) >= 2 and isinstance(node.args[0], ast.Name)
                and node.args[0].id in aliases and isinstance(node.args[1], ast.Constant)):
            uses.append(Use(path, node.lineno, aliases[node.args[0].id], str(node.args[1].value)))
    return uses


def test_no_module_in_tingji_models_exports_a_name_it_does_not_define():
    modules = {f"{PACKAGE}.{p.stem}": p for p in sorted(PACKAGE_DIR.glob("*.py")) if p.stem != "__init__"}
    defined = {name: defined_names(ast.parse(p.read_text(encoding="utf-8"))) for name, p in modules.items()}
    problems: list[str] = []
    for name, path in modules.items():
        for exported in module_all(ast.parse(path.read_text(encoding="utf-8"))):
            if exported not in defined[name]:
                problems.append(f"{path.relative_to(ROOT)}: __all__ lists {exported}, defined elsewhere")
    files = [p for top in SCANNED for p in sorted((ROOT / top).rglob("*.py"))]
    uses = [u for f in files for u in uses_in(f, set(modules))]
    for use in uses:
        if use.name not in defined[use.module]:
            problems.append(f"{use.file.relative_to(ROOT)}:{use.line}: {use.name} asked of {use.module}, "
                            "which does not define it")
    print(f"checked {len(modules)} modules of {PACKAGE}, {len(files)} files, {len(uses)} uses: "
          f"{len(problems)} second homes")
    assert problems == []
    assert len(uses) > 50  # the scan does find the package's uses (a broken scan would pass vacuously)


def test_the_scan_sees_a_second_home(tmp_path):
    """The checker itself: an alias, a re-export in __all__ and a use through the wrong module are caught."""
    source = "from .a import thing\n_Alias = thing\nREAL = 1\n__all__ = ['thing', 'REAL']\n"
    tree = ast.parse(source)
    assert defined_names(tree) == {"REAL", "__all__"}
    assert [n for n in module_all(tree) if n not in defined_names(tree)] == ["thing"]
    user = tmp_path / "user.py"
    user.write_text("from tingji.models import store\nfrom tingji.models.store import list_models\n"
                    "store.verify('x')\nmonkeypatch.setattr(store, 'download', None)\n", encoding="utf-8")
    found = sorted((u.name, u.line) for u in uses_in(user, {"tingji.models.store"}))
    print(f"the scan found {found} in a sample file")
    assert found == [("download", 4), ("list_models", 2), ("verify", 3)]
