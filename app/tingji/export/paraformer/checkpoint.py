"""Reading an official Paraformer checkpoint folder, checking every part before any export.

The releases (ModelScope iic/speech_paraformer-large_asr_nat-zh-cn-16k-
common-vocab8404-pytorch and iic/speech_paraformer-large-vad-punc_asr_nat-
zh-cn-16k-common-vocab8404-pytorch, Hugging Face funasr/paraformer-zh) hold
`config.yaml`, `configuration.json`, `am.mvn` (CMVN statistics),
`tokens.json` (the vocabulary, a JSON list) and `model.pt`. A folder
missing one of them, holding the wrong file under one of the names, or
whose config names a part Tingji does not implement (another predictor, a
SeACo or streaming model) is refused with one line naming the file, before
anything is written. Only plain tensors are read from `model.pt`
(`pt_reader`, without torch): a checkpoint is data, never code. Every tensor
the graphs need is checked for its place and shape here, against the sizes
alone (`dims.expected_shapes`), so no module is built before the export.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...engine.frontend import Cmvn
from ...engine.manifest import sha256_file
from ...errors import ModelError
from .. import messages
from ..funasr_release import check_cmvn_width, read_cmvn, read_config, read_token_list, release_paths
from ..sanm_dims import encoder_sizes
from ..torch_state import read_state
from .dims import ParaformerDims, expected_shapes

# model class -> (variant, its predictor class)
MODELS = {"Paraformer": ("plain", "CifPredictorV2"), "BiCifParaformer": ("bicif", "CifPredictorV3")}
FILES = {
    "cmvn": ("frontend_conf", "cmvn_file", "am.mvn"),
    "tokens": ("tokenizer_conf", "token_list", "tokens.json"),
}


@dataclass
class Checkpoint:
    folder: Path
    config: dict[str, Any]
    variant: str
    cmvn_path: Path
    cmvn: Cmvn
    tokens: list[str]
    state: dict[str, np.ndarray]  # every tensor of `modules.Paraformer(dims)`, checked
    dims: ParaformerDims
    sha256: str

    def frontend_conf(self) -> dict[str, Any]:
        return dict(self.config.get("frontend_conf") or {})

    def predictor_conf(self) -> dict[str, Any]:
        return dict(self.config.get("predictor_conf") or {})

    def model_conf(self) -> dict[str, Any]:
        return dict(self.config.get("model_conf") or {})


def is_paraformer_config(config: dict[str, Any]) -> bool:
    """A funasr config of the Paraformer family (supported or not: unsupported ones get a clear refusal)."""
    model = config.get("model")
    return isinstance(model, str) and (model.endswith("Paraformer") or model == "ParaformerStreaming")


def load_checkpoint(folder: str | Path) -> Checkpoint:
    folder = Path(folder)
    config_path, config = read_config(folder, messages.NOT_PARAFORMER)
    variant = _check_parts(config, config_path)
    paths = release_paths(folder, FILES, ("cmvn", "tokens"), messages.PARAFORMER_INCOMPLETE)
    cmvn = read_cmvn(paths["cmvn"])
    tokens = read_token_list(paths["tokens"])
    state = read_state(folder / "model.pt")
    dims = paraformer_dims(config, variant, state, folder / "model.pt")
    if len(tokens) != dims.vocab:
        raise ModelError(messages.PARAFORMER_VOCAB, path=paths["tokens"], tokens=len(tokens), outputs=dims.vocab)
    check_cmvn_width(cmvn, paths["cmvn"], dims.input_size)
    return Checkpoint(
        folder=folder,
        config=config,
        variant=variant,
        cmvn_path=paths["cmvn"],
        cmvn=cmvn,
        tokens=tokens,
        state=checked_state(dims, state, folder / "model.pt", str(config["model"])),
        dims=dims,
        sha256=sha256_file(folder / "model.pt"),
    )


def _check_parts(config: dict[str, Any], path: Path) -> str:
    """The variant, after checking the config names only parts Tingji implements exactly."""
    model = config.get("model")
    if model not in MODELS:
        raise ModelError(messages.PARAFORMER_MODEL, path=path, model=model)
    variant, predictor = MODELS[model]
    enc, dec, pred = (_conf(config, key, path) for key in ("encoder_conf", "decoder_conf", "predictor_conf"))
    expected: list[tuple[str, Any, Any]] = [
        ("predictor", config.get("predictor"), predictor),
        ("encoder", config.get("encoder"), "SANMEncoder"),
        ("decoder", config.get("decoder"), "ParaformerSANMDecoder"),
        ("encoder_conf.input_layer", enc.get("input_layer", "pe"), "pe"),
        ("encoder_conf.selfattention_layer_type", enc.get("selfattention_layer_type", "sanm"), "sanm"),
        ("encoder_conf.normalize_before", enc.get("normalize_before", True), True),
        ("decoder_conf.att_layer_num", dec.get("att_layer_num", dec.get("num_blocks")), dec.get("num_blocks")),
        ("predictor_conf.threshold", pred.get("threshold", 1.0), 1.0),  # the BiCIF loop subtracts 1
    ]
    if variant == "bicif":
        expected += [
            ("predictor_conf.upsample_type", pred.get("upsample_type", "cnn"), "cnn_blstm"),
            ("predictor_conf.use_cif1_cnn", pred.get("use_cif1_cnn", True), False),
        ]
    for part, found, wanted in expected:
        if found != wanted:
            raise ModelError(messages.PARAFORMER_PART, path=path, part=part, name=found, model=model, expected=wanted)
    return variant


def _conf(config: dict[str, Any], key: str, path: Path) -> dict[str, Any]:
    """A `*_conf` mapping of config.yaml (absent: empty)."""
    conf = config.get(key) or {}
    if not isinstance(conf, dict):
        raise ModelError(messages.PARAFORMER_NOT_MAPPING, path=path, key=key, value=conf)
    return conf


def _number(conf: dict[str, Any], section: str, key: str, default: float, path: Path) -> float:
    value = conf.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ModelError(messages.PARAFORMER_NOT_NUMBER, path=path, key=f"{section}.{key}", value=value)
    return float(value)


REQUIRED_TENSORS = (
    "encoder.encoders0.0.self_attn.linear_q_k_v.weight",
    "predictor.cif_conv1d.weight",
    "decoder.output_layer.weight",
)


def paraformer_dims(config: dict[str, Any], variant: str, state: dict[str, np.ndarray], path: Path) -> ParaformerDims:
    """Architecture sizes from config.yaml, cross-checked against the tensors of model.pt."""
    for name in REQUIRED_TENSORS:
        if name not in state:
            raise ModelError(messages.NOT_PARAFORMER_WEIGHTS, path=path, tensor=name)
    cfg = path.parent / "config.yaml"
    enc, dec, pred, fe = (
        _conf(config, key, cfg) for key in ("encoder_conf", "decoder_conf", "predictor_conf", "frontend_conf")
    )

    def whole(conf: dict[str, Any], section: str, key: str, default: int) -> int:
        return int(_number(conf, section, key, default, cfg))

    sizes = encoder_sizes(enc, ParaformerDims(), lambda key, default: whole(enc, "encoder_conf", key, default))
    dim = sizes["encoder_dim"]
    left, right = whole(pred, "predictor_conf", "l_order", 1), whole(pred, "predictor_conf", "r_order", 1)
    vocab = int(state["decoder.output_layer.weight"].shape[0])
    d = ParaformerDims(
        input_size=whole(fe, "frontend_conf", "n_mels", 80) * whole(fe, "frontend_conf", "lfr_m", 7),
        **sizes,
        vocab=vocab,
        decoder_blocks=whole(dec, "decoder_conf", "num_blocks", 16),
        decoder_heads=whole(dec, "decoder_conf", "attention_heads", 4),
        decoder_ffn=whole(dec, "decoder_conf", "linear_units", 2048),
        decoder_kernel=whole(dec, "decoder_conf", "kernel_size", 21),
        decoder_sanm_shift=whole(dec, "decoder_conf", "sanm_shfit", 0),
        predictor_left=left,
        predictor_right=right,
        smooth_factor=_number(pred, "predictor_conf", "smooth_factor", 1.0, cfg),
        noise_threshold=_number(pred, "predictor_conf", "noise_threshold", 0.0, cfg),
        timestamp_head=variant == "bicif",
        upsample_times=whole(pred, "predictor_conf", "upsample_times", 5),
        smooth_factor2=_number(pred, "predictor_conf", "smooth_factor2", 1.0, cfg),
        noise_threshold2=_number(pred, "predictor_conf", "noise_threshold2", 0.0, cfg),
    )
    shapes = {
        "encoder.encoders0.0.self_attn.linear_q_k_v.weight": (3 * dim, d.input_size),
        "predictor.cif_conv1d.weight": (dim, dim, left + right + 1),
        "decoder.output_layer.weight": (vocab, dim),
    }
    for name, shape in shapes.items():
        if tuple(state[name].shape) != shape:
            raise ModelError(
                messages.PARAFORMER_SHAPES, path=path, tensor=name, found=list(state[name].shape), expected=list(shape)
            )
    return d


def checked_state(d: ParaformerDims, state: dict[str, np.ndarray], path: Path, name: str) -> dict[str, np.ndarray]:
    """The tensors of `modules.Paraformer(d)`; every one must be in `state` with its shape, and nothing else.

    funasr's CTC head (when a config trains one) is not used at inference and is left out.
    """
    weights = {k: v for k, v in state.items() if not k.startswith("ctc.")}
    expected = expected_shapes(d)
    missing = sorted(set(expected) - set(weights))
    unexpected = sorted(set(weights) - set(expected))
    wrong = [k for k in expected if k in weights and tuple(weights[k].shape) != expected[k]]
    if missing or unexpected:
        raise ModelError(
            messages.PARAFORMER_MISMATCH, path=path, model=name, missing=missing[:3], unexpected=unexpected[:3]
        )
    if wrong:
        raise ModelError(
            messages.PARAFORMER_SHAPES,
            path=path,
            tensor=wrong[0],
            found=list(weights[wrong[0]].shape),
            expected=list(expected[wrong[0]]),
        )
    return weights
