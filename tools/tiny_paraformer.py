"""A random-weight Paraformer checkpoint in the official release layout.

    tools/make_tiny_checkpoint.py --family paraformer [--variant plain|bicif] --out DIR [--seed N] [--full-size]

Writes what ModelScope's releases hold - `config.yaml`, `configuration.json`,
`am.mvn`, `tokens.json`, `model.pt` - loadable by funasr's own
`AutoModel(model=DIR)` (the judge in the equivalence tests), with random
weights drawn from a seed:

* `--variant plain`: `Paraformer` + `CifPredictorV2`, as
  iic/speech_paraformer-large_asr_nat-zh-cn-16k-common-vocab8404-pytorch;
* `--variant bicif` (default): `BiCifParaformer` + `CifPredictorV3` with the
  upsample + BLSTM timestamp head, as
  iic/speech_paraformer-large-vad-punc_asr_nat-zh-cn-16k-common-vocab8404-pytorch.

The vocabulary is the release's kind: `<blank>`, `<s>`, `</s>`, then Chinese
characters, English words and `@@` word pieces, single letters and digits,
and `<unk>` last; at full size CJK characters pad it to 8404 entries.
The CIF weight head's bias is set so that about five tokens fire per second
of audio (random weights would fire about eight), and the decoder's output
layer is scaled (its bias zero) so greedy decoding has clear winners rather
than near-ties that float rounding or int8 could flip.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch

try:
    from tingji.export.paraformer.dims import ParaformerDims
    from tingji.export.paraformer.modules import Paraformer
except ImportError:  # running from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "app"))
    from tingji.export.paraformer.dims import ParaformerDims
    from tingji.export.paraformer.modules import Paraformer

VARIANTS = {"plain": ("Paraformer", "CifPredictorV2"), "bicif": ("BiCifParaformer", "CifPredictorV3")}
FULL_VOCAB = 8404
CHINESE = (
    "今天天气很好我们一起去学校吧会议记录明天下午三点开始请大家准时参加谢谢"
    "这个语音识别软件可以在没有网络的情况下使用听写"
)
ENGLISH = "hello world this is a test of the speech recognizer one two three four five meeting report"
PIECES = ("he@@", "llo", "wor@@", "ld", "recog@@", "ni@@", "zer", "speech@@", "es", "tes@@", "ting")


def token_list(full_size: bool) -> list[str]:
    """The vocabulary, ids in list order; `<unk>` last, as in the releases."""
    tokens = ["<blank>", "<s>", "</s>"]
    tokens += list(CHINESE)
    tokens += ENGLISH.split()
    tokens += list(PIECES)
    tokens += [chr(c) for c in range(ord("a"), ord("z") + 1)] + [str(d) for d in range(10)]
    tokens = list(dict.fromkeys(tokens))
    if full_size:
        seen = set(tokens)
        code = 0x4E00
        while len(tokens) < FULL_VOCAB - 1:
            if chr(code) not in seen:
                tokens.append(chr(code))
            code += 1
    return tokens + ["<unk>"]


def cmvn_text(dim: int, seed: int) -> str:
    """am.mvn in Kaldi nnet text form: <AddShift> (minus a mean) and <Rescale> (one over a deviation)."""
    rng = np.random.default_rng(seed)
    per_bin = 80
    shift = np.tile(-(9.0 + 4.0 * rng.random(per_bin)), dim // per_bin)
    scale = np.tile(1.0 / (2.0 + 2.0 * rng.random(per_bin)), dim // per_bin)

    def row(v: np.ndarray) -> str:
        return " ".join(f"{x:.6f}" for x in v)

    return (
        f"<Nnet>\n<Splice> {dim} {dim}\n[ 0 ]\n<AddShift> {dim} {dim}\n<LearnRateCoef> 0 [ {row(shift)} ]\n"
        f"<Rescale> {dim} {dim}\n<LearnRateCoef> 0 [ {row(scale)} ]\n</Nnet>\n"
    )


def config(d: ParaformerDims, variant: str) -> dict:
    """config.yaml with the release's structure (sizes aside)."""
    model, predictor = VARIANTS[variant]
    predictor_conf = {
        "idim": d.encoder_dim,
        "threshold": 1.0,
        "l_order": d.predictor_left,
        "r_order": d.predictor_right,
        "tail_threshold": 0.45,
    }
    if variant == "bicif":
        predictor_conf.update(
            smooth_factor2=d.smooth_factor2,
            noise_threshold2=d.noise_threshold2,
            upsample_times=d.upsample_times,
            use_cif1_cnn=False,
            upsample_type="cnn_blstm",
        )
    return {
        "model": model,
        "model_conf": {
            "ctc_weight": 0.0,
            "lsm_weight": 0.1,
            "length_normalized_loss": True,
            "predictor_weight": 1.0,
            "predictor_bias": 1,
            "sampling_ratio": 0.75,
        },
        "encoder": "SANMEncoder",
        "encoder_conf": {
            "output_size": d.encoder_dim,
            "attention_heads": d.encoder_heads,
            "linear_units": d.encoder_ffn,
            "num_blocks": d.encoder_blocks,
            "dropout_rate": 0.1,
            "positional_dropout_rate": 0.1,
            "attention_dropout_rate": 0.1,
            "input_layer": "pe",
            "pos_enc_class": "SinusoidalPositionEncoder",
            "normalize_before": True,
            "kernel_size": d.kernel_size,
            "sanm_shfit": d.sanm_shift,
            "selfattention_layer_type": "sanm",
        },
        "decoder": "ParaformerSANMDecoder",
        "decoder_conf": {
            "attention_heads": d.decoder_heads,
            "linear_units": d.decoder_ffn,
            "num_blocks": d.decoder_blocks,
            "dropout_rate": 0.1,
            "positional_dropout_rate": 0.1,
            "self_attention_dropout_rate": 0.1,
            "src_attention_dropout_rate": 0.1,
            "att_layer_num": d.decoder_blocks,
            "kernel_size": d.decoder_kernel,
            "sanm_shfit": d.decoder_sanm_shift,
        },
        "predictor": predictor,
        "predictor_conf": predictor_conf,
        "frontend": "WavFrontend",
        "frontend_conf": {
            "fs": 16000,
            "window": "hamming",
            "n_mels": 80,
            "frame_length": 25,
            "frame_shift": 10,
            "lfr_m": 7,
            "lfr_n": 6,
        },
        "specaug": "SpecAugLFR",
        "specaug_conf": {
            "apply_time_warp": False,
            "time_warp_window": 5,
            "time_warp_mode": "bicubic",
            "apply_freq_mask": True,
            "freq_mask_width_range": [0, 30],
            "lfr_rate": 6,
            "num_freq_mask": 1,
            "apply_time_mask": True,
            "time_mask_width_range": [0, 12],
            "num_time_mask": 1,
        },
        "tokenizer": "CharTokenizer",
        "tokenizer_conf": {"unk_symbol": "<unk>", "split_with_space": True},
        "ctc_conf": {"dropout_rate": 0.0, "ctc_type": "builtin", "reduce": True, "ignore_nan_grad": True},
        "normalize": None,
    }


