"""Training the demo speaker model: windows, a calibrated front, AAM-softmax over training speakers, export.

The steps, in order (`run`):

1. `training_windows`: `speakers` random training voices, each reading
   `UTTERANCES` random texts with augmentation; `WINDOWS` random 1.5 s
   windows of each utterance's speech, as fbank-80 minus the window's mean
   (the product's `clip_features`, so training sees what `SpeakerModel.embed`
   computes).
2. `front_features`: the FCM front (the 2-D convolutions, ~80 % of CAM++'s
   compute) keeps its seeded random convolutions (`tiny_campplus.weights`),
   its batch-norm statistics measured on these windows; its outputs are
   computed once and cached. Training the front too costs ~4x per step on
   this 2-core machine, which the budget does not allow.
3. `train_xvector`: the rest (TDNN, 52 dense CAM layers, pooling, embedding)
   is trained with AAM-softmax (scale 30; the margin 0 for the first 30 % of
   steps, then growing to 0.2) over the training speakers on random 1.0 s
   crops of the cached front outputs; then its
   batch-norm statistics are measured again over all windows.
4. `write_checkpoint`: the official layout (`tiny_campplus.config_yaml`),
   exported by `tingji export-model` (the product's exporter and graph).

Determinism: the seed fixes the voices, texts, augmentation, crops and batch
order; steps are a fixed count; torch runs deterministic algorithms on two
threads; each utterance is synthesised in a fresh process.
"""

from __future__ import annotations

import math
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from . import voices

WINDOW_SAMPLES = 24000  # 1.5 s, the product's embedding window
CROP_FRAMES = 100  # training crops of the front's output (1.0 s)
UTTERANCES = 4  # per training speaker
WINDOWS = 3  # per utterance
BATCH = 64
MARGIN, SCALE = 0.2, 30.0
LR = 1e-3  # 3e-3 diverged (the loss rose for 75 steps); 1e-3 learns 20 speakers in 30 steps

Log = Callable[[str], None]


def frontend():
    from tingji.export.campplus.convert import frontend_config

    return frontend_config(80)


def training_windows(speakers: int, seed: int, log: Log) -> tuple[np.ndarray, np.ndarray]:
    """fbank windows [N, 148, 80] (float32) and their speaker index [N]."""
    from tingji.engine.speakers.model import clip_features

    rng = np.random.default_rng([seed, 1])
    people = [voices.train_speaker(rng) for _ in range(speakers)]
    jobs = []
    for person in people:
        texts = [
            (voices.random_text(rng, person.base, int(rng.integers(5, 12))), int(rng.integers(2**31)))
            for _ in range(UTTERANCES)
        ]
        jobs.append((person, texts))
    t = time.perf_counter()
    clips = voices.utterances(jobs)
    log(f"synthesised {speakers} voices x {UTTERANCES} utterances in {time.perf_counter() - t:.0f} s")
    cfg = frontend()
    feats, labels = [], []
    for who, person_clips in enumerate(clips):
        for clip in person_clips:
            for window in voices.speech_windows(clip, rng, WINDOWS, WINDOW_SAMPLES):
                feats.append(clip_features(window, cfg))
                labels.append(who)
    return np.stack(feats), np.asarray(labels, np.int64)


def initial_model(seed: int):
    """CAM++ at the demo's sizes with the seeded weights of tools/tiny_campplus.py."""
    from tiny_campplus import TINY, weights

    from tingji.export.campplus.modules import CamPlusGraph

    model = CamPlusGraph(TINY)
    model.load_state_dict(weights(TINY, seed))
    return model


