"""A random-weight CAM++ speaker model in the official ModelScope layout.

    tools/make_tiny_checkpoint.py --family campplus --out DIR [--seed N] [--full-size]

Writes what ModelScope's iic/speech_campplus_sv_zh-cn_16k-common holds for
funasr - `config.yaml` (`model: CAMPPlus` and its `model_conf`),
`configuration.json` (where the weights are) and `campplus_cn_common.bin` (a
plain state dict) - loadable by funasr's own `CAMPPlus`, the judge in the
equivalence tests. Batch-norm affine terms are drawn and their statistics
measured on random features, so a test exercises them at a trained model's
scale; `--full-size` has the release's sizes (about 7 M
parameters), the default is narrower with the same depth.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

import torch

try:
    from tingji.export.campplus.dims import CamPlusDims
    from tingji.export.campplus.modules import CamPlusGraph
except ImportError:  # running from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "app"))
    from tingji.export.campplus.dims import CamPlusDims
    from tingji.export.campplus.modules import CamPlusGraph

WEIGHTS_NAME = "campplus_cn_common.bin"
TINY = CamPlusDims(growth_rate=8, bn_size=2, init_channels=32)


def config_yaml(d: CamPlusDims) -> str:
    import yaml

    conf = {k: v for k, v in asdict(d).items() if k != "m_channels"}
    conf.update(config_str="batchnorm-relu", memory_efficient=True, output_level="segment")
    return yaml.safe_dump({"model": "CAMPPlus", "model_conf": conf}, sort_keys=False)


def configuration_json() -> str:
    return json.dumps(
        {
            "framework": "pytorch",
            "task": "speaker-verification",
            "model": {
                "type": "cam++-sv",
                "model_config": {"sample_rate": 16000, "fbank_dim": 80, "emb_size": 192},
                "pretrained_model": WEIGHTS_NAME,
            },
            "pipeline": {"type": "speaker-verification"},
            "file_path_metas": {"init_param": WEIGHTS_NAME, "config": "config.yaml"},
        },
        indent=2,
    )


def weights(d: CamPlusDims, seed: int) -> dict[str, torch.Tensor]:
    """Kaiming-initialised convolutions (as the reference's constructor), drawn batch-norm affine terms,
    and batch-norm statistics measured on random features, as training leaves them.

    With the constructor's statistics (mean 0, variance 1) activations grow
    through the 52 dense layers and embeddings reach the hundreds, where
    float32 rounding alone moves them by 1e-3; measured statistics keep every
    layer near unit scale, as in a trained model, so a test's tolerance means
    what it says.
    """
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed + 1)
    model = CamPlusGraph(d)
    for mod in model.modules():
        if isinstance(mod, (torch.nn.Conv1d, torch.nn.Conv2d)):
            torch.nn.init.kaiming_normal_(mod.weight)
            if mod.bias is not None:
                mod.bias.data = 0.1 * torch.randn(mod.bias.shape, generator=gen)
        elif isinstance(mod, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
            if mod.affine:
                mod.weight.data = 1.0 + 0.1 * torch.randn(mod.weight.shape, generator=gen)
                mod.bias.data = 0.1 * torch.randn(mod.bias.shape, generator=gen)
            mod.momentum = None  # a cumulative average over the calibration batches
            mod.reset_running_stats()
    model.train()
    with torch.no_grad():
        for _ in range(4):
            model(calibration_features(d, gen), torch.ones(8, 148))
    model.eval()
    return {name: tensor.detach().clone() for name, tensor in model.state_dict().items()}


def calibration_features(d: CamPlusDims, gen: torch.Generator) -> torch.Tensor:
    """fbank features of 1.5 s clips shaped like speech: bursts of coloured noise at random levels between pauses."""
    import numpy as np

    from tingji.engine.frontend import FrontendConfig
    from tingji.engine.speakers.model import clip_features

    cfg = FrontendConfig(n_mels=d.feat_dim, window="povey", upscale=1.0, lfr_m=1, lfr_n=1)
    rng = np.random.default_rng(int(torch.randint(0, 2**31, (1,), generator=gen)))
    clips = []
    for _ in range(8):
        x = rng.standard_normal(24000)
        x = np.convolve(x, rng.standard_normal(rng.integers(2, 40)), mode="same")  # a random spectral tilt
        envelope = np.repeat(rng.choice([0.0, 1.0], size=15, p=[0.3, 0.7]) * 10 ** rng.uniform(-3, -0.5, 15), 1600)
        x = (x / np.abs(x).max() * envelope + 1e-5 * rng.standard_normal(24000)).astype(np.float32)
        clips.append(clip_features(x, cfg))
    return torch.from_numpy(np.stack(clips))


def make_checkpoint(out: Path, seed: int, full_size: bool = False) -> Path:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    dims = CamPlusDims() if full_size else TINY
    (out / "config.yaml").write_text(config_yaml(dims), encoding="utf-8")
    (out / "configuration.json").write_text(configuration_json(), encoding="utf-8")
    torch.save(weights(dims, seed), out / WEIGHTS_NAME)
    return out
