"""Adopt a pre-converted Fun-ASR-Nano release (CapsWriter-Offline / Fun-ASR-GGUF) as a Tingji model.

Those projects publish Fun-ASR-Nano already split the way Tingji runs it:

    Fun-ASR-Nano-Encoder-Adaptor.<fp32|fp16|int8|int4>.onnx   encoder + adaptor
    Fun-ASR-Nano-CTC.<fp32|fp16|int8|int4>.onnx               CTC head (optional)
    Fun-ASR-Nano-Decoder.<fp16|q8_0|q5_k|...>.gguf            Qwen3 decoder
    tokens.txt                                                CTC vocabulary

Several generations of those exports exist and not all of them fit Tingji's
engine (some encoders take raw audio instead of LFR features), so nothing is
taken on trust: every graph's inputs and outputs and the decoder's metadata are
read and compared with the contract the engine relies on, and a folder that
differs is refused with a message naming the file and the difference. Only
then are the files placed (copied: the user's folder and the installed model
must not share files; hard-linked only from Tingji's own extracted downloads)
and a manifest written, so the rest of Tingji sees an ordinary model folder.
A file that is a link to somewhere outside the release folder is refused.

Reading the files is `peer_graph`, the checks against the engine's contract
`peer_contract`; this module finds the files and assembles the model folder.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine import manifest as mf
from ..errors import Cancelled, ModelError
from . import messages
from .peer_contract import check_ctc, check_encoder
from .peer_graph import DecoderInfo, GraphIO, onnx_module, read_decoder_info, read_graph_io
from .staging import StageProgress, source_file

ENCODER_STEM = "Fun-ASR-Nano-Encoder-Adaptor"
CTC_STEM = "Fun-ASR-Nano-CTC"
DECODER_STEM = "Fun-ASR-Nano-Decoder"
TOKENS_NAME = "tokens.txt"

#: When a folder holds several variants of a file, the most faithful one is used.
ONNX_PREFERENCE = ("fp32", "fp16", "int8", "int4")
GGUF_PREFERENCE = ("f32", "fp32", "bf16", "f16", "fp16", "q8_0", "q6_k", "q5_k", "q5_k_m", "q4_k", "q4_k_m")


# ---------------------------------------------------------------- finding files


def _variant(path: Path, stem: str, suffix: str) -> str:
    return path.name[len(stem) + 1 : -len(suffix)]


def _pick(src: Path, stem: str, suffix: str, preference: tuple[str, ...]) -> Path | None:
    """The preferred `<stem>.<variant><suffix>` in `src` (known variants first, then by name)."""
    found = [p for p in src.iterdir() if p.is_file() and p.name.startswith(stem + ".") and p.name.endswith(suffix)]

    def rank(p: Path) -> tuple[int, str]:
        v = _variant(p, stem, suffix).lower()
        return (preference.index(v) if v in preference else len(preference), p.name)

    return min(found, key=rank) if found else None


def looks_like_peer_release(src: str | os.PathLike[str]) -> bool:
    """True when `src` holds at least an encoder and a decoder named the peer way."""
    src = Path(src)
    return (
        src.is_dir()
        and _pick(src, ENCODER_STEM, ".onnx", ONNX_PREFERENCE) is not None
        and _pick(src, DECODER_STEM, ".gguf", GGUF_PREFERENCE) is not None
    )


# ---------------------------------------------------------------- tokens


def _token_bytes(text: str) -> bytes:
    """Peer files store base64 of each token's bytes; a few old ones store the text itself."""
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return text.encode("utf-8")


