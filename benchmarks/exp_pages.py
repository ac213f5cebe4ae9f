#!/usr/bin/env python3
"""Experiment: one decoder file generating from 4 KB pages and from 2 MB pages (engine/pages.py).

    python benchmarks/exp_pages.py --gguf benchmarks/.cache/full/int8-q5_k/decoder.q5_k.gguf [--pairs 9]

Two byte-identical copies of the GGUF are written 1 MB at a time (as a
copy or an export leaves them: small page-cache folios). One is opened as it
is, the other after `map_in_large_pages`; both stay open and generate in
turns, the order swapped every pair, so machine drift falls on both. Prints
ms per token, how much of each mapping the kernel gave 2 MB pages, and the
machine (CPU flags).
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import emit_json, machine  # noqa: E402


def _pmd_kb(path: Path) -> int:
    """2 MB-mapped kB of this process's mappings of `path`."""
    total, current = 0, False
    for line in open("/proc/self/smaps", encoding="ascii", errors="replace"):
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            current = line.rstrip().endswith(str(path))
        elif current and line.startswith("FilePmdMapped:"):
            total += int(line.split()[1])
    return total


def main(argv: list[str] | None = None) -> int:
    import numpy as np

    import tingji.engine.pages as pages
    from tingji.engine.decoder import open_decoder
    from tingji.engine.generation import DecodeOptions

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gguf", type=Path, required=True)
    ap.add_argument("--pairs", type=int, default=9)
    ap.add_argument("--tokens", type=int, default=24)
    ap.add_argument("--prompt-rows", type=int, default=45)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(dir=args.gguf.parent) as tmp:
        copies = {"4k": Path(tmp) / "small.gguf", "2m": Path(tmp) / "large.gguf"}
        for path in copies.values():
            with open(args.gguf, "rb") as src, open(path, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
        primed = pages.map_in_large_pages(copies["2m"])
        real = pages.thp_enabled
        pages.thp_enabled = lambda: False  # the 4k copy opens as the cache holds it
        small = open_decoder(copies["4k"], eos_ids=[], n_ctx=256, n_threads=args.threads)
        pages.thp_enabled = real
        large = open_decoder(copies["2m"], eos_ids=[], n_ctx=256, n_threads=args.threads)
        decs = {"4k": small, "2m": large}
        opts = DecodeOptions(max_tokens=args.tokens, guard=False, ignore_eos=True)
        rows = np.random.default_rng(0).standard_normal((args.prompt_rows, small.n_embd)).astype(np.float32) * 0.02
        for d in decs.values():
            d.generate([], rows, [], opts)
        times: dict[str, list[float]] = {k: [] for k in decs}
        for i in range(args.pairs):
            for k in list(decs) if i % 2 == 0 else list(decs)[::-1]:
                times[k].append(decs[k].generate([], rows, [], opts).generate_s / (args.tokens - 1))
        out = {
            "machine": machine(),
            "gguf": str(args.gguf),
            "primed": primed.__dict__ if primed else None,
            "threads": args.threads,
            "tokens": args.tokens,
            "prompt_rows": args.prompt_rows,
        }
        for k, d in decs.items():
            out[k] = {
                "ms_per_token": 1000 * statistics.median(times[k]),
                "pmd_mapped_mb": _pmd_kb(copies[k]) / 1024,
                "raw_ms": [round(1000 * t, 2) for t in times[k]],
            }
            d.close()
        out["speedup_2m_over_4k"] = out["4k"]["ms_per_token"] / out["2m"]["ms_per_token"]
        emit_json(out, None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
