"""What a peer release's files declare: ONNX graph inputs/outputs and the GGUF decoder's header.

Reading needs only the runtime: graphs are read with `onnx` when it is
installed (headers only, external weights are not loaded), else with ONNX
Runtime; the GGUF header with llama.cpp (`vocab_only`). Nothing here judges
what was read: that is `peer_contract`.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ModelError
from . import messages

SPECIAL_NAMES = ("<|im_start|>", "<|im_end|>", "<|endoftext|>")
_AUTO: Any = object()


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


# ---------------------------------------------------------------- reading graphs


def onnx_module() -> Any:
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
    return GraphIO({a.name: spec(a) for a in session.get_inputs()}, [spec(a) for a in session.get_outputs()], external)


def read_graph_io(path: Path, onnx: Any = _AUTO) -> GraphIO:
    """Inputs, outputs and external-data files of an ONNX graph; ModelError when unreadable.

    `onnx`: the `onnx` module to read with, or None for ONNX Runtime; by
    default `onnx` when it is installed. A caller passes it to decide once for
    several graphs (and so that a test can take the runtime-only path).
    """
    if onnx is _AUTO:
        onnx = onnx_module()
    try:
        io = _read_with_onnx(onnx, path) if onnx is not None else _read_with_ort(path)
    except Exception as exc:  # protobuf / ORT errors have no common base class
        raise ModelError(messages.ONNX_UNREADABLE, name=path.name, reason=str(exc)[:200]) from None
    for rel in io.external:
        target = (path.parent / rel).resolve()
        if not target.is_relative_to(path.parent.resolve()) or not target.is_file():
            raise ModelError(messages.WEIGHTS_MISSING, name=path.name, file=rel)
    return io


# ---------------------------------------------------------------- reading the decoder


def read_decoder_info(path: Path) -> DecoderInfo:
    """Architecture, widths and special-token ids from a GGUF header (llama.cpp, vocabulary only)."""
    from ..engine.decoder import _init_llama

    _init_llama()  # first: it picks the library set llama_cpp loads
    import llama_cpp

    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    model = llama_cpp.llama_model_load_from_file(str(path).encode("utf-8"), params)
    if not model:
        raise ModelError(messages.GGUF_UNREADABLE, name=path.name)
    try:
        buf = ctypes.create_string_buffer(512)

        def meta(key: str) -> str | None:
            n = llama_cpp.llama_model_meta_val_str(model, key.encode(), buf, len(buf))
            return buf.value.decode("utf-8", "replace") if n >= 0 else None

        arch = meta("general.architecture") or "?"

        def number(key: str) -> int:
            text = meta(f"{arch}.{key}")
            if text is None or not text.strip().isdigit():
                raise ModelError(messages.GGUF_NO_KEY, name=path.name, key=f"{arch}.{key}")
            return int(text)

        if arch != "qwen3":
            raise ModelError(messages.GGUF_ARCH, name=path.name, arch=arch)
        vocab = llama_cpp.llama_model_get_vocab(model)
        special: dict[str, int] = {}
        ids = (llama_cpp.llama_token * 8)()
        for text in SPECIAL_NAMES:
            raw = text.encode()
            n = llama_cpp.llama_tokenize(vocab, raw, len(raw), ids, len(ids), False, True)
            if n != 1 or llama_cpp.llama_vocab_get_text(vocab, ids[0]) != raw:
                raise ModelError(messages.GGUF_NO_TOKEN, name=path.name, token=text)
            special[text] = int(ids[0])
        return DecoderInfo(
            arch,
            number("embedding_length"),
            number("block_count"),
            int(llama_cpp.llama_vocab_n_tokens(vocab)),
            int(llama_cpp.llama_vocab_eos(vocab)),
            special,
        )
    finally:
        llama_cpp.llama_model_free(model)
