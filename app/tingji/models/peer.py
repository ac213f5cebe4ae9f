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
then are the files placed (hard-linked where possible, else copied) and a
manifest written, so the rest of Tingji sees an ordinary model folder.

Reading needs only the runtime: graphs are read with `onnx` when it is
installed (headers only, external weights are not loaded), else with ONNX
Runtime; the GGUF header with llama.cpp (`vocab_only`).
"""

from __future__ import annotations

import base64
import binascii
import ctypes
import os
import re
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..engine import manifest as mf
from ..engine.errors import Cancelled, ModelError

StageProgress = Callable[[str, int, "int | None", float], None]

ENCODER_STEM = "Fun-ASR-Nano-Encoder-Adaptor"
CTC_STEM = "Fun-ASR-Nano-CTC"
DECODER_STEM = "Fun-ASR-Nano-Decoder"
TOKENS_NAME = "tokens.txt"
FEATURE_DIM = 560  # 80 mel bins x 7 stacked frames (LFR)
WINDOW_SECONDS = 60
CTC_FRAME_SECONDS = 0.06
SPECIAL_NAMES = ("<|im_start|>", "<|im_end|>", "<|endoftext|>")

#: When a folder holds several variants of a file, the most faithful one is used.
ONNX_PREFERENCE = ("fp32", "fp16", "int8", "int4")
GGUF_PREFERENCE = ("f32", "fp32", "bf16", "f16", "fp16", "q8_0", "q6_k", "q5_k", "q5_k_m", "q4_k", "q4_k_m")
_FLOATS = ("float", "float16")
_INTS = ("int64", "int32")


@dataclass(frozen=True)
class TensorSpec:
    """One graph input or output: dtype ("float", "float16", "int64", ...) and shape (int or dim name)."""

    name: str
    dtype: str
    shape: tuple[int | str | None, ...]


@dataclass(frozen=True)
class GraphIO:
    inputs: dict[str, TensorSpec]
    outputs: list[TensorSpec]
    external: tuple[str, ...]  # external-data files the graph refers to, relative to it


@dataclass(frozen=True)
class DecoderInfo:
    architecture: str
    n_embd: int
    n_layer: int
    vocab_size: int
    eos: int
    special: dict[str, int]


# ---------------------------------------------------------------- finding files


def _variant(path: Path, stem: str, suffix: str) -> str:
    return path.name[len(stem) + 1:-len(suffix)]


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
    return src.is_dir() and _pick(src, ENCODER_STEM, ".onnx", ONNX_PREFERENCE) is not None and \
        _pick(src, DECODER_STEM, ".gguf", GGUF_PREFERENCE) is not None


# ---------------------------------------------------------------- reading graphs


def _onnx_module() -> Any:
    """`onnx` when installed (the export extra); None on a runtime-only install."""
    try:
        import onnx
    except ImportError:
        return None
    return onnx


def _dtype_name(text: str) -> str:
    text = text.lower()
    if text.startswith("tensor(") and text.endswith(")"):
        text = text[7:-1]
    return {"float32": "float", "double": "float64"}.get(text, text)


def _read_with_onnx(onnx: Any, path: Path) -> GraphIO:
    model = onnx.load(str(path), load_external_data=False)

    def spec(value: Any) -> TensorSpec:
        tensor = value.type.tensor_type
        dims = tuple(d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in tensor.shape.dim)
        return TensorSpec(value.name, _dtype_name(onnx.TensorProto.DataType.Name(tensor.elem_type)), dims)

    initializers = {t.name for t in model.graph.initializer}
    external: list[str] = []
    for tensor in model.graph.initializer:
        if tensor.data_location == onnx.TensorProto.EXTERNAL:
            location = {e.key: e.value for e in tensor.external_data}.get("location", "")
            if location and location not in external:
                external.append(location)
    inputs = {v.name: spec(v) for v in model.graph.input if v.name not in initializers}
    return GraphIO(inputs, [spec(v) for v in model.graph.output], tuple(external))


def _read_with_ort(path: Path) -> GraphIO:
    """Fallback without `onnx`: ONNX Runtime loads the graph (weights included) and reports its I/O."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    opts.log_severity_level = 3
    session = ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])

    def spec(arg: Any) -> TensorSpec:
        return TensorSpec(arg.name, _dtype_name(arg.type), tuple(arg.shape))

    # ONNX Runtime does not say which external-data files it read; take the usual names.
    candidates = (f"{path.name}.data", f"{path.name}_data", f"{path.stem}.data", f"{path.stem}.onnx_data")
    external = tuple(c for c in candidates if (path.parent / c).is_file())
    return GraphIO({a.name: spec(a) for a in session.get_inputs()}, [spec(a) for a in session.get_outputs()],
                   external)