def convert_tokens(src: Path, dst: Path) -> tuple[int, int]:
    """Write the CTC vocabulary in Tingji's form; returns (vocab size, text tokens).

    Tingji's tokens.txt is `base64(bytes) id` per id, with an empty text for
    every id that is not speech (language tags, timestamps, the blank), so that
    those never appear in the CTC alignment.
    """
    table: dict[int, bytes] = {}
    try:
        lines = src.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelError(messages.TOKENS_UNREADABLE, name=src.name, reason=str(exc)) from None
    for number, line in enumerate(lines, 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) > 2 or not parts[-1].isdigit():
            raise ModelError(messages.TOKENS_BAD_LINE, name=src.name, line=number)
        piece = _token_bytes(parts[0]) if len(parts) == 2 else b""
        if re.fullmatch(rb"<\|.*\|>|<blk>|<blank>|<unk>|<pad>", piece):
            piece = b""
        table[int(parts[-1])] = piece
    size = len(table)
    if size < 2 or sorted(table) != list(range(size)):
        raise ModelError(messages.TOKENS_GAPS, name=src.name, last=max(table, default=0))
    text_tokens = sum(1 for piece in table.values() if piece)
    dst.write_text("".join(f"{base64.b64encode(table[i]).decode()} {i}\n" for i in range(size)), encoding="ascii")
    return size, text_tokens


# ---------------------------------------------------------------- placing files


def _place(src: Path, dst: Path, link: bool) -> None:
    """Copy; or hard-link (instant, no extra space) when allowed and on one file system.

    A hard link would make the installed model and the user's folder one file:
    editing or replacing one in place would silently change the other."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    if link:
        try:
            os.link(src, dst)
            return
        except OSError:
            pass
    shutil.copyfile(src, dst)


def _place_all(
    pairs: list[tuple[Path, Path]], link: bool, progress: StageProgress | None, cancel: threading.Event | None
) -> None:
    total = sum(s.stat().st_size for s, _ in pairs)
    done = 0
    start = time.monotonic()
    for src, dst in pairs:
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        _place(src, dst, link)
        done += src.stat().st_size
        if progress is not None:
            elapsed = time.monotonic() - start
            progress("copying", done, total, done / elapsed if elapsed > 0 else 0.0)


# ---------------------------------------------------------------- the manifest


@dataclass(frozen=True)
class _Release:
    """A peer release's files, read and checked; nothing is placed yet."""

    encoder: Path
    decoder: Path
    ctc: Path | None
    tokens: Path
    enc_io: GraphIO
    enc_info: dict[str, Any]
    ctc_io: GraphIO | None
    ctc_info: dict[str, Any] | None
    dec: DecoderInfo


def _inspect(src: Path) -> _Release:
    """Find the release's files and check every one against the engine's contract."""
    encoder = _pick(src, ENCODER_STEM, ".onnx", ONNX_PREFERENCE)
    decoder = _pick(src, DECODER_STEM, ".gguf", GGUF_PREFERENCE)
    ctc = _pick(src, CTC_STEM, ".onnx", ONNX_PREFERENCE)
    tokens = src / TOKENS_NAME
    if encoder is None or decoder is None:
        missing = " and ".join(
            n for n, p in ((f"{ENCODER_STEM}.*.onnx", encoder), (f"{DECODER_STEM}.*.gguf", decoder)) if p is None
        )
        raise ModelError(messages.NOT_A_RELEASE, folder=src, missing=missing)
    if ctc is not None and not tokens.is_file():
        raise ModelError(messages.CTC_NEEDS_TOKENS, folder=src, ctc=ctc.name, tokens=TOKENS_NAME)
    for path in (encoder, decoder, ctc, tokens if ctc is not None else None):
        if path is not None:
            source_file(src, path.name)  # nothing is read through a link that leaves the folder

    onnx = onnx_module()
    enc_io = read_graph_io(encoder, onnx)
    enc_info = check_encoder(encoder, enc_io)
    ctc_io = read_graph_io(ctc, onnx) if ctc is not None else None
    ctc_info = check_ctc(ctc, ctc_io, enc_info["encoder_dim"]) if ctc is not None and ctc_io is not None else None
    dec = read_decoder_info(decoder)
    if dec.n_embd != enc_info["llm_dim"]:
        raise ModelError(
            messages.WIDTH_MISMATCH,
            decoder=decoder.name,
            width=dec.n_embd,
            adaptor=enc_info["llm_dim"],
            encoder=encoder.name,
        )
    return _Release(encoder, decoder, ctc, tokens, enc_io, enc_info, ctc_io, ctc_info, dec)


def _roles(r: _Release) -> dict[str, Path]:
    return {"encoder": r.encoder, **({"ctc": r.ctc} if r.ctc is not None else {}), "decoder": r.decoder}


