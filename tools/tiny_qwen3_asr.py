"""Random-weight Qwen3-ASR checkpoints (0.6B / 1.7B) in the official release layout.

`make_tiny_checkpoint.py --family qwen3-asr` calls `make_checkpoint` here.
The folder is what Qwen/Qwen3-ASR-0.6B and -1.7B ship: `config.json` (model
type `qwen3_asr`, a `thinker_config` holding `audio_config` and
`text_config`, the `support_languages` list), `model.safetensors` in
bfloat16 with `thinker.audio_tower.*`, `thinker.model.*` and
`thinker.lm_head.weight`, `generation_config.json`, the tokenizer as
`vocab.json` + `merges.txt` + `tokenizer_config.json` (no tokenizer.json),
`chat_template.json` and `preprocessor_config.json`.

Tiny sizes keep CI fast; `full_size` uses the real shapes of the chosen size
(benchmarks). The tokenizer is always small but has every special token
the model uses (ChatML, the audio markers, `<asr_text>`) and merges for the
prompt words; at full size the LLM keeps the 151936-row embedding, the rows
past the tokenizer being padding as in the real model. LLM weights come from
the Nano tool's generator (well-spread logits, bf16-representable values).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
from make_tiny_checkpoint import build_tokenizer, llm_state

try:
    from tingji.export.qwen3_asr.dims import EncoderDims
    from tingji.export.qwen3_asr.modules import AudioTower
except ImportError:  # running from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "app"))
    from tingji.export.qwen3_asr.dims import EncoderDims
    from tingji.export.qwen3_asr.modules import AudioTower

AUDIO_SPECIALS = ("<|audio_start|>", "<|audio_end|>", "<|audio_pad|>")
ASR_TEXT = "<asr_text>"
# The release's 30 languages (config.json `support_languages`), as it spells them.
LANGUAGES = (
    "Chinese",
    "English",
    "Cantonese",
    "Arabic",
    "German",
    "French",
    "Spanish",
    "Portuguese",
    "Indonesian",
    "Italian",
    "Korean",
    "Russian",
    "Thai",
    "Vietnamese",
    "Japanese",
    "Turkish",
    "Hindi",
    "Malay",
    "Dutch",
    "Swedish",
    "Danish",
    "Finnish",
    "Polish",
    "Czech",
    "Filipino",
    "Persian",
    "Greek",
    "Romanian",
    "Hungarian",
    "Macedonian",
)
# Real sizes (Qwen3-ASR-0.6B / -1.7B); tiny ones for CI.
SIZES = {
    "0.6b": {
        "audio": dict(d_model=896, layers=18, heads=14, ffn=3584, conv_channels=480),
        "text": dict(hidden_size=1024, intermediate_size=3072),
    },
    "1.7b": {
        "audio": dict(d_model=1024, layers=24, heads=16, ffn=4096, conv_channels=480),
        "text": dict(hidden_size=2048, intermediate_size=6144),
    },
}
TINY = {
    "audio": dict(d_model=64, layers=2, heads=4, ffn=128, conv_channels=16),
    "text": dict(
        hidden_size=64,
        intermediate_size=160,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
    ),
}
FULL_TEXT = dict(num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=8, head_dim=128, vocab_size=151936)

# The release's chat template renders (transformers' test of the -hf release checks the same text):
#   <|im_start|>system\n{context}<|im_end|>\n<|im_start|>user\n<|audio_start|><|audio_pad|><|audio_end|>
#   <|im_end|>\n<|im_start|>assistant\n{prefill}
# with an empty system turn when no context is given.
CHAT_TEMPLATE = (
    "{%- macro render(content) -%}{%- if content is string -%}{{ content }}{%- else -%}"
    "{%- for item in content -%}{%- if item.type == 'audio' or 'audio' in item -%}"
    "{{ '<|audio_start|><|audio_pad|><|audio_end|>' }}{%- elif item.type == 'text' -%}{{ item.text }}{%- endif -%}"
    "{%- endfor -%}{%- endif -%}{%- endmacro -%}"
    "{%- if messages[0].role != 'system' -%}{{ '<|im_start|>system\\n<|im_end|>\\n' }}{%- endif -%}"
    "{%- for message in messages -%}{{ '<|im_start|>' + message.role + '\\n' }}{{ render(message.content) }}"
    "{%- if not (loop.last and message.role == 'assistant') -%}{{ '<|im_end|>\\n' }}{%- endif -%}{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<|im_start|>assistant\\n' }}{%- endif -%}"
)


def tokenizer(full_size: bool):
    corpus = tuple(f"language {name}" for name in LANGUAGES) + tuple(LANGUAGES) + ("None",)
    return build_tokenizer(1200 if full_size else 700, specials=AUDIO_SPECIALS, plain=(ASR_TEXT,), corpus=corpus)


def write_tokenizer_files(out: Path, tok) -> dict[str, int]:
    """vocab.json, merges.txt and tokenizer_config.json as the release has them; returns the added ids."""
    data = json.loads(tok.to_str())
    (out / "vocab.json").write_text(json.dumps(data["model"]["vocab"], ensure_ascii=False), encoding="utf-8")
    merges = [m if isinstance(m, str) else " ".join(m) for m in data["model"]["merges"]]
    (out / "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n", encoding="utf-8")
    ids = {t["content"]: int(t["id"]) for t in data["added_tokens"]}
    decoder = {
        str(i): {
            "content": t,
            "lstrip": False,
            "normalized": False,
            "rstrip": False,
            "single_word": False,
            "special": t != ASR_TEXT and not t.startswith("<think"),
        }
        for t, i in ids.items()
    }
    config = {
        "add_bos_token": False,
        "add_prefix_space": False,
        "added_tokens_decoder": decoder,
        "additional_special_tokens": ["<|im_start|>", "<|im_end|>", *AUDIO_SPECIALS],
        "extra_special_tokens": {
            "audio_token": "<|audio_pad|>",
            "audio_bos_token": "<|audio_start|>",
            "audio_eos_token": "<|audio_end|>",
        },
        "bos_token": None,
        "clean_up_tokenization_spaces": False,
        "eos_token": "<|im_end|>",
        "errors": "replace",
        "model_max_length": 131072,
        "pad_token": "<|endoftext|>",
        "split_special_tokens": False,
        "tokenizer_class": "Qwen2Tokenizer",
        "unk_token": None,
    }
    (out / "tokenizer_config.json").write_text(json.dumps(config, indent=2, ensure_ascii=False), encoding="utf-8")
    (out / "chat_template.json").write_text(json.dumps({"chat_template": CHAT_TEMPLATE}, indent=2), encoding="utf-8")
    return ids


def configs(size: str, full_size: bool, ids: dict[str, int], n_tokens: int) -> tuple[EncoderDims, dict]:
    """The audio tower's dims and the release's config.json."""
    sizes = SIZES[size] if full_size else TINY
    text = {**(FULL_TEXT if full_size else {"vocab_size": (n_tokens + 63) // 64 * 64}), **sizes["text"]}
    head_dim = text["head_dim"]
    dims = EncoderDims(output_dim=text["hidden_size"], **sizes["audio"])
    audio_config = {
        "model_type": "qwen3_asr_audio_encoder",
        "num_mel_bins": dims.n_mels,
        "encoder_layers": dims.layers,
        "encoder_attention_heads": dims.heads,
        "encoder_ffn_dim": dims.ffn,
        "d_model": dims.d_model,
        "dropout": 0.0,
        "attention_dropout": 0.0,
        "activation_function": "gelu",
        "activation_dropout": 0.0,
        "scale_embedding": False,
        "initializer_range": 0.02,
        "max_source_positions": 1500,
        "n_window": 50,
        "output_dim": dims.output_dim,
        "n_window_infer": 800,
        "conv_chunksize": 500,
        "downsample_hidden_size": dims.conv_channels,
    }
    section = [head_dim // 2 - 2 * (head_dim * 5 // 32), head_dim * 5 // 32, head_dim * 5 // 32]  # 24,20,20 at 128
    text_config = {
        "model_type": "qwen3_asr_text",
        "hidden_act": "silu",
        "attention_bias": False,
        "attention_dropout": 0.0,
        "initializer_range": 0.02,
        "max_position_embeddings": 65536,
        "rms_norm_eps": 1e-06,
        "rope_theta": 1000000,
        "rope_scaling": {
            "interleaved": True,
            "mrope_interleaved": True,
            "mrope_section": section,
            "rope_type": "default",
        },
        "tie_word_embeddings": True,
        "use_cache": True,
        "dtype": "bfloat16",
        **text,
    }
    config = {
        "architectures": ["Qwen3ASRForConditionalGeneration"],
        "model_type": "qwen3_asr",
        "support_languages": list(LANGUAGES),
        "thinker_config": {
            "model_type": "qwen3_asr_thinker",
            "audio_config": audio_config,
            "text_config": text_config,
            "audio_token_id": ids["<|audio_pad|>"],
            "audio_start_token_id": ids["<|audio_start|>"],
            "audio_end_token_id": ids["<|audio_end|>"],
            "user_token_id": 872 if full_size else 0,
            "initializer_range": 0.02,
            "dtype": "bfloat16",
        },
        "dtype": "bfloat16",
        "transformers_version": "4.57.6",
    }
    return dims, config


def audio_state(dims: EncoderDims, seed: int) -> dict[str, torch.Tensor]:
    """The audio tower's weights: PyTorch's default init, LayerNorms moved off 1/0 so they are tested."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed + 1)
    state = {}
    for name, tensor in AudioTower(dims).state_dict().items():
        if "layer_norm" in name or name.startswith("ln_post"):
            base = 1.0 if name.endswith("weight") else 0.0
            tensor = base + 0.1 * torch.randn(tensor.shape, generator=gen)
        state["thinker.audio_tower." + name] = tensor.detach()
    return state


