"""The graph templates the app ships (app/tingji/export/graph_templates/) are current and complete.

They are made by tools/build_templates.py from the exporter's torch modules at full size. A change
to a module, to the code that exports it or to the template format changes the sources' digest;
this test then fails until the templates are built again, so a stale template can never ship.
"""

from __future__ import annotations

import json

import pytest
import torch
from build_templates import INDEX, RELEASES, source_files, sources_digest

from tingji.export import templates
from tingji.models.catalog import load_catalog

SHIPPED = templates.BUILTIN


def _keys() -> list[dict]:
    return [json.loads(p.read_text(encoding="utf-8"))["key"] for p in sorted(SHIPPED.glob("*.json")) if p.name != INDEX]


def test_the_shipped_templates_come_from_this_exporter_and_this_torch():
    index = json.loads((SHIPPED / INDEX).read_text(encoding="utf-8"))
    print(f"\n{len(_keys())} templates, from {len(source_files())} exporter sources, torch {index['torch']}")
    assert index["format"] == templates.FORMAT
    assert index["torch"] == torch.__version__.split("+")[0], "the templates were made with another torch"
    assert index["sources"] == sources_digest(), "the exporter changed: run python3 tools/build_templates.py"
    for key in _keys():
        assert key["format"] == templates.FORMAT


# Graphs no int8 template serves: CAM++ has no int8 model; Paraformer's timestamp head quantises only
# its LSTM, from the small filled fp32 graph (`paraformer.graphs`).
NO_INT8 = {
    ("campplus", "embedder"),
    ("campplus", "embedder_fixed"),
    ("campplus", "embedder_batch"),
    ("paraformer", "timestamp"),
}
# ONNX Runtime has no fp16 LSTM on the CPU: Paraformer's timestamp head stays fp32 in an fp16 model.
NO_FP16 = {("paraformer", "timestamp")}


@pytest.mark.parametrize("family", sorted({family for family, _ in RELEASES.values()}))
def test_every_released_family_has_templates_for_each_precision(family: str, monkeypatch: pytest.MonkeyPatch):
    """fp32 and fp16 as exported, and int8 (the fp32 graph as ONNX Runtime quantises it) for every
    graph an int8 model quantises, so converting to int8 never holds the fp32 graph."""
    monkeypatch.delenv(templates.ENV_FOLDERS, raising=False)
    keys = [k for k in _keys() if k["family"] == family]
    roles = {p: {k["role"] for k in keys if k["precision"] == p} for p in ("fp32", "fp16", "int8")}
    print(f"\n{family}: {len(keys)} templates; " + "; ".join(f"{p}: {', '.join(sorted(r))}" for p, r in roles.items()))
    assert roles["fp32"]
    if family not in ("ct-punc", "campplus"):  # these two convert every precision from fp32 graphs
        assert roles["fp16"] == {r for r in roles["fp32"] if (family, r) not in NO_FP16}
    assert roles["int8"] == {r for r in roles["fp32"] if (family, r) not in NO_INT8}


def test_every_catalog_checkpoint_is_a_released_configuration():
    catalog = load_catalog()
    families = {family for family, _ in RELEASES.values()}
    for entry in catalog:
        if entry.kind == "official-checkpoint":
            assert entry.about.family in families, entry.name
