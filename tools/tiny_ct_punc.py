"""A random-weight CT-Transformer punctuation checkpoint in the official release layout.

    tools/make_tiny_checkpoint.py --family ct-punc --out DIR [--seed N] [--full-size]

Writes what ModelScope's iic/punc_ct-transformer_zh-cn-common-vocab272727-
pytorch holds - `config.yaml`, `configuration.json`, `tokens.json`,
`model.pt` - loadable by funasr's own `AutoModel(model=DIR)` (the judge in
the equivalence tests), with random weights drawn from a seed. The
vocabulary holds Chinese characters and English words, among them every
token of the tiny Paraformer's vocabulary (tools/tiny_paraformer.py), so a
tiny Paraformer transcript is punctuated word by word; at full size CJK
characters and filler words pad it to the release's 272727 entries.

The marks are the release's: `<unk>`, `_` (none), `，`, `。`, `？`, `、`.
A trained model never predicts `<unk>`; random weights would, so its score
is pushed down. The others' biases are set so that about one token in six
ends a sentence and one in six takes a comma.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

try:
    from tingji.export.ct_punc.dims import PuncDims
    from tingji.export.ct_punc.modules import CtTransformer
except ImportError:  # running from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "app"))
    from tingji.export.ct_punc.dims import PuncDims
    from tingji.export.ct_punc.modules import CtTransformer

PUNC_LIST = ["<unk>", "_", "，", "。", "？", "、"]
# Decoder biases per mark: <unk> never, then about 65% none, 18% sentence ends, 16% commas.
MARKS_BIAS = (-30.0, 3.5, 1.0, 0.0, -1.0, -1.5)
FULL_VOCAB = 272727


def token_list(full_size: bool) -> list[str]:
    """`<blank>`, `<s>`, `</s>`, `<unk>`, then words; the tiny Paraformer's tokens are all in it."""
    import tiny_paraformer

    tokens = ["<blank>", "<s>", "</s>", "<unk>"]
    tokens += [t for t in tiny_paraformer.token_list(False) if not t.startswith("<") and "@@" not in t]
    tokens += ["report", "meeting", "today", "weather", "hello", "world", "tingji"]
    tokens = list(dict.fromkeys(tokens))
    if full_size:
        seen = set(tokens)
        code = 0x4E00
        while len(tokens) < FULL_VOCAB and code <= 0x9FFF:
            if chr(code) not in seen:
                tokens.append(chr(code))
            code += 1
        tokens += [f"word{k:06d}" for k in range(FULL_VOCAB - len(tokens))]
    return tokens


def config(d: PuncDims) -> dict:
    """config.yaml with the release's structure (sizes aside)."""
    return {
        "model": "CTTransformer",
        "model_conf": {
            "ignore_id": 0,
            "embed_unit": d.input_size,
            "att_unit": d.encoder_dim,
            "dropout_rate": 0.1,
            "punc_list": PUNC_LIST,
            "punc_weight": [1.0] * len(PUNC_LIST),
            "sentence_end_id": 3,
        },
        "encoder": "SANMEncoder",
        "encoder_conf": {
            "input_size": d.input_size,
            "output_size": d.encoder_dim,
            "attention_heads": d.encoder_heads,
            "linear_units": d.encoder_ffn,
            "num_blocks": d.encoder_blocks,
            "dropout_rate": 0.1,
            "positional_dropout_rate": 0.1,
            "attention_dropout_rate": 0.0,
            "input_layer": "pe",
            "pos_enc_class": "SinusoidalPositionEncoder",
            "normalize_before": True,
            "kernel_size": d.kernel_size,
            "sanm_shfit": d.sanm_shift,
            "selfattention_layer_type": "sanm",
            "padding_idx": 0,
        },
        "tokenizer": "CharTokenizer",
        "tokenizer_conf": {"unk_symbol": "<unk>"},
    }


def configuration_json() -> str:
    return json.dumps(
        {
            "framework": "pytorch",
            "task": "punctuation",
            "model": {"type": "funasr"},
            "pipeline": {"type": "funasr-pipeline"},
            "file_path_metas": {
                "init_param": "model.pt",
                "config": "config.yaml",
                "tokenizer_conf": {"token_list": "tokens.json"},
            },
        },
        indent=2,
    )


def weights(d: PuncDims, seed: int, marks_bias: list[float] | None = None) -> dict[str, torch.Tensor]:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed + 1)
    state = {}
    for name, tensor in CtTransformer(d).state_dict().items():
        tensor = tensor.detach().clone()
        if "norm" in name:  # LayerNorm: move off the trivial 1/0 init so it is tested
            tensor = (1.0 if name.endswith("weight") else 0.0) + 0.1 * torch.randn(tensor.shape, generator=gen)
        state[name] = tensor
    state["decoder.weight"] *= 4.0  # clear winners between the marks
    state["decoder.bias"] = torch.tensor(list(marks_bias or MARKS_BIAS))
    return state


def dims(full_size: bool, vocab: int) -> PuncDims:
    if full_size:
        return PuncDims(vocab=vocab)
    return PuncDims(input_size=64, encoder_dim=64, encoder_heads=4, encoder_ffn=128, encoder_blocks=2, vocab=vocab)


def make_checkpoint(out: Path, seed: int, full_size: bool = False, marks_bias: list[float] | None = None) -> Path:
    """`marks_bias`: the decoder's bias per mark instead of MARKS_BIAS (tests suppress sentence ends)."""
    import yaml

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tokens = token_list(full_size)
    d = dims(full_size, len(tokens))
    (out / "tokens.json").write_text(json.dumps(tokens, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    (out / "config.yaml").write_text(yaml.safe_dump(config(d), sort_keys=False, allow_unicode=True), encoding="utf-8")
    (out / "configuration.json").write_text(configuration_json(), encoding="utf-8")
    torch.save(weights(d, seed, marks_bias), out / "model.pt")
    return out
