#!/usr/bin/env python3
"""FunASR's own C++ llama.cpp runtime (`llama-funasr-cli`) beside Tingji, same weights, same work.

    python benchmarks/run.py --funasr-runtime DIR --funasr-llama-src LLAMA_DIR [--quick]
    python benchmarks/run.py --only funasr_runtime --funasr-runtime DIR ...   # this peer and Tingji e2e only

DIR is a checkout of FunASR's GitHub repository, or its `runtime/llama.cpp`
folder (the one holding the runtime's CMakeLists.txt). Nothing is written
there: the folder is copied (changed files only) into a work folder
(`--funasr-runtime-work`, default `<cache>/funasr-runtime`), where the CLI
gets a few small build-time edits and is built (cached; only the CLI is
rebuilt when the edits change). A prebuilt binary is not accepted: the
shipped CLI has no thread option (encoder threads fixed at 8, the LLM on
llama.cpp's default of 4), always stops at end of text and prints no
per-stage timings, so it cannot do the same work as Tingji's stage.

The edits (PATCHES below; each must match exactly once, or the build stops
and says which one no longer fits) only add environment switches, so the
built binary still behaves as shipped when they are unset:

* `TJB_THREADS=N`: encoder and LLM (generation and batch) threads;
* `TJB_IGNORE_EOS=1`: do not stop at end of text (the `-n` budget is then
  generated in every window, as Tingji's forced-budget run does);
* `TJB_NO_EXTRA_BUFTS=1`: load the LLM without llama.cpp's "extra" CPU buffer
  types (AMX / repacked weights), as Tingji's decoder does
  (tingji.engine.decoder): on an AMX CPU the shipped setting crashes inside
  ggml_backend_amx_mul_mat on q8_0 weights, and both sides then run the
  same kernels;
* `[tjb]` lines on stderr: load time, and per window the fbank, encoder,
  prefill and generation times with the row and token counts.

`LLAMA_DIR` is the llama.cpp source the runtime is built against
(`-DFETCHCONTENT_SOURCE_DIR_LLAMA`); use the one vendored in the
llama-cpp-python sdist Tingji runs, so both sides have the same ggml.
Without it the runtime's CMakeLists fetches its own pinned commit (network).

The encoder+adaptor GGUFs come from the benchmark's `model.pt` through the
runtime's own `fun-asr-nano/export_encoder_gguf.py` (q8_0, f16 and f32).
That script writes the full-size architecture as fixed metadata; for the
tiny model the block counts and sizes are set from the checkpoint's
config.yaml afterwards (recorded as `metadata_fixed`). The LLM half is
Tingji's own decoder GGUF, unchanged.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SAMPLE_RATE = 16000
CLI = "llama-funasr-cli"
EXPORT_SCRIPT = "fun-asr-nano/export_encoder_gguf.py"
CLI_SOURCE = "fun-asr-nano/funasr-cli/funasr-cli.cpp"
WTYPES = ("q8_0", "f16", "f32")  # what the export script offers; q8_0 is the one run end to end
PRIMARY_WTYPE = "q8_0"

# -- build-time edits ---------------------------------------------------------------------
# (what, pattern, replacement, where): `where` is "sub" (replace the match) or "before"/"after"
# (insert a line before/after the line holding the match). Anchors are kept short: a call's name
# or a statement the edit needs to sit next to.

HELPERS = r"""
// ---- added by Tingji's benchmarks/funasr_runtime.py (build-time edit, see that file) ----
#include <cstdlib>
static int tjb_threads(int dflt) {
    const char* s = getenv("TJB_THREADS"); int n = s ? atoi(s) : 0; return n > 0 ? n : dflt; }
