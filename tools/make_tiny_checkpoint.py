#!/usr/bin/env python3
"""Write a random-weight Fun-ASR-Nano checkpoint in the official release layout.

Real weights cannot be downloaded on the build machines, so tests and
benchmarks make their own: the same folder layout, file formats and tensor
names as the official Fun-ASR-Nano-2512 release, loadable by funasr's
`FunASRNano.from_pretrained`, with random weights drawn from a seed.

    tools/make_tiny_checkpoint.py --out DIR --seed N [--full-size] [--family F]
    tools/make_tiny_checkpoint.py --family qwen3-asr [--size 0.6b|1.7b] ...

`--family sense-voice-small` writes a SenseVoice-Small checkpoint instead
(tools/tiny_sense_voice.py), `--family qwen3-asr` a Qwen3-ASR release
(tools/tiny_qwen3_asr.py), `--family paraformer [--variant plain|bicif]` a
Paraformer release (tools/tiny_paraformer.py), `--family ct-punc` a
CT-Transformer punctuation release (tools/tiny_ct_punc.py), `--family campplus`
the CAM++ speaker model (tools/tiny_campplus.py); each family's writer lives in
its own module.

Default sizes are tiny so CI stays fast; `--full-size` uses the real sizes
(about 221 M encoder parameters and a Qwen3-0.6B-shaped LLM) for benchmarks.
The tokenizer is always small (a byte-level BPE with Qwen's pre-tokenizer and
the ChatML special tokens); at full size the LLM keeps Qwen3's 151936-row
embedding, the rows past the tokenizer being padding as in the real model.

Random LLM weights are drawn so that logits are well spread (greedy decoding
then has clear winners instead of near-ties that float rounding could flip)
and rounded to bfloat16-representable values, so they survive the bf16 cast
the reference applies when config.yaml says `llm_dtype: bf16`.

`--llm-dtype` sets that config value. It defaults to fp32 because with bf16
funasr also casts the LLM's RoPE `inv_freq` buffer to bf16 at load (and back
to fp32 at inference), so the reference runs RoPE with bf16-rounded
frequencies, which llama.cpp's qwen3 graph computes exactly; the two then
differ by ~1e-2 in the logits. Equivalence tests need the fp32 setting;
`--llm-dtype bf16` reproduces the release's setting.
"""

from __future__ import annotations

import argparse
import base64
import importlib
import json
import sys
from dataclasses import asdict
from pathlib import Path

import torch

try:
    from tingji.engine.families.kit import KITS, kit
    from tingji.export.fun_asr_nano.dims import AudioDims
    from tingji.export.fun_asr_nano.modules import CtcGraph, EncoderGraph
except ImportError:  # running from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "app"))
    from tingji.engine.families.kit import KITS, kit
    from tingji.export.fun_asr_nano.dims import AudioDims
    from tingji.export.fun_asr_nano.modules import CtcGraph, EncoderGraph

# Qwen2/Qwen3's pre-tokenizer split (llama.cpp's "qwen2" pre-tokenizer uses the same).
QWEN_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
PLAIN_ADDED_TOKENS = ["<think>", "</think>"]