def read_graph_io(path: Path) -> GraphIO:
    """Inputs, outputs and external-data files of an ONNX graph; ModelError when unreadable."""
    onnx = _onnx_module()
    try:
        io = _read_with_onnx(onnx, path) if onnx is not None else _read_with_ort(path)
    except Exception as exc:  # protobuf / ORT errors have no common base class
        raise ModelError(f"{path.name}: not a readable ONNX model ({str(exc)[:200]})") from None
    for rel in io.external:
        target = (path.parent / rel).resolve()
        if not target.is_relative_to(path.parent.resolve()) or not target.is_file():
            raise ModelError(f"{path.name}: its weights file {rel} is missing or outside the folder")
    return io


def _describe(specs: Any) -> str:
    return ", ".join(f"{s.name} {s.dtype}{list(s.shape)}" for s in specs) or "none"


def _static(dim: int | str | None) -> int | None:
    return dim if isinstance(dim, int) and dim > 0 else None


def check_encoder(path: Path, io: GraphIO) -> dict[str, Any]:
    """The encoder contract: lfr_feat [B|1, T, 560] + mask [B|1, T] in; enc_output, adaptor_output out."""
    def bad(what: str) -> ModelError:
        return ModelError(f"{path.name}: {what}; Tingji needs inputs lfr_feat [batch, frames, {FEATURE_DIM}] and "
                          "mask [batch, frames], outputs enc_output and adaptor_output "
                          f"(this graph: inputs {_describe(io.inputs.values())}; outputs {_describe(io.outputs)})")

    feat, mask = io.inputs.get("lfr_feat"), io.inputs.get("mask")
    if feat is None or mask is None:
        raise bad("the encoder does not take LFR features and a mask")
    if set(io.inputs) != {"lfr_feat", "mask"}:
        raise bad(f"unexpected encoder inputs {sorted(set(io.inputs) - {'lfr_feat', 'mask'})}")
    if feat.dtype not in _FLOATS or mask.dtype not in _FLOATS:
        raise bad("lfr_feat and mask must be float or float16")
    if len(feat.shape) != 3 or feat.shape[2] != FEATURE_DIM or _static(feat.shape[0]) not in (None, 1):
        raise bad(f"lfr_feat has shape {list(feat.shape)}")
    if len(mask.shape) != 2:
        raise bad(f"mask has shape {list(mask.shape)}")
    if [o.name for o in io.outputs] != ["enc_output", "adaptor_output"]:
        raise bad("the outputs are not enc_output, adaptor_output (in that order)")
    enc, adaptor = io.outputs
    enc_dim, llm_dim = _static(enc.shape[-1]) if enc.shape else None, \
        _static(adaptor.shape[-1]) if adaptor.shape else None
    if len(enc.shape) != 3 or len(adaptor.shape) != 3 or enc_dim is None or llm_dim is None:
        raise bad("the output widths are not fixed in the graph")
    return {
        "input_size": FEATURE_DIM, "encoder_dim": enc_dim, "llm_dim": llm_dim,
        "inputs": ["lfr_feat", "mask"], "outputs": ["enc_output", "adaptor_output"],
        "input_dtype": "fp16" if feat.dtype == "float16" else "fp32",
        "dim_names": _dim_names(feat.shape),
    }


def _dim_names(shape: tuple[int | str | None, ...]) -> list[str | None]:
    """Names of the symbolic batch and frame dims (the engine pins them on DirectML)."""
    return [d if isinstance(d, str) else None for d in shape[:2]]


def check_ctc(path: Path, io: GraphIO, enc_dim: int) -> dict[str, Any]:
    """The CTC contract: enc_output [B, T, enc_dim] (+ optional mask) in; top-k log-probs and ids out."""
    def bad(what: str) -> ModelError:
        return ModelError(f"{path.name}: {what}; Tingji needs input enc_output [batch, frames, {enc_dim}] "
                          "(and optionally mask), outputs top-k log-probs and top-k ids "
                          f"(this graph: inputs {_describe(io.inputs.values())}; outputs {_describe(io.outputs)})")

    enc = io.inputs.get("enc_output")
    if enc is None or not set(io.inputs) <= {"enc_output", "mask"}:
        raise bad("the CTC head does not take enc_output")
    if enc.dtype not in _FLOATS or len(enc.shape) != 3 or _static(enc.shape[2]) not in (None, enc_dim):
        raise bad(f"enc_output is {enc.dtype}{list(enc.shape)}")
    if "mask" in io.inputs and (io.inputs["mask"].dtype not in _FLOATS or len(io.inputs["mask"].shape) != 2):
        raise bad("the mask is not a float [batch, frames] input")
    if len(io.outputs) != 2 or io.outputs[0].dtype not in _FLOATS or io.outputs[1].dtype not in _INTS:
        raise bad("the outputs are not (top-k log-probs, top-k ids)")
    if any(len(o.shape) != 3 for o in io.outputs):
        raise bad("the outputs are not [batch, frames, k]")
    return {"top_k": _static(io.outputs[1].shape[2]), "mask": "mask" in io.inputs,
            "input_dtype": "fp16" if enc.dtype == "float16" else "fp32", "dim_names": _dim_names(enc.shape)}


