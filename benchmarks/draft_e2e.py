#!/usr/bin/env python3
"""Draft-verified decoding end to end (issue 46): the 5-minute file against FunASR's C++ runtime, and a 3 s take.

    nice python3 benchmarks/draft_e2e.py --funasr-runtime DIR --funasr-llama-src LLAMA_DIR
        [--acceptance 100,90] [--rounds 2] [--takes 7] [--parts e2e,dictation] [--first-block]
        [--quiet-below CORES] [--no-write]

Fun-ASR-Nano at full size, int8 encoder (run.py's `int8-q5_k` export, built
once) with draft_model's decisive q5_k decoder in place of the export's plain
random one (`<cache>/draft-e2e/int8-q5_k-decisive-<version>/`: the export's
files hard-linked, the decoder swapped, its manifest entry rewritten). On
plain random weights nearly every choice is a near tie and no draft can be
followed (benchmarks/draft_model.py), so drafting would measure noise; the
decisive decoder costs llama.cpp exactly what the random one does (same
shapes and quant types). 2 threads (every usable core) on both sides.

- **e2e**: `Engine.transcribe` of the 5-minute file, 200 forced tokens per
  window (EOS off, loop guard off), as run.py's `e2e_budget`:
  plain (`TranscribeOptions(draft=False)`, which also records each window's
  tokens), then drafted at each forced acceptance: the window's draft is its
  own plain output corrupted at 100 - A % of positions (draft.py's `corrupt`,
  seeded per window). The draft is injected here, not in the engine: the
  recogniser's `decode` is wrapped on the instance so the CTC head's draft
  (still computed and tokenised, as in real use) is swapped for the forced one
  of the window being recognised (found by a hash of its samples). The tokens
  must equal plain decoding's (`same_tokens`). FunASR's `llama-funasr-cli`
  (funasr_runtime.py: its build-time switches, q8_0 encoder GGUF from the same
  checkpoint) runs the same file with the same GGUF decoder, the same number
  of windows (equal fixed chunks: the CLI has no VAD cut points) and the same
  forced 200 tokens per window. Rounds interleave plain, the peer and each
  acceptance; a speedup is the peer's wall time / Tingji's in the same round,
  median over rounds.
- **dictation**: `engine.live.transcribe` of the 3 s utterance with 12 forced
  tokens, as run.py's `dictation_latency_3s_s` (today's plain figure), after a
  first take; plain and drafted takes alternate, each drafted take with its
  own seed (a 12-token answer has 1.2 corrupted positions on average at 90 %);
  medians. Each acceptance is also taken with the first draft in a block of
  its own after the prompt's batch (`DraftPolicy(in_prefill=False)`, the
  `_first_block` figures), so the draft in the prompt's batch is measured
  against it in the same run (`--parts dictation` runs only this part).

Results: results/draft-e2e-<date>.json, and latest.json's
`draft_e2e_speedup_vs_funasr_runtime_{A}`, `draft_dictation_3s_s_{A}` and
section `draft_e2e` (with the CPU's flags in `machine`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shutil
import statistics
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import BENCH, SAMPLE_RATE, add_quiet_options, goals_met, machine, use_quiet_options, wait_for_quiet  # noqa: E402

PRIMARY = "int8-q5_k"  # run.py's export whose encoder Tingji runs here
BUDGET = 200  # forced tokens per window, as run.py's e2e_budget
DICT_TOKENS = 12  # as run.py's dictation_latency_3s_s
GOALS = {
    "draft_e2e_speedup_vs_funasr_runtime_90": (">=", 1.9),
    "draft_e2e_speedup_vs_funasr_runtime_100": (">=", 2.4),
    "draft_dictation_3s_s_90": ("<=", 0.28),
}


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# -- the model folder ------------------------------------------------------------------------------------


def decisive_model(export: Path, decoder: Path, out: Path) -> Path:
    """`export`'s files hard-linked into `out`, with `decoder` as its decoder (manifest entry rewritten)."""
    from tingji.engine.manifest import sha256_file

    stamp = out / "source.json"
    text = (export / "manifest.json").read_text()
    st = decoder.stat()
    key = {  # a rebuilt export or decoder makes a new folder
        "export_manifest": hashlib.sha256(text.encode()).hexdigest(),
        "decoder": [str(decoder.resolve()), st.st_size, st.st_mtime_ns],
    }
    if stamp.is_file() and json.loads(stamp.read_text()) == key:
        return out
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    manifest = json.loads(text)
    for role, entry in manifest["files"].items():
        if role != "decoder":
            os.link(export / entry["path"], out / entry["path"])
    os.link(decoder, out / decoder.name)
    manifest["files"]["decoder"] = {
        "path": decoder.name,
        "sha256": sha256_file(decoder),
        "size": st.st_size,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2))
    stamp.write_text(json.dumps(key))
    return out


