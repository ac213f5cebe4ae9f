#!/usr/bin/env python3
"""Train the demo speaker model on one GPU: the whole CAM++ (front included), AAM-softmax, many voices.

    python3 tools/speaker_demo/gpu_train.py --out DIR [--features F.npz] [--speakers N] [--seconds S] [--seed N]

Needs torch and numpy (and, when no `--features` file is given, what
`features.collect` needs: espeak-ng, soxr, scipy); it imports only the
product's `tingji.engine.frontend` and `tingji.export.campplus.modules`, so it
runs where the app's other dependencies are missing.

1. `features.collect` (unless `--features` names `features.build`'s file): `--speakers` training voices x
   `--utterances` utterances as uint8 fbank, and the held-out voices.
2. Each step draws `--batch` crops: a voice, one of its utterances, a random
   148-frame (1.5 s) window of it; one crop in four is cut short (0.5-1.5 s)
   and the rest filled with the fbank of digital silence, as the product
   zero-pads a speech span shorter than a window. Each crop minus its own mean
   per bin (the product's `clip_features`), a little noise within the
   quantisation step, and a masked band of up to 8 mel bins in half the crops.
3. AdamW (lr `LR`, warm-up then cosine decay to 0), bf16 autocast, AAM-softmax
   with scale `SCALE`; the margin is 0 for the first 40 % of the steps, then
   grows to `MARGIN` by 60 % and stays. The step count is fixed after timing
   the first steps so that training takes about `--seconds`.
4. Every few hundred steps: the held-out voices' same/different cosine (one
   window per utterance), printed only (no model selection on them).
5. `--out`/campplus.npz: the state dict (float32 and the batch norms' int64
   counters), loaded by tools/train_speaker_model.py --from-gpu into the
   official layout. A GPU run is not bit-reproducible on another GPU or CPU.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

HERE = Path(__file__).resolve().parent
for extra in (HERE.parent, HERE.parents[1] / "app"):  # tools/ and the app, when run from a checkout
    if extra.is_dir() and str(extra) not in sys.path:
        sys.path.append(str(extra))

from speaker_demo import features  # noqa: E402
from tingji.export.campplus.dims import CamPlusDims  # noqa: E402
from tingji.export.campplus.modules import CamPlusGraph  # noqa: E402

FRAMES = 148  # the product's 1.5 s window
SILENCE = float(np.log(np.finfo(np.float32).eps))  # fbank of digital silence (every bin)
LR, SCALE, MARGIN = 2e-3, 32.0, 0.2
DIMS = CamPlusDims(growth_rate=16, bn_size=2, init_channels=64)


START = time.perf_counter()


def log(line: str) -> None:
    print(f"[{time.perf_counter() - START:7.1f} s] {line}", flush=True)


class Crops:
    """Random training windows of the uint8 utterances, on the GPU."""

    def __init__(self, frames: np.ndarray, starts: np.ndarray, speaker: np.ndarray, dev: torch.device) -> None:
        self.frames = torch.from_numpy(frames).to(dev)
        self.starts = torch.from_numpy(starts[:-1]).to(dev)
        self.lengths = torch.from_numpy(np.diff(starts)).to(dev)
        self.speaker = torch.from_numpy(speaker.astype(np.int64)).to(dev)
        self.classes = int(speaker.max()) + 1
        # the utterances of each voice: voice v's are first[v] .. first[v] + count[v] - 1 (stored in voice order)
        self.first = torch.searchsorted(self.speaker, torch.arange(self.classes, device=dev))
        self.count = torch.bincount(self.speaker, minlength=self.classes)
        self.step = (features.HIGH - features.LOW) / 255
        self.dev = dev

    def window(self, utt: torch.Tensor, offset: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
        """[B, FRAMES, 80] log-mel: `keep` frames of each utterance from `offset`, then digital silence."""
        pos = torch.arange(FRAMES, device=self.dev)
        real = pos[None] < torch.minimum(keep, self.lengths[utt] - offset)[:, None]
        idx = (self.starts[utt] + offset)[:, None] + pos[None]
        idx = torch.where(real, idx, self.starts[utt][:, None])
        x = self.frames[idx].float() * self.step + features.LOW
        return torch.where(real[..., None], x, torch.full_like(x, SILENCE))

    def batch(self, size: int, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        def rand(n: int | torch.Tensor) -> torch.Tensor:
            return (torch.rand(size, device=self.dev, generator=gen) * n).long()

        who = rand(self.classes)
        utt = self.first[who] + rand(self.count[who])
        keep = torch.where(rand(4) == 0, 50 + rand(FRAMES - 50), torch.full_like(who, FRAMES))
        offset = rand((self.lengths[utt] - keep).clamp(min=1))
        x = self.window(utt, offset, keep)
        x = x + (torch.rand(x.shape, device=self.dev, generator=gen) - 0.5) * self.step
        x = x - x.mean(dim=1, keepdim=True)
        band = rand(8)
        low = rand(80 - 8)
        bins = torch.arange(80, device=self.dev)[None]
        masked = (bins >= low[:, None]) & (bins < (low + band)[:, None]) & (rand(2) == 0)[:, None]
        x = x.masked_fill(masked[:, None, :], 0.0)
        return x, self.speaker[utt]

    def eval_windows(self) -> tuple[torch.Tensor, torch.Tensor]:
        """One centred window per utterance (the whole utterance when shorter), minus its mean."""
        n = len(self.starts)
        offset = ((self.lengths - FRAMES) // 2).clamp(min=0)
        x = self.window(torch.arange(n, device=self.dev), offset, torch.full((n,), FRAMES, device=self.dev))
        return x - x.mean(dim=1, keepdim=True), self.speaker


def aam_logits(emb: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, margin: float) -> torch.Tensor:
    """cos(theta + m) for the true class, cos(theta) for the others, times SCALE."""
    cos = F.linear(F.normalize(emb), F.normalize(weight)).clamp(-1 + 1e-7, 1 - 1e-7)
    if margin > 0:
        target = torch.cos(torch.acos(cos) + margin)
        cos = torch.where(F.one_hot(labels, cos.shape[1]).bool(), target, cos)
    return SCALE * cos


@torch.no_grad()
def held_out_report(model: CamPlusGraph, held: Crops) -> str:
    model.eval()
    x, who = held.eval_windows()
    with torch.autocast(x.device.type, torch.bfloat16):
        emb = torch.cat([model(b, torch.ones(b.shape[:2], device=b.device)) for b in x.split(256)]).float()
    model.train()
    unit = F.normalize(emb)
    cos = unit @ unit.T
    same = who[:, None] == who[None]
    upper = torch.triu(torch.ones_like(same), 1)
    s, d = cos[same & upper], cos[~same & upper]
    if not len(s) or not len(d):
        return "held-out windows: too few to compare"
    # equal error rate: the threshold where false rejects = false accepts
    thr = torch.linspace(-1, 1, 401, device=cos.device)
    frr = (s[None] < thr[:, None]).float().mean(1)
    far = (d[None] >= thr[:, None]).float().mean(1)
    i = int((frr - far).abs().argmin())
    return (
        f"held-out windows: same median {s.median():.3f} min {s.min():.3f}, different median {d.median():.3f} "
        f"max {d.max():.3f}, EER {100 * (frr[i] + far[i]) / 2:.1f}% at {thr[i]:.2f}"
    )


def save(model: CamPlusGraph, path: Path) -> None:
    state = {k: v.detach().cpu().numpy() for k, v in model.state_dict().items()}
    np.savez(path, **state)
    log(f"saved {path}")


def train(args: argparse.Namespace) -> None:
    dev = torch.device(args.device)
    torch.manual_seed(args.seed)
    torch.backends.cudnn.benchmark = True
    if args.features and args.features.is_file():
        data = dict(np.load(args.features))
    else:
        data = features.collect(args.speakers, args.utterances, args.seed, args.workers, log)
    seconds = min(args.seconds, args.deadline - (time.perf_counter() - START) - 30)
    crops = Crops(data["frames"], data["starts"], data["speaker"], dev)
    held = Crops(data["held_frames"], data["held_starts"], data["held_speaker"], dev)
    log(f"{crops.classes} voices, {len(crops.starts)} utterances, {len(data['frames'])} frames on {dev}")
    model = CamPlusGraph(DIMS)
    if args.init:
        with np.load(args.init) as saved:
            model.load_state_dict({k: torch.from_numpy(saved[k]) for k in saved.files})
        log(f"starting from {args.init}")
    model = model.to(dev).train()
    log(f"CAM++ {sum(p.numel() for p in model.parameters()) / 1e6:.2f} M parameters ({DIMS})")
    head = torch.nn.Parameter(torch.randn(crops.classes, DIMS.embedding_size, device=dev) * 0.01)
    opt = torch.optim.AdamW([*model.parameters(), head], lr=LR, weight_decay=1e-4)
    gen = torch.Generator(device=dev).manual_seed(args.seed)
    mask = torch.ones(args.batch, FRAMES, device=dev)
    steps, warm, step, timed = args.steps or 10**9, 300, 0, 0.0
    while step < steps:
        if step == 60 and not args.steps:
            torch.cuda.synchronize()
            timed = time.perf_counter()
        if step == 160 and not args.steps:
            torch.cuda.synchronize()
            per = (time.perf_counter() - timed) / 100
            steps = max(400, int((seconds - 10) / per))
            log(f"{per * 1000:.1f} ms a step: {steps} steps")
        progress = step / steps if steps < 10**9 else 0.0
        lr = LR * min(1.0, (step + 1) / warm) * 0.5 * (1 + math.cos(math.pi * progress))
        for group in opt.param_groups:
            group["lr"] = lr
        margin = MARGIN * min(1.0, max(0.0, (progress - 0.4) / 0.2))
        x, y = crops.batch(args.batch, gen)
        with torch.autocast(dev.type, torch.bfloat16):
            emb = model(x, mask)
        logits = aam_logits(emb.float(), head, y, margin)
        loss = F.cross_entropy(logits, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 500 == 0 or step == steps - 1:
            acc = float((logits.argmax(1) == y).float().mean())
            log(f"step {step}/{steps} loss {loss.item():.3f} acc {acc:.2f} lr {lr:.2e} margin {margin:.2f}")
        if step % 2000 == 0 or step == steps - 1:
            log(held_out_report(model, held))
        if steps < 10**9 and step == steps // 2:
            save(model, args.out / "campplus-half.npz")
        step += 1
    model.eval()
    save(model, args.out / "campplus.npz")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--features", type=Path, help="features.build's .npz (default: synthesised here)")
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--speakers", type=int, default=3000)
    ap.add_argument("--utterances", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=240.0, help="about how long to train")
    ap.add_argument("--deadline", type=float, default=1e9, help="seconds from the start by which to be done")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps", type=int, default=0, help="a fixed step count (0: from --seconds)")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--init", type=Path, help="start from these weights (an earlier run's campplus.npz)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    train(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
