"""Speaker clustering, windows and turns: what funasr's diarization back-end does, on the same inputs.

Proof 2 of issue 33: the labels of `engine.speakers.cluster` equal funasr's
`ClusterBackend` on the same embeddings, up to renaming, with the speaker
count found and with it given; the windows equal funasr's `sv_chunk` and the
turns its `postprocess`. The embeddings are made here (speakers as noisy
centres taking turns), so the cases range from clear to voices funasr itself
merges. Each test prints what it measured.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.reference_campplus import reference_chunks, reference_labels
from tingji.engine.speakers import cluster as clustering
from tingji.engine.speakers import diarize

RATE = 16000


def _blobs(counts: list[int], seed: int, spread: float = 0.6, alike: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Window embeddings of speakers taking turns (a centre per speaker plus noise, in runs), and who spoke.

    `alike` pulls the second speaker's centre towards the first's (0: unrelated voices).
    """
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((len(counts), 192))
    if len(counts) > 1:
        centres[1] = alike * centres[0] + (1 - alike) * centres[1]
    rows, truth = [], []
    left = list(counts)
    while any(left):
        for s in range(len(counts)):
            take = min(left[s], int(rng.integers(3, 12)))
            rows += [centres[s] + spread * rng.standard_normal(192) for _ in range(take)]
            truth += [s] * take
            left[s] -= take
    return np.array(rows, np.float32), np.array(truth)


def _same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal up to renaming: the pairs (a, b) form a one-to-one map."""
    pairs = set(zip(a.tolist(), b.tolist()))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


CASES = [
    ("1 speaker, 40 windows", [40], 1),
    ("2 speakers", [60, 45], 2),
    ("3 speakers", [50, 40, 70], 3),
    ("4 speakers", [30, 45, 35, 50], 4),
    ("4 speakers, noisy windows", [80, 60, 70, 90], 4),
    ("3 speakers, two alike", [70, 50, 60], 3),
    ("2 speakers, very alike", [90, 80], 2),
    ("under 20 windows", [8, 9], 2),
]


@pytest.mark.parametrize("name, counts, speakers", CASES, ids=[c[0] for c in CASES])
def test_clustering_equals_funasr(name, counts, speakers):
    spread = 1.0 if "noisy" in name else 0.6
    alike = 0.7 if "very alike" in name else 0.6 if "alike" in name else 0.0
    x, _ = _blobs(counts, seed=len(counts) * 7 + sum(counts), spread=spread, alike=alike)
    for oracle in (None, speakers):
        ours = clustering.cluster(x, oracle)
        ref = reference_labels(x, oracle)
        how = "auto" if oracle is None else f"count {oracle}"
        print(f"{name} ({len(x)} windows, {how}): ours {len(set(ours))} speakers, funasr {len(set(ref))}")
        assert _same_partition(ours, ref)


def test_clustering_many_windows_with_count():
    """From 2048 windows on, with a count, both run k-means on normalised embeddings."""
    x, _ = _blobs([800, 700, 600], seed=5)
    ours, ref = clustering.cluster(x, 3), reference_labels(x, 3)
    print(f"{len(x)} windows, count 3: ours {len(set(ours))}, funasr {len(set(ref))}")
    assert _same_partition(ours, ref)


def test_clustering_many_windows_auto_finds_the_speakers():
    """funasr's UMAP + HDBSCAN is not used: the spectral count on a sample, then k-means."""
    x, truth = _blobs([900, 800, 700], seed=6)
    labels = clustering.cluster(x, None)
    print(f"{len(x)} windows, auto: {len(set(labels))} speakers")
    assert len(set(labels)) == 3 and _same_partition(labels, truth)


def test_windows_equal_funasr():
    wav = np.zeros(RATE * 20, np.float32)
    spans_s = [(0.5, 1.2), (2.0, 6.37), (7.0, 8.5), (9.0, 16.81)]
    spans = [(int(a * RATE), int(b * RATE)) for a, b in spans_s]
    ours = [(w.start, w.end) for w in diarize.windows(spans)]
    ref = reference_chunks(spans_s, wav)
    print(f"{len(ours)} windows from {len(spans)} spans")
    assert len(ours) == len(ref) and np.allclose(ours, ref, atol=1e-9)
    assert all(w.length <= RATE * 1.5 for w in diarize.windows(spans))


def test_turns_equal_funasr():
    from funasr.models.campplus.utils import postprocess

    rng = np.random.default_rng(3)
    spans = [(int(a * RATE), int(b * RATE)) for a, b in [(0.0, 9.3), (9.6, 14.0), (15.1, 30.2), (31.0, 31.5)]]
    wins = diarize.windows(spans)
    labels = np.repeat(rng.integers(0, 3, size=len(wins) // 3 + 1), 3)[: len(wins)]
    labels[5] = 7  # a lone window: smoothed away
    ours = [(t.start, t.end, t.speaker) for t in diarize.turns(wins, labels)]
    segs = [[w.start, w.end, None] for w in wins]
    ref = [(a, b, int(s)) for a, b, s in postprocess(segs, None, labels, np.zeros((len(wins), 4)))]
    print(f"{len(wins)} windows -> {len(ours)} turns")
    assert len(ours) == len(ref)
    assert all(abs(a - c) < 1e-9 and abs(b - d) < 1e-9 and s == t for (a, b, s), (c, d, t) in zip(ours, ref))


def test_speaker_of_segment():
    turns = [diarize.Turn(0.0, 4.0, 0), diarize.Turn(4.0, 6.0, 1), diarize.Turn(7.0, 9.0, 0)]
    assert diarize.speaker_of(3.0, 5.5, turns) == 1  # 1.5 s of speaker 1 over 1 s of speaker 0
    assert diarize.speaker_of(5.0, 8.5, turns) == 0  # 1.5 s of speaker 0 over 1 s of speaker 1
    assert diarize.speaker_of(6.2, 6.4, turns) == 1  # in a gap: the nearer turn
    assert diarize.speaker_of(1.0, 2.0, []) is None


def test_clustering_does_not_depend_on_blas_threads(monkeypatch):
    """The eigensolver runs on one BLAS thread whatever the caller set: a multi-threaded OpenBLAS splits its
    sums by thread count (1 and 2 threads gave eigenvalues 3e-15 apart here), so the eigenvectors, and on a
    close call the labels, would depend on the cores and on what ran earlier in the process."""
    from threadpoolctl import threadpool_info, threadpool_limits

    seen: list[tuple[list[int], np.ndarray]] = []
    eigh = np.linalg.eigh

    def spy(a, *args, **kwargs):
        threads = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
        values, vectors = eigh(a, *args, **kwargs)
        seen.append((threads, values))
        return values, vectors

    monkeypatch.setattr(np.linalg, "eigh", spy)
    x, _ = _blobs([300, 250, 280], seed=11, spread=1.0)
    labels = []
    for threads in (1, 4):
        with threadpool_limits(limits=threads, user_api="blas"):
            labels.append(clustering.cluster(x, None))
    print(f"BLAS threads inside the eigensolver: {[t for t, _ in seen]}")
    assert all(t and max(t) == 1 for t, _ in seen)
    assert np.array_equal(seen[0][1], seen[1][1]) and np.array_equal(labels[0], labels[1])
