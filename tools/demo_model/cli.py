"""`tools/train_demo_model.py`: synthesise, train, write the release layout, export, evaluate, report.

The steps run in a fixed order from one seed (the package docstring says why the result does not
depend on the machine's load); `main` is the whole run, each step a function of its own.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .conversation import converse_llm, synthesise_conversations
from .data import Example, synthesise
from .evaluate import evaluate
from .export import export, write_checkpoint
from .from_export import load_exported, round_as_exported
from .model import (
    SCAFFOLDING,
    build_model,
    llm_config_for,
    packing_init,
    pin_unused_ctc,
    positional_init,
    use_fft_fsmn,
)
from .recipe import VOCAB, Dims, Recipe
from .speech import held_out_set
from .text import TextSide, build_tokenizer, ctc_word_ids
from .training import polish_llm, pretrain_llm, train

if TYPE_CHECKING:
    import torch

Log = Callable[[str], None]


def parse_args(argv: list[str] | None) -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    ap = argparse.ArgumentParser(
        description="Train Tingji's demo model: a small Fun-ASR-Nano that really recognises speech."
    )
    ap.add_argument("--out", required=True, type=Path, help="exported model folder to create")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--minutes",
        type=float,
        default=26.0,
        help="training budget; converted to a fixed data size and step count (see the package docstring)",
    )
    ap.add_argument(
        "--work",
        type=Path,
        default=None,
        help="scratch folder for the checkpoint and training state (default /tmp/tingji-demo-<seed>)",
    )
    ap.add_argument("--decoder-quant", default="f16", choices=["f16", "q8_0", "f32"])
    ap.add_argument(
        "--precision",
        default="fp16",
        choices=["fp32", "fp16"],
        help="encoder and CTC head precision in the export (fp16 halves the size; same WER measured)",
    )
    ap.add_argument("--eval", type=int, default=100, help="held-out utterances to evaluate through Engine (0: skip)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=None, help="override the step count the budget gives (experiments)")
    ap.add_argument("--speakers", type=int, default=None, help="override the number of training speakers (experiments)")
    ap.add_argument(
        "--llm-pretrain-steps",
        type=int,
        default=None,
        help="override the LLM pretraining step count on oracle rows (experiments)",
    )
    ap.add_argument(
        "--polish-steps",
        type=int,
        default=None,
        help="adaptor+LLM steps on the frozen encoder after joint training (`polish_llm`; experiments)",
    )
    ap.add_argument(
        "--from-export",
        type=Path,
        default=None,
        help="skip the first three stages: start the conversation stage from this export of them, made with the "
        "same --seed and --minutes (e.g. the committed fixture; minutes instead of half an hour)",
    )
    ap.add_argument(
        "--conversation-steps",
        type=int,
        default=None,
        help="run the conversation stage for this many steps (`conversation`; off by default; experiments)",
    )
    ap.add_argument(
        "--conversation-lr", type=float, default=None, help="peak learning rate of the conversation stage (experiments)"
    )
    ap.add_argument(
        "--conversation-short-speakers",
        type=int,
        default=None,
        help="mix this many training speakers' short utterances into the conversation stage (experiments)",
    )
    return ap, ap.parse_args(argv)


def recipe_for(args: argparse.Namespace) -> Recipe:
    """The budget's recipe with the experiments' overrides."""
    recipe = Recipe.for_minutes(args.minutes)
    if args.steps is not None or args.speakers is not None:
        recipe = replace(recipe.with_steps(args.steps or recipe.steps), speakers=args.speakers or recipe.speakers)
    if args.polish_steps is not None:
        recipe = replace(recipe, polish_steps=args.polish_steps)
    if args.llm_pretrain_steps is not None:
        recipe = replace(recipe, llm_pretrain_steps=args.llm_pretrain_steps)
    if args.conversation_steps is not None:
        recipe = replace(recipe, conversation_steps=args.conversation_steps)
    if args.conversation_lr is not None:
        recipe = replace(recipe, conversation_lr=args.conversation_lr)
    if args.conversation_short_speakers is not None:
        recipe = replace(recipe, conversation_short_speakers=args.conversation_short_speakers)
    return recipe


@dataclass
class TextParts:
    """The tokenizer and what the release layout and the losses derive from it."""

    tok: Any
    llm_cfg: dict
    ctc_vocab: int
    tiktoken_text: str
    side: TextSide


def text_parts(dims: Dims) -> TextParts:
    import make_tiny_checkpoint as mtc

    from tingji.engine.families.fun_asr_nano.prompt import build_prompt

    tok = build_tokenizer(dims.bpe_vocab)
    llm_cfg = llm_config_for(tok, dims)
    n_specials = mtc.ctc_special_count()
    n_bpe = len(json.loads(tok.to_str())["model"]["vocab"])
    ctc_vocab = 256 + n_bpe + n_specials
    tiktoken_text = mtc.ctc_tiktoken(tok, ctc_vocab, n_specials)
    ctc_ids = ctc_word_ids(tiktoken_text)
    prompt = build_prompt()
    side = TextSide(
        before=tok.encode(prompt.before).ids,
        after=tok.encode(prompt.after).ids,
        im_end=tok.token_to_id("<|im_end|>"),
        ctc_ids=ctc_ids,
        blank=ctc_vocab - 1,
        pack_ids=[ctc_ids[w] for w in VOCAB] + [ctc_vocab - 1],
    )
    return TextParts(tok, llm_cfg, ctc_vocab, tiktoken_text, side)


def make_data(recipe: Recipe, seed: int, workers: int, log: Log) -> tuple[list[Example], list[Example], float, float]:
    """The training utterances and the dev set (held-out voices); the seconds it took and the hours of audio."""
    from tingji.engine.frontend import features

    t_syn = time.perf_counter()
    short = synthesise(recipe, seed, workers=workers)
    dev_utts = held_out_set(32, seed + 1000, workers=workers)
    dev = [Example(features(u.samples).astype(np.float16), u.text) for u in dev_utts]
    synth_s = time.perf_counter() - t_syn
    hours = sum(e.frames for e in short) * 0.06 / 3600
    log(f"synthesised {len(short)} utterances ({hours:.2f} h) in {synth_s:.0f}s")
    return short, dev, synth_s, hours


def conversation_short(recipe: Recipe, seed: int, workers: int) -> list[Example]:
    """The short utterances the conversation stage mixes in: the first `conversation_short_speakers` training
    speakers' (the same utterances stage 1 made for them, so no new voice or text)."""
    if recipe.conversation_short_speakers <= 0:
        return []
    return synthesise(replace(recipe, speakers=recipe.conversation_short_speakers), seed, workers)


