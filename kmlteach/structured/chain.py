"""The chain model of UML §17.3: the feature map Ψ (type-1 pixel × letter and
type-2 letter-bigram blocks), the score of a labelling (Eq. (17.4)), the Hamming loss,
and the result types shared by decoding and learning.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kmlteach._validation import as_matrix, as_vector, check_int

__all__ = ["ViterbiResult", "unary_scores", "psi", "chain_score", "hamming_loss"]


# ----------------------------------------------------------------------------- results
@dataclass(frozen=True)
class ViterbiResult:
    """Output of :func:`viterbi`: ``labels`` (r,), ``score`` and the trace.

    ``M[s, τ]`` is the best score of a prefix of length τ+1 ending in label s
    (UML Eq. (17.5)); ``backpointers[s, τ]`` is the s' achieving it (-1 in column 0).
    """
    labels: np.ndarray
    score: float
    M: np.ndarray
    backpointers: np.ndarray


# ----------------------------------------------------------------------------- checks
def _check_scores(unary, pairwise, initial):
    U = as_matrix(unary, "unary")
    q = U.shape[1]
    P = as_matrix(pairwise, "pairwise")
    if P.shape != (q, q):
        raise ValueError(f"pairwise must have shape ({q}, {q}) to match unary's {q} labels, "
                         f"got {P.shape}")
    if initial is None:
        init = np.zeros(q)
    else:
        init = as_vector(initial, "initial", length=q)
    return U, P, init


def _check_labelling(y, name, r, q, rows="unary"):
    """Labels 0..q-1, one per row of ``rows`` (named in a length mismatch)."""
    if y is None or isinstance(y, (str, bytes)):
        raise TypeError(f"{name} must be a 1-D array of integer labels, got {type(y).__name__}")
    arr = np.asarray(y)
    if arr.dtype.kind not in "iuf" or arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of integer labels, got shape {arr.shape} "
                         f"and dtype {arr.dtype}")
    if r is not None and arr.shape[0] != r:
        raise ValueError(f"{name} must have length {r} (one label per row of {rows}), got {arr.shape[0]}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr) & (arr == np.round(arr))):
        raise ValueError(f"{name} must contain integer labels")
    if np.any(arr < 0) or np.any(arr >= q):
        raise ValueError(f"{name} must contain labels in 0..{q - 1}, got values in "
                         f"[{arr.min():g}, {arr.max():g}]")
    return np.ascontiguousarray(arr, dtype=np.int64)


def _check_flag(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")


def _check_x(x, name="x", n=None):
    return as_matrix(x, name, n_cols=n)


def _check_weights(W_unary, W_pair, n=None):
    Wu = as_matrix(W_unary, "W_unary", n_cols=n)
    q = Wu.shape[0]
    Wp = as_matrix(W_pair, "W_pair")
    if Wp.shape != (q, q):
        raise ValueError(f"W_pair must have shape ({q}, {q}) to match W_unary's {q} rows, "
                         f"got {Wp.shape}")
    return Wu, Wp


# ----------------------------------------------------------------------------- features
def unary_scores(x, W_unary) -> np.ndarray:
    """unary[t, s] = ⟨W_unary[s], x_t⟩, the type-1 part of ⟨w, φ(x, s, ·)⟩ (r, q). Source: UML §17.3."""
    Wu = as_matrix(W_unary, "W_unary")
    xa = _check_x(x, "x", Wu.shape[1])
    return xa @ Wu.T


def psi(x, y, n_labels: int = 26) -> np.ndarray:
    """The explicit chain feature vector Ψ(x, y) of UML §17.3, length nq + q².

    Ψ = concat(Ψ¹.ravel(), Ψ².ravel()) with Ψ¹[j, i] = (1/r) Σ_t x[t, i] 1[y_t = j] and
    Ψ²[a, b] = (1/r) Σ_{t≥2} 1[y_{t-1} = a, y_t = b].
    """
    q = check_int(n_labels, "n_labels", minimum=1)
    xa = _check_x(x)
    r, n = xa.shape
    ya = _check_labelling(y, "y", r, q, rows="x")
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
    Wu, Wp = _check_weights(W_unary, W_pair)
    xa = _check_x(x, "x", Wu.shape[1])
    ya = _check_labelling(y, "y", xa.shape[0], Wu.shape[0], rows="x")
    return float(np.sum(Wu[ya] * xa) + np.sum(Wp[ya[:-1], ya[1:]]))


def hamming_loss(y_pred, y_true) -> float:
    """Δ(y', y) = (1/r) Σ_t 1[y'_t ≠ y_t] (UML §17.3); labels are integers 0..q−1."""
    yt = _check_int_labels(y_true, "y_true")
    yp = _check_int_labels(y_pred, "y_pred")
    if yp.shape != yt.shape:
        raise ValueError(f"y_pred must have the shape of y_true {yt.shape}, got {yp.shape}")
    return float(np.mean(yp != yt))


def _check_int_labels(y, name):
    """A non-empty 1-D array of integer labels (integral floats accepted)."""
    if y is None or isinstance(y, (str, bytes)):
        raise TypeError(f"{name} must be a 1-D array of integer labels, got {y!r}")
    arr = np.asarray(y)
    if arr.ndim != 1 or arr.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of labels, got shape {arr.shape}")
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64)
    if arr.dtype.kind == "b" or arr.dtype.kind not in "f":
        raise TypeError(f"{name} must hold integer labels 0..q-1, got dtype {arr.dtype}")
    if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
        raise ValueError(f"{name} must hold integer labels 0..q-1 (no NaN, no fractions)")
    return arr.astype(np.int64)