# -- forcing the draft (inside the child) ------------------------------------------------------------------


def _window_key(samples: np.ndarray) -> str:
    return hashlib.blake2b(np.ascontiguousarray(samples).tobytes(), digest_size=16).hexdigest()


class ForcedDrafts:
    """Wraps a Nano recogniser's `recognize` and `decode` (this instance only) to record windows and force drafts.

    `recognize` notes the window (a hash of its samples) and, after it, its tokens in `seen`;
    `decode` is handed the forced draft of that window from `table` in place of the CTC head's,
    when the table has one. The CTC head still runs and its text is still tokenised: that cost
    is drafting's own.
    """

    def __init__(self, recognizer: Any) -> None:
        self.table: dict[str, list[int]] = {}
        self.seen: list[tuple[str, list[int]]] = []
        self._now = threading.local()
        recognize, decode = recognizer.recognize, recognizer.decode

        def forced_recognize(samples, options, lane, cancel=None):
            key = _window_key(samples)
            self._now.draft = self.table.get(key)
            try:
                result = recognize(samples, options, lane, cancel)
            finally:
                self._now.draft = None
            self.seen.append((key, list(result.tokens)))
            return result

        def forced_decode(lane, rows, options, timings, cancel, draft=()):
            forced = getattr(self._now, "draft", None)
            return decode(lane, rows, options, timings, cancel, draft if forced is None else forced)

        recognizer.recognize, recognizer.decode = forced_recognize, forced_decode

    def force(self, acceptance: int, windows: Sequence[tuple[str, list[int]]], n_vocab: int, seed: int) -> None:
        """Each window's draft: its plain tokens corrupted at 100 - `acceptance` % of positions."""
        from draft import corrupt

        self.table = {
            key: corrupt(tokens, 1 - acceptance / 100, n_vocab, seed=seed + 1000 * i)
            for i, (key, tokens) in enumerate(windows)
        }


def _agreement(drafts: dict[str, list[int]], windows: Sequence[tuple[str, list[int]]]) -> float:
    """The share of plain tokens the forced drafts hold at their positions (the acceptance asked for)."""
    same = sum(sum(a == b for a, b in zip(drafts[k], t)) for k, t in windows)
    return round(same / max(sum(len(t) for _, t in windows), 1), 3)


def stage(a: dict[str, Any]) -> dict[str, Any]:
    """The child: one engine; plain and drafted runs of the file and the take, interleaved with the peer."""
    from speech import make_utterance

    from tingji.engine import Engine

    engine = Engine(a["model"], provider="cpu", graph_cache=a["graph_cache"])
    recognizer = engine.recognizer
    forced = ForcedDrafts(recognizer)
    n_vocab = recognizer.llm.n_vocab
    out: dict[str, Any] = {"cpus": a["cpus"], "n_vocab": n_vocab, "engine_load_s": round(engine.load_s, 3)}
    if "e2e" in a["parts"]:
        out["e2e"] = _e2e(engine, forced, n_vocab, a)
    if "dictation" in a["parts"]:
        out["dictation"] = _dictation(engine, forced, n_vocab, make_utterance(3.0), a["acceptance"], a["takes"])
    engine.close()
    return out


def _policies(first_block: bool) -> dict[str, Any]:
    """The drafted cases' policies by name suffix: the default, and with `first_block` the first draft in a
    block of its own after the prompt's batch (`DraftPolicy(in_prefill=False)`, the way before it rode there)."""
    from tingji.engine.draft import DraftPolicy

    return {"": DraftPolicy()} | ({"-first-block": DraftPolicy(in_prefill=False)} if first_block else {})