WORDS = (
    "zero one two three four five six seven eight nine ten hello world yes no stop go "
    "left right up down open close start the a and to of in is it you that he was for on "
    "are with as I his they be at this have from or had by word but what some we can out "
    "other were all there when your how said an each she which do their time if will way "
    "about many then them write would like so these her long make thing see him two has "
    "look more day could come did number sound most people my over know water than call "
    "first who may down side been now find any new work part take get place made live "
    "where after back little only round man year came show every good me give our under "
    "name very through just form sentence great think say help low line differ turn cause "
    "much mean before move right boy old too same tell does set three want air well also "
    "play small end put home read hand port large spell add even land here must big high "
    "such follow act why ask men change went light kind off need house picture try us "
    "again animal point mother world near build self earth father head stand own page "
    "should country found answer school grow study still learn plant cover food sun four "
    "between state keep eye never last let thought city tree cross farm hard start might "
    "story saw far sea draw left late run don't while press close night real life few north"
)
CHINESE = (
    "语音转写成中文英文日文粤语：，不进行文本规整。请结合上下文信息，更加准确地完成语音转写任务。"
    "如果没有相关信息，我们会留空。上下文信息热词列表你好世界今天天气很好我们一起去学校吧"
    "会议记录明天下午三点开始请大家准时参加谢谢一二三四五六七八九十零百千万"
)
SYSTEM_PROMPT = "You are a helpful assistant."


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible byte -> printable character map used by byte-level BPE."""
    keep = (
        list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    )
    chars = keep[:]
    n = 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + n)
            n += 1
    return dict(zip(keep, (chr(c) for c in chars)))


def training_corpus(extra: tuple[str, ...] = ()) -> list[str]:
    words = WORDS.split()
    lines = [" ".join(words[i : i + 12]) for i in range(0, len(words), 12)]
    lines += [w.capitalize() + "." for w in words[:60]]
    lines += [
        f"<|im_start|>system\n{SYSTEM_PROMPT}<|im_end|>\n<|im_start|>user\n",
        "<|im_end|>\n<|im_start|>assistant\n",
    ]
    lines += [CHINESE[i : i + 20] for i in range(0, len(CHINESE), 20)]
    lines += ["0123456789", "1, 2, 3. 4! 5? 6; 7: 8- 9/ (10) [11] {12} \"13\" '14' 15% $16 #17 @18 &19 *20"]
    lines += list(extra)
    return lines * 3


def build_tokenizer(
    vocab_size: int, *, specials: tuple[str, ...] = (), plain: tuple[str, ...] = (), corpus: tuple[str, ...] = ()
):
    """A small byte-level BPE with Qwen's normalizer and pre-tokenizer.

    `specials` / `plain` are added tokens beyond ChatML's (a family's own
    markers), `corpus` extra training lines so its prompt words get merges.
    """
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN_SPLIT), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=1,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=[],
    )
    tok.train_from_iterator(training_corpus(corpus), trainer=trainer)
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in SPECIAL_TOKENS + list(specials)])
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in PLAIN_ADDED_TOKENS + list(plain)])
    return tok


def write_llm_folder(out: Path, tok, llm: dict) -> None:
    """Qwen3-0.6B/ as released: config, generation config, tokenizer files (no weights)."""
    out.mkdir(parents=True, exist_ok=True)
    tok.save(str(out / "tokenizer.json"))
    data = json.loads((out / "tokenizer.json").read_text(encoding="utf-8"))
    (out / "vocab.json").write_text(json.dumps(data["model"]["vocab"], ensure_ascii=False), encoding="utf-8")
    merges = [m if isinstance(m, str) else " ".join(m) for m in data["model"]["merges"]]
    (out / "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n", encoding="utf-8")
    added = {
        str(tok.token_to_id(t)): {
            "content": t,
            "lstrip": False,
            "normalized": False,
            "rstrip": False,
            "single_word": False,
            "special": t in SPECIAL_TOKENS,
        }
        for t in SPECIAL_TOKENS + PLAIN_ADDED_TOKENS
    }
    tokenizer_config = {
        "add_bos_token": False,
        "add_prefix_space": False,
        "added_tokens_decoder": added,
        "additional_special_tokens": ["<|im_start|>", "<|im_end|>"],
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
    (out / "tokenizer_config.json").write_text(
        json.dumps(tokenizer_config, indent=2, ensure_ascii=False), encoding="utf-8"
    )
    (out / "config.json").write_text(json.dumps(llm, indent=2), encoding="utf-8")
    generation = {
        "bos_token_id": llm["bos_token_id"],
        "eos_token_id": [llm["eos_token_id"], llm["bos_token_id"]],
        "pad_token_id": llm["bos_token_id"],
        "do_sample": False,
    }
    (out / "generation_config.json").write_text(json.dumps(generation, indent=2), encoding="utf-8")


def llm_config(tok, full_size: bool) -> dict:
    n_tok = tok.get_vocab_size(with_added_tokens=True)
    endoftext, im_end = tok.token_to_id("<|endoftext|>"), tok.token_to_id("<|im_end|>")
    if full_size:
        sizes = dict(
            hidden_size=1024,
            intermediate_size=3072,
            num_hidden_layers=28,
            num_attention_heads=16,
            num_key_value_heads=8,
            head_dim=128,
            vocab_size=151936,
        )
    else:
        sizes = dict(
            hidden_size=64,
            intermediate_size=160,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            head_dim=16,
            vocab_size=(n_tok + 63) // 64 * 64,
        )
    return {
        "architectures": ["Qwen3ForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": endoftext,
        "eos_token_id": im_end,
        "hidden_act": "silu",
        "initializer_range": 0.02,
        "max_position_embeddings": 40960,
        "max_window_layers": sizes["num_hidden_layers"],
        "model_type": "qwen3",
        "rms_norm_eps": 1e-06,
        "rope_scaling": None,
        "rope_theta": 1000000,
        "sliding_window": None,
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.51.0",
        "use_cache": True,
        "use_sliding_window": False,
        **sizes,
    }


def llm_state(cfg: dict, gen: torch.Generator, dtype: torch.dtype = torch.float32) -> dict[str, torch.Tensor]:
    """Random Qwen3 weights under the `llm.` prefix used by model.pt, bf16-representable, stored as `dtype`.

    Each tensor is rounded as it is drawn, so a full-size 1.7B LLM never sits in memory in fp32 twice.
    """
    h, i, hd = cfg["hidden_size"], cfg["intermediate_size"], cfg["head_dim"]
    nq, nkv, v = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["vocab_size"]

    def lin(rows: int, cols: int, scale: float = 1.0) -> torch.Tensor:
        return (scale * (torch.randn(rows, cols, generator=gen) / cols**0.5)).to(torch.bfloat16).to(dtype)

    def norm(n: int) -> torch.Tensor:
        return (1.0 + 0.1 * torch.randn(n, generator=gen)).to(torch.bfloat16).to(dtype)

    state: dict[str, torch.Tensor] = {}
    # std 0.5 embeddings tied to the output: logits spread by ~0.5*sqrt(h).
    embed = (0.5 * torch.randn(v, h, generator=gen)).to(torch.bfloat16).to(dtype)
    state["llm.model.embed_tokens.weight"] = embed
    for n in range(cfg["num_hidden_layers"]):
        p = f"llm.model.layers.{n}."
        state[p + "self_attn.q_proj.weight"] = lin(nq * hd, h)
        state[p + "self_attn.k_proj.weight"] = lin(nkv * hd, h)
        state[p + "self_attn.v_proj.weight"] = lin(nkv * hd, h)
        # Outputs of attention and MLP scaled x3 so they outweigh the token's own
        # embedding in the residual stream; with tied embeddings the model
        # otherwise just repeats its input token, whatever the audio says.
        state[p + "self_attn.o_proj.weight"] = lin(h, nq * hd, 3.0)
        state[p + "self_attn.q_norm.weight"] = norm(hd)
        state[p + "self_attn.k_norm.weight"] = norm(hd)
        state[p + "mlp.gate_proj.weight"] = lin(i, h)
        state[p + "mlp.up_proj.weight"] = lin(i, h)
        state[p + "mlp.down_proj.weight"] = lin(h, i, 3.0)
        state[p + "input_layernorm.weight"] = norm(h)
        state[p + "post_attention_layernorm.weight"] = norm(h)
    state["llm.model.norm.weight"] = norm(h)
    state["llm.lm_head.weight"] = state["llm.model.embed_tokens.weight"]  # tied, as saved by torch
    return state


def audio_state(dims: AudioDims, seed: int) -> dict[str, torch.Tensor]:
    """Encoder, adaptor and CTC weights from our module definitions (same names as model.pt)."""
    torch.manual_seed(seed)
    enc, ctc = EncoderGraph(dims), CtcGraph(dims)
    gen = torch.Generator().manual_seed(seed + 1)
    state = {}
    for module in (enc, ctc):
        for name, tensor in module.state_dict().items():
            tensor = tensor.detach().clone()
            if "norm" in name:  # LayerNorm: move off the trivial 1/0 init so it is tested
                base = 1.0 if name.endswith("weight") else 0.0
                tensor = base + 0.1 * torch.randn(tensor.shape, generator=gen)
            state[name] = tensor
    return state


def ctc_tiktoken(tok, total: int, n_specials: int) -> str:
    """multilingual.tiktoken: the BPE's tokens as raw bytes with ranks, padded to `total` entries."""
    u2b = {c: b for b, c in bytes_to_unicode().items()}
    vocab = json.loads(tok.to_str())["model"]["vocab"]
    ranked: list[bytes] = [bytes([b]) for b in range(256)]
    seen = set(ranked)
    for piece, _ in sorted(vocab.items(), key=lambda kv: kv[1]):
        raw = bytes(u2b[c] for c in piece)
        if raw not in seen:
            seen.add(raw)
            ranked.append(raw)
    n_ranks = total - n_specials
    k = 0
    while len(ranked) < n_ranks:  # filler pieces only to reach the release's vocabulary size
        raw = f"\x00tok{k:06d}".encode()
        k += 1
        if raw not in seen:
            ranked.append(raw)
    ranked = ranked[:n_ranks]
    return "".join(f"{base64.b64encode(t).decode()} {i}\n" for i, t in enumerate(ranked))


