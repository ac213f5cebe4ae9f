"""Work counts that turn timings into fractions of the machine's limits.

Encoder: floating-point operations of one forward pass over T frames,
counted from the architecture (AudioDims) as multiply-adds x 2:
linear layers 2*in*out*T, attention scores and weighted sums 2*T*T*d each,
the FSMN depthwise convolution 2*d*kernel*T. Normalisation, softmax,
activations and masking are elementwise and left out (a few percent at
most), so the count is a slight undercount and the fraction a slight
underestimate. tests/test_benchmarks.py checks the count against torch's
FlopCounterMode on the module itself.

Decoder: bytes a generation step must read: every weight tensor of the GGUF
once (the tied token embedding doubles as the output matrix, so it is read
in full; the lookup of one input row is negligible), plus the KV cache up to
the current position.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace


def _sanm_layer(t: int, in_dim: int, d: int, ffn: int, kernel: int) -> dict[str, float]:
    linear = 2 * t * (in_dim * 3 * d + d * d + d * ffn + ffn * d)
    attention = 2 * 2 * t * t * d
    fsmn = 2 * t * d * kernel
    return {"linear": linear, "attention": attention, "conv": fsmn}


def _transformer_layer(t: int, d: int, ffn: int) -> dict[str, float]:
    return {"linear": 2 * t * (4 * d * d + 2 * d * ffn), "attention": 2 * 2 * t * t * d, "conv": 0}


def encoder_flops(dims, frames: int) -> dict[str, float]:
    """FLOPs of encoder + adaptor (what encoder.onnx computes) for one window of `frames` LFR frames."""
    parts = {"linear": 0.0, "attention": 0.0, "conv": 0.0}

    def add(p: dict[str, float]) -> None:
        for k, v in p.items():
            parts[k] += v

    t, d = frames, dims.encoder_dim
    add(_sanm_layer(t, dims.input_size, d, dims.encoder_ffn, dims.kernel_size))
    for _ in range(dims.encoder_blocks - 1 + dims.tp_blocks):
        add(_sanm_layer(t, d, d, dims.encoder_ffn, dims.kernel_size))
    parts["linear"] += 2 * t * (d * dims.adaptor_ffn + dims.adaptor_ffn * dims.llm_dim)
    for _ in range(dims.adaptor_layers):
        add(_transformer_layer(t, dims.llm_dim, dims.llm_dim // 4))
    parts["total"] = parts["linear"] + parts["attention"] + parts["conv"]
    return parts


def sanm_encoder_flops(folder: str | Path, frames: int) -> dict[str, float]:
    """FLOPs of a funasr SAN-M encoder (Paraformer's; SenseVoice's with its tp blocks) over `frames` LFR frames.

    A lower bound on any runtime's work for the encoder: the predictor, decoder and timestamp head
    come on top.
    """
    import yaml

    cfg = yaml.safe_load((Path(folder) / "config.yaml").read_text(encoding="utf-8"))
    enc, fe = cfg["encoder_conf"], cfg.get("frontend_conf") or {}
    d, ffn, kernel = int(enc["output_size"]), int(enc["linear_units"]), int(enc.get("kernel_size", 11))
    parts = _sanm_layer(frames, int(fe.get("n_mels", 80)) * int(fe.get("lfr_m", 7)), d, ffn, kernel)
    for _ in range(int(enc["num_blocks"]) - 1 + int(enc.get("tp_blocks", 0))):
        for key, value in _sanm_layer(frames, d, d, ffn, kernel).items():
            parts[key] += value
    parts["total"] = parts["linear"] + parts["attention"] + parts["conv"]
    return parts


def ctc_flops(dims, frames: int) -> float:
    """FLOPs of the CTC head (ctc.onnx) for one window."""
    t, d = frames, dims.encoder_dim
    total = 2 * t * (d * dims.ctc_ffn + dims.ctc_ffn * d)
    for _ in range(dims.ctc_layers):
        total += sum(_transformer_layer(t, d, d // 4).values())
    return total + 2 * t * d * dims.ctc_vocab


def gguf_weight_bytes(path: str | Path) -> dict[str, float]:
    """Bytes of the GGUF's tensors, total and by type, plus the model shape for the KV cache."""
    import gguf

    reader = gguf.GGUFReader(str(path))
    by_type: dict[str, int] = {}
    total = 0
    for t in reader.tensors:
        n = int(t.n_bytes)
        total += n
        by_type[t.tensor_type.name] = by_type.get(t.tensor_type.name, 0) + n

    def field(name: str) -> int:
        f = reader.fields[name]
        return int(f.parts[f.data[0]][0])

    arch = "qwen3"
    return {
        "weight_bytes": total,
        "by_type": by_type,
        "n_layer": field(f"{arch}.block_count"),
        "n_head_kv": field(f"{arch}.attention.head_count_kv"),
        "head_dim": field(f"{arch}.attention.key_length"),
    }


def decoder_bytes_per_token(path: str | Path, position: float, kv_bytes_per_value: int = 2) -> dict[str, float]:
    """Bytes read to generate one token at context position `position` (KV cache f16 by default)."""
    info = gguf_weight_bytes(path)
    kv = 2 * info["n_layer"] * info["n_head_kv"] * info["head_dim"] * kv_bytes_per_value * position
    return {
        "weight_bytes": info["weight_bytes"],
        "kv_bytes": kv,
        "total": info["weight_bytes"] + kv,
        "by_type": info["by_type"],
    }


def dims_from_checkpoint(folder: str | Path) -> SimpleNamespace:
    """The sizes encoder_flops needs, from config.yaml and the LLM's config.json (no torch, no model.pt)."""
    import yaml

    folder = Path(folder)
    cfg = yaml.safe_load((folder / "config.yaml").read_text(encoding="utf-8"))
    llm_dir = folder / Path(str((cfg.get("llm_conf") or {}).get("init_param_path", "Qwen3-0.6B"))).name
    llm = json.loads((llm_dir / "config.json").read_text(encoding="utf-8"))
    enc, ada, ctc, fe = (
        cfg.get(k) or {} for k in ("audio_encoder_conf", "audio_adaptor_conf", "ctc_decoder_conf", "frontend_conf")
    )
    return SimpleNamespace(
        input_size=int(fe.get("n_mels", 80)) * int(fe.get("lfr_m", 7)),
        encoder_dim=int(enc["output_size"]),
        encoder_ffn=int(enc["linear_units"]),
        encoder_blocks=int(enc["num_blocks"]),
        tp_blocks=int(enc.get("tp_blocks", 0)),
        kernel_size=int(enc.get("kernel_size", 11)),
        llm_dim=int(llm["hidden_size"]),
        adaptor_ffn=int(ada["ffn_dim"]),
        adaptor_layers=int(ada.get("n_layer", 0)),
        ctc_ffn=int(ctc.get("ffn_dim", 0)),
        ctc_layers=int(ctc.get("n_layer", 0)),
        ctc_vocab=int(cfg.get("ctc_vocab_size", 0)),
    )
