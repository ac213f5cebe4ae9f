"""funasr's own CAMPPlus and spectral clustering back-end, the judges of the speaker labels (test-only).

The embedding runs exactly as `CAMPPlus.inference` does (fbank on [-1, 1]
samples minus the clip's mean, one clip at a time, so no padding enters);
the clustering is funasr's `ClusterBackend` on the same embeddings, and the
windowing its `sv_chunk`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from tests.support.quiet import quiet_root_logger


class CamPlusReference:
    def __init__(self, checkpoint: Path) -> None:
        from funasr.auto.auto_model import AutoModel

        with quiet_root_logger():  # funasr logs its progress on the root logger
            auto = AutoModel(model=str(checkpoint), device="cpu", disable_update=True, log_level="ERROR")
        self.model = auto.model.eval()
        self.kwargs = auto.kwargs

    def embed(self, wav: np.ndarray) -> np.ndarray:
        """The embedding [E] of one clip, as `inference` computes it."""
        with torch.no_grad(), quiet_root_logger():
            results, _ = self.model.inference([torch.from_numpy(np.array(wav, np.float32))], device="cpu")
        return results[0]["spk_embedding"][0].numpy()

    def features(self, wav: np.ndarray) -> np.ndarray:
        """The features [T, 80] `inference` feeds the network (funasr's extract_feature)."""
        from funasr.models.campplus.utils import extract_feature

        feats, _, _ = extract_feature([torch.from_numpy(np.array(wav, np.float32))])
        return feats[0].numpy()


def reference_labels(embeddings: np.ndarray, oracle: int | None = None) -> np.ndarray:
    """funasr's ClusterBackend labels (its own copy of the input: it writes into the matrices it makes).

    funasr leaves its k-means unseeded (numpy's global generator): it is seeded
    here so the judge gives the same answer every run.
    """
    from funasr.models.campplus.cluster_backend import ClusterBackend

    np.random.seed(0)
    backend = ClusterBackend()
    params = {} if oracle is None else {"oracle_num": oracle}
    return np.asarray(backend(np.array(embeddings, np.float64), **params))


def reference_chunks(spans: list[tuple[float, float]], wav: np.ndarray, fs: int = 16000) -> list[tuple[float, float]]:
    """funasr's sv_chunk windows (start, end seconds) of the speech spans (seconds) of `wav`."""
    from funasr.models.campplus.utils import sv_chunk

    segs = [[s, e, wav[int(s * fs) : int(e * fs)]] for s, e in spans]
    return [(float(a), float(b)) for a, b, _ in sv_chunk(segs, fs)]