def config_yaml(dims: AudioDims, llm_dir: str, ctc_vocab: int, llm_dtype: str = "fp32") -> str:
    """config.yaml with the official structure (sizes aside)."""
    import yaml

    cfg = {
        "model": "FunASRNano",
        "model_conf": {"lsm_weight": 0.1, "length_normalized_loss": True},
        "audio_encoder": "SenseVoiceEncoderSmall",
        "audio_encoder_conf": {
            "output_size": dims.encoder_dim,
            "attention_heads": dims.encoder_heads,
            "linear_units": dims.encoder_ffn,
            "num_blocks": dims.encoder_blocks,
            "tp_blocks": dims.tp_blocks,
            "dropout_rate": 0.1,
            "positional_dropout_rate": 0.1,
            "attention_dropout_rate": 0.1,
            "input_layer": "pe",
            "pos_enc_class": "SinusoidalPositionEncoder",
            "normalize_before": True,
            "kernel_size": dims.kernel_size,
            "sanm_shfit": dims.sanm_shift,
            "selfattention_layer_type": "sanm",
            "freeze": True,
        },
        "llm": "Qwen3-0.6b",
        "llm_conf": {
            "hub": "hf",
            "freeze": True,
            "llm_dtype": llm_dtype,
            "init_param_path": llm_dir,
            "use_lora": False,
        },
        "audio_adaptor": "Transformer",
        "audio_adaptor_conf": {
            "downsample_rate": 1,
            "use_low_frame_rate": True,
            "ffn_dim": dims.adaptor_ffn,
            "llm_dim": dims.llm_dim,
            "encoder_dim": dims.encoder_dim,
            "n_layer": dims.adaptor_layers,
            "attention_heads": dims.adaptor_heads,
            "freeze": True,
        },
        "ctc_decoder": "Transformer",
        "detach_ctc_decoder": True,
        "ctc_decoder_conf": {
            "downsample_rate": 1,
            "ffn_dim": dims.ctc_ffn,
            "llm_dim": dims.encoder_dim,
            "encoder_dim": dims.encoder_dim,
            "n_layer": dims.ctc_layers,
            "attention_heads": dims.ctc_heads,
            "freeze": False,
        },
        "ctc_weight": 1.0,
        "ctc_vocab_size": ctc_vocab,
        "ctc_conf": {"dropout_rate": 0.0, "ctc_type": "builtin", "reduce": True, "ignore_nan_grad": True},
        "frontend": "WavFrontend",
        "frontend_conf": {
            "fs": 16000,
            "window": "hamming",
            "n_mels": 80,
            "frame_length": 25,
            "frame_shift": 10,
            "lfr_m": 7,
            "lfr_n": 6,
            "dither": 0.0,
            "cmvn_file": None,
        },
        "dataset": "FunASR",
        "dataset_conf": {
            "index_ds": "FunASR",
            "batch_sampler": "BatchSampler",
            "batch_type": "token",
            "max_token_length": 3000,
            "ctc_tokenizer": "SenseVoiceTokenizer",
            "ctc_target_normalize": True,
            "ctc_tokenizer_conf": {"vocab_path": None, "is_multilingual": True, "num_languages": 8749},
        },
        "tokenizer": "HuggingfaceTokenizer",
        "tokenizer_conf": {"init_param_path": llm_dir},
    }
    return yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True)


