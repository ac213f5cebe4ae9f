"""Issue 45's proof 5 on DirectML: the speaker model's fixed batch twin under Wine gives the Linux CPU's embeddings.

The tiny CAM++ export (the `speaker_model` fixture: its folder has the batch twin, `embedder_batch`) loads in
one Wine process as the engine loads it, on DirectML with CPU fallback disabled
(tests/windows/probes/dml_speakers.py), warmed at load. More clips than one batch, of mixed lengths, go through
`embed_features`: full batches and a short last one padded with masked zero windows, every clip zero-padded
to the window. The embedder's one session must list DirectML first and be the batch twin; every run after load
must feed the one warmed shape; the embeddings must be the Linux CPU's, both on the same graph and feeds (the
DirectML proof's 1e-4) and as the CPU product embeds each clip alone at its real length (the same bound).
"""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from tingji.engine.speakers.model import MIN_FRAMES, SpeakerModel

from .conftest import PROBES

CPU_BOUND = 1e-4  # test_dml_graphs.py's bound on DirectML against the Linux CPU


def feature_clips(model: SpeakerModel, count: int) -> list[np.ndarray]:
    """Seeded random feature clips: full windows, the shortest the graph takes, and lengths between."""
    rng = np.random.default_rng(45)
    window, width = model.manifest.window_frames, model.section.feat_dim
    lengths = [window, MIN_FRAMES, window - 1] + rng.integers(MIN_FRAMES, window + 1, count - 3).tolist()
    return [rng.standard_normal((n, width)).astype(np.float32) for n in lengths]


@pytest.mark.timeout(1800)  # one DirectML session warmed on lavapipe, on a busy 2-core machine
def test_batch_twin_on_directml_gives_the_linux_cpu_embeddings(speaker_model, windows_python, tmp_path):
    import onnxruntime as ort

    linux = SpeakerModel(speaker_model, provider="cpu", policy="dynamic", exact=True)
    batch = linux.section.fixed_batch
    assert batch > 1 and linux.manifest.file("embedder_batch") is not None
    clips = feature_clips(linux, batch + batch // 2 + 1)  # a full batch and a short last one
    np.savez(tmp_path / "clips.npz", **{str(i): c for i, c in enumerate(clips)})
    alone = np.stack([linux.embed_features([c])[0] for c in clips])  # the CPU product, one clip at a time

    start = time.perf_counter()
    proc = windows_python(PROBES / "dml_speakers.py", speaker_model, tmp_path / "clips.npz", tmp_path / "out.npz")
    seconds = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    window, width = linux.manifest.window_frames, linux.section.feat_dim
    twin = linux.manifest.file("embedder_batch")
    print(f"Wine process {seconds:.1f} s: {report}")

    assert report["provider"] == "dml" and report["policy"] == "fixed" and not report["warnings"], report
    assert report["fixed_batch"] == batch and report["warm_runs"] == 1
    assert list(report["sessions"]) == [str(window)], report["sessions"]  # one session: no one-window twin beside it
    session = report["sessions"][str(window)]
    assert session["providers"][0] == "DmlExecutionProvider" and session["graph"] == twin.name, session
    runs = -(-len(clips) // batch)
    assert report["shapes"] == [{"feats": [batch, window, width], "mask": [batch, window]}] * runs

    worst_graph = 0.0
    with np.load(tmp_path / "out.npz") as saved:
        dml = saved["embeddings"]
        cpu_session = ort.InferenceSession(str(twin), providers=["CPUExecutionProvider"])
        for n in range(runs):
            feeds = {k: saved[f"run/{n}/{k}"] for k in ("feats", "mask")}
            got = dml[n * batch : (n + 1) * batch]
            want = cpu_session.run(None, feeds)[0][: len(got)]
            worst_graph = max(worst_graph, float(np.abs(got.astype(np.float64) - want).max()))
            # the padding: rows past the clips are zero and fully masked, each clip zero past its length
            rows = len(got)
            assert not feeds["mask"][rows:].any() and not feeds["feats"][rows:].any()
            for j, clip in enumerate(clips[n * batch : (n + 1) * batch]):
                assert feeds["mask"][j].sum() == len(clip) and np.array_equal(feeds["feats"][j, : len(clip)], clip)
    worst_alone = float(np.abs(dml.astype(np.float64) - alone).max())
    scale = float(np.abs(alone).max())
    print(
        f"batch twin on DirectML ({report['device']}): {len(clips)} clips in {runs} runs of"
        f" {batch} x {window} frames; vs the Linux CPU on the same graph and feeds {worst_graph:.2e},"
        f" vs the Linux CPU one clip at a time at real length {worst_alone:.2e} (largest value {scale:.1f});"
        f" Wine process {seconds:.1f} s"
    )
    assert dml.shape == alone.shape and np.isfinite(dml).all()
    assert worst_graph <= CPU_BOUND
    assert worst_alone <= CPU_BOUND
