"""The demo model's training phases: the LLM alone on oracle rows, joint training, the LLM polished.

Every phase draws its batches and augmentation from the seed, and runs a fixed number of steps (the
recipe's): the machine's load changes how long training takes, not what it trains.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .data import TAG_O, Batch, Example, batch_stream, collate, num_audio_tokens
from .losses import ORACLE_SCALE, ctc_logits, forward_losses, llm_batch, llm_loss, oracle_rows
from .recipe import AUDIO_ROWS_PER_FRAME, VOCAB, Recipe
from .text import TextSide, wer

if TYPE_CHECKING:
    import torch


def lr_at(step: int, recipe: Recipe) -> float:
    """Linear warm-up, then cosine decay to a tenth."""
    if step < recipe.warmup:
        return recipe.lr * (step + 1) / recipe.warmup
    progress = (step - recipe.warmup) / max(1, recipe.steps - recipe.warmup)
    return recipe.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


def greedy_ctc(model, batch: Batch, side: TextSide) -> list[str]:
    """CTC best path as words (the quick accuracy probe printed during training)."""
    import torch

    keep = batch.mask.unsqueeze(-1)
    bias = ((1.0 - batch.mask) * -1.0e9)[:, None, None, :]
    with torch.no_grad():
        enc = model.audio_encoder(batch.feats * keep, keep, bias) * keep
        best = ctc_logits(model, enc, bias, side).argmax(-1)
    out = []
    for b, t in enumerate(batch.frames):
        words, prev = [], -1
        for i in best[b, :t].tolist():
            if i != prev and i < len(VOCAB):
                words.append(VOCAB[i])
            prev = i
        out.append(" ".join(words))
    return out


def llm_step(
    model, embed, side: TextSide, batch: tuple, recipe: Recipe, opt, params, lr: float, running: dict[str, float]
) -> None:
    """One optimizer step on the LLM loss alone (LLM pretraining and polish); updates `running` averages."""
    import torch

    inputs, attention, label_ids = batch
    for group in opt.param_groups:
        group["lr"] = lr
    loss, acc = llm_loss(model.llm, embed, side, inputs, attention, label_ids, recipe.label_smoothing)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    for k, v in (("llm", loss), ("acc", acc)):
        running[k] = running[k] * 0.9 + float(v) * 0.1 if k in running else float(v)


def pretrain_llm(
    model, tok, side: TextSide, short: list[Example], recipe: Recipe, table: torch.Tensor, seed: int, log
) -> None:
    """The LLM alone, on oracle rows plus noise: it learns to read rows before the adaptor can write them.

    Cheap (no encoder): a few hundred steps of a 3-layer, 128-wide decoder on
    the training set's own texts and word timings, short and long examples.
    """
    import torch

    if recipe.llm_pretrain_steps <= 0:
        return
    params = [p for p in model.llm.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=recipe.lr, betas=(0.9, 0.98), eps=1e-8, weight_decay=0.01)
    rng = np.random.default_rng([seed, 13])
    schedule = batch_stream(short, replace(recipe, short_only_steps=0), seed + 1)
    embed = model.llm.get_input_embeddings()
    model.llm.train()
    running: dict[str, float] = {}
    started = time.perf_counter()
    steps = recipe.llm_pretrain_steps
    for step in range(steps):
        _, items = next(schedule)
        frames = max(e.frames for e in items)
        n_audio = [num_audio_tokens(e.frames) for e in items]
        n_rows = max(n_audio)
        tags = torch.full((len(items), n_rows * AUDIO_ROWS_PER_FRAME), TAG_O, dtype=torch.long)
        for b, e in enumerate(items):
            tags[b, : e.frames] = torch.from_numpy(e.tags.astype(np.int64))
        rows = oracle_rows(tags, table, n_rows)
        noise_level = rng.uniform(0.1, 0.8) * ORACLE_SCALE
        rows = rows + torch.from_numpy(rng.standard_normal(rows.shape).astype(np.float32)) * noise_level
        inputs, attention, label_ids = llm_batch(
            [rows[b, :n] for b, n in enumerate(n_audio)], [e.text for e in items], embed, tok, side
        )
        warm = max(2, steps // 10)
        lr = recipe.lr * min(1.0, (step + 1) / warm)
        llm_step(model, embed, side, (inputs, attention, label_ids), recipe, opt, params, lr, running)
        if (step + 1) % max(1, steps // 10) == 0 or step == steps - 1:
            log(
                f"LLM pretraining {step + 1}/{steps} {time.perf_counter() - started:5.0f}s  llm {running['llm']:.3f}"
                f"  acc {running['acc']:.3f}  (frames {frames})"
            )


def polish_llm(model, tok, side: TextSide, short: list[Example], recipe: Recipe, seed: int, log) -> float:
    """After joint training: the adaptor and LLM alone, on the frozen encoder's output.

    The LLM is the slowest part to learn (reading an utterance's words in
    order out of the packed rows), and a step that neither back-propagates
    through nor updates the encoder costs a fraction of a joint step, so the
    last part of the budget buys it several times more steps on exactly the
    encoder it will run with. Same data stream as training (fresh feature
    augmentation, short and long examples). Returns the seconds spent.
    """
    import torch

    steps = recipe.polish_steps
    if steps <= 0:
        return 0.0
    started = time.perf_counter()
    params = [p for p in (*model.audio_adaptor.parameters(), *model.llm.parameters()) if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=recipe.polish_lr, betas=(0.9, 0.98), eps=1e-8, weight_decay=0.01)
    rng = np.random.default_rng([seed, 19])
    schedule = batch_stream(short, replace(recipe, short_only_steps=0), seed + 2)
    embed = model.llm.get_input_embeddings()
    running: dict[str, float] = {}
    for step in range(steps):
        _, items = next(schedule)
        batch = collate(items, rng, augment_feats=True)
        keep = batch.mask.unsqueeze(-1)
        bias = ((1.0 - batch.mask) * -1.0e9)[:, None, None, :]
        model.eval()
        with torch.no_grad():
            enc = model.audio_encoder(batch.feats * keep, keep, bias) * keep
        model.audio_adaptor.train()
        model.llm.train()
        rows = model.audio_adaptor(enc, bias) * keep
        n_audio = [num_audio_tokens(t) for t in batch.frames]
        inputs, attention, label_ids = llm_batch(
            [rows[b, :n] for b, n in enumerate(n_audio)], batch.texts, embed, tok, side
        )
        warm = max(2, steps // 20)
        progress = max(0.0, (step - warm) / max(1, steps - warm))
        lr = recipe.polish_lr * min(1.0, (step + 1) / warm) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))
        llm_step(model, embed, side, (inputs, attention, label_ids), recipe, opt, params, lr, running)
        if (step + 1) % max(1, steps // 10) == 0 or step == steps - 1:
            log(
                f"LLM polish {step + 1}/{steps} {time.perf_counter() - started:5.0f}s  llm {running['llm']:.3f}"
                f"  acc {running['acc']:.3f}"
            )
    model.eval()
    return time.perf_counter() - started


class WeightAverage:
    """Exponential moving average of the weights over the second half of joint training.

    With ~1 minute of audio per step the weights wander: in one 1,848-step
    run, dev CTC WER at steps 1518, 1702 and 1848 was 10.2%, 7.6% and 11.9%.
    The average sits in the middle of that wandering, which is where a short
    run's best model is; it costs one multiply-add per weight per step.
    """

    def __init__(self, model, decay: float) -> None:
        self.decay = decay
        self.shadow: dict | None = None
        self.model = model

    def update(self) -> None:
        import torch

        with torch.no_grad():
            params = {k: v for k, v in self.model.state_dict().items() if v.is_floating_point()}
            if self.shadow is None:
                self.shadow = {k: v.detach().clone() for k, v in params.items()}
                return
            for k, v in params.items():
                self.shadow[k].mul_(self.decay).add_(v.detach(), alpha=1.0 - self.decay)

    def apply(self) -> None:
        """Load the averaged weights into the model (no-op if averaging never started)."""
        if self.shadow is not None:
            self.model.load_state_dict(self.shadow, strict=False)


def joint_optimizer(model, recipe: Recipe) -> tuple[torch.optim.Optimizer, list[torch.Tensor]]:
    """AdamW over every parameter, weight decay on matrices only; and the parameters it holds."""
    import torch

    params = [p for p in model.parameters() if p.requires_grad]
    decay = [p for p in params if p.ndim >= 2]
    no_decay = [p for p in params if p.ndim < 2]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
        lr=recipe.lr,
        betas=(0.9, 0.98),
        eps=1e-8,
    )
    return opt, params


def joint_step(model, batch: Batch, step: int, opt, params, parts: tuple) -> dict[str, torch.Tensor]:
    """One optimizer step on every loss, weighted as the recipe says; returns the losses.

    `parts` is what the losses need besides the batch: (tokenizer, TextSide, Recipe, oracle table).
    """
    import torch

    tok, side, recipe, table = parts
    model.train()
    for group in opt.param_groups:
        group["lr"] = lr_at(step, recipe)
    losses = forward_losses(model, batch, tok, side, recipe, table)
    total = (
        recipe.ctc_weight * losses["ctc"]
        + losses["llm"]
        + recipe.frame_weight * losses["frame"]
        + recipe.pack_weight * losses["pack"]
        + recipe.row_weight * losses["row"]
    )
    opt.zero_grad(set_to_none=True)
    total.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    return losses


def dev_check(model, dev: list[Example], rng: np.random.Generator, parts: tuple) -> tuple[float, float]:
    """The dev set's CTC word error rate (greedy) and the LLM's next-token accuracy on it."""
    import torch

    tok, side, recipe, table = parts
    model.eval()
    dev_batch = collate(dev, rng, augment_feats=False)
    ctc_wer = wer(dev_batch.texts, greedy_ctc(model, dev_batch, side))
    with torch.no_grad():
        dev_acc = float(forward_losses(model, dev_batch, tok, side, recipe, table)["acc"])
    return ctc_wer, dev_acc


def train(
    model,
    tok,
    side: TextSide,
    short: list[Example],
    dev: list[Example],
    recipe: Recipe,
    seed: int,
    work: Path,
    log,
    table: torch.Tensor,
) -> dict:
    """Joint training: every loss, the recipe's steps; the exported weights are the average (`WeightAverage`)."""
    import torch

    opt, params = joint_optimizer(model, recipe)
    parts = (tok, side, recipe, table)
    rng = np.random.default_rng([seed, 11])
    schedule = batch_stream(short, recipe, seed)
    started = time.perf_counter()
    history = []
    running: dict[str, float] = {}
    report_every = max(1, recipe.steps // 40)
    average = WeightAverage(model, recipe.ema_decay)
    for step in range(recipe.steps):
        pool, items = next(schedule)
        losses = joint_step(model, collate(items, rng, augment_feats=True), step, opt, params, parts)
        if step >= int(recipe.steps * recipe.ema_start):
            average.update()
        for k, v in losses.items():
            running[k] = running.get(k, 0.0) * 0.9 + float(v) * 0.1 if k in running else float(v)
        if (step + 1) % report_every == 0 or step == recipe.steps - 1:
            ctc_wer, dev_acc = dev_check(model, dev, rng, parts)
            elapsed = time.perf_counter() - started
            history.append(
                {
                    "step": step + 1,
                    "elapsed_s": round(elapsed, 1),
                    "lr": lr_at(step, recipe),
                    **{k: round(v, 4) for k, v in running.items()},
                    "dev_ctc_wer": round(ctc_wer, 4),
                    "dev_llm_acc": round(dev_acc, 4),
                }
            )
            log(
                f"step {step + 1}/{recipe.steps} {elapsed:6.0f}s load {os.getloadavg()[0]:4.1f}"
                f"  ctc {running['ctc']:.3f}  llm {running['llm']:.3f}  acc {running['acc']:.3f}"
                f"  frame {running['frame']:.3f}  pack {running['pack']:.3f}  row {running['row']:.3f}"
                f"  dev CTC WER {ctc_wer:.3f}  dev LLM acc {dev_acc:.3f}  [{pool}]"
            )
        if (step + 1) % max(50, recipe.steps // 8) == 0:
            torch.save({"step": step + 1, "model": model.state_dict()}, work / "train-state.pt")
    average.apply()
    model.eval()
    dev_batch = collate(dev, rng, augment_feats=False)
    averaged_wer = wer(dev_batch.texts, greedy_ctc(model, dev_batch, side))
    log(f"averaged weights: dev CTC WER {averaged_wer:.3f}")
    return {"history": history, "train_s": time.perf_counter() - started, "averaged_dev_ctc_wer": averaged_wer}