def ctc_special_count() -> int:
    """How many special tokens funasr's SenseVoiceTokenizer appends after the BPE ranks."""
    try:
        from funasr.models.sense_voice.whisper_lib.tokenizer import AUDIO_EVENT, EMOTION, LANGUAGES

        langs, events, emotions = len(LANGUAGES), len(AUDIO_EVENT), len(EMOTION)
    except ImportError:  # the counts in funasr 1.4.x
        langs, events, emotions = 105, 11, 4
    return 2 + langs + events + emotions + 6 + 50 + 1501


def configuration_json(llm_dir_name: str) -> str:
    """The release's configuration.json: where funasr's loader finds weights, config and tokenizers."""
    configuration = {
        "framework": "pytorch",
        "task": "auto-speech-recognition",
        "model": {"type": "funasr"},
        "pipeline": {"type": "funasr-pipeline"},
        "file_path_metas": {
            "init_param": "model.pt",
            "config": "config.yaml",
            "tokenizer_conf": {"init_param_path": llm_dir_name},
            "llm_conf": {"init_param_path": llm_dir_name},
            "dataset_conf": {"ctc_tokenizer_conf": {"vocab_path": "multilingual.tiktoken"}},
        },
    }
    return json.dumps(configuration, indent=2)


def make_checkpoint(out: Path, seed: int, full_size: bool = False, llm_dtype: str = "fp32") -> Path:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    llm_dir_name = "Qwen3-0.6B"
    tok = build_tokenizer(vocab_size=1200 if full_size else 700)
    llm = llm_config(tok, full_size)
    n_specials = ctc_special_count()
    if full_size:
        dims = AudioDims(llm_dim=llm["hidden_size"])
    else:
        dims = AudioDims(
            encoder_dim=64,
            encoder_heads=4,
            encoder_ffn=128,
            encoder_blocks=3,
            tp_blocks=2,
            llm_dim=llm["hidden_size"],
            adaptor_ffn=128,
            adaptor_layers=2,
            adaptor_heads=4,
            ctc_layers=2,
            ctc_ffn=128,
            ctc_heads=4,
            ctc_vocab=0,
        )
    # The CTC vocabulary: BPE ranks plus funasr's appended specials (60515 at full size).
    n_ctc = 60515 if full_size else 256 + 700 + n_specials
    dims = AudioDims(**{**asdict(dims), "ctc_vocab": n_ctc})

    write_llm_folder(out / llm_dir_name, tok, llm)
    (out / "multilingual.tiktoken").write_text(ctc_tiktoken(tok, n_ctc, n_specials), encoding="ascii")
    (out / "config.yaml").write_text(config_yaml(dims, llm_dir_name, n_ctc, llm_dtype), encoding="utf-8")
    (out / "configuration.json").write_text(configuration_json(llm_dir_name), encoding="utf-8")

    state = audio_state(dims, seed)
    state.update(llm_state(llm, torch.Generator().manual_seed(seed + 2)))
    torch.save(state, out / "model.pt")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, type=Path, help="folder to write (created)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--full-size", action="store_true", help="real Fun-ASR-Nano sizes (several GB)")
    ap.add_argument(
        "--llm-dtype",
        choices=["fp32", "bf16"],
        default="fp32",
        help="llm_conf.llm_dtype in config.yaml (see the module docstring)",
    )
    ap.add_argument("--family", choices=[f.name for f in KITS], default="fun-asr-nano")
    ap.add_argument("--size", choices=["0.6b", "1.7b"], default="0.6b", help="qwen3-asr: which release's shapes")
    ap.add_argument(
        "--variant",
        choices=["plain", "bicif"],
        default="bicif",
        help="paraformer: Paraformer (plain) or BiCifParaformer with timestamps (bicif)",
    )
    args = ap.parse_args(argv)
    # Each family's writer is its own tools/ module (engine/families/kit.py names it); Nano's is this one.
    tiny = kit(args.family).tiny
    own = tiny.maker == Path(__file__).stem
    maker = make_checkpoint if own else importlib.import_module(tiny.maker).make_checkpoint
    maker(args.out, seed=args.seed, full_size=args.full_size, **{name: getattr(args, name) for name in tiny.options})
    print(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