def make_model(dims: Dims, text: TextParts, log: Log) -> tuple[torch.nn.Module, int]:
    """The model at its starting point, and its parameter count (scaffolding left out)."""
    model = build_model(dims, text.ctc_vocab, text.llm_cfg)
    pin_unused_ctc(model, text.side)
    positional_init(model)
    packing_init(model)
    use_fft_fsmn(model)
    n_params = sum(p.numel() for n, p in model.named_parameters() if not n.startswith(SCAFFOLDING))
    log(f"model: {n_params / 1e6:.2f} M parameters")
    return model, n_params


def run_training(
    model, text: TextParts, short: list[Example], dev: list[Example], recipe: Recipe, dims: Dims, seed: int, work, log
) -> dict:
    """The three phases (`training`); the joint phase's result with every phase's seconds in `train_s`."""
    from .losses import oracle_table

    table = oracle_table(dims, seed)
    t_pre = time.perf_counter()
    pretrain_llm(model, text.tok, text.side, short, recipe, table, seed, log)
    pretrain_s = time.perf_counter() - t_pre
    result = train(model, text.tok, text.side, short, dev, recipe, seed, work, log, table)
    result["train_s"] += pretrain_s + polish_llm(model, text.tok, text.side, short, recipe, seed, log)
    return result


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (synthesis workers, espeak, exporter)."""
    import resource

    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def report(argv: list[str] | None, args: argparse.Namespace, run: dict[str, Any]) -> dict:
    """What report.json says about a run (`run`: the figures `main` gathered)."""
    import torch

    result = run["result"]
    return {
        "command": " ".join(["tools/train_demo_model.py"] + (argv if argv is not None else sys.argv[1:])),
        "seed": args.seed,
        "minutes_budget": args.minutes,
        "wall_s": {
            "total_to_export": round(run["total_s"], 1),
            "synthesis": round(run["synth_s"], 1),
            "training": round(result["train_s"], 1),
        },
        "cpu_s": round(cpu_seconds(), 1),
        "machine": {
            "cpus": os.cpu_count(),
            "threads": args.threads,
            "load_avg_end": os.getloadavg(),
            "python": platform.python_version(),
            "torch": torch.__version__,
        },
        "dims": asdict(run["dims"]),
        "recipe": asdict(run["recipe"]),
        "data": {"utterances": run["utterances"], "hours": round(run["hours"], 2)},
        "parameters_m": round(run["n_params"] / 1e6, 3),
        "history": result["history"],
        "averaged_dev_ctc_wer": round(result["averaged_dev_ctc_wer"], 4) if result["history"] else None,
    }


def start(args: argparse.Namespace, ap: argparse.ArgumentParser) -> tuple[Path, Log, float]:
    """torch set up for a repeatable run; the work folder, the log (the screen and train.log) and its clock's start."""
    # Before torch loads OpenMP: with spinning waits (the default), two threads
    # on a busy 2-core machine spend most of their time spinning at barriers;
    # measured here, passive waiting made training steps 5-10x faster under load.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import torch

    t0 = time.perf_counter()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    torch.use_deterministic_algorithms(True, warn_only=True)
    if args.out.exists() and any(args.out.iterdir()):
        ap.error(f"{args.out} exists and is not empty")
    work = args.work or Path(f"/tmp/tingji-demo-{args.seed}")
    work.mkdir(parents=True, exist_ok=True)
    log_path = work / "train.log"
    log_path.unlink(missing_ok=True)

    def log(msg: str) -> None:
        line = f"[{time.perf_counter() - t0:7.1f}s] {msg}"
        print(line, flush=True)
        with open(log_path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")

    return work, log, t0


def first_stages(args, text: TextParts, dims: Dims, recipe: Recipe, work: Path, log: Log) -> tuple:
    """The model after the first three stages and what the report says about them: trained here, or read
    from `--from-export`."""
    if args.from_export is not None:
        model, n_params = make_model(dims, text, log)
        probe = work / "probe-export"  # kept: a second run reuses it
        load_exported(
            model, args.from_export, lambda m, out: write_export(m, text, dims, work / "probe", out, args), probe
        )
        log(f"stages 1-3 read from {args.from_export}")
        result = {"history": [], "train_s": 0.0, "averaged_dev_ctc_wer": float("nan")}
        return model, n_params, result, 0.0, {"utterances": 0, "hours": 0.0}
    short, dev, synth_s, hours = make_data(recipe, args.seed, args.threads, log)
    model, n_params = make_model(dims, text, log)
    result = run_training(model, text, short, dev, recipe, dims, args.seed, work, log)
    return model, n_params, result, synth_s, {"utterances": len(short), "hours": hours}


def write_export(model, text: TextParts, dims: Dims, checkpoint: Path, out: Path, args: argparse.Namespace) -> Path:
    """`model` in the release layout at `checkpoint`, exported to `out`; returns the checkpoint."""
    if checkpoint.exists():
        shutil.rmtree(checkpoint)  # our own output from an earlier run
    write_checkpoint(checkpoint, model, text.tok, text.llm_cfg, dims, text.tiktoken_text, text.ctc_vocab)
    export(checkpoint, out, args.decoder_quant, args.precision)
    return checkpoint


def main(argv: list[str] | None = None) -> int:
    ap, args = parse_args(argv)
    work, log, t0 = start(args, ap)
    dims, recipe = Dims(), recipe_for(args)
    log(f"recipe {asdict(recipe)}")
    log(f"dims {asdict(dims)}")
    text = text_parts(dims)
    if args.from_export is not None and recipe.conversation_steps <= 0:
        ap.error("--from-export runs only the conversation stage: give --conversation-steps")
    model, n_params, result, synth_s, data = first_stages(args, text, dims, recipe, work, log)
    if recipe.conversation_steps > 0:
        round_as_exported(model)  # the stage starts from what the export keeps, as --from-export does
        t_conv = time.perf_counter()
        conversations = synthesise_conversations(recipe, args.seed, args.threads)
        log(f"synthesised {len(conversations)} conversations in {time.perf_counter() - t_conv:.0f}s")
        mix = conversation_short(recipe, args.seed, args.threads)
        synth_s += time.perf_counter() - t_conv
        log(f"{len(mix)} short utterances to mix in; synthesis {time.perf_counter() - t_conv:.0f}s")
        result["train_s"] += converse_llm(model, text.tok, text.side, conversations, recipe, args.seed, log, mix)
    checkpoint = write_export(model, text, dims, work / "checkpoint", args.out, args)
    log(f"checkpoint written: {checkpoint}")
    total_s = time.perf_counter() - t0
    log(
        f"exported to {args.out}; total {total_s:.0f}s (synthesis {synth_s:.0f}s, training {result['train_s']:.0f}s), "
        f"{cpu_seconds():.0f} CPU s, load average {os.getloadavg()[1]:.1f}"
    )
    run = {"result": result, "total_s": total_s, "synth_s": synth_s, "dims": dims, "recipe": recipe}
    summary = report(argv, args, {**run, **data, "n_params": n_params})
    if args.eval:
        t_eval = time.perf_counter()
        held = held_out_set(args.eval, args.seed + 2000, workers=args.threads)
        summary["held_out"] = evaluate(args.out, held, threads=args.threads)
        summary["held_out"]["seconds"] = round(time.perf_counter() - t_eval, 1)
        log(
            f"held-out WER {summary['held_out']['wer']:.4f} on {args.eval} utterances "
            f"({summary['held_out']['exact']} exact)"
        )
    (work / "report.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    log(f"report: {work / 'report.json'}")
    return 0
