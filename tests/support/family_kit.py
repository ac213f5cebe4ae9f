"""What a declared model family still lacks: the parts of it no code can make from its declaration.

`engine/families/kit.py` declares each family once and the engine's `FAMILIES`, the exporter's
`CONVERTERS`, the `FAMILY` constants, `make_tiny_checkpoint --family` and the tests' fixture pairs
are made from it. What stays written by hand - files, the wheel's package list, the catalog, a
graph-template release, a sample manifest, its torch-free conversion case, its checkpoint in the Windows
app's conversion proof - is checked here against the declaration, from the files
alone (nothing is imported), so the same check runs on this checkout and on a throwaway tree.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

import tomllib

from tingji.engine.families.kit import Family

# Each part a family writes, by the name the check gives it.
ENGINE = "engine module"
CONVERTER = "converter"
TINY = "tiny-checkpoint maker"
BENCHMARK = "benchmark"
BENCHMARK_RUN = "benchmarks/run.py import"
CATALOG = "catalog entry"
PACKAGES = "pyproject packages"
RELEASE = "template release"
SAMPLE = "sample manifest"
TORCH_FREE = "torch-free case"
WINDOWS = "Windows official checkpoint"
PARTS = (ENGINE, CONVERTER, TINY, BENCHMARK, BENCHMARK_RUN, CATALOG, PACKAGES, RELEASE, SAMPLE, TORCH_FREE, WINDOWS)


def _defines(path: Path, name: str) -> bool:
    """Whether a Python file defines a top-level function or assigns a top-level name."""
    if not path.is_file():
        return False
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
    return False


def _top_level_imports(path: Path) -> set[str]:
    """The modules a file imports anywhere (benchmarks/run.py imports its family modules by plain name)."""
    if not path.is_file():
        return set()
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def _literal(path: Path, name: str) -> Any:
    """The value of a top-level `name = <literal>` in a Python file (None when there is none)."""
    if not path.is_file():
        return None
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return ast.literal_eval(node.value)
    return None


def _releases(path: Path) -> set[str]:
    """The families `tools/build_templates.py`'s RELEASES makes graph templates of."""
    return {family for family, _ in (_literal(path, "RELEASES") or {}).values()}


def _torch_free_checkpoints(path: Path) -> set[str]:
    """The checkpoint fixtures `tests/export/test_torch_free.py`'s CASES converts both ways."""
    return {fixture for fixture, _ in (_literal(path, "CASES") or {}).values()}


def _official_families(path: Path) -> set[str]:
    """The families `tests/windows/official_checkpoints.py`'s OFFICIAL has the Windows app convert."""
    return {family for _, _, family in (_literal(path, "OFFICIAL") or {}).values()}


def _catalog_families(path: Path) -> set[str]:
    if not path.is_file():
        return set()
    data = json.loads(path.read_text(encoding="utf-8"))
    return {m["about"]["family"] for m in data.get("models", []) if isinstance(m.get("about"), dict)}


def _packages(path: Path) -> set[str]:
    if not path.is_file():
        return set()
    return set(tomllib.loads(path.read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])


def missing_parts(family: Family, root: Path, samples: Collection[str]) -> list[str]:
    """The parts (of `PARTS`) a declared family lacks in the tree at `root`, in `PARTS`' order.

    Args:
        family: The declaration.
        root: A checkout: `app/tingji/...`, `tools/`, `benchmarks/`, `tests/`, `assets/models.json`,
            `pyproject.toml`.
        samples: The families `tests/support/manifests.manifests` gives a sample manifest of.
    """
    engine = root / "app" / "tingji" / "engine" / "families"
    export = root / "app" / "tingji" / "export" / family.package
    engine_package = (engine / family.package / "__init__.py").is_file()
    packages = _packages(root / "pyproject.toml")
    wanted = {family.converter} | ({family.module} if engine_package else set())
    benchmark = root / "benchmarks" / f"{family.benchmark}.py"
    checks: dict[str, Callable[[], bool]] = {
        ENGINE: lambda: engine_package or (engine / f"{family.package}.py").is_file(),
        CONVERTER: lambda: (export / "__init__.py").is_file(),
        TINY: lambda: _defines(root / "tools" / f"{family.tiny.maker}.py", "make_checkpoint"),
        BENCHMARK: lambda: benchmark.is_file(),
        # run.py is the suite's one entry point: a family module it never imports is never run.
        BENCHMARK_RUN: lambda: (
            benchmark.stem == "run" or family.benchmark in _top_level_imports(root / "benchmarks" / "run.py")
        ),
        CATALOG: lambda: (family.name in _catalog_families(root / "assets" / "models.json")) == family.catalog,
        PACKAGES: lambda: wanted <= packages,
        RELEASE: lambda: family.name in _releases(root / "tools" / "build_templates.py"),
        SAMPLE: lambda: family.name in samples,
        TORCH_FREE: lambda: (
            family.tiny.checkpoint_fixture in _torch_free_checkpoints(root / "tests" / "export" / "test_torch_free.py")
        ),
        WINDOWS: lambda: family.name in _official_families(root / "tests" / "windows" / "official_checkpoints.py"),
    }
    return [part for part in PARTS if not checks[part]()]
