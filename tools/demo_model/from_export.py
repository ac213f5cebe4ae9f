"""The torch demo model rebuilt from an exported folder (fp16 ONNX initializers and the GGUF decoder).

The export renames and transposes weights (`val_26` is an encoder projection's transposed matrix,
LayerNorms are cast copies, the decoder's tensors have llama.cpp names). Rather than restate the
exporter's naming, `load_exported` exports a probe: the same model with every parameter set to
distinct random values, through the same `tingji export-model`. Each exported tensor of the probe is
then found among the probe's parameters by value (as is, or transposed), which names the parameter
the same tensor of the real export holds. Loading is exact: an exported fp16 value is a float32
value, and exporting it again gives the same fp16 value.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from .model import SCAFFOLDING


def exported_tensors(folder: Path) -> dict[str, np.ndarray]:
    """Every floating-point tensor of an export: ONNX initializers (file:name) and GGUF tensors (gguf:name)."""
    import onnx
    from gguf import GGUFReader
    from onnx import numpy_helper

    out: dict[str, np.ndarray] = {}
    for name in ("encoder.fp16.onnx", "ctc.fp16.onnx"):
        model = onnx.load(str(folder / name))
        for init in model.graph.initializer:
            value = numpy_helper.to_array(init, base_dir=str(folder))
            if value.dtype.kind == "f" and value.size > 1:
                out[f"{name}:{init.name}"] = value.astype(np.float32)
    reader = GGUFReader(str(folder / "decoder.f16.gguf"))
    for t in reader.tensors:
        shape = [int(d) for d in reversed(t.shape.tolist())]  # ggml lists dimensions innermost first
        out[f"gguf:{t.name}"] = np.asarray(t.data, dtype=np.float32).reshape(shape)
    return out


def _match(probe: dict[str, np.ndarray], params: dict[str, np.ndarray]) -> dict[str, tuple[str, bool]]:
    """Exported tensor name -> (parameter name, transposed), by value."""
    by_size: dict[int, list[str]] = {}
    for k, v in params.items():
        by_size.setdefault(v.size, []).append(k)
    found: dict[str, tuple[str, bool]] = {}
    for name, value in probe.items():
        for k in by_size.get(value.size, []):
            p = params[k]
            for transposed, candidate in ((False, p), (True, p.T if p.ndim == 2 else None)):
                if candidate is None or (transposed and candidate.shape != value.shape):
                    continue
                if np.allclose(candidate.reshape(value.shape), value, rtol=2e-3, atol=1e-4):
                    found[name] = (k, transposed)
                    break
            if name in found:
                break
    return found


def probe_values(model) -> None:
    """Give every exported parameter of `model` distinct random values (always the same ones)."""
    import torch

    gen = torch.Generator().manual_seed(1234)
    with torch.no_grad():
        for name, p in model.state_dict().items():
            if p.is_floating_point() and not name.startswith(SCAFFOLDING):
                p.copy_(torch.randn(p.shape, generator=gen) * 0.5 + torch.rand(1, generator=gen))


def load_exported(model, folder: Path, write_probe, probe_dir: Path | None = None) -> None:
    """Load an exported demo model's weights into `model` (as `build_model` made it).

    Args:
        model: The torch demo model; its parameters are overwritten.
        folder: An exported demo model (`tingji export-model` output, fp16 encoder, f16 decoder).
        write_probe: `write_probe(model, out_folder)` exports `model` the way the real export was made.
        probe_dir: Where the probe export is kept and reused (it takes a minute); None: a temporary folder.

    Raises:
        RuntimeError: A parameter the export holds was not found in it.
    """
    import torch

    real = {k: v.detach().clone() for k, v in model.state_dict().items()}
    with torch.no_grad():
        probe_values(model)
        params = {k: v.float().numpy().copy() for k, v in model.state_dict().items() if not k.startswith(SCAFFOLDING)}
        if probe_dir is not None and (probe_dir / "manifest.json").exists():
            probe = exported_tensors(probe_dir)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                where = probe_dir or Path(tmp) / "probe"
                write_probe(model, where)
                probe = exported_tensors(where)
    found = _match(probe, params)
    target = exported_tensors(folder)
    loaded: dict[str, torch.Tensor] = {}
    for part in {k.split(":")[0] for k in probe}:
        # The exporter's ONNX names are not stable across its versions (`val_272` then, `val_281` now),
        # but the order and shapes of the tensors are: pair the probe's and the folder's by position.
        ours = [k for k in probe if k.startswith(part + ":")]
        theirs = [k for k in target if k.startswith(part + ":")]
        if [probe[k].shape for k in ours] != [target[k].shape for k in theirs]:
            raise RuntimeError(f"{folder}: {part} does not hold the tensors the exporter writes for this model")
        for name, source in zip(ours, theirs):
            if name not in found:
                continue  # a constant of the graph, not a weight
            param, transposed = found[name]
            shape = params[param].shape
            value = target[source]
            value = value.reshape(shape[::-1]).T if transposed else value.reshape(shape)
            loaded[param] = torch.from_numpy(np.ascontiguousarray(value))
    tied = "llm.lm_head.weight"
    if tied in params and tied not in loaded and "llm.model.embed_tokens.weight" in loaded:
        loaded[tied] = loaded["llm.model.embed_tokens.weight"]
    missing = [k for k, v in params.items() if k not in loaded and v.size > 1]
    if missing:
        raise RuntimeError(f"not found in the export: {missing[:8]} ({len(missing)} in all)")
    with torch.no_grad():
        state = model.state_dict()
        for k, v in real.items():
            state[k].copy_(loaded[k] if k in loaded else v)


def round_as_exported(model) -> None:
    """Round `model`'s weights to what the export keeps: fp16, but for the LLM's norms (fp32 in the GGUF).

    Afterwards `model` holds exactly what `load_exported` reads back from its export (checked on a probe
    of random weights: 149 tensors fp16, the LLM's 13 norm weights fp32, nothing else), so a stage that
    starts here trains the same model in a whole run and from a committed export (`--from-export`).
    """
    import torch

    with torch.no_grad():
        for name, p in model.state_dict().items():
            if not p.is_floating_point() or name.startswith(SCAFFOLDING):
                continue
            if name.startswith("llm.") and p.ndim == 1:
                continue
            p.copy_(p.half().float())
