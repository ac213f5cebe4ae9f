"""tools/demo_model/from_export.py: the demo model read back from its export, exactly.

The demo model's last training stage starts from the export of the first three (`--from-export`, or
`round_as_exported` inside a whole run), so the two must agree to the bit: a model of distinct random
weights is exported by `tingji export-model`, read back by `load_exported`, and compared with the same
model rounded by `round_as_exported`.
"""

from __future__ import annotations

from pathlib import Path

from demo_model.cli import make_model, text_parts, write_export  # noqa: E402  (tools/ is on sys.path)
from demo_model.from_export import load_exported, probe_values, round_as_exported
from demo_model.model import SCAFFOLDING
from demo_model.recipe import Dims


def test_an_export_reads_back_as_the_model_rounded_as_exported(tmp_path: Path) -> None:
    import argparse

    import torch

    dims = Dims()
    text = text_parts(dims)
    args = argparse.Namespace(decoder_quant="f16", precision="fp16")
    written, _ = make_model(dims, text, lambda _: None)
    probe_values(written)
    folder = tmp_path / "export"
    write_export(written, text, dims, tmp_path / "checkpoint", folder, args)

    read, _ = make_model(dims, text, lambda _: None)
    # The export *is* a probe (the same distinct values), so no second export is needed.
    load_exported(read, folder, write_probe=None, probe_dir=folder)
    round_as_exported(written)
    a, b = written.state_dict(), read.state_dict()
    compared = [k for k in a if not k.startswith(SCAFFOLDING)]
    differ = [k for k in compared if not torch.equal(a[k], b[k])]
    halved = [k for k in compared if not torch.equal(a[k], a[k].half().float())]
    print(f"{len(compared)} tensors read back exactly; kept in fp32 by the export: {halved}")
    assert not differ
    assert halved and all(k.startswith("llm.") and "norm" in k for k in halved)
