"""Official Fun-ASR-Nano checkpoint -> Tingji model folder.

`export_model` is the one entry point (the `tingji export-model` command and
the model manager both call it). It needs the `export` extra (torch, onnx,
gguf); the engine never imports this package.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from ..engine.errors import ModelError
from ..engine.manifest import FAMILY, Manifest, file_entry, save_manifest
from ..engine.prompt import build_prompt, pieces_from_config

log = logging.getLogger(__name__)

WINDOW_SECONDS = 60
SAMPLE_RATE = 16000

__all__ = ["export_model", "WINDOW_SECONDS"]


def _frontend_dict(conf: dict[str, Any]) -> dict[str, Any]:
    """Front-end settings as the engine's FrontendConfig takes them; inference never dithers."""
    from ..engine.frontend import FrontendConfig

    cfg = FrontendConfig(
        sample_rate=int(conf.get("fs", 16000)),
        n_mels=int(conf.get("n_mels", 80)),
        frame_length_ms=float(conf.get("frame_length", 25)),
        frame_shift_ms=float(conf.get("frame_shift", 10)),
        lfr_m=int(conf.get("lfr_m", 7)),
        lfr_n=int(conf.get("lfr_n", 6)),
        window=str(conf.get("window", "hamming")),
    )
    if conf.get("cmvn_file"):
        raise ModelError("checkpoints with CMVN statistics are not Fun-ASR-Nano; not supported")
    return cfg.to_dict()


def _write_ctc_tokens(vocab: Path, n_total: int, out: Path) -> int:
    """tokens.txt: one `base64(bytes) id` line per CTC output id; returns the text-token count."""
    lines, n_text = [], 0
    for line in vocab.read_text(encoding="ascii").splitlines():
        if line.strip():
            token, rank = line.split()
            lines.append(f"{token} {int(rank)}")
            n_text += 1
    for i in range(n_text, n_total):  # special tokens and blank: no text
        lines.append(f"{base64.b64encode(b'').decode()} {i}")
    out.write_text("\n".join(lines) + "\n", encoding="ascii")
    return n_text


def _special_tokens(llm_dir: Path, llm_config: dict[str, Any]) -> dict[str, Any]:
    data = json.loads((llm_dir / "tokenizer.json").read_text(encoding="utf-8"))
    added = {t["content"]: int(t["id"]) for t in data.get("added_tokens") or []}
    eos = llm_config.get("eos_token_id")
    eos_ids = [int(e) for e in (eos if isinstance(eos, list) else [eos]) if e is not None]
    stop = sorted({*eos_ids, *(added[t] for t in ("<|im_end|>", "<|endoftext|>") if t in added)})
    return {
        "im_start": added.get("<|im_start|>"),
        "im_end": added.get("<|im_end|>"),
        "endoftext": added.get("<|endoftext|>"),
        "eos_ids": eos_ids,  # what the reference's generate() stops on
        "stop_ids": stop,  # what Tingji stops on outside --exact
        "vocab_size": int(llm_config["vocab_size"]),
    }


def export_model(
    source: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    precision: str = "fp32",
    decoder_quant: str = "f16",
    fixed: bool = True,
    progress: Callable[[str], None] | None = None,
) -> Path:
    """Convert the checkpoint folder `source` into the model folder `out`.

    The folder appears only when complete: everything is written to a
    temporary sibling and renamed at the end.
    """
    from .checkpoint import load_checkpoint
    from .gguf_export import QUANTS, export_decoder
    from .onnx_export import PRECISIONS, export_audio

    say = progress or (lambda msg: log.info("%s", msg))
    out = Path(out)
    if precision not in PRECISIONS:
        raise ModelError(f"unknown precision {precision!r} (choose {', '.join(PRECISIONS)})")
    if decoder_quant not in QUANTS:
        raise ModelError(f"unknown decoder quantization {decoder_quant!r} (choose {', '.join(QUANTS)})")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ModelError(f"{out}: already exists and is not empty; remove it or choose another --out")
    started = time.perf_counter()
    say(f"reading checkpoint {source}")
    ckpt = load_checkpoint(source)
    dims = ckpt.dims
    frontend = _frontend_dict(ckpt.frontend_conf())
    from ..engine.frontend import FrontendConfig, num_lfr_frames

    window_frames = num_lfr_frames(WINDOW_SECONDS * SAMPLE_RATE, FrontendConfig.from_dict(frontend))

    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(work, 0o777 & ~umask)  # mkdtemp's 0700 would make a shared model folder private
    try:
        files = export_audio(dims, ckpt.state, work, precision=precision, window_frames=window_frames,
                             fixed=fixed, progress=say)
        say(f"writing decoder ({decoder_quant})")
        files["decoder"] = export_decoder(ckpt.state, ckpt.llm_dir, work, decoder_quant)
        ctc_info: dict[str, Any] = {}
        if "ctc" in files and ckpt.ctc_vocab is not None:
            tokens = work / "tokens.txt"
            n_text = _write_ctc_tokens(ckpt.ctc_vocab, dims.ctc_vocab, tokens)
            files["tokens"] = tokens
            blank = int((ckpt.config.get("ctc_conf") or {}).get("blank_id", dims.ctc_vocab - 1))
            ctc_info = {"vocab_size": dims.ctc_vocab, "blank_id": blank, "text_tokens": n_text,
                        "frame_seconds": 0.06, "top_k": 8}

        say("hashing files")
        pieces = pieces_from_config(ckpt.config)
        manifest = Manifest(
            folder=work,
            family=FAMILY,
            files={role: file_entry(work, path) for role, path in files.items()},
            window_seconds=WINDOW_SECONDS,
            window_frames=window_frames,
            frontend=frontend,
            prompt={**pieces, "default_before": build_prompt(pieces).before, "default_after": build_prompt(pieces).after},
            special_tokens=_special_tokens(ckpt.llm_dir, ckpt.llm_config),
            source={"model_pt_sha256": ckpt.sha256, "folder": Path(source).name},
            extra={
                "encoder": {"precision": precision, "input_size": dims.input_size, "encoder_dim": dims.encoder_dim,
                            "llm_dim": dims.llm_dim, "inputs": ["lfr_feat", "mask"],
                            "outputs": ["enc_output", "adaptor_output"]},
                "decoder": {"quant": decoder_quant, "n_embd": dims.llm_dim,
                            "n_layer": int(ckpt.llm_config["num_hidden_layers"]),
                            # The reference writes the audio rows into an LLM-dtype
                            # embedding tensor, i.e. rounds them to bf16 when the
                            # config loads the LLM in bf16.
                            "input_dtype": _llm_input_dtype(ckpt.config)},
                "ctc": ctc_info,
                "exporter": {"tingji": _version(), "seconds": round(time.perf_counter() - started, 1)},
            },
        )
        save_manifest(manifest)
        if out.exists():
            out.rmdir()
        os.replace(work, out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    say(f"done in {time.perf_counter() - started:.1f} s: {out}")
    return out


def _llm_input_dtype(config: dict[str, Any]) -> str:
    dtype = str((config.get("llm_conf") or {}).get("llm_dtype", "fp32")).lower()
    return dtype if dtype in ("bf16", "fp16") else "fp32"


def _version() -> str:
    from .. import __version__

    return __version__