def _place_files(
    r: _Release, src: Path, out: Path, link: bool, progress: StageProgress | None, cancel: threading.Event | None
) -> dict[str, mf.FileEntry]:
    """Place the graphs, their weights files and the decoder in `out`; returns their manifest entries."""
    roles = _roles(r)
    placed: dict[Path, Path] = {}  # destination -> source (a shared weights file is placed once)
    for path in roles.values():
        placed[out / path.name] = source_file(src, path.name)
    for path, io in ((r.encoder, r.enc_io), (r.ctc, r.ctc_io)):
        for rel in io.external if path is not None and io is not None else ():
            placed[out / rel] = source_file(src, rel)
    _place_all([(s, d) for d, s in placed.items()], link, progress, cancel)

    files = {role: mf.file_entry(out, out / path.name) for role, path in roles.items()}
    for role, io in (("encoder", r.enc_io), ("ctc", r.ctc_io)):
        for n, rel in enumerate(io.external if io is not None else (), 1):
            files[f"{role}_data" if n == 1 else f"{role}_data_{n}"] = mf.file_entry(out, out / rel)
    return files


def _manifest(r: _Release, src: Path, out: Path, files: dict[str, mf.FileEntry]) -> mf.Manifest:
    """The manifest, through the Nano converter's writer (which imports no torch): a conversion's section."""
    from ..engine.families.fun_asr_nano.section import NanoCtc, NanoDecoderInfo, NanoEncoderInfo, NanoSection
    from ..engine.families.llm import SpecialTokens
    from ..engine.frontend import FrontendConfig
    from ..export.fun_asr_nano.convert import CTC_FRAME_SECONDS, nano_manifest

    ctc = NanoCtc()
    if r.ctc is not None and r.ctc_info is not None:
        vocab_size, text_tokens = convert_tokens(r.tokens, out / TOKENS_NAME)
        files["tokens"] = mf.file_entry(out, out / TOKENS_NAME)
        ctc = NanoCtc(
            vocab_size=vocab_size,
            blank_id=vocab_size - 1,
            text_tokens=text_tokens,
            frame_seconds=CTC_FRAME_SECONDS,
            **r.ctc_info,
        )

    dec = r.dec
    im_end, endoftext = dec.special["<|im_end|>"], dec.special["<|endoftext|>"]
    section = NanoSection(
        special_tokens=SpecialTokens(
            im_start=dec.special["<|im_start|>"],
            im_end=im_end,
            endoftext=endoftext,
            eos_ids=(dec.eos,),
            stop_ids=SpecialTokens.stops((dec.eos,), im_end, endoftext),
            vocab_size=dec.vocab_size,
        ),
        encoder=NanoEncoderInfo(precision=_variant(r.encoder, ENCODER_STEM, ".onnx"), **r.enc_info),
        # The official model family runs its LLM in bf16: the audio rows are rounded to it.
        decoder=NanoDecoderInfo(
            quant=_variant(r.decoder, DECODER_STEM, ".gguf"), n_embd=dec.n_embd, n_layer=dec.n_layer, input_dtype="bf16"
        ),
        ctc=ctc,
    )
    source = {
        "kind": "peer-release",
        "folder": src.name,
        "files": {role: path.name for role, path in _roles(r).items()},
    }
    return nano_manifest(out, files, section, frontend=FrontendConfig(), source=source)


def manifest_for_peer_release(
    src_dir: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    link: bool = False,
    progress: StageProgress | None = None,
    cancel: threading.Event | None = None,
) -> Path:
    """Make `out_dir` (new or empty) a Tingji model folder from the peer release in `src_dir`.

    Everything is checked before a byte is placed; on any failure `out_dir`
    is removed again. Files are copied; `link=True` hard-links them instead,
    for a `src_dir` that Tingji itself owns (an extracted download). Returns `out_dir`.
    """
    src, out = Path(src_dir), Path(out_dir)
    if not src.is_dir():
        raise ModelError(messages.FOLDER_NOT_FOUND, folder=src)
    release = _inspect(src)

    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ModelError(messages.OUT_NOT_EMPTY, folder=out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        files = _place_files(release, src, out, link, progress, cancel)
        mf.save_manifest(_manifest(release, src, out, files))
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)
        raise
    return out
