"""Official CAM++ checkpoint -> the files and manifest of a speaker model folder.

Output: the embedding graph at real length (CPU, CUDA; any batch of equal
lengths) and its fixed twin at one window for DirectML (batch 1), sharing one
weight file, and a manifest whose `campplus` section the engine reads
strictly (`engine/speakers/model.py`). The graph is always float32: CAM++ is
7 M parameters of convolutions, and the int8 scheme of the other families
quantises MatMul weights, of which it has none.
"""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path

import onnx
import torch

from ...engine.frontend import FrontendConfig, num_fbank_frames
from ...engine.manifest import Manifest
from ...engine.speakers.model import FAMILY, INPUTS, OUTPUTS, SHIFT_SECONDS, WINDOW_SECONDS, SpeakerSection
from ...errors import ModelError
from .. import folder_manifest, messages
from ..onnx_tools import BATCH_FRAMES, OPSET, save_graph_files
from .checkpoint import Checkpoint, load_checkpoint
from .modules import CamPlusGraph

__all__ = ["convert", "frontend_config", "build_graph", "export_graphs"]


def frontend_config(feat_dim: int) -> FrontendConfig:
    """funasr's CAM++ features: Kaldi fbank on [-1, 1] samples (no int16 scaling), povey window, no LFR."""
    return FrontendConfig(n_mels=feat_dim, window="povey", upscale=1.0, lfr_m=1, lfr_n=1)


def convert(
    source: Path, work: Path, *, precision: str, decoder_quant: str, fixed: bool, say: Callable[[str], None]
) -> Manifest:
    """Write every file into `work` (an empty folder) and return the manifest describing them.

    `precision` and `decoder_quant` do not apply (see the module docstring).
    """
    say(f"reading checkpoint {source}")
    ckpt = load_checkpoint(source)
    cfg = frontend_config(ckpt.dims.feat_dim)
    window_frames = num_fbank_frames(round(WINDOW_SECONDS * cfg.sample_rate), cfg)
    files = export_graphs(ckpt, work, window_frames=window_frames, fixed=fixed, say=say)
    say("hashing files")
    section = SpeakerSection(
        precision="fp32",
        feat_dim=ckpt.dims.feat_dim,
        embedding_size=ckpt.dims.embedding_size,
        inputs=tuple(INPUTS),
        outputs=tuple(OUTPUTS),
        shift_seconds=SHIFT_SECONDS,
    )
    origin = {"weights_sha256": ckpt.sha256, "folder": source.name}
    return folder_manifest(work, FAMILY, files, (WINDOW_SECONDS, window_frames), cfg, section, origin)


def build_graph(ckpt: Checkpoint) -> CamPlusGraph:
    model = CamPlusGraph(ckpt.dims)
    missing, unexpected = model.load_state_dict({k: v.float() for k, v in ckpt.state.items()}, strict=False)
    if missing or unexpected:  # load_checkpoint checked already; a changed definition would land here
        raise ModelError(
            messages.CAMPPLUS_MISMATCH,
            path=ckpt.weights_path,
            missing=missing[:3],
            unexpected=unexpected[:3],
            shapes=[],
        )
    return model.eval()


def export_graphs(
    ckpt: Checkpoint, out_dir: Path, *, window_frames: int, fixed: bool, say: Callable[[str], None]
) -> dict[str, Path]:
    """The dynamic graph and (with `fixed`) its static one-window twin; returns {role: path}."""
    model = build_graph(ckpt)
    d = ckpt.dims.feat_dim
    # Example inputs with T > 1 and B > 1 so nothing specialises on 1; T over one 100-frame segment.
    mask = torch.ones(2, 237)
    mask[1, 180:] = 0
    say("exporting the speaker embedding graph (dynamic shapes)")
    graphs = {"embedder": traced_graph(model, (torch.randn(2, 237, d), mask), dynamic=True)}
    if fixed:
        say(f"exporting the speaker embedding graph (fixed {window_frames} frames)")
        args = (torch.randn(1, window_frames, d), torch.ones(1, window_frames))
        graphs["embedder_fixed"] = traced_graph(model, args, dynamic=False)
    paths = {
        "embedder": out_dir / "embedder.fp32.onnx",
        "embedder_fixed": out_dir / f"embedder.fp32.fixed{window_frames}.onnx",
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
