"""Official CT-Transformer punctuation checkpoint -> a Tingji model folder (family `ct-punc`).

Output: one graph at real length (token ids + mask -> the best mark per
token, CPU only: text is short and its length known), `tokens.json` as
read, and a manifest whose section (`PunctuationSection`) names the marks.
int8 quantises the MatMul weights as every family does and stores the
token table as int8 rows with a scale each (`modules.Int8Rows`).
A punctuation model has no audio front-end and no window; the manifest's
core says so with zeros and an empty front-end.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import onnx

from ...engine.families.ct_punc import FAMILY, NoFrontend, PunctuationSection
from ...engine.manifest import Manifest
from ...errors import ModelError
from .. import folder_manifest, messages
from ..onnx_tools import int8_ops, save_graph_files
from ..templates import GraphKey, make_graph
from .checkpoint import is_punc_config, load_checkpoint
from .dims import PuncDims

TOKENS = {0: "batch", 1: "tokens"}
Weights = Mapping[str, np.ndarray]


def is_checkpoint(folder: Path, config: dict[str, Any]) -> bool:
    """An official CT-Transformer folder names its model class in config.yaml."""
    return is_punc_config(config)


def convert(
    source: Path, work: Path, *, precision: str, decoder_quant: str, fixed: bool, say: Callable[[str], None]
) -> Manifest:
    """Write every file into `work` and return the manifest. `decoder_quant` and `fixed` do not apply;
    fp16 is kept fp32 (the graph is small and runs on the CPU)."""
    say(f"reading checkpoint {source}")
    ckpt = load_checkpoint(source)
    precision = "int8" if precision == "int8" else "fp32"
    say("exporting the punctuation graph")
    int8_embedding = precision == "int8"
    key = GraphKey(FAMILY, "punc", "fp32", {"dims": asdict(ckpt.dims), "int8_embedding": int8_embedding})
    build = punc_graph(ckpt.dims, int8_embedding, source / "model.pt")
    proto = make_graph(key, ckpt.state, build, int8=int8_ops(precision))
    files = save_graph_files(
        {"punc": proto}, {"punc": work / f"punc.{precision}.onnx"}, "punc_data", work / f"punc.{precision}.data"
    )
    onnx.checker.check_model(str(files["punc"]), full_check=False)
    (work / "tokens.json").write_text(
        json.dumps(ckpt.tokens, ensure_ascii=False) + "\n", encoding="utf-8", newline="\n"
    )
    files["tokens"] = work / "tokens.json"
    section = PunctuationSection(
        precision=precision,
        vocab_size=len(ckpt.tokens),
        marks=tuple(ckpt.marks),
        sentence_end_id=ckpt.sentence_end_id,
        unk_id=ckpt.tokens.index("<unk>"),
    )
    say("hashing files")
    source_info = {"model_pt_sha256": ckpt.sha256, "folder": source.name, "model": "CTTransformer"}
    return folder_manifest(work, FAMILY, files, (0, 0), NoFrontend(), section, source_info)


def punc_graph(dims: PuncDims, int8_embedding: bool, path: Path) -> Callable[[Weights], onnx.ModelProto]:
    """The torch export of the punctuation graph (token table as int8 rows with `int8_embedding`), at the
    real length; `path` is the model.pt named when the weights do not fit the module."""

    def build(weights: Weights) -> onnx.ModelProto:
        import torch

        from ..torch_export import export_graph, to_torch
        from .modules import CtTransformer, PunctuationGraph

        model = CtTransformer(dims)
        missing, unexpected = model.load_state_dict(to_torch(weights), strict=False)
        if missing or unexpected:  # load_checkpoint checked already; a changed definition would land here
            raise ModelError(
                messages.PUNC_MISMATCH, path=path, missing=missing[:3], unexpected=unexpected[:3], wrong=[]
            )
        ids = torch.randint(0, dims.vocab, (2, 23))
        mask = torch.ones(2, 23)
        mask[1, 17:] = 0
        graph = PunctuationGraph(model.eval(), int8_embedding=int8_embedding)
        proto = export_graph(graph, (ids, mask), ["ids", "mask"], ["marks"], [TOKENS, TOKENS])
        for value in proto.graph.output:  # name the output's token axis like the inputs'
            axes = value.type.tensor_type.shape.dim
            if len(axes) > 1 and not axes[1].HasField("dim_value"):
                axes[1].dim_param = "tokens"
        return proto

    return build