# ---------------------------------------------------------------- reading the decoder


def read_decoder_info(path: Path) -> DecoderInfo:
    """Architecture, widths and special-token ids from a GGUF header (llama.cpp, vocabulary only)."""
    import llama_cpp

    from ..engine.decoder import _init_llama

    _init_llama()
    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    model = llama_cpp.llama_model_load_from_file(str(path).encode("utf-8"), params)
    if not model:
        raise ModelError(f"{path.name}: llama.cpp cannot read it (not a GGUF decoder, or of an unknown kind)")
    try:
        buf = ctypes.create_string_buffer(512)

        def meta(key: str) -> str | None:
            n = llama_cpp.llama_model_meta_val_str(model, key.encode(), buf, len(buf))
            return buf.value.decode("utf-8", "replace") if n >= 0 else None

        arch = meta("general.architecture") or "?"

        def number(key: str) -> int:
            text = meta(f"{arch}.{key}")
            if text is None or not text.strip().isdigit():
                raise ModelError(f"{path.name}: the GGUF header has no {arch}.{key}")
            return int(text)

        if arch != "qwen3":
            raise ModelError(f"{path.name}: decoder architecture is {arch}, Tingji needs qwen3 (Qwen3-0.6B)")
        vocab = llama_cpp.llama_model_get_vocab(model)
        special: dict[str, int] = {}
        ids = (llama_cpp.llama_token * 8)()
        for text in SPECIAL_NAMES:
            raw = text.encode()
            n = llama_cpp.llama_tokenize(vocab, raw, len(raw), ids, len(ids), False, True)
            if n != 1 or llama_cpp.llama_vocab_get_text(vocab, ids[0]) != raw:
                raise ModelError(f"{path.name}: the decoder vocabulary has no {text} token")
            special[text] = int(ids[0])
        return DecoderInfo(arch, number("embedding_length"), number("block_count"),
                           int(llama_cpp.llama_vocab_n_tokens(vocab)), int(llama_cpp.llama_vocab_eos(vocab)),
                           special)
    finally:
        llama_cpp.llama_model_free(model)


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
        raise ModelError(f"{src.name}: unreadable ({exc})") from None
    for number, line in enumerate(lines, 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) > 2 or not parts[-1].isdigit():
            raise ModelError(f"{src.name}: line {number} is not `token id`")
        piece = _token_bytes(parts[0]) if len(parts) == 2 else b""
        if re.fullmatch(rb"<\|.*\|>|<blk>|<blank>|<unk>|<pad>", piece):
            piece = b""
        table[int(parts[-1])] = piece
    size = len(table)
    if size < 2 or sorted(table) != list(range(size)):
        raise ModelError(f"{src.name}: token ids are not 0..{max(table, default=0)} without gaps")
    text_tokens = sum(1 for piece in table.values() if piece)
    dst.write_text("".join(f"{base64.b64encode(table[i]).decode()} {i}\n" for i in range(size)), encoding="ascii")
    return size, text_tokens


# ---------------------------------------------------------------- placing files