def _e2e(engine, forced: ForcedDrafts, n_vocab: int, a: dict[str, Any]) -> dict[str, Any]:
    from tingji.engine import TranscribeOptions

    plain_opts = TranscribeOptions(max_tokens=BUDGET, ignore_eos=True, draft=False)
    drafted_opts = TranscribeOptions(max_tokens=BUDGET, ignore_eos=True)

    def transcribe(opts) -> tuple[float, Any]:
        forced.seen.clear()
        t = time.perf_counter()
        tr = engine.transcribe(a["audio"], opts)
        return time.perf_counter() - t, tr

    # An untimed plain run: warms the files lane and gives every window's plain tokens (the drafts' source).
    transcribe(plain_opts)
    windows = list(forced.seen)
    n_samples = int(round(a["audio_s"] * SAMPLE_RATE))
    chunk_s = (math.ceil(n_samples / len(windows)) + 0.5) / SAMPLE_RATE  # as funasr_runtime.stage cuts the file
    peer = a.get("peer")
    policies = _policies(a.get("first_block", False))
    runs = [(f"{acc}{suffix}", acc, policy) for acc in a["acceptance"] for suffix, policy in policies.items()]
    cases = {name: {"wall_s": [], "speedup": []} for name, _, _ in runs}
    plain: dict[str, list[float]] = {"wall_s": [], "speedup": []}
    peer_runs: list[dict[str, Any]] = []
    for r in range(a["rounds"]):
        wait_for_quiet(log)
        forced.table = {}
        wall, tr = transcribe(plain_opts)
        plain["wall_s"].append(round(wall, 3))
        plain.setdefault("timings", {k: round(v, 3) for k, v in tr.timings.items()})
        peer_s = None
        if peer:
            peer_runs.append(_peer_run(peer, a, chunk_s))
            peer_s = peer_runs[-1]["wall_s"]
            plain["speedup"].append(round(peer_s / wall, 3))
        for name, acc, policy in runs:
            case = cases[name]
            forced.force(acc, windows, n_vocab, seed=acc)
            engine.recognizer.draft_policy = policy
            wall, tr = transcribe(drafted_opts)
            case["wall_s"].append(round(wall, 3))
            if peer_s:
                case["speedup"].append(round(peer_s / wall, 3))
            if r == 0:
                differ = [i for i, (w, s) in enumerate(zip(windows, forced.seen)) if w[1] != s[1]]
                case |= {
                    "draft_agreement": _agreement(forced.table, windows),
                    "timings": {k: round(v, 3) for k, v in tr.timings.items()},
                    "same_tokens": not differ and len(forced.seen) == len(windows),
                    "windows_differing": differ,
                }
        log(
            f"round {r + 1}: plain {plain['wall_s'][-1]} s, peer {peer_s} s, "
            + ", ".join(f"{name} %: {cases[name]['wall_s'][-1]} s" for name, _, _ in runs)
        )
    engine.recognizer.draft_policy = policies[""]
    for case in (plain, *cases.values()):
        case["median_wall_s"] = round(statistics.median(case["wall_s"]), 3)
        if case["speedup"]:
            case["median_speedup_vs_funasr_runtime"] = round(statistics.median(case["speedup"]), 3)
    return {
        "audio_s": a["audio_s"],
        "windows": len(windows),
        "tokens_per_window": [len(t) for _, t in windows],
        "peer_chunk_s": round(chunk_s, 4),
        "plain": plain,
        "drafted": cases,
        "peer": peer_runs or None,
    }


def _peer_run(peer: dict[str, str], a: dict[str, Any], chunk_s: float) -> dict[str, Any]:
    """FunASR's CLI on the file: the same decoder GGUF, cores, threads and forced budget per window."""
    import funasr_runtime

    run = funasr_runtime.run_cli(
        peer["cli"],
        peer["encoder"],
        a["model_decoder"],
        a["audio"],
        cpus=a["cpus"],
        threads=len(a["cpus"]),
        n_tokens=BUDGET,
        ignore_eos=True,
        chunk_s=chunk_s,
    )
    return {k: run.get(k) for k in ("wall_s", "load_s", "peak_rss_mb", "totals")} | {"windows": len(run["windows"])}


