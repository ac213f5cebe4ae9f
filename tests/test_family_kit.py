"""A model family is declared once (engine/families/kit.py), and a family that lacks a part is named.

Issue 47's proof 1: every list of families is made from the declaration, and what cannot be
(`tests/support/family_kit.py`: the files, the wheel's packages, the catalog, the template release, the
sample manifest) is checked against it. A throwaway family in a throwaway tree, complete at first, loses
each part in turn, and the check names exactly that part.
"""

from __future__ import annotations

import importlib
import json
import shutil
from pathlib import Path

import pytest

import tests.conftest as conftest
from tests.support.family_kit import (
    BENCHMARK,
    BENCHMARK_RUN,
    CATALOG,
    CONVERTER,
    ENGINE,
    PACKAGES,
    PARTS,
    RELEASE,
    SAMPLE,
    TINY,
    TORCH_FREE,
    WINDOWS,
    missing_parts,
)
from tests.support.manifests import manifests
from tests.support.paths import ROOT
from tingji.engine.families import FAMILIES
from tingji.engine.families.kit import KITS, SPEECH, Family, Tiny, declared
from tingji.export import CONVERTERS

NOT_FAMILIES = {"base", "llm", "kit"}  # engine/families modules that are the contract, not a family


def test_every_declared_family_has_every_part(tmp_path):
    samples = set(manifests(tmp_path))
    missing = {f.name: missing_parts(f, ROOT, samples) for f in KITS}
    assert not any(missing.values()), {name: parts for name, parts in missing.items() if parts}
    print(f"{len(KITS)} families x {len(PARTS)} parts: none missing")


def test_every_family_package_is_declared():
    """A family package written but not declared would be invisible to every derived list."""
    declared_packages = {f.package for f in KITS}
    engine = ROOT / "app" / "tingji" / "engine" / "families"
    found = {p.parent.name for p in engine.glob("*/__init__.py")}
    found |= {p.stem for p in engine.glob("*.py")} - NOT_FAMILIES - {"__init__"}
    found |= {p.parent.name for p in (ROOT / "app" / "tingji" / "export").glob("*/__init__.py")}
    assert found == declared_packages, sorted(found ^ declared_packages)


def test_the_lists_are_made_from_the_declaration():
    names = [f.name for f in KITS]
    assert list(FAMILIES) == names and list(CONVERTERS) == names
    for unique in (names, [f.package for f in KITS], [f.tiny.fixture for f in KITS]):
        assert len(set(unique)) == len(KITS), unique
    for f in KITS:
        engine, converter = importlib.import_module(f.module), importlib.import_module(f.converter)
        assert engine.FAMILY == f.name and converter.FAMILY == f.name, f.name
        assert declared(f"{f.module}.anything") == f and declared(f"{f.converter}.convert") == f
        # the conftest's fixture pair, named by the declaration
        assert callable(getattr(conftest, f.tiny.checkpoint_fixture)) and callable(
            getattr(conftest, f.tiny.model_fixture)
        )
    with pytest.raises(LookupError, match="tingji.export.nowhere"):
        declared("tingji.export.nowhere")


# --- proof 1: a throwaway family in a throwaway tree ------------------------------------------------------

THROWAWAY = Family(
    "test-family", "test_family", SPEECH, Tiny("tiny_test_family", "tf", "tf-tiny", "tf-tiny"), "test_family"
)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _tree(root: Path, family: Family) -> Path:
    """A tree holding every part of `family` (and nothing else)."""
    _write(root / "app/tingji/engine/families" / family.package / "__init__.py", '"""The family."""\n')
    _write(root / "app/tingji/export" / family.package / "__init__.py", '"""Its converter."""\n')
    _write(root / "tools" / f"{family.tiny.maker}.py", "def make_checkpoint(out, seed=0, full_size=False):\n    pass\n")
    _write(root / "benchmarks" / f"{family.benchmark}.py", '"""Its benchmark."""\n')
    _write(root / "benchmarks/run.py", f"import {family.benchmark}  # noqa: F401\n")
    about = {"family": family.name, "languages": ["en"], "speed": "fast", "best_for": ["files"]}
    _write(root / "assets/models.json", json.dumps({"format": 1, "models": [{"name": "m", "about": about}]}))
    packages = json.dumps(["tingji", family.module, family.converter])
    _write(root / "pyproject.toml", f"[tool.setuptools]\npackages = {packages}\n")
    releases = f'RELEASES: dict[str, tuple[str, list[str]]] = {{"r": ({family.name!r}, [])}}\n'
    _write(root / "tools/build_templates.py", releases)
    cases = f"CASES = {{{family.name!r}: ({family.tiny.checkpoint_fixture!r}, [('fp32', 'f16')])}}\n"
    _write(root / "tests/export/test_torch_free.py", cases)
    official = f"OFFICIAL = {{'x': ({family.tiny.checkpoint_fixture!r}, None, {family.name!r})}}\n"
    _write(root / "tests/windows/official_checkpoints.py", official)
    return root


def _without(root: Path, part: str) -> None:
    """Take one part out of the tree `_tree` wrote (the sample manifest is left out by the caller)."""
    f = THROWAWAY
    if part == ENGINE:
        shutil.rmtree(root / "app/tingji/engine/families" / f.package)
    elif part == CONVERTER:
        (root / "app/tingji/export" / f.package / "__init__.py").unlink()
    elif part == TINY:
        _write(root / "tools" / f"{f.tiny.maker}.py", "def make_something_else():\n    pass\n")
    elif part == BENCHMARK:
        (root / "benchmarks" / f"{f.benchmark}.py").unlink()
    elif part == BENCHMARK_RUN:
        _write(root / "benchmarks/run.py", "import sensevoice  # noqa: F401\n")
    elif part == CATALOG:
        _write(root / "assets/models.json", json.dumps({"format": 1, "models": []}))
    elif part == PACKAGES:
        _write(root / "pyproject.toml", f'[tool.setuptools]\npackages = ["tingji", "{f.module}"]\n')
    elif part == RELEASE:
        _write(root / "tools/build_templates.py", 'RELEASES: dict[str, tuple[str, list[str]]] = {"r": ("other", [])}\n')
    elif part == TORCH_FREE:
        _write(root / "tests/export/test_torch_free.py", "CASES = {'other': ('other_checkpoint', [])}\n")
    elif part == WINDOWS:
        _write(
            root / "tests/windows/official_checkpoints.py", "OFFICIAL = {'x': ('other_checkpoint', None, 'other')}\n"
        )


def test_a_complete_throwaway_family_lacks_nothing(tmp_path):
    assert missing_parts(THROWAWAY, _tree(tmp_path, THROWAWAY), {THROWAWAY.name}) == []


@pytest.mark.parametrize("part", PARTS)
def test_a_family_without_one_part_is_named(part, tmp_path):
    root = _tree(tmp_path, THROWAWAY)
    _without(root, part)
    samples = set() if part == SAMPLE else {THROWAWAY.name}
    assert missing_parts(THROWAWAY, root, samples) == [part]


def test_a_family_of_no_known_kind_is_refused():
    with pytest.raises(ValueError, match="kind 'speach'"):
        Family("test-family", "test_family", "speach", THROWAWAY.tiny, "test_family")


def test_a_family_the_catalog_must_not_offer_is_named_when_it_does(tmp_path):
    """`catalog=False` (the speaker model today) is a fact too: an entry offering it disagrees."""
    family = Family("test-family", "test_family", SPEECH, THROWAWAY.tiny, "test_family", catalog=False)
    assert missing_parts(family, _tree(tmp_path, family), {family.name}) == [CATALOG]