def _place(src: Path, dst: Path) -> None:
    """Hard-link (instant, no extra space) when on one file system, else copy."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def _place_all(pairs: list[tuple[Path, Path]], progress: StageProgress | None,
               cancel: threading.Event | None) -> None:
    total = sum(s.stat().st_size for s, _ in pairs)
    done = 0
    start = time.monotonic()
    for src, dst in pairs:
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        _place(src, dst)
        done += src.stat().st_size
        if progress is not None:
            elapsed = time.monotonic() - start
            progress("copying", done, total, done / elapsed if elapsed > 0 else 0.0)


# ---------------------------------------------------------------- the manifest


def manifest_for_peer_release(src_dir: str | os.PathLike[str], out_dir: str | os.PathLike[str], *,
                              progress: StageProgress | None = None,
                              cancel: threading.Event | None = None) -> Path:
    """Make `out_dir` (new or empty) a Tingji model folder from the peer release in `src_dir`.

    Everything is checked before a byte is placed; on any failure `out_dir`
    is removed again. Returns `out_dir`.
    """
    from ..engine.frontend import FrontendConfig, num_lfr_frames
    from ..engine.prompt import DEFAULT_PIECES, build_prompt

    src, out = Path(src_dir), Path(out_dir)
    if not src.is_dir():
        raise ModelError(f"{src}: folder not found")
    encoder = _pick(src, ENCODER_STEM, ".onnx", ONNX_PREFERENCE)
    decoder = _pick(src, DECODER_STEM, ".gguf", GGUF_PREFERENCE)
    ctc = _pick(src, CTC_STEM, ".onnx", ONNX_PREFERENCE)
    tokens = src / TOKENS_NAME
    if encoder is None or decoder is None:
        missing = " and ".join(n for n, p in ((f"{ENCODER_STEM}.*.onnx", encoder),
                                              (f"{DECODER_STEM}.*.gguf", decoder)) if p is None)
        raise ModelError(f"{src}: not a Tingji model (no manifest.json) nor a Fun-ASR-Nano release "
                         f"(no {missing})")
    if ctc is not None and not tokens.is_file():
        raise ModelError(f"{src}: {ctc.name} needs {TOKENS_NAME}, which is missing")

    enc_io = read_graph_io(encoder)
    enc_info = check_encoder(encoder, enc_io)
    ctc_io = read_graph_io(ctc) if ctc is not None else None
    ctc_info = check_ctc(ctc, ctc_io, enc_info["encoder_dim"]) if ctc is not None and ctc_io is not None else None
    dec = read_decoder_info(decoder)
    if dec.n_embd != enc_info["llm_dim"]:
        raise ModelError(f"{decoder.name}: decoder width {dec.n_embd} does not match the adaptor output width "
                         f"{enc_info['llm_dim']} of {encoder.name}: they are not from the same model")

    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ModelError(f"{out}: already exists and is not empty")
    out.mkdir(parents=True, exist_ok=True)
    try:
        roles = {"encoder": encoder, **({"ctc": ctc} if ctc is not None else {}), "decoder": decoder}
        placed: dict[Path, Path] = {}  # destination -> source (a shared weights file is placed once)
        for path in roles.values():
            placed[out / path.name] = path
        for path, io in ((encoder, enc_io), (ctc, ctc_io)):
            for rel in io.external if path is not None and io is not None else ():
                placed[out / rel] = src / rel
        _place_all([(s, d) for d, s in placed.items()], progress, cancel)

        files = {role: mf.file_entry(out, out / path.name) for role, path in roles.items()}
        for role, io in (("encoder", enc_io), ("ctc", ctc_io)):
            for n, rel in enumerate(io.external if io is not None else (), 1):
                files[f"{role}_data" if n == 1 else f"{role}_data_{n}"] = mf.file_entry(out, out / rel)
        ctc_extra: dict[str, Any] = {}
        if ctc is not None and ctc_info is not None:
            vocab_size, text_tokens = convert_tokens(tokens, out / TOKENS_NAME)
            files["tokens"] = mf.file_entry(out, out / TOKENS_NAME)
            ctc_extra = {"vocab_size": vocab_size, "blank_id": vocab_size - 1, "text_tokens": text_tokens,
                         "frame_seconds": CTC_FRAME_SECONDS, **ctc_info}

        frontend = FrontendConfig()
        prompt = build_prompt(DEFAULT_PIECES)
        im_end, endoftext = dec.special["<|im_end|>"], dec.special["<|endoftext|>"]
        manifest = mf.Manifest(
            folder=out,
            family=mf.FAMILY,
            files=files,
            window_seconds=WINDOW_SECONDS,
            window_frames=num_lfr_frames(WINDOW_SECONDS * frontend.sample_rate, frontend),
            frontend=frontend.to_dict(),
            prompt={**DEFAULT_PIECES, "default_before": prompt.before, "default_after": prompt.after},
            special_tokens={
                "im_start": dec.special["<|im_start|>"], "im_end": im_end, "endoftext": endoftext,
                "eos_ids": [dec.eos], "stop_ids": sorted({dec.eos, im_end, endoftext}),
                "vocab_size": dec.vocab_size,
            },
            source={"kind": "peer-release", "folder": src.name,
                    "files": {role: path.name for role, path in roles.items()}},
            extra={
                "encoder": {"precision": _variant(encoder, ENCODER_STEM, ".onnx"), **enc_info},
                # The official model family runs its LLM in bf16: the audio rows are rounded to it.
                "decoder": {"quant": _variant(decoder, DECODER_STEM, ".gguf"), "n_embd": dec.n_embd,
                            "n_layer": dec.n_layer, "input_dtype": "bf16"},
                "ctc": ctc_extra,
            },
        )
        mf.save_manifest(manifest)
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)
        raise
    return out
