"""Window embeddings -> speaker labels: FunASR's clustering back-end (3D-Speaker's), step by step.

`cluster(embeddings, count)` follows funasr's `ClusterBackend`:

* fewer than 20 windows (15 s of speech): one speaker;
* fewer than 2048 windows: spectral clustering - cosine similarities; each
  row keeps only its largest share (p-pruning: the top 2.2 %, at least 6
  entries), is symmetrised, and becomes an unnormalised graph Laplacian
  L = D - A; its eigenvectors (NumPy's `eigh`) for the `k` smallest
  eigenvalues are k-means'd, `k` being the count asked
  for or, with none, where the eigenvalues jump most among the first 16;
* more windows with a count: k-means of the L2-normalised embeddings;
* with no count asked, clusters whose mean embeddings' cosine is 0.78 or more
  are merged, most similar first.

funasr's k-means is scikit-learn's (k-means++ starts, the best of 10 runs);
here it is the same step in NumPy - scikit-learn's greedy k-means++ starts,
seeded 0 to 9, Lloyd steps until no label moves, the run of least inertia
kept - so one file always gives the same labels. The clustering needs nothing
beyond NumPy: scikit-learn would add ~70 MB to the frozen app, and scipy
(which `eigh` and `kmeans2` came from until 2026-11-29) added 72 MB to it and
~35 MB of resident memory, loaded at the first window's clustering. All of it runs with BLAS on one
thread: a multi-threaded OpenBLAS splits the eigensolver's sums by thread count, so the eigenvectors
(and, on a close call, the k-means labels) would depend on the machine's cores and on whatever set
the thread count earlier in the process. Beyond 2048 windows with no count,
funasr runs UMAP + HDBSCAN (the `umap-learn` package, with numba); here the
count is found by the spectral step on `COUNT_SAMPLE` evenly spaced windows
and all windows are then k-means'd with it, as funasr does with a known count.
The sample is 1024 windows rather than 2047: the dense eigensolver's cost
grows with the cube of the windows and was most of a 60-minute file's
clustering time (benchmarks/diarization.py), and one window in every 3.5 s
of an hour of speech still gives each speaker dozens.
"""

from __future__ import annotations

import numpy as np

MIN_WINDOWS = 20  # funasr: fewer windows are one speaker
MAX_SPECTRAL = 2048  # funasr: from here on k-means (a count given) instead of an N x N eigenproblem
COUNT_SAMPLE = 1024  # windows the spectral step finds the count on from MAX_SPECTRAL windows on (no count given)
MIN_SPEAKERS, MAX_SPEAKERS = 1, 15  # the eigengap search range (funasr's SpectralCluster)
P_VALUE = 0.022  # share of each row's similarities kept
MERGE_COSINE = 0.78  # clusters at least this similar are one speaker (auto count only)
N_INIT = 10  # k-means runs from different starts (scikit-learn's default, which funasr uses)
KMEANS_ITER = 300  # Lloyd steps per run at most (scikit-learn's limit); a run stops once no label changes


def cosine_matrix(x: np.ndarray) -> np.ndarray:
    unit = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    return unit @ unit.T


def pruned_affinity(sim: np.ndarray) -> np.ndarray:
    """Each row's smallest similarities set to 0, keeping its top share (at least 6), then symmetrised."""
    n = sim.shape[0]
    p = 6.0 / n if n * P_VALUE < 6 else P_VALUE
    drop = int((1 - p) * n)
    pruned = sim.copy()
    lowest = np.argsort(sim, axis=1, kind="stable")[:, :drop]
    np.put_along_axis(pruned, lowest, 0.0, axis=1)
    return 0.5 * (pruned + pruned.T)


def laplacian(affinity: np.ndarray) -> np.ndarray:
    a = affinity.copy()
    np.fill_diagonal(a, 0.0)
    return np.diag(np.abs(a).sum(axis=1)) - a


def kmeans(x: np.ndarray, k: int) -> np.ndarray:
    """k-means labels (0..k-1, none unused) of the rows of `x`: the least-inertia of `N_INIT` seeded runs."""
    best: tuple[float, np.ndarray] | None = None
    for seed in range(N_INIT):
        centres, labels = _lloyd(x, k, seed)
        inertia = float(((x - centres[labels]) ** 2).sum())
        if best is None or inertia < best[0]:
            best = (inertia, labels)
    assert best is not None
    return np.unique(best[1], return_inverse=True)[1]  # a cluster left empty: the labels above it move down