def make_checkpoint(out: Path, seed: int = 0, *, size: str = "0.6b", full_size: bool = False) -> Path:
    from safetensors.torch import save_file

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tok = tokenizer(full_size)
    ids = write_tokenizer_files(out, tok)
    dims, config = configs(size, full_size, ids, tok.get_vocab_size(with_added_tokens=True))
    (out / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    eos = [ids["<|endoftext|>"], ids["<|im_end|>"]]
    generation = {"eos_token_id": eos, "pad_token_id": ids["<|endoftext|>"], "do_sample": False}
    (out / "generation_config.json").write_text(json.dumps(generation, indent=2), encoding="utf-8")
    preprocessor = {
        "feature_extractor_type": "WhisperFeatureExtractor",
        "feature_size": dims.n_mels,
        "sampling_rate": 16000,
        "hop_length": 160,
        "n_fft": 400,
        "chunk_length": 30,
        "padding_side": "right",
        "padding_value": 0.0,
        "return_attention_mask": True,
        "dither": 0.0,
        "processor_class": "Qwen3ASRProcessor",
    }
    (out / "preprocessor_config.json").write_text(json.dumps(preprocessor, indent=2), encoding="utf-8")

    # One bfloat16 file as released (the tied lm_head stored as its own copy).
    state = {k: v.to(torch.bfloat16).contiguous() for k, v in audio_state(dims, seed).items()}
    text = dict(config["thinker_config"]["text_config"])
    for name, tensor in llm_state(text, torch.Generator().manual_seed(seed + 2), torch.bfloat16).items():
        state["thinker." + name[len("llm.") :]] = tensor
    state["thinker.lm_head.weight"] = state["thinker.lm_head.weight"].clone()
    save_file(state, str(out / "model.safetensors"), metadata={"format": "pt"})
    return out