static bool tjb_ignore_eos() { const char* s = getenv("TJB_IGNORE_EOS"); return s && *s && *s != '0'; }
static int tjb_window = 0;
// ---- end of the added lines ----
"""

PATCHES: list[tuple[str, str, str, str]] = [
    ("helpers after the last #include", r'#include\s+"funasr_srt\.h"', HELPERS, "after"),
    (
        "encoder threads",
        r"ggml_backend_cpu_set_n_threads\(\s*be\s*,\s*(\d+)\s*\)",
        r"ggml_backend_cpu_set_n_threads(be,tjb_threads(\1))",
        "sub",
    ),
    (
        "no extra CPU buffer types",
        r"llama_model_params\s+(\w+)\s*=\s*llama_model_default_params\(\)\s*;",
        r'\g<0> if(getenv("TJB_NO_EXTRA_BUFTS")) \1.use_extra_bufts=false;',
        "sub",
    ),
    (
        "LLM threads",
        r"llama_context_params\s+(\w+)\s*=\s*llama_context_default_params\(\)\s*;",
        r"\g<0> \1.n_threads=tjb_threads(\1.n_threads); \1.n_threads_batch=tjb_threads(\1.n_threads_batch);",
        "sub",
    ),
    (
        "load time",
        r"=\s*llama_init_from_model\(",
        'fprintf(stderr,"[tjb] load_s=%.6f\\n",(ggml_time_us()-t0)/1e6);',
        "after",
    ),
    ("fbank start", r"=\s*compute_fbank\(", "int64_t tjb_a=ggml_time_us();", "before"),
    ("encoder start", r"=\s*run_encoder\(", "int64_t tjb_b=ggml_time_us();", "before"),
    ("encoder end", r"=\s*run_encoder\(", "int64_t tjb_c=ggml_time_us();", "after"),
    ("prefill start", r"llama_memory_clear\(", "int64_t tjb_d=ggml_time_us();", "before"),
    (
        "prefill end (after the first token's sampling)",
        r"llama_token\s+tk\s*=\s*llama_sampler_sample\(",
        "int64_t tjb_e=ggml_time_us(); int tjb_n=0;",
        "after",
    ),
    ("ignore end of text", r"if\s*\(\s*llama_vocab_is_eog\(", "if(!tjb_ignore_eos()&&llama_vocab_is_eog(", "sub"),
    ("count generation steps", r"decode_batch\(\s*ctx\s*,\s*1\s*,", "tjb_n++;", "before"),
    (
        "window timings",
        r"if\s*\(\s*srt_mode\s*\)\s*\{\s*$",
        'fprintf(stderr,"[tjb] window=%d audio_s=%.3f fbank_s=%.6f enc_s=%.6f enc_frames=%d prefill_s=%.6f '
        'prefill_rows=%d gen_s=%.6f gen_steps=%d\\n",tjb_window++,len/16000.0,(tjb_b-tjb_a)/1e6,(tjb_c-tjb_b)/1e6,T,'
        "(tjb_e-tjb_d)/1e6,(int)(pre.size()+n_aud+suf.size()),(ggml_time_us()-tjb_e)/1e6,tjb_n);",
        "before",
    ),
]


def patch_cli(text: str) -> str:
    """The CLI's source with the edits applied; ValueError naming an edit whose anchor is not found once."""
    lines = text.split("\n")
    for what, pattern, repl, where in PATCHES:
        rx = re.compile(pattern)
        hits = [i for i, ln in enumerate(lines) if rx.search(ln)]
        if len(hits) != 1:
            raise ValueError(
                f"funasr-cli.cpp changed: the edit '{what}' expects one line matching {pattern!r}, found {len(hits)}"
            )
        i = hits[0]
        if where == "sub":
            lines[i] = rx.sub(repl, lines[i], count=1)
        else:
            indent = re.match(r"\s*", lines[i]).group(0)
            new = [indent + r if r.strip() else r for r in repl.split("\n")]
            lines[i + (1 if where == "after" else 0) : i + (1 if where == "after" else 0)] = new
    return "\n".join(lines)


# -- timing lines ------------------------------------------------------------------------------

_KV = re.compile(r"(\w+)=([-+0-9.eE]+)")


