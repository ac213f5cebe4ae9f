"""Official CAM++ checkpoint -> the files and manifest of a speaker model folder.

Output: the embedding graph at real length (CPU, CUDA; any batch of equal
lengths) and its fixed batch twin for DirectML, `FIXED_BATCH` windows of the
window length a run (a folder made before it has a one-window twin,
`embedder_fixed`, which the engine still runs), sharing one weight file, and
a manifest whose `campplus` section the engine reads strictly
(`engine/speakers/model.py`). With precision int8 the folder also holds
`embedder_int8`, the dynamic graph with its D-TDNN convolutions as
u8 x s8 products (`int8.py`; CAM++ has no MatMul weights for the other
families' int8 scheme), which the engine runs on CPUs where int8 is faster;
the fp32 graphs stay for every other CPU and for DirectML. Any other
precision gives the fp32 graphs alone.

A batch norm that reads only a convolution's output is merged into it here,
with NumPy (`fold_norms`), before the torch export: torch's exporter would
merge it with torch's square root, which is not correctly rounded (MKL's:
1 ulp off for about one value in six on an AVX-512 machine, and not
necessarily the same on another CPU), so a graph made without torch could not
give its bits. The module gets the merged weights and a norm that only adds
the merged bias, which the exporter merges exactly: the same nodes and names
as torch's own merge, the merged weights rounded as IEEE fp32 does.
"""

from __future__ import annotations

import copy
import tempfile
import warnings
from collections.abc import Callable, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import onnx

from ...engine.families.campplus import (
    FAMILY,
    FIXED_BATCH,
    INPUTS,
    OUTPUTS,
    SHIFT_SECONDS,
    WINDOW_SECONDS,
    SpeakerSection,
)
from ...engine.frontend import FrontendConfig, num_fbank_frames
from ...engine.manifest import Manifest
from ...errors import ModelError
from .. import folder_manifest, messages
from ..onnx_tools import BATCH_FRAMES, OPSET, save_graph_files
from ..templates import GraphKey, make_graph
from .checkpoint import Checkpoint, load_checkpoint
from .dims import NORM_EPS, CamPlusDims, folded_norms
from .int8 import convs_to_int8

if TYPE_CHECKING:
    import torch

    from .modules import CamPlusGraph

__all__ = ["convert", "frontend_config", "fold_norms", "embedder_graph", "export_graphs"]
Weights = Mapping[str, np.ndarray]


def frontend_config(feat_dim: int) -> FrontendConfig:
    """funasr's CAM++ features: Kaldi fbank on [-1, 1] samples (no int16 scaling), povey window, no LFR."""
    return FrontendConfig(n_mels=feat_dim, window="povey", upscale=1.0, lfr_m=1, lfr_n=1)


def convert(
    source: Path, work: Path, *, precision: str, decoder_quant: str, fixed: bool, say: Callable[[str], None]
) -> Manifest:
    """Write every file into `work` (an empty folder) and return the manifest describing them.

    `precision` int8 adds the int8 CPU graph; `decoder_quant` does not apply (see the module docstring).
    """
    say(f"reading checkpoint {source}")
    ckpt = load_checkpoint(source)
    cfg = frontend_config(ckpt.dims.feat_dim)
    window_frames = num_fbank_frames(round(WINDOW_SECONDS * cfg.sample_rate), cfg)
    int8 = precision == "int8"
    files = export_graphs(ckpt, work, window_frames=window_frames, fixed=fixed, int8=int8, say=say)
    say("hashing files")
    section = SpeakerSection(
        precision="int8" if int8 else "fp32",
        feat_dim=ckpt.dims.feat_dim,
        embedding_size=ckpt.dims.embedding_size,
        inputs=tuple(INPUTS),
        outputs=tuple(OUTPUTS),
        shift_seconds=SHIFT_SECONDS,
        fixed_batch=FIXED_BATCH if fixed else 1,
    )
    origin = {"weights_sha256": ckpt.sha256, "folder": source.name}
    return folder_manifest(work, FAMILY, files, (WINDOW_SECONDS, window_frames), cfg, section, origin)


def fold_norms(state: Weights, dims: CamPlusDims) -> dict[str, np.ndarray]:
    """`state` with each batch norm of `folded_norms(dims)` merged into its convolution, in fp32 with one
    rounding per operation: the weight times gamma / sqrt(var + eps) per output channel, and the norm's
    `folded_bias`, beta - mean * that (+ 0.0: never a negative zero); the norm's other floats dropped."""
    out = dict(state)
    for conv, norm in folded_norms(dims):
        var = np.asarray(out.pop(f"{norm}.running_var"), dtype=np.float32)
        mean = np.asarray(out.pop(f"{norm}.running_mean"), dtype=np.float32)
        gamma = np.asarray(out.pop(f"{norm}.weight", np.ones_like(var)), dtype=np.float32)
        beta = np.asarray(out.pop(f"{norm}.bias", np.zeros_like(var)), dtype=np.float32)
        scale = gamma / np.sqrt(var + np.float32(NORM_EPS))
        weight = np.asarray(out[f"{conv}.weight"], dtype=np.float32)
        out[f"{conv}.weight"] = weight * scale.reshape((-1,) + (1,) * (weight.ndim - 1))
        out[f"{norm}.folded_bias"] = (beta - mean * scale) + np.float32(0.0)
    return out


