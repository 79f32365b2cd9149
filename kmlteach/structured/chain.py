"""The chain model of UML §17.3: the feature map Ψ (type-1 pixel × letter and
type-2 letter-bigram blocks), the score of a labelling (Eq. (17.4)), the Hamming loss,
and the result types shared by decoding and learning.
"""

from __future__ import annotations

import numpy as np

from kmlteach._validation import (
    as_matrix,
    check_chain_weights,
    check_int,
    check_int_labels,
    check_labelling,
)

__all__ = ["ViterbiResult", "unary_scores", "psi", "chain_score", "hamming_loss"]


# ----------------------------------------------------------------------------- results
class ViterbiResult:
    """Output of :func:`viterbi`: ``labels`` (r,), ``score`` and the trace.

    ``M[s, τ]`` is the best score of a prefix of length τ+1 ending in label s
    (UML Eq. (17.5)); ``backpointers[s, τ]`` is the s' achieving it (-1 in column 0),
    int64. Decoders may hand over the backpointers in a narrower integer type, or as a
    function that computes them (:func:`viterbi` recomputes them from M, whose hot loop is
    then half as long): they are widened or computed on first access. Read-only, like a
    frozen dataclass.
    """

    __slots__ = ("labels", "score", "M", "_backpointers")
    _fields = ("labels", "score", "M", "backpointers")  # a record's fields, as a named tuple's

    def __init__(self, labels: np.ndarray, score: float, M: np.ndarray, backpointers):
        for name, value in (("labels", labels), ("score", score), ("M", M), ("_backpointers", backpointers)):
            object.__setattr__(self, name, value)

    @property
    def backpointers(self) -> np.ndarray:
        bp = self._backpointers
        if callable(bp):
            bp = bp()
        if bp.dtype != np.int64:
            bp = bp.astype(np.int64)  # same (q, r) layout
        if bp is not self._backpointers:
            object.__setattr__(self, "_backpointers", bp)
        return bp

    def __setattr__(self, name, value):
        raise AttributeError(f"ViterbiResult is read-only: cannot set {name!r}")

    def __reduce__(self):  # pickle / copy through the constructor (__setattr__ refuses)
        return (ViterbiResult, (self.labels, self.score, self.M, self.backpointers))

    def __repr__(self) -> str:
        return (
            f"ViterbiResult(labels={self.labels!r}, score={self.score!r}, "
            f"M=<array {self.M.shape}>, backpointers=<array {self.M.shape[0]} x {len(self.labels)}>)"
        )


# ----------------------------------------------------------------------------- checks
# ----------------------------------------------------------------------------- features
def unary_scores(x, W_unary) -> np.ndarray:
    """unary[t, s] = ⟨W_unary[s], x_t⟩, the type-1 part of ⟨w, φ(x, s, ·)⟩ (r, q). Source: UML §17.3."""
    Wu = as_matrix(W_unary, "W_unary")
    xa = as_matrix(x, "x", n_cols=Wu.shape[1])
    return xa @ Wu.T


def psi(x, y, n_labels: int = 26) -> np.ndarray:
    """The explicit chain feature vector Ψ(x, y) of UML §17.3, length nq + q².

    Ψ = concat(Ψ¹.ravel(), Ψ².ravel()) with Ψ¹[j, i] = (1/r) Σ_t x[t, i] 1[y_t = j] and
    Ψ²[a, b] = (1/r) Σ_{t≥2} 1[y_{t-1} = a, y_t = b].
    """
    q = check_int(n_labels, "n_labels", minimum=1)
    xa = as_matrix(x, "x")
    r, n = xa.shape
    ya = check_labelling(y, "y", r, q, rows="x")
    F1 = np.zeros((q, n))
    np.add.at(F1, ya, xa)
    F2 = np.zeros((q, q))
    np.add.at(F2, (ya[:-1], ya[1:]), 1.0)
    return np.concatenate([F1.ravel(), F2.ravel()]) / r


def chain_score(x, y, W_unary, W_pair) -> float:
    """Σ_t ⟨w, φ(x, y_t, y_{t-1})⟩ = Σ_t ⟨W_unary[y_t], x_t⟩ + Σ_{t≥2} W_pair[y_{t-1}, y_t].

    This is the objective of UML Eq. (17.4), equal to r·⟨w, Ψ(x, y)⟩ and to
    ``viterbi(unary_scores(x, W_unary), W_pair)``'s score at its argmax.
    """
    Wu, Wp = check_chain_weights(W_unary, W_pair)
    xa = as_matrix(x, "x", n_cols=Wu.shape[1])
    ya = check_labelling(y, "y", xa.shape[0], Wu.shape[0], rows="x")
    return float(np.sum(Wu[ya] * xa) + np.sum(Wp[ya[:-1], ya[1:]]))


def hamming_loss(y_pred, y_true) -> float:
    """Δ(y', y) = (1/r) Σ_t 1[y'_t ≠ y_t] (UML §17.3); labels are integers 0..q−1."""
    yt = check_int_labels(y_true, "y_true")
    yp = check_int_labels(y_pred, "y_pred")
    if yp.shape != yt.shape:
        raise ValueError(f"y_pred must have the shape of y_true {yt.shape}, got {yp.shape}")
    return float(np.mean(yp != yt))