def _lloyd(x: np.ndarray, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """One k-means run from k-means++ starts, until no window changes cluster (at most KMEANS_ITER steps).

    A cluster left empty keeps its centre (that run just loses to the others on inertia).
    """
    norms = (x * x).sum(axis=1)
    centres = _plus_plus(x, norms, k, np.random.default_rng(seed))
    labels = np.full(x.shape[0], -1)
    for _ in range(KMEANS_ITER):
        moved = np.argmin(_squared_distances(x, norms, centres), axis=1)
        if np.array_equal(moved, labels):
            break
        labels = moved
        for c in range(k):
            members = x[labels == c]
            if len(members):
                centres[c] = members.mean(axis=0)
    return centres, labels


def _plus_plus(x: np.ndarray, norms: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k-means++ starts as scikit-learn draws them: each new centre is the best of 2 + ln(k) candidates
    drawn in proportion to the squared distance from the centres so far."""
    n = x.shape[0]
    trials = 2 + int(np.log(k))
    centres = np.empty((k, x.shape[1]))
    centres[0] = x[rng.integers(n)]
    closest = _squared_distances(x, norms, centres[:1])[:, 0]
    for c in range(1, k):
        total = closest.sum()
        if total <= 0:  # every window sits on a centre already: any window will do
            picks = rng.integers(n, size=trials)
        else:
            picks = np.minimum(np.searchsorted(np.cumsum(closest), rng.random(trials) * total), n - 1)
        candidates = np.minimum(closest, _squared_distances(x, norms, x[picks]).T)
        best = int(np.argmin(candidates.sum(axis=1)))
        centres[c], closest = x[picks[best]], candidates[best]
    return centres


def _squared_distances(x: np.ndarray, norms: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """[N, K] squared Euclidean distances, as one product (no N x K x E temporary on an hour's windows);
    `norms` are the rows' squared norms, computed once per run."""
    d = norms[:, None] - 2.0 * (x @ centres.T) + (centres * centres).sum(axis=1)[None, :]
    return np.maximum(d, 0.0)


def spectral(embeddings: np.ndarray, count: int | None) -> np.ndarray:
    """Labels by spectral clustering; `count` None: the eigengap's count."""
    values, vectors = np.linalg.eigh(laplacian(pruned_affinity(cosine_matrix(embeddings))))
    k = count if count is not None else eigengap_count(values)
    return kmeans(vectors[:, :k], k)


def eigengap_count(values: np.ndarray) -> int:
    """The number of speakers where the Laplacian's ascending eigenvalues jump most (1 to 15)."""
    window = values[MIN_SPEAKERS - 1 : MAX_SPEAKERS + 1]
    return int(np.argmax(np.diff(window))) + MIN_SPEAKERS


def merge_similar(labels: np.ndarray, embeddings: np.ndarray, threshold: float = MERGE_COSINE) -> np.ndarray:
    """Merge the two clusters with the most similar mean embeddings while that cosine is >= threshold.

    The later cluster joins the earlier one and the labels above it move down
    by one, so labels stay 0..k-1.
    """
    labels = labels.copy()
    while labels.max() > 0:
        k = labels.max() + 1
        centers = np.stack([embeddings[labels == i].mean(axis=0) for i in range(k)])
        sim = np.triu(cosine_matrix(centers), 1)
        a, b = np.unravel_index(np.argmax(sim), sim.shape)
        if sim[a, b] < threshold:
            break
        labels[labels == b] = a
        labels[labels > b] -= 1
    return labels


def cluster(embeddings: np.ndarray, count: int | None = None) -> np.ndarray:
    """A speaker label (0..k-1) per window embedding.

    Args:
        embeddings: [N, E] window embeddings in time order.
        count: the number of speakers when known (1 or more); None: found from the data.
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _cluster(np.asarray(embeddings, np.float64), count)


def _cluster(x: np.ndarray, count: int | None) -> np.ndarray:
    n = x.shape[0]
    if n < MIN_WINDOWS:
        return np.zeros(n, dtype=np.int64)
    if count is not None:
        count = min(count, n)
    if n < MAX_SPECTRAL:
        labels = spectral(x, count)
    elif count is not None:
        labels = kmeans(x / np.linalg.norm(x, axis=1, keepdims=True), count)
    else:
        sample = np.linspace(0, n - 1, COUNT_SAMPLE).round().astype(int)
        found = len(np.unique(spectral(x[sample], None)))
        labels = kmeans(x / np.linalg.norm(x, axis=1, keepdims=True), found)
    labels = np.asarray(labels, dtype=np.int64)
    if count is None:
        labels = merge_similar(labels, x)
    return labels