def embedder_graph(
    dims: CamPlusDims, frames: int | None, path: Path, batch: int = 1
) -> Callable[[Weights], onnx.ModelProto]:
    """The torch export of the embedder from `fold_norms`' weights: symbolic batch and frames, or fixed
    at `frames` and `batch` rows; `path` is the weight file named when the weights do not fit the module."""

    def build(weights: Weights) -> onnx.ModelProto:
        import torch

        from ..torch_export import to_torch
        from .modules import CamPlusGraph

        model = CamPlusGraph(dims)
        state = to_torch(weights)
        # Each merged norm adds its folded bias and nothing else: mean -bias, variance 1 - eps (in fp32,
        # 1 - eps + eps is 1.0 exactly), gamma 1 and beta 0, so the exporter's merge is exact.
        variance = float(np.float32(1.0) - np.float32(NORM_EPS))
        for _conv, norm in folded_norms(dims):
            bias = state.pop(f"{norm}.folded_bias")
            module = model.get_submodule(norm)
            assert module.eps == NORM_EPS, norm
            state[f"{norm}.running_mean"] = -bias
            state[f"{norm}.running_var"] = torch.full_like(bias, variance)
            if module.affine:
                state[f"{norm}.weight"] = torch.ones_like(bias)
                state[f"{norm}.bias"] = torch.zeros_like(bias)
        missing, unexpected = model.load_state_dict(state, strict=False)
        if missing or unexpected:  # load_checkpoint checked already; a changed definition would land here
            raise ModelError(
                messages.CAMPPLUS_MISMATCH, path=path, missing=missing[:3], unexpected=unexpected[:3], shapes=[]
            )
        model.eval()
        if frames is not None:
            args = (torch.randn(batch, frames, dims.feat_dim), torch.ones(batch, frames))
            return traced_graph(model, args, dynamic=False)
        # Example inputs with T > 1 and B > 1 so nothing specialises on 1; T over one 100-frame segment.
        mask = torch.ones(2, 237)
        mask[1, 180:] = 0
        return traced_graph(model, (torch.randn(2, 237, dims.feat_dim), mask), dynamic=True)

    return build


def export_graphs(
    ckpt: Checkpoint,
    out_dir: Path,
    *,
    window_frames: int,
    fixed: bool,
    say: Callable[[str], None],
    int8: bool = False,
) -> dict[str, Path]:
    """The dynamic graph, (with `fixed`) its static batch twin, `FIXED_BATCH` windows, and (with `int8`) the
    dynamic graph's int8 rewrite (`int8.convs_to_int8`); returns {role: path}. Each row of the batch twin is
    its own clip: nothing in the graph mixes rows."""
    config = {"dims": asdict(ckpt.dims)}
    weights = fold_norms(ckpt.state, ckpt.dims)
    say("exporting the speaker embedding graph (dynamic shapes)")
    key = GraphKey(FAMILY, "embedder", "fp32", config)
    graphs = {"embedder": make_graph(key, weights, embedder_graph(ckpt.dims, None, ckpt.weights_path))}
    if fixed:
        say(f"exporting the speaker embedding graph (fixed {FIXED_BATCH} x {window_frames} frames)")
        key = GraphKey(FAMILY, "embedder_batch", "fp32", {**config, "frames": window_frames, "batch": FIXED_BATCH})
        build = embedder_graph(ckpt.dims, window_frames, ckpt.weights_path, FIXED_BATCH)
        graphs["embedder_batch"] = make_graph(key, weights, build)
    if int8:
        say("rewriting the embedder's convolutions as int8 matrix products")
        graphs["embedder_int8"] = convs_to_int8(copy.deepcopy(graphs["embedder"]))[0]
    paths = {
        "embedder": out_dir / "embedder.fp32.onnx",
        "embedder_int8": out_dir / "embedder.int8.onnx",
        "embedder_batch": out_dir / f"embedder.fp32.fixed{window_frames}x{FIXED_BATCH}.onnx",
    }
    say("writing ONNX files")
    return save_graph_files(graphs, paths, "embedder_data", out_dir / "embedder.fp32.data")


def traced_graph(model: CamPlusGraph, args: tuple[torch.Tensor, ...], *, dynamic: bool) -> onnx.ModelProto:
    """ONNX Runtime's graph of `model` by the TorchScript exporter, not onnx_tools' torch.export path.

    The graph is convolutions and running sums with no control flow, which
    tracing records exactly; torch.export's symbolic-shape reasoning over its
    52 unrolled dense layers took minutes per graph (over 15 on a busy 2-core
    machine) where tracing takes seconds. Batch and frame axes get the names
    every graph of ours uses; the fixed twin is traced at its shape, so all of
    its shapes fold to constants.
    """
    import torch

    axes = {name: dict(BATCH_FRAMES) for name in INPUTS} if dynamic else None
    if dynamic:
        axes[OUTPUTS[0]] = {0: "batch"}
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        path = Path(tmp) / "graph.onnx"
        torch.onnx.export(
            model,
            args,
            str(path),
            dynamo=False,
            opset_version=OPSET,
            input_names=list(INPUTS),
            output_names=list(OUTPUTS),
            dynamic_axes=axes,
            do_constant_folding=True,
        )
        proto = onnx.load(str(path), load_external_data=True)
    if not dynamic:  # tracing leaves shape queries of the example's tensors; folding them makes every shape static
        import onnxscript

        proto = onnxscript.optimizer.optimize(proto)
    return proto
