"""Kesler's construction (slides "constraint classification"; SL multiclass): a multiclass
sample becomes one binary problem in R^{kn}, on which :func:`kesler_perceptron` (in
:mod:`kmlteach.multiclass.perceptrons`) runs the binary perceptron.

Public names are re-exported by :mod:`kmlteach.multiclass`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kmlteach.multiclass.perceptrons import _prepare

__all__ = ["kesler_embed", "KeslerEmbedding"]


@dataclass(frozen=True)
class KeslerEmbedding:
    """Kesler's construction of a sample: ``Z`` (rows x_ij ∈ R^{kn}), ``t`` (±1 labels),
    ``example`` (source row i), ``competitor`` (class index j), ``label`` (class index
    y_i), ``classes``, ``n_classes``, ``n_features``.

    Source: SL multiclass, Kesler's construction.
    """

    Z: np.ndarray
    t: np.ndarray
    example: np.ndarray
    competitor: np.ndarray
    label: np.ndarray
    classes: np.ndarray
    n_classes: int
    n_features: int

    def weights(self, w) -> np.ndarray:
        """Turn a separator w ∈ R^{kn} of the embedded problem into W (k, n)."""
        w = np.asarray(w, dtype=float).ravel()
        if w.shape[0] != self.n_classes * self.n_features:
            raise ValueError(f"w must have length {self.n_classes * self.n_features}, got {w.shape[0]}")
        return w.reshape(self.n_classes, self.n_features)


def kesler_embed(X, y, negatives: bool = False) -> KeslerEmbedding:
    """Kesler's construction: one multiclass example becomes k − 1 vectors in R^{kn}.

    An example x with class i gives, for every j ≠ i (in increasing order),

        x_ij = Ψ(x, i) − Ψ(x, j) = (0, ..., x, ..., −x, ..., 0)   (+x in block i, −x in block j),

    with Ψ the multivector map (17.2). For W = [w_1; ...; w_k], ⟨W, x_ij⟩ = (w_i − w_j)·x,
    so "W classifies x correctly" is "⟨W, x_ij⟩ > 0 for all j": the whole multiclass
    sample becomes ONE binary problem in R^{kn} whose positives are the x_ij, and any
    linear binary learner applies. With ``negatives=True`` the mirrored examples −x_ij
    with label −1 are appended (the slides' P⁻, for learners that need both classes).
    ⚠ The slides print the general form with "−x" inside the second block vector, which
    would put +x in block j; the difference Ψ(x, i) − Ψ(x, j) is what is meant.

    Returns
    -------
    KeslerEmbedding with ``Z`` (m(k−1) or 2m(k−1), kn), ``t``, ``example``,
    ``competitor``, ``label``.
    """
    X, classes, yi = _prepare(X, y)
    m, n = X.shape
    k = len(classes)
    rows = m * (k - 1)
    Z = np.zeros((rows, k * n))
    ex = np.repeat(np.arange(m), k - 1)
    comp = np.empty(rows, dtype=np.int64)
    r = 0
    for i in range(m):
        a = yi[i]
        for j in range(k):
            if j == a:
                continue
            Z[r, a * n : (a + 1) * n] = X[i]
            Z[r, j * n : (j + 1) * n] = -X[i]
            comp[r] = j
            r += 1
    t = np.ones(rows)
    lab = yi[ex]
    if negatives:
        Z = np.vstack([Z, -Z])
        t = np.r_[t, -t]
        ex = np.r_[ex, ex]
        comp = np.r_[comp, comp]
        lab = np.r_[lab, lab]
    return KeslerEmbedding(
        Z=Z, t=t, example=ex, competitor=comp, label=lab, classes=classes, n_classes=k, n_features=n
    )
