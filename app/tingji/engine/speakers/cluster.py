"""Window embeddings -> speaker labels: FunASR's clustering back-end (3D-Speaker's), step by step.

`cluster(embeddings, count)` follows funasr's `ClusterBackend`:

* fewer than 20 windows (15 s of speech): one speaker;
* fewer than 2048 windows: spectral clustering - cosine similarities; each
  row keeps only its largest share (p-pruning: the top 2.2 %, at least 6
  entries), is symmetrised, and becomes an unnormalised graph Laplacian
  L = D - A; its eigenvectors (scipy's `eigh`) for the `k` smallest
  eigenvalues are k-means'd (scikit-learn), `k` being the count asked for
  or, with none, where the eigenvalues jump most among the first 16;
* more windows with a count: k-means of the L2-normalised embeddings;
* with no count asked, clusters whose mean embeddings' cosine is 0.78 or more
  are merged, most similar first.

Where funasr leaves k-means unseeded, it is seeded here (0, best of 10), so
one file always gives the same labels. Beyond 2048 windows with no count,
funasr runs UMAP + HDBSCAN (the `umap-learn` package, with numba); here the
count is found by the spectral step on 2047 evenly spaced windows and all
windows are then k-means'd with it, as funasr does with a known count.
"""

from __future__ import annotations

import numpy as np

MIN_WINDOWS = 20  # funasr: fewer windows are one speaker
MAX_SPECTRAL = 2048  # funasr: from here on k-means (a count given) instead of an N x N eigenproblem
MIN_SPEAKERS, MAX_SPEAKERS = 1, 15  # the eigengap search range (funasr's SpectralCluster)
P_VALUE = 0.022  # share of each row's similarities kept
MERGE_COSINE = 0.78  # clusters at least this similar are one speaker (auto count only)


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
    from sklearn.cluster import KMeans

    return KMeans(n_clusters=k, n_init=10, random_state=0).fit_predict(x)


def spectral(embeddings: np.ndarray, count: int | None) -> np.ndarray:
    """Labels by spectral clustering; `count` None: the eigengap's count."""
    import scipy.linalg

    values, vectors = scipy.linalg.eigh(laplacian(pruned_affinity(cosine_matrix(embeddings))))
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
    x = np.asarray(embeddings, np.float64)
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
        sample = np.linspace(0, n - 1, MAX_SPECTRAL - 1).round().astype(int)
        found = len(np.unique(spectral(x[sample], None)))
        labels = kmeans(x / np.linalg.norm(x, axis=1, keepdims=True), found)
    labels = np.asarray(labels, dtype=np.int64)
    if count is None:
        labels = merge_similar(labels, x)
    return labels