def _dictation(
    engine, forced: ForcedDrafts, n_vocab: int, utt: np.ndarray, acceptance: Sequence[int], takes: int
) -> dict[str, Any]:
    """Plain and drafted takes in turns; each acceptance also with its first block after the prompt's
    batch (`DraftPolicy(in_prefill=False)`, case "A-first-block"): what the draft in the prompt's batch saves."""
    from tingji.engine import TranscribeOptions

    plain_opts = TranscribeOptions(max_tokens=DICT_TOKENS, ignore_eos=True, timestamps=False, draft=False)
    drafted_opts = TranscribeOptions(max_tokens=DICT_TOKENS, ignore_eos=True, timestamps=False)
    recognizer = engine.recognizer
    policies = _policies(True)

    def take(opts) -> float:
        forced.seen.clear()
        t = time.perf_counter()
        engine.live.transcribe(utt, opts)
        return time.perf_counter() - t

    forced.table = {}
    take(plain_opts)  # the first take, untimed (as run.py's): its tokens are the drafts' source
    windows = list(forced.seen)
    out: dict[str, Any] = {"tokens": DICT_TOKENS, "takes": takes, "plain_s": []}
    for acc in acceptance:
        for suffix in policies:
            out[f"{acc}{suffix}"] = {"s": [], "draft_agreement": [], "same_tokens": True}
    wait_for_quiet(log)
    for i in range(takes):  # plain and each acceptance in turns, so load hits all alike
        forced.table = {}
        out["plain_s"].append(round(take(plain_opts), 4))
        for acc in acceptance:
            for suffix, policy in policies.items():
                forced.force(acc, windows, n_vocab, seed=acc + 7919 * i)
                recognizer.draft_policy = policy
                case = out[f"{acc}{suffix}"]
                case["s"].append(round(take(drafted_opts), 4))
                case["draft_agreement"].append(_agreement(forced.table, windows))
                case["same_tokens"] &= [t for _, t in forced.seen] == [t for _, t in windows]
    recognizer.draft_policy = policies[""]
    out["plain_median_s"] = statistics.median(out["plain_s"])
    for acc in acceptance:
        for suffix in policies:
            out[f"{acc}{suffix}"]["median_s"] = statistics.median(out[f"{acc}{suffix}"]["s"])
    return out


STAGES = {"draft_e2e": stage}


# -- the parent ------------------------------------------------------------------------------------------


def prepare_peer(args: argparse.Namespace, cache: Path, ckpt: Path) -> dict[str, Any]:
    """FunASR's CLI built and its q8_0 encoder GGUF converted (both cached), or why the peer is skipped."""
    import funasr_runtime

    why = funasr_runtime.unavailable(args.funasr_runtime)
    if why and args.funasr_runtime is not None:  # asked for and unusable: say so, not a run without its peer
        raise SystemExit(f"--funasr-runtime {args.funasr_runtime}: {why}")
    if why:
        return {"skipped": why}
    work = args.funasr_runtime_work or cache / "funasr-runtime"
    built = funasr_runtime.build(args.funasr_runtime, work, args.funasr_llama_src, log)
    enc = funasr_runtime.convert(args.funasr_runtime, ckpt, work / "gguf", funasr_runtime.PRIMARY_WTYPE, log)
    return {**built, "encoder": enc["path"], "encoder_wtype": funasr_runtime.PRIMARY_WTYPE}


def _head(audio: Path, seconds: float, folder: Path) -> Path:
    """The first `seconds` of `audio`, written once beside the model."""
    import soundfile as sf

    out = folder / f"{audio.stem}-first{seconds:g}s.wav"
    if not out.is_file():
        x, sr = sf.read(str(audio), dtype="int16", frames=int(seconds * SAMPLE_RATE))
        sf.write(str(out), x, sr, subtype="PCM_16")
    return out


