"""Reading an official Qwen3-ASR release folder (Qwen/Qwen3-ASR-0.6B, -1.7B).

The folder holds `config.json` (model type `qwen3_asr`; a `thinker_config`
with the audio tower's `audio_config` and the LLM's `text_config`; the
`support_languages` list), the weights as safetensors (`thinker.audio_tower.*`,
`thinker.model.*`, `thinker.lm_head.weight`; one file or index + shards),
`generation_config.json`, and the tokenizer: `vocab.json` + `merges.txt` +
`tokenizer_config.json` (its `added_tokens_decoder` holds the ChatML, audio
and `<asr_text>` tokens), or a `tokenizer.json`.

Everything is checked before any conversion starts, so a wrong folder fails
in a second with one line, not after minutes of export.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...engine.languages import NAMES
from ...engine.manifest import sha256_file
from ...errors import ModelError
from .. import messages
from ..safetensors_file import load_checkpoint_arrays
from .dims import EncoderDims

AUDIO_PREFIX = "thinker.audio_tower."
LLM_PREFIX = "thinker."
SPECIAL = {
    "im_start": "<|im_start|>",
    "im_end": "<|im_end|>",
    "endoftext": "<|endoftext|>",
    "audio_start": "<|audio_start|>",
    "audio_end": "<|audio_end|>",
    "audio_pad": "<|audio_pad|>",
    "asr_text": "<asr_text>",
}


@dataclass
class Checkpoint:
    folder: Path
    config: dict[str, Any]
    audio_config: dict[str, Any]
    text_config: dict[str, Any]
    state: dict[str, np.ndarray]  # views of the memory-mapped safetensors (bf16 as ml_dtypes.bfloat16)
    added_tokens: dict[str, int]  # content -> id
    eos_ids: list[int]
    weights: list[Path]

    @property
    def languages(self) -> list[str]:
        """The release's language names (`support_languages`), as the model spells them."""
        return [str(n) for n in self.config.get("support_languages") or []]

    def special_ids(self) -> dict[str, int]:
        return {key: self.added_tokens[text] for key, text in SPECIAL.items()}

    def weights_sha256(self) -> str:
        """One hash for the weights: of the file, or of the shards' hashes in order."""
        hashes = [sha256_file(p) for p in self.weights]
        if len(hashes) == 1:
            return hashes[0]
        import hashlib

        return hashlib.sha256("\n".join(hashes).encode()).hexdigest()


def _json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise ModelError(messages.QWEN3_ASR_FILE_MISSING, folder=path.parent, file=path.name)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelError(messages.JSON_UNREADABLE, path=path, reason=exc) from None
    if not isinstance(data, dict):
        raise ModelError(messages.JSON_NOT_OBJECT, path=path)
    return data


def added_tokens(folder: Path) -> dict[str, int]:
    """Added (special and marker) tokens: from tokenizer.json, else tokenizer_config.json."""
    if (folder / "tokenizer.json").is_file():
        entries = _json(folder / "tokenizer.json").get("added_tokens") or []
        return {str(t["content"]): int(t["id"]) for t in entries}
    for name in ("vocab.json", "merges.txt"):
        if not (folder / name).is_file():
            raise ModelError(messages.QWEN3_ASR_NO_TOKENIZER, folder=folder, file=name)
    decoder = _json(folder / "tokenizer_config.json").get("added_tokens_decoder") or {}
    return {str(v["content"]): int(k) for k, v in decoder.items()}


def tokenizer_json(folder: Path, out: Path) -> Path:
    """The folder's tokenizer.json, or one made from vocab.json + merges.txt + the added tokens.

    `gguf_tools` reads the BPE vocabulary, merges and added tokens from a
    tokenizer.json; releases that ship only the slow-tokenizer files get an
    equivalent one written to `out` (a scratch folder).
    """
    if (folder / "tokenizer.json").is_file():
        return folder / "tokenizer.json"
    vocab = _json(folder / "vocab.json")
    lines = (folder / "merges.txt").read_text(encoding="utf-8").splitlines()
    merges = [m for m in lines if m.strip() and not m.startswith("#version")]
    decoder = _json(folder / "tokenizer_config.json").get("added_tokens_decoder") or {}
    added = [{"id": int(k), "content": v["content"], "special": bool(v.get("special"))} for k, v in decoder.items()]
    data = {"model": {"type": "BPE", "vocab": vocab, "merges": merges}, "added_tokens": added}
    path = out / "tokenizer.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def _eos_ids(folder: Path, config: dict[str, Any], tokens: dict[str, int]) -> list[int]:
    """What the reference's generate() stops on: generation_config.json, else the config, else ChatML's."""
    for source in (
        _json(folder / "generation_config.json") if (folder / "generation_config.json").is_file() else {},
        config,
        config.get("thinker_config") or {},
    ):
        eos = source.get("eos_token_id")
        if eos is not None:
            return [int(e) for e in (eos if isinstance(eos, list) else [eos])]
    return [tokens[t] for t in ("<|endoftext|>", "<|im_end|>") if t in tokens]