def configuration_json() -> str:
    """Where funasr's loader finds the weights, config, vocabulary and CMVN."""
    return json.dumps(
        {
            "framework": "pytorch",
            "task": "auto-speech-recognition",
            "model": {"type": "funasr"},
            "pipeline": {"type": "funasr-pipeline"},
            "file_path_metas": {
                "init_param": "model.pt",
                "config": "config.yaml",
                "tokenizer_conf": {"token_list": "tokens.json"},
                "frontend_conf": {"cmvn_file": "am.mvn"},
            },
        },
        indent=2,
    )


def weights(d: ParaformerDims, seed: int) -> dict[str, torch.Tensor]:
    """Every tensor of the model from our module definition (the same names as model.pt)."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed + 1)
    state = {}
    for name, tensor in Paraformer(d).state_dict().items():
        tensor = tensor.detach().clone()
        if "norm" in name:  # LayerNorm: move off the trivial 1/0 init so it is tested
            tensor = (1.0 if name.endswith("weight") else 0.0) + 0.1 * torch.randn(tensor.shape, generator=gen)
        state[name] = tensor
    # About 0.3 per 60 ms frame (5 tokens a second) rather than sigmoid(~0) = 0.5.
    state["predictor.cif_output.bias"] = torch.full_like(state["predictor.cif_output.bias"], -0.85)
    # Clear winners for greedy decoding (top-two log-prob gaps of ~0.05 rather than ~0.001 on 10 s).
    state["decoder.output_layer.weight"] *= 12.0
    state["decoder.output_layer.bias"].zero_()
    return state


def dims(variant: str, full_size: bool, vocab: int) -> ParaformerDims:
    bicif = variant == "bicif"
    if full_size:
        return ParaformerDims(vocab=vocab, timestamp_head=bicif)
    return ParaformerDims(
        encoder_dim=64,
        encoder_heads=4,
        encoder_ffn=128,
        encoder_blocks=3,
        decoder_blocks=2,
        decoder_heads=4,
        decoder_ffn=128,
        vocab=vocab,
        timestamp_head=bicif,
    )


def make_checkpoint(out: Path, seed: int, full_size: bool = False, variant: str = "bicif") -> Path:
    import yaml

    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}: {', '.join(VARIANTS)}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tokens = token_list(full_size)
    d = dims(variant, full_size, len(tokens))
    (out / "tokens.json").write_text(json.dumps(tokens, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    (out / "config.yaml").write_text(yaml.safe_dump(config(d, variant), sort_keys=False), encoding="utf-8")
    (out / "configuration.json").write_text(configuration_json(), encoding="utf-8")
    (out / "am.mvn").write_text(cmvn_text(d.input_size, seed), encoding="utf-8")
    torch.save(weights(d, seed), out / "model.pt")
    return out