def parse_stderr(text: str) -> dict[str, Any]:
    """The CLI's `[tjb]` lines (added by the edits) and its own `[done] X s` line."""
    out: dict[str, Any] = {"load_s": None, "windows": [], "done_s": None}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("[tjb]"):
            kv = {k: (int(v) if re.fullmatch(r"-?\d+", v) else float(v)) for k, v in _KV.findall(line)}
            if "window" in kv:
                out["windows"].append(kv)
            elif "load_s" in kv:
                out["load_s"] = kv["load_s"]
        else:
            m = re.match(r"\[done\]\s+([0-9.]+)s", line)
            if m:
                out["done_s"] = float(m.group(1))
    w = out["windows"]
    if w:
        tot = {
            k: round(sum(x[k] for x in w), 6)
            for k in ("fbank_s", "enc_s", "prefill_s", "gen_s", "gen_steps", "prefill_rows")
        }
        tot["gen_steps_per_s"] = tot["gen_steps"] / tot["gen_s"] if tot["gen_s"] > 0 else None
        tot["prefill_rows_per_s"] = tot["prefill_rows"] / tot["prefill_s"] if tot["prefill_s"] > 0 else None
        out["totals"] = tot
    return out


def parse_time_v(text: str) -> dict[str, Any]:
    """`/usr/bin/time -v` output: peak RSS (MB), wall and CPU seconds."""
    out: dict[str, Any] = {}
    for line in text.splitlines():
        key, _, val = line.strip().rpartition(": ")
        if key == "Maximum resident set size (kbytes)":
            out["peak_rss_mb"] = round(int(val) / 1024, 1)
        elif key == "User time (seconds)":
            out["user_s"] = float(val)
        elif key == "System time (seconds)":
            out["sys_s"] = float(val)
    return out


# -- locating, building, converting --------------------------------------------------------------


def runtime_folder(d: Path) -> Path:
    """The `runtime/llama.cpp` folder of a FunASR checkout given as the checkout or that folder."""
    d = Path(d).expanduser().resolve()
    for cand in (d, d / "runtime" / "llama.cpp"):
        if (cand / "CMakeLists.txt").is_file() and (cand / CLI_SOURCE).is_file():
            return cand
    raise FileNotFoundError(
        f"{d}: neither a FunASR checkout nor its runtime/llama.cpp folder (no CMakeLists.txt beside {CLI_SOURCE})"
    )