def summarise(res: dict[str, Any], acceptance: Sequence[int]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    e2e, dic = res.get("e2e"), res.get("dictation")
    if e2e and e2e["plain"]["speedup"]:
        out["draft_e2e_plain_speedup_vs_funasr_runtime"] = e2e["plain"]["median_speedup_vs_funasr_runtime"]
        for name, case in e2e["drafted"].items():
            key = name.replace("-first-block", "_first_block")
            out[f"draft_e2e_speedup_vs_funasr_runtime_{key}"] = case["median_speedup_vs_funasr_runtime"]
    if e2e:
        for name, case in e2e["drafted"].items():
            key = name.replace("-first-block", "_first_block")
            out[f"draft_e2e_vs_plain_{key}"] = round(e2e["plain"]["median_wall_s"] / case["median_wall_s"], 3)
    if dic:
        out["draft_dictation_3s_s_plain"] = round(dic["plain_median_s"], 4)
        for acc in acceptance:
            out[f"draft_dictation_3s_s_{acc}"] = round(dic[str(acc)]["median_s"], 4)
            if f"{acc}-first-block" in dic:  # the first draft in a block of its own, after the prompt's
                out[f"draft_dictation_3s_s_{acc}_first_block"] = round(dic[f"{acc}-first-block"]["median_s"], 4)
    return out


def _report(
    res: dict[str, Any], acceptance: Sequence[int], peer: dict[str, Any], t0: float, load_start: Any, write: bool
) -> None:
    """Print the run's document; with `write`, into results/draft-e2e-<date>.json and latest.json."""
    from common import write_latest
    from draft_model import VERSION

    summary = summarise(res, acceptance)
    doc = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "machine": machine(),
        "load": {"start": load_start, "end": os.getloadavg()},
        "run_s": round(time.perf_counter() - t0, 1),
        "model": f"Fun-ASR-Nano full size, random int8 encoder + draft_model v{VERSION} decisive q5_k decoder",
        "summary": summary,
        "goals": goals_met(summary, GOALS),
        "peer": peer,
        "results": res,
    }
    text = json.dumps(doc, indent=2, default=str)
    print(text)
    if write:  # not with --seconds: a part of the file is a check, not the figure
        (BENCH / "results" / f"draft-e2e-{time.strftime('%Y-%m-%d')}.json").write_text(text + "\n")
        write_latest(summary, "draft_e2e", doc)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--funasr-runtime", type=Path, metavar="DIR", help="FunASR checkout or its runtime/llama.cpp")
    ap.add_argument("--funasr-llama-src", type=Path, metavar="DIR", help="llama-cpp-python's vendor/llama.cpp")
    ap.add_argument("--funasr-runtime-work", type=Path, metavar="DIR", help="default: <cache>/funasr-runtime")
    ap.add_argument("--acceptance", default="100,90", help="forced acceptances in %%, comma-separated")
    ap.add_argument("--rounds", type=int, default=2, help="rounds of the 5-minute file (each: plain, peer, drafted)")
    ap.add_argument("--seconds", type=float, help="only the file's first S seconds (a plumbing check, not the figure)")
    ap.add_argument("--takes", type=int, default=7, help="timed dictation takes per case")
    ap.add_argument("--parts", default="e2e,dictation")
    ap.add_argument(
        "--first-block",
        action="store_true",
        help="the file also with the first draft in a block of its own (the dictation take always is)",
    )
    ap.add_argument("--no-write", action="store_true", help="print only; write no results")
    add_quiet_options(ap)
    args = ap.parse_args(argv)
    use_quiet_options(args)
    import run
    from common import run_child
    from draft import build_decoders
    from draft_model import VERSION

    acceptance = [int(x) for x in args.acceptance.split(",")]
    parts = args.parts.split(",")
    t0, load_start = time.perf_counter(), os.getloadavg()
    cache = BENCH / ".cache" / "full"
    built = run.build_nano(cache, False, 1, names=(PRIMARY,))
    decoder = build_decoders(cache / f"draft-decisive-{VERSION}", False, ("q5_k",))["q5_k"]
    model = decisive_model(built["models"][PRIMARY], decoder, cache / "draft-e2e" / f"{PRIMARY}-decisive-{VERSION}")
    peer = prepare_peer(args, cache, built["checkpoint"]) if "e2e" in parts else {"skipped": "no e2e part"}
    if peer.get("skipped"):
        log(f"FunASR C++ runtime peer skipped: {peer['skipped']}")
    audio = built["audio"] if not args.seconds else _head(built["audio"], args.seconds, cache / "draft-e2e")
    import soundfile as sf

    info = sf.info(str(audio))
    child = {
        "model": str(model),
        "model_decoder": str(model / decoder.name),
        "graph_cache": str(cache / "draft-e2e" / "graphs"),  # its own: the prefix cells belong to this decoder
        "audio": str(audio),
        "audio_s": info.frames / info.samplerate,
        "acceptance": acceptance,
        "rounds": args.rounds,
        "takes": args.takes,
        "parts": parts,
        "first_block": args.first_block,
        "cpus": sorted(os.sched_getaffinity(0)),
        "peer": None if peer.get("skipped") else {"cli": peer["cli"], "encoder": peer["encoder"]},
    }
    res = run_child("draft_e2e", child, log=log)
    _report(res, acceptance, peer, t0, load_start, write=not args.no_write and not args.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