def _measure_bn(module: torch.nn.Module, batches: Callable[[], list[tuple]], fn: Callable) -> None:
    """Batch-norm statistics of `module` as the average over `batches` (train mode, no gradient)."""
    bns = [m for m in module.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None
    module.train()
    with torch.no_grad():
        for args in batches():
            fn(*args)
    for bn in bns:
        bn.momentum = 0.1
    module.eval()


def front_features(model, feats: np.ndarray, log: Log) -> torch.Tensor:
    """The FCM front's outputs [N, C, T] for every window, after measuring its batch-norm statistics."""
    x = torch.from_numpy(feats)
    ones = torch.ones(1, 1, x.shape[1])

    def calib():
        return [(x[i : i + BATCH],) for i in range(0, min(len(x), 6 * BATCH), BATCH)]

    _measure_bn(model.head, calib, lambda b: model.head(b.transpose(1, 2), ones.expand(len(b), 1, -1)))
    t = time.perf_counter()
    out = []
    with torch.no_grad():
        for i in range(0, len(x), BATCH):
            b = x[i : i + BATCH]
            out.append(model.head(b.transpose(1, 2), ones.expand(len(b), 1, -1)).half())
    log(f"front outputs of {len(x)} windows in {time.perf_counter() - t:.0f} s")
    return torch.cat(out)


def aam_logits(emb: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, margin: float) -> torch.Tensor:
    """Additive angular margin softmax logits: cos(theta + m) for the true class, cos(theta) for others."""
    cos = F.linear(F.normalize(emb), F.normalize(weight)).clamp(-1 + 1e-7, 1 - 1e-7)
    target = torch.cos(torch.acos(cos) + margin)
    onehot = F.one_hot(labels, cos.shape[1]).bool()
    return SCALE * torch.where(onehot, target, cos)


def train_xvector(
    model, front: torch.Tensor, labels: np.ndarray, steps: int, seed: int, log: Log, max_margin: float = MARGIN
) -> None:
    gen = torch.Generator().manual_seed(seed)
    y = torch.from_numpy(labels)
    classes = int(labels.max()) + 1
    xv = model.xvector
    # Unit-scale class vectors: Adam moves each weight by ~lr a step, which would turn small ones around at once.
    head = torch.nn.Parameter(torch.randn(classes, xv.dense.linear.out_channels, generator=gen))
    params = [*xv.parameters(), head]
    opt = torch.optim.AdamW(params, lr=LR, weight_decay=1e-4)
    warm = max(1, steps // 20)
    mask = torch.ones(BATCH, 1, CROP_FRAMES)
    xv.train()
    t = time.perf_counter()
    for step in range(steps):
        lr = LR * min(1.0, (step + 1) / warm) * 0.5 * (1 + math.cos(math.pi * step / steps))
        for group in opt.param_groups:
            group["lr"] = lr
        idx = torch.randint(0, len(front), (BATCH,), generator=gen)
        off = torch.randint(0, front.shape[2] - CROP_FRAMES + 1, (BATCH,), generator=gen)
        batch = torch.stack([front[i, :, o : o + CROP_FRAMES] for i, o in zip(idx.tolist(), off.tolist())]).float()
        # Plain normalised softmax for the first 30 % of steps, then the margin grows in over the next 30 %.
        margin = max_margin * min(1.0, max(0.0, step / (0.3 * steps) - 1.0))
        logits = aam_logits(xv(batch, mask), head, y[idx], margin)
        loss = F.cross_entropy(logits, y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 25 == 0 or step == steps - 1:
            acc = float((logits.argmax(1) == y[idx]).float().mean())
            took = time.perf_counter() - t
            log(f"step {step}/{steps} loss {loss.item():.3f} acc {acc:.2f} lr {lr:.2e} ({took:.0f} s)")

    def all_windows():
        full = torch.ones(1, 1, front.shape[2])
        return [(front[i : i + BATCH].float(), full) for i in range(0, min(len(front), 24 * BATCH), BATCH)]

    _measure_bn(xv, all_windows, lambda b, m: xv(b, m.expand(len(b), 1, -1)))


def write_checkpoint(model, folder: Path, dims=None) -> Path:
    """The official layout (config.yaml, configuration.json, the state dict); `dims` default: the tiny sizes."""
    from tiny_campplus import TINY, WEIGHTS_NAME, config_yaml, configuration_json

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text(config_yaml(dims or TINY), encoding="utf-8")
    (folder / "configuration.json").write_text(configuration_json(), encoding="utf-8")
    torch.save({k: v.detach().clone() for k, v in model.state_dict().items()}, folder / WEIGHTS_NAME)
    return folder


def export(checkpoint: Path, out: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "tingji", "export-model", "--source", str(checkpoint), "--out", str(out)], check=True
    )


def from_gpu(weights: Path, out: Path, work: Path) -> Path:
    """The state dict `gpu_train.py` wrote (a plain .npz, no pickle) in the official layout, exported to `out`."""
    from tingji.export.campplus.modules import CamPlusGraph

    from .gpu_train import DIMS

    model = CamPlusGraph(DIMS)
    with np.load(weights) as saved:
        model.load_state_dict({k: torch.from_numpy(saved[k]) for k in saved.files})
    model.eval()
    export(write_checkpoint(model, work / "checkpoint", DIMS), out)
    return out


def run(out: Path, work: Path, *, seed: int, speakers: int, steps: int, margin: float, log: Log = print) -> Path:
    """The whole run: synthesis, front, training, checkpoint in `work`, exported model in `out`."""
    torch.manual_seed(seed)
    torch.set_num_threads(2)
    torch.use_deterministic_algorithms(True)
    model = initial_model(seed)
    cached = work / f"front-seed{seed}-speakers{speakers}.pt"  # the front's outputs: a rerun skips to training
    if cached.is_file():
        saved = torch.load(cached, weights_only=True)
        model.head.load_state_dict(saved["head"])
        front, labels = saved["front"], saved["labels"].numpy()
    else:
        feats, labels = training_windows(speakers, seed, log)
        front = front_features(model, feats, log)
        work.mkdir(parents=True, exist_ok=True)
        torch.save({"head": model.head.state_dict(), "front": front, "labels": torch.from_numpy(labels)}, cached)
    train_xvector(model, front, labels, steps, seed, log, margin)
    model.eval()
    checkpoint = write_checkpoint(model, work / "checkpoint")
    export(checkpoint, out)
    return out