def _git_commit(d: Path) -> str | None:
    try:
        r = subprocess.run(["git", "-C", str(d), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        return r.stdout.strip() or None if r.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def _sync(src: Path, dst: Path, skip: str) -> int:
    """Copy src's files into dst where missing or different (build folders and `skip` left out); count copied."""
    n = 0
    for root, dirs, files in os.walk(src):
        dirs[:] = [x for x in dirs if not x.startswith(("build", ".git"))]
        for f in files:
            s = Path(root) / f
            t = dst / s.relative_to(src)
            if s.relative_to(src).as_posix() == skip or t.is_file() and t.read_bytes() == s.read_bytes():
                continue
            t.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(s, t)
            n += 1
    return n


def build(runtime: Path, work: Path, llama_src: Path | None, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Copy, edit and build the CLI in `work/runtime/llama.cpp/build` (cached); return what was built."""
    src = runtime_folder(runtime)
    tree = work / "runtime" / "llama.cpp"
    tree.mkdir(parents=True, exist_ok=True)
    copied = _sync(src, tree, CLI_SOURCE) if src != tree.resolve() else 0
    original = (src / CLI_SOURCE).read_text(encoding="utf-8")
    patched = patch_cli(original)
    cli_src = tree / CLI_SOURCE
    if not cli_src.is_file() or cli_src.read_text(encoding="utf-8") != patched:  # a new work folder has none yet
        cli_src.write_text(patched, encoding="utf-8")
    bdir = tree / "build"
    binary = bdir / "bin" / CLI
    info: dict[str, Any] = {
        "runtime_dir": str(src),
        "runtime_commit": _git_commit(src),
        "work_dir": str(tree),
        "llama_src": str(llama_src) if llama_src else None,
        "llama_src_note": None if llama_src else "the runtime's own pinned llama.cpp commit (fetched)",
        "cli_source_sha256": hashlib.sha256(original.encode()).hexdigest()[:16],
        "edits": [p[0] for p in PATCHES],
        "files_copied": copied,
    }
    cfg = ["cmake", "-S", str(tree), "-B", str(bdir), "-DCMAKE_BUILD_TYPE=Release"]
    if llama_src:
        cfg.append(f"-DFETCHCONTENT_SOURCE_DIR_LLAMA={Path(llama_src).resolve()}")
    t = time.perf_counter()
    was_built = binary.is_file()
    if not (bdir / "CMakeCache.txt").is_file():
        log(f"configuring FunASR's C++ runtime in {bdir}")
    r = subprocess.run(cfg, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"cmake configure failed:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    if not was_built:
        log(f"building {CLI} (several minutes the first time; cached in {bdir})")
    jobs = str(max(1, min(len(os.sched_getaffinity(0)), 8)))
    r = subprocess.run(["cmake", "--build", str(bdir), "-j", jobs, "--target", CLI], capture_output=True, text=True)
    if r.returncode != 0 or not binary.is_file():
        raise RuntimeError(f"building {CLI} failed:\n{r.stdout[-3000:]}\n{r.stderr[-2000:]}")
    info.update(cli=str(binary), build_s=round(time.perf_counter() - t, 1), build_dir_reused=was_built)
    cache_txt = (bdir / "CMakeCache.txt").read_text(errors="replace")
    info["ggml_flags"] = {k: v for k, v in re.findall(r"^(GGML_(?:NATIVE|OPENMP)):BOOL=(\w+)$", cache_txt, re.M)}
    return info


def _read_config(ckpt: Path) -> dict[str, Any]:
    import yaml

    return yaml.safe_load((ckpt / "config.yaml").read_text(encoding="utf-8"))


def metadata_from_config(cfg: dict[str, Any]) -> dict[str, int]:
    """The export script's metadata keys, with the values of this checkpoint's config.yaml."""
    enc, adp = cfg["audio_encoder_conf"], cfg["audio_adaptor_conf"]
    return {
        "funasr.enc.output_size": enc["output_size"],
        "funasr.enc.attention_heads": enc["attention_heads"],
        "funasr.enc.linear_units": enc["linear_units"],
        "funasr.enc.num_blocks": enc["num_blocks"],
        "funasr.enc.tp_blocks": enc["tp_blocks"],
        "funasr.enc.kernel_size": enc["kernel_size"],
        "funasr.adp.llm_dim": adp["llm_dim"],
        "funasr.adp.encoder_dim": adp["encoder_dim"],
        "funasr.adp.ffn_dim": adp["ffn_dim"],
        "funasr.adp.n_layer": adp["n_layer"],
        "funasr.adp.attention_heads": adp["attention_heads"],
    }


def fix_metadata(path: Path, want: dict[str, int]) -> dict[str, list[int]]:
    """Set the GGUF's u32 metadata to `want` in place; return {key: [was, now]} for those changed."""
    import gguf

    reader = gguf.GGUFReader(str(path), "r+")
    changed = {}
    for key, value in want.items():
        field = reader.get_field(key)
        if field is None:
            continue
        part = field.parts[field.data[0]]
        if int(part[0]) != int(value):
            changed[key] = [int(part[0]), int(value)]
            part[0] = int(value)
    reader.data.flush()
    del reader
    return changed


def convert(runtime: Path, ckpt: Path, out_dir: Path, wtype: str, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Encoder+adaptor GGUF of `ckpt/model.pt` by the runtime's own export script (cached)."""
    script = runtime_folder(runtime) / EXPORT_SCRIPT
    pt = ckpt / "model.pt"
    st = pt.stat()
    key = hashlib.sha256(script.read_bytes() + f"{pt.resolve()}:{st.st_size}:{st.st_mtime_ns}:{wtype}".encode())
    out = out_dir / f"funasr-encoder-{wtype}.gguf"
    stamp = out.with_suffix(".json")
    if out.is_file() and stamp.is_file():
        info = json.loads(stamp.read_text())
        if info.get("key") == key.hexdigest():
            return {**info, "cached": True}
    out_dir.mkdir(parents=True, exist_ok=True)
    log(f"converting the encoder+adaptor to GGUF {wtype} with the runtime's {EXPORT_SCRIPT}")
    t = time.perf_counter()
    r = subprocess.run(
        [sys.executable, str(script), "--model_pt", str(pt), "--out", str(out), "--wtype", wtype],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        raise RuntimeError(f"{EXPORT_SCRIPT} --wtype {wtype} failed:\n{r.stderr[-2000:]}")
    wall = time.perf_counter() - t
    changed = fix_metadata(out, metadata_from_config(_read_config(ckpt)))
    info = {
        "key": key.hexdigest(),
        "path": str(out),
        "wtype": wtype,
        "bytes": out.stat().st_size,
        "convert_s": round(wall, 1),
        "metadata_fixed": changed,
        "script": EXPORT_SCRIPT,
    }
    stamp.write_text(json.dumps(info, indent=2))
    return {**info, "cached": False}


def unavailable(runtime: Path | None) -> str | None:
    """Why the peer cannot run, or None."""
    if runtime is None:
        return "no --funasr-runtime DIR given (a FunASR checkout or its runtime/llama.cpp folder)"
    try:
        runtime_folder(runtime)
    except FileNotFoundError as exc:
        return str(exc)
    for tool in ("cmake", "taskset"):
        if shutil.which(tool) is None:
            return f"{tool} not found"
    return None


def prepare(
    runtime: Path, work: Path, llama_src: Path | None, ckpt: Path, log: Callable[[str], None] = print
) -> dict[str, Any]:
    """Build the CLI and convert the encoder in every weight type the export script offers."""
    built = build(runtime, work, llama_src, log)
    built["encoders"] = {w: convert(runtime, ckpt, work / "gguf", w, log) for w in WTYPES}
    return built


# -- running (inside the child stage) ------------------------------------------------------------


def run_cli(
    cli: str,
    enc: str,
    llm: str,
    audio: str,
    *,
    cpus: list[int],
    threads: int | None,
    n_tokens: int,
    ignore_eos: bool,
    chunk_s: float | None,
) -> dict[str, Any]:
    """One run of the CLI pinned to `cpus`: wall, peak RSS (GNU time) and its timing lines."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TJB_")}
    env["TJB_NO_EXTRA_BUFTS"] = "1"
    if threads:
        env["TJB_THREADS"] = str(threads)
    if ignore_eos:
        env["TJB_IGNORE_EOS"] = "1"
    args = [cli, "--enc", enc, "-m", llm, "-a", audio, "-n", str(n_tokens)]
    if chunk_s:
        args += ["--chunk", repr(chunk_s)]
    with tempfile.TemporaryDirectory() as tmp:
        tv = Path(tmp) / "time.txt"
        cmd = ["taskset", "-c", ",".join(map(str, cpus)), *args]
        if Path("/usr/bin/time").is_file():
            cmd = ["/usr/bin/time", "-v", "-o", str(tv), *cmd]
        t = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, env=env)
        wall = time.perf_counter() - t
        if r.returncode != 0:
            raise RuntimeError(f"{CLI} failed ({r.returncode}): {r.stderr.decode(errors='replace')[-2000:]}")
        usage = parse_time_v(tv.read_text()) if tv.is_file() else {}
    err = r.stderr.decode("utf-8", "replace")
    parsed = parse_stderr(err)
    return {
        "wall_s": round(wall, 4),
        **usage,
        **parsed,
        "text": r.stdout.decode("utf-8", "replace").rstrip("\n"),
        "threads": threads or "shipped defaults (encoder 8, LLM llama.cpp's default)",
        "n_tokens": n_tokens,
        "ignore_eos": ignore_eos,
        "chunk_s": chunk_s,
    }


def _write_clip(src: str, seconds: float, path: Path, times: int = 1) -> int:
    """The first `seconds` of `src`, `times` times in a row, as 16 kHz PCM16; samples per copy."""
    import numpy as np
    import soundfile as sf

    x, sr = sf.read(src, dtype="int16", frames=int(seconds * SAMPLE_RATE))
    sf.write(path, np.concatenate([x] * times), sr, subtype="PCM_16")
    return len(x)


def _tingji_exact_text(model: str, audio: str, max_tokens: int, threads: int, cpus: list[int]) -> str:
    """`tingji transcribe --exact` of `audio`: the JSON output's `text` (the TXT writer splits it into lines)."""
    from common import ROOT

    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "app"), os.environ.get("PYTHONPATH", "")])}
        cmd = [
            "taskset",
            "-c",
            ",".join(map(str, cpus)),
            sys.executable,
            "-m",
            "tingji",
            "transcribe",
            audio,
            "--model",
            model,
            "--exact",
            "--provider",
            "cpu",
            "--threads",
            str(threads),
            "--max-tokens",
            str(max_tokens),
            "--format",
            "json",
            "--out",
            tmp,
        ]
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if r.returncode != 0:
            raise RuntimeError(f"tingji transcribe --exact failed: {r.stderr[-2000:]}")
        return json.loads((Path(tmp) / (Path(audio).stem + ".json")).read_text(encoding="utf-8"))["text"]


def stage(a: dict[str, Any]) -> dict[str, Any]:
    """The CLI on one 60 s window per encoder type, end to end on the long file, and a text check."""
    from common import vm_hwm_mb

    cpus, threads, budget = a["cpus"], a["threads"], a["budget"]
    cli, llm = a["cli"], a["decoder_gguf"]
    encs = a["encoders"]
    out: dict[str, Any] = {"cpus": cpus, "threads": threads, "budget": budget, "decoder_gguf": Path(llm).name}
    with tempfile.TemporaryDirectory() as tmp:
        # One 60 s window (as Tingji's encoder benchmark), forced budget, per encoder weight type. The
        # clip is given twice: the first window is the process's first (cold: first touch of the
        # weights, first graph allocation), the second is reported, as Tingji's timings are after a warm-up.
        clip = Path(tmp) / "window60x2.wav"
        n = _write_clip(a["audio"], a["window_s"], clip, times=2)
        out["window_60s"] = {"audio_s": n / SAMPLE_RATE}
        for wtype, enc in encs.items():
            runs = [
                run_cli(
                    cli,
                    enc,
                    llm,
                    str(clip),
                    cpus=cpus,
                    threads=threads,
                    n_tokens=budget,
                    ignore_eos=True,
                    chunk_s=(n + 0.5) / SAMPLE_RATE,
                )
                for _ in range(a["reps"])
            ]
            assert all(len(r["windows"]) == 2 for r in runs), [len(r["windows"]) for r in runs]
            runs.sort(key=lambda r: r["windows"][1]["enc_s"])
            med = runs[len(runs) // 2]
            w0 = med["windows"][1]
            out["window_60s"][wtype] = {
                "wall_s_two_windows": med["wall_s"],
                "load_s": med["load_s"],
                "fbank_s": w0["fbank_s"],
                "encoder_s": w0["enc_s"],
                "encoder_s_all": [r["windows"][1]["enc_s"] for r in runs],
                "encoder_s_first_window": med["windows"][0]["enc_s"],
                "prefill_s_first_window": med["windows"][0]["prefill_s"],
                "enc_frames": w0["enc_frames"],
                "prefill_s": w0["prefill_s"],
                "prefill_rows": w0["prefill_rows"],
                "gen_s": w0["gen_s"],
                "gen_steps": w0["gen_steps"],
                "gen_steps_per_s": w0["gen_steps"] / w0["gen_s"] if w0["gen_s"] > 0 else None,
                "peak_rss_mb": med.get("peak_rss_mb"),
                "encoder_gguf_bytes": os.path.getsize(enc),
            }
        # End to end: the whole file, as many fixed windows as Tingji's run had, the same budget each.
        n_samples = int(round(a["audio_s"] * SAMPLE_RATE))
        n_win = max(1, int(a.get("tingji_windows") or math.ceil(a["audio_s"] / a["window_s"])))
        chunk_n = math.ceil(n_samples / n_win)
        chunk_s = (chunk_n + 0.5) / SAMPLE_RATE  # the CLI truncates chunk*16000 to whole samples
        whole_file = functools.partial(
            run_cli,
            cli,
            encs[a["e2e_wtype"]],
            llm,
            a["audio"],
            cpus=cpus,
            n_tokens=budget,
            ignore_eos=True,
            chunk_s=chunk_s,
        )
        e2e = whole_file(threads=threads)
        out["e2e"] = {
            "encoder_wtype": a["e2e_wtype"],
            "wall_s": e2e["wall_s"],
            "rtf": e2e["wall_s"] / a["audio_s"],
            "audio_s": a["audio_s"],
            "windows": len(e2e["windows"]),
            "chunk_s": round(chunk_s, 4),
            "tokens_total": e2e["totals"]["gen_steps"],
            "load_s": e2e["load_s"],
            "done_s": e2e["done_s"],
            "stages": e2e["totals"],
            "peak_rss_mb": e2e.get("peak_rss_mb"),
            "cpu_s": round(e2e.get("user_s", 0) + e2e.get("sys_s", 0), 2),
            "per_window": e2e["windows"],
        }
        if a.get("shipped_defaults"):  # the same file with the CLI's own thread counts, for the record
            sd = whole_file(threads=None)
            out["e2e_shipped_threads"] = {"wall_s": sd["wall_s"], "peak_rss_mb": sd.get("peak_rss_mb")}
        # Text check: a clip in one window, end of text honoured, against `tingji transcribe --exact`.
        checks = []
        text_clip = Path(tmp) / "check.wav"
        _write_clip(a["audio"], a["check_s"], text_clip)
        for model, gguf, wtype in a["check_pairs"]:
            cpp = run_cli(
                cli,
                encs[wtype],
                gguf,
                str(text_clip),
                cpus=cpus,
                threads=threads,
                n_tokens=a["check_tokens"],
                ignore_eos=False,
                chunk_s=None,
            )
            tj = _tingji_exact_text(model, str(text_clip), a["check_tokens"], threads, cpus)
            checks.append(
                {
                    "tingji_model": Path(model).name,
                    "decoder_gguf": Path(gguf).name,
                    "encoder_wtype": wtype,
                    "clip_s": a["check_s"],
                    "cpp_text": cpp["text"],
                    "tingji_text": tj,
                    "cpp_tokens": cpp["windows"][0]["gen_steps"] if cpp["windows"] else None,
                    "equal": cpp["text"] == tj,
                }
            )
        out["text_check"] = checks
    out["peak_rss_mb"] = round(vm_hwm_mb(), 1)  # this Python stage's own; the CLI's are per run above
    return out


STAGES = {"funasr_runtime": stage}


# -- the parent's side: arguments, figures, report --------------------------------------------------


def stage_args(
    built: dict[str, Any],
    *,
    audio: str,
    audio_s: float,
    budget: int,
    window_s: float,
    decoder_gguf: str,
    tingji_windows: int | None,
    check_pairs: list[list[str]],
    quick: bool,
) -> dict[str, Any]:
    cpus = sorted(os.sched_getaffinity(0))  # Tingji's stages run on every usable core: the same list
    return {
        "cli": built["cli"],
        "encoders": {w: e["path"] for w, e in built["encoders"].items()},
        "decoder_gguf": decoder_gguf,
        "audio": audio,
        "audio_s": audio_s,
        "budget": budget,
        "window_s": window_s,
        "cpus": cpus,
        "threads": len(cpus),
        "reps": 1 if quick else 2,
        "e2e_wtype": PRIMARY_WTYPE,
        "tingji_windows": tingji_windows,
        "shipped_defaults": not quick,
        "check_pairs": check_pairs,
        "check_s": 10.0,
        "check_tokens": 64,
    }


def summary(
    r: dict[str, Any], tingji_e2e: dict[str, Any], tingji_rss_mb: float, tingji_enc_60s_s: float | None
) -> dict[str, Any]:
    w = r["window_60s"][PRIMARY_WTYPE]
    out = {
        "speedup_vs_funasr_runtime_e2e": r["e2e"]["wall_s"] / tingji_e2e["wall_s"],
        "rss_vs_funasr_runtime": tingji_rss_mb / r["e2e"]["peak_rss_mb"] if r["e2e"].get("peak_rss_mb") else None,
        "funasr_runtime_e2e_s": r["e2e"]["wall_s"],
        "funasr_runtime_peak_rss_mb": r["e2e"].get("peak_rss_mb"),
        "funasr_runtime_encoder_60s_s": {k: v["encoder_s"] for k, v in r["window_60s"].items() if k != "audio_s"},
        "funasr_runtime_gen_steps_per_s": w["gen_steps_per_s"],
        # per Tingji model: fp32-f16 beside the f32 encoder GGUF is the like-for-like pair (identical on the
        # tiny model); int8-q5_k beside q8_0 compares two different int8 encoder quantisations
        "funasr_runtime_text_equal": {f"{c['tingji_model']}/{c['encoder_wtype']}": c["equal"] for c in r["text_check"]},
    }
    if tingji_enc_60s_s:
        out["speedup_vs_funasr_runtime_encoder_60s"] = w["encoder_s"] / tingji_enc_60s_s
    return out


def markdown(
    r: dict[str, Any] | None,
    skipped: str | None,
    tingji_e2e: dict[str, Any] | None,
    tingji_rss_mb: float | None,
    tingji_enc_60s_s: float | None,
) -> list[str]:
    lines = ["", "## FunASR's C++ llama.cpp runtime (llama-funasr-cli)", ""]
    if r is None:
        return lines + [f"FunASR C++ runtime peer skipped: {skipped}", ""]
    e = r["e2e"]
    st = e["stages"]
    lines += [
        f"Pinned to cpus {r['cpus']}, {r['threads']} threads, decoder `{r['decoder_gguf']}` (the same file), "
        f"{r['budget']} forced tokens per window (end of text ignored) in both.",
        "",
        "| run | windows | tokens | wall s | RTF | encode s | prefill s | generate s | peak RSS MB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    if tingji_e2e:
        t = tingji_e2e["timings"]
        lines.append(
            f"| Tingji int8+q5_k | {tingji_e2e['windows']} | {tingji_e2e['tokens_total']} | "
            f"{tingji_e2e['wall_s']:.1f} | {tingji_e2e['rtf']:.3f} | {t['encode'] + t.get('ctc', 0):.1f} | "
            f"{t['prefill']:.1f} | {t['generate']:.1f} | {tingji_rss_mb:.0f} |"
        )
    lines.append(
        f"| C++ runtime, encoder {e['encoder_wtype']} | {e['windows']} | {e['tokens_total']} | "
        f"{e['wall_s']:.1f} | {e['rtf']:.3f} | {st['fbank_s'] + st['enc_s']:.1f} | {st['prefill_s']:.1f} | "
        f"{st['gen_s']:.1f} | {e.get('peak_rss_mb') or 0:.0f} |"
    )
    lines += [
        "",
        f"One {r['window_60s']['audio_s']:.0f} s window ({r['budget']} tokens):",
        "",
        "| encoder GGUF | load s | fbank s | encoder s | prefill s (rows) | generation steps/s | peak RSS MB |",
        "|---|---|---|---|---|---|---|",
    ]
    for wtype, w in r["window_60s"].items():
        if wtype == "audio_s":
            continue
        lines.append(
            f"| {wtype} | {w['load_s']:.2f} | {w['fbank_s']:.3f} | {w['encoder_s']:.3f} | "
            f"{w['prefill_s']:.3f} ({w['prefill_rows']}) | {w['gen_steps_per_s']:.1f} | "
            f"{w['peak_rss_mb'] or 0:.0f} |"
        )
    if tingji_enc_60s_s:
        lines.append(f"| Tingji int8 ONNX | | | {tingji_enc_60s_s:.3f} | | | |")
    if r.get("e2e_shipped_threads"):
        sd = r["e2e_shipped_threads"]
        lines += [
            "",
            f"With the CLI's shipped thread counts on the same cpus: {sd['wall_s']:.1f} s, "
            f"{sd['peak_rss_mb'] or 0:.0f} MB.",
        ]
    lines += [
        "",
        "Text check (a clip in one window, end of text honoured) against `tingji transcribe --exact`: "
        + "; ".join(
            f"{c['tingji_model']} / encoder {c['encoder_wtype']}: "
            f"{'identical' if c['equal'] else 'DIFFERENT'} ({c['cpp_tokens']} tokens)"
            for c in r["text_check"]
        )
        + ".",
        "",
    ]
    return lines