def load_checkpoint(folder: str | Path) -> Checkpoint:
    folder = Path(folder)
    config = _json(folder / "config.json")
    if config.get("model_type") != "qwen3_asr":
        raise ModelError(
            messages.QWEN3_ASR_MODEL_TYPE, path=folder / "config.json", model_type=config.get("model_type")
        )
    thinker = config.get("thinker_config")
    if not isinstance(thinker, dict) or not all(
        isinstance(thinker.get(k), dict) for k in ("audio_config", "text_config")
    ):
        raise ModelError(messages.QWEN3_ASR_LAYOUT, path=folder / "config.json")
    tokens = added_tokens(folder)
    missing = [t for t in SPECIAL.values() if t not in tokens]
    if missing:
        raise ModelError(messages.TOKENIZER_LACKS, folder=folder, tokens=", ".join(missing))
    pad = thinker.get("audio_token_id")
    if pad is not None and int(pad) != tokens["<|audio_pad|>"]:
        raise ModelError(
            messages.AUDIO_PAD_MISMATCH, folder=folder, config_id=pad, tokenizer_id=tokens["<|audio_pad|>"]
        )
    state, weights = load_checkpoint_arrays(folder)
    return Checkpoint(
        folder=folder,
        config=config,
        audio_config=dict(thinker["audio_config"]),
        text_config=dict(thinker["text_config"]),
        state=state,
        added_tokens=tokens,
        eos_ids=_eos_ids(folder, config, tokens),
        weights=weights,
    )


def encoder_dims(ckpt: Checkpoint) -> EncoderDims:
    """The audio tower's sizes from audio_config, cross-checked against the tensors present."""
    a = ckpt.audio_config
    try:
        chunk = 2 * int(a.get("n_window", 50))
        dims = EncoderDims(
            n_mels=int(a.get("num_mel_bins", 128)),
            d_model=int(a["d_model"]),
            layers=int(a["encoder_layers"]),
            heads=int(a["encoder_attention_heads"]),
            ffn=int(a["encoder_ffn_dim"]),
            conv_channels=int(a.get("downsample_hidden_size", 480)),
            output_dim=int(a["output_dim"]),
            chunk_frames=chunk,
            window_chunks=int(a.get("n_window_infer", 800)) // chunk,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelError(messages.AUDIO_CONFIG_BAD, path=ckpt.folder / "config.json", key=exc) from None
    if str(a.get("activation_function", "gelu")) != "gelu" or a.get("scale_embedding"):
        raise ModelError(messages.AUDIO_CONFIG_VARIANT, path=ckpt.folder / "config.json")
    checks = {
        "conv2d1.weight": (dims.conv_channels, 1, 3, 3),
        "conv_out.weight": (dims.d_model, dims.conv_channels * dims.freq_bins),
        "proj2.weight": (dims.output_dim, dims.d_model),
    }
    for name, shape in checks.items():
        got = ckpt.state.get(AUDIO_PREFIX + name)
        if got is None or tuple(got.shape) != shape:
            found = "missing" if got is None else tuple(got.shape)
            raise ModelError(
                messages.AUDIO_TENSOR_SHAPE, folder=ckpt.folder, tensor=AUDIO_PREFIX + name, found=found, shape=shape
            )
    if dims.output_dim != int(ckpt.text_config["hidden_size"]):
        raise ModelError(
            messages.AUDIO_WIDTH_MISMATCH,
            folder=ckpt.folder,
            audio=dims.output_dim,
            llm=ckpt.text_config["hidden_size"],
        )
    return dims


def audio_tensors(ckpt: Checkpoint) -> dict[str, np.ndarray]:
    return {k[len(AUDIO_PREFIX) :]: v for k, v in ckpt.state.items() if k.startswith(AUDIO_PREFIX)}


def llm_tensors(ckpt: Checkpoint) -> dict[str, np.ndarray]:
    """The Qwen3 LLM's tensors under their transformers names (`model.*`, `lm_head.weight` when untied)."""
    tensors = {
        k[len(LLM_PREFIX) :]: v
        for k, v in ckpt.state.items()
        if k.startswith(LLM_PREFIX) and not k.startswith(AUDIO_PREFIX)
    }
    embed = tensors.get("model.embed_tokens.weight")
    if embed is None:
        raise ModelError(messages.QWEN3_ASR_NO_LLM, folder=ckpt.folder)
    head = tensors.pop("lm_head.weight", None)
    # A tied release stores the embedding twice; an untied one needs its own output matrix.
    if head is not None and not same_values(head, embed):
        tensors["lm_head.weight"] = head
    return tensors


def same_values(a: np.ndarray, b: np.ndarray, rows: int = 4096) -> bool:
    """Equal shapes and equal values (as torch.equal: NaN equals nothing, -0 equals 0), compared in
    blocks of rows so a 151936-row embedding never needs a full-size temporary."""
    if a.shape != b.shape:
        return False
    if a.ndim == 0:
        return bool(a == b)
    return all(np.array_equal(a[i : i + rows], b[i : i + rows]) for i in range(0, a.shape[0], rows))


def language_codes(names: list[str]) -> dict[str, str]:
    """Tingji code -> the model's name for each release language (unknown names keep their own spelling)."""
    by_name = {name.lower(): code for code, name in NAMES.items()}
    return {by_name.get(name.lower(), name.lower()): name for name in names}
