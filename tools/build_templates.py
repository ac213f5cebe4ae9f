#!/usr/bin/env python3
"""Build the graph templates the app converts official checkpoints with, without torch (issue 44).

    python3 tools/build_templates.py [--only RELEASE ...] [--precisions fp32,fp16,int8] [--out DIR]

For each released configuration in RELEASES, the family's tiny-checkpoint tool makes a
random-weight checkpoint of the real sizes (`--full-size`), which is converted with torch
while recording (`tingji.export.templates.recording`, one probe per graph: the tests check
the two-probe rules and byte equality at test size). The templates land in
app/tingji/export/graph_templates/, with `index.json` naming the torch release and the digest
of the exporter sources they came from; tests/export/test_graph_templates.py fails when either
no longer matches, so a change to a graph's definition cannot ship stale templates.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "app"))

from tingji.export import export_model, templates  # noqa: E402

# release -> (family, extra arguments of tools/make_tiny_checkpoint.py)
RELEASES: dict[str, tuple[str, list[str]]] = {
    "fun-asr-nano-2512": ("fun-asr-nano", []),
    "sense-voice-small": ("sense-voice-small", []),
    "qwen3-asr-0.6b": ("qwen3-asr", ["--size", "0.6b"]),
    "qwen3-asr-1.7b": ("qwen3-asr", ["--size", "1.7b"]),
    "paraformer-zh": ("paraformer", ["--variant", "bicif"]),
    "paraformer-plain": ("paraformer", ["--variant", "plain"]),
    "ct-punc-zh": ("ct-punc", []),
    "campplus": ("campplus", []),
}
PRECISIONS = ("fp32", "fp16", "int8")
INDEX = "index.json"
EXPORT = ROOT / "app" / "tingji" / "export"


def source_files() -> list[Path]:
    """The exporter sources a graph's template depends on: the torch modules and the code that
    exports them (the template format is `templates.FORMAT`, in every key)."""
    shared = [EXPORT / name for name in ("layers.py", "sanm.py", "sanm_dims.py", "torch_export.py", "onnx_tools.py")]
    family = [
        p for name in ("dims.py", "modules.py", "graphs.py", "convert.py") for p in sorted(EXPORT.glob(f"*/{name}"))
    ]
    return sorted(shared + family)


def sources_digest() -> str:
    digest = hashlib.sha256()
    for path in source_files():
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
        digest.update(path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return digest.hexdigest()


def _no_decoder(*_args: object, **kwargs: object) -> Path:
    """Stands in for the LLM's GGUF while templates are made: it has no graph, and writing a
    full-size decoder would be most of the time."""
    path = Path(str(_args[3] if len(_args) > 3 else kwargs["out_dir"])) / "decoder.skipped.gguf"
    path.write_bytes(b"")
    return path


def _skip_decoders() -> None:
    import importlib

    for name in ("tingji.export.gguf_tools", "tingji.export.qwen3_asr.convert"):
        module = importlib.import_module(name)
        if hasattr(module, "export_decoder"):
            module.export_decoder = _no_decoder


def build(release: str, precisions: list[str], out: Path, work: Path) -> None:
    family, args = RELEASES[release]
    checkpoint = work / f"{release}-checkpoint"
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, str(ROOT / "tools" / "make_tiny_checkpoint.py"), "--family", family, "--full-size"]
        + args
        + ["--out", str(checkpoint), "--seed", "0"],
        check=True,
    )
    print(f"{release}: checkpoint in {time.perf_counter() - started:.0f} s", flush=True)
    for precision in precisions:
        started = time.perf_counter()
        folder = work / f"{release}-{precision}"
        with templates.recording(out, check=False):
            export_model(checkpoint, folder, precision=precision, decoder_quant="f16", progress=lambda _m: None)
        shutil.rmtree(folder)
        print(f"{release} {precision}: {time.perf_counter() - started:.0f} s", flush=True)
    shutil.rmtree(checkpoint)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", choices=sorted(RELEASES), help="these releases (default: all)")
    ap.add_argument("--precisions", default=",".join(PRECISIONS))
    ap.add_argument("--out", type=Path, default=templates.BUILTIN)
    ap.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    ap.add_argument(
        "--index-only",
        action="store_true",
        help="only write index.json for the templates there: after a change of the sources that alters no graph",
    )
    args = ap.parse_args(argv)
    import torch

    args.out.mkdir(parents=True, exist_ok=True)
    _skip_decoders()
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        for release in [] if args.index_only else args.only or sorted(RELEASES):
            build(release, args.precisions.split(","), args.out, Path(tmp))
    index = {"torch": torch.__version__.split("+")[0], "sources": sources_digest(), "format": templates.FORMAT}
    (args.out / INDEX).write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
