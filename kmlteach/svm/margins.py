"""Distances, margins and the soft-SVM objective (UML §15.1, Claim 15.1; (15.12)).

Re-exported by :mod:`kmlteach.svm`; import them from there.
"""

from __future__ import annotations

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import (
    _check_real_scalar,
    as_vector,
    check_binary_labels,
    check_finite_output,
    check_positive,
    check_X,
)

__all__ = [
    "signed_distance",
    "distance_to_hyperplane",
    "functional_margins",
    "geometric_margins",
    "geometric_margin",
    "support_vectors",
    "soft_svm_objective",
    "hinge_objective",
]


# --------------------------------------------------------------------------------------
# validation helpers shared by the functions of this module
# --------------------------------------------------------------------------------------


def _points_and_w(X, w, *, nonzero: bool = True):
    """X as (m, d) (a single point of shape (d,) becomes (1, d)), w of length d."""
    single = np.ndim(X) == 1 if not isinstance(X, (str, bytes)) and X is not None else False
    Xa = check_X(np.atleast_2d(X) if single else X, "X")
    wa = as_vector(w, "w")
    if wa.shape[0] != Xa.shape[1]:
        what = "the point X has" if single else "each row of X has"
        raise ValueError(f"X and w disagree: {what} {Xa.shape[1]} coordinates but w has length {wa.shape[0]}")
    if nonzero and not np.any(wa):
        raise ValueError("w must be a non-zero vector: the hyperplane <w, x> + b = 0 is undefined for w = 0")
    return Xa, wa, single


def _scalar(b, name: str) -> float:
    return _check_real_scalar(b, name)


# --------------------------------------------------------------------------------------
# geometry: distances and margins (UML §15.1, Claim 15.1; HSS2 §2.3.1)
# --------------------------------------------------------------------------------------


def signed_distance(X, w, b=0.0):
    """Signed distance ``(<w, x> + b) / ||w||`` of points to the hyperplane (w, b).

    UML Claim 15.1 states that for ``||w|| = 1`` the distance of ``x`` to
    ``{v : <w, v> + b = 0}`` is ``|<w, x> + b|``; dividing by ``||w||`` removes the
    normalisation. The sign tells the side: positive where ``<w, x> + b > 0``.

    Parameters
    ----------
    X : array_like, shape (m, d) or (d,)
        Points (one point may be given as a vector).
    w : array_like, shape (d,)
        Normal vector, non-zero.
    b : float, default=0.0
        Offset.

    Returns
    -------
    ndarray of shape (m,), or float for a single point.

    Examples
    --------
    >>> signed_distance([[3.0, 4.0]], [0.0, 2.0], 2.0)
    array([5.])
    """
    Xa, wa, single = _points_and_w(X, w)
    b = _scalar(b, "b")
    out = (Xa @ wa + b) / np.linalg.norm(wa)
    return float(out[0]) if single else out


def distance_to_hyperplane(X, w, b=0.0):
    """Euclidean distance ``|<w, x> + b| / ||w||`` of points to the hyperplane (w, b)
    (UML Claim 15.1). Same arguments as :func:`signed_distance`."""
    out = signed_distance(X, w, b)
    return abs(out) if isinstance(out, float) else np.abs(out)


def functional_margins(X, y, w, b=0.0):
    """Functional margins ``y_i (<w, x_i> + b)``: positive iff x_i is on its correct side.

    Parameters
    ----------
    X : array_like, shape (m, d)
    y : array_like, shape (m,), labels in {-1, +1} (one class is allowed here)
    w : array_like, shape (d,)   (may be zero)
    b : float, default=0.0

    Returns
    -------
    ndarray of shape (m,)

    Source: UML §15.1.
    """
    Xa = check_X(X, "X")
    ya = check_binary_labels(y, "y", n=Xa.shape[0], require_both=False, of="one per row of X")
    wa = as_vector(w, "w", length=Xa.shape[1])
    b = _scalar(b, "b")
    return ya * (Xa @ wa + b)


def geometric_margins(X, y, w, b=0.0):
    """Geometric margins ``y_i (<w, x_i> + b) / ||w||`` (signed distances, positive on
    the correct side). Their minimum is the margin of (w, b) on the sample.

    Source: UML §15.1, Claim 15.1.
    """
    Xa, wa, _ = _points_and_w(X, w)
    ya = check_binary_labels(y, "y", n=Xa.shape[0], require_both=False, of="one per row of X")
    b = _scalar(b, "b")
    return ya * (Xa @ wa + b) / np.linalg.norm(wa)


def geometric_margin(X, y, w, b=0.0) -> float:
    """Margin of the hyperplane (w, b) on the sample: ``min_i y_i(<w,x_i> + b)/||w||``
    (UML (15.1)). Negative when (w, b) misclassifies some point."""
    return float(np.min(geometric_margins(X, y, w, b)))


def support_vectors(X, y, w, b=0.0, rtol=1e-6):
    """Indices of the points that attain the margin of (w, b) on the sample.

    For the hard-SVM solution (w0, b0) these are the points with
    ``y_i(<w0, x_i> + b0) = 1`` (UML Theorem 15.8). A point counts when its geometric
    margin is within ``rtol * max(|margin|, max_i ||x_i||)`` of the minimum.

    Returns
    -------
    ndarray of int64, sorted.
    """
    gm = geometric_margins(X, y, w, b)
    rtol = check_positive(rtol, "rtol")
    Xa = np.asarray(X, dtype=np.float64)
    scale = max(abs(float(gm.min())), float(np.max(np.linalg.norm(Xa, axis=1))), 1e-300)
    return np.flatnonzero(gm <= gm.min() + rtol * scale).astype(np.int64)


def hinge_objective(w, X, y, lam, b=0.0) -> float:
    """The soft-SVM objective (λ/2)||w||² + (1/m) Σ hinge (UML (15.12)); an alias of
    :func:`soft_svm_objective`."""
    return soft_svm_objective(w, X, y, lam, b)


def soft_svm_objective(w, X, y, lam, b=0.0) -> float:
    """The soft-SVM objective of UML (15.12): ``(λ/2)||w||² + (1/m) Σ max(0, 1 - y_i(<w,x_i> + b))``.

    Note the argument order (w first), so that ``soft_svm_objective(res.w, X, y, lam)``
    reads like F(w).
    """
    Xa = check_X(X, "X")
    ya = check_binary_labels(y, "y", n=Xa.shape[0], require_both=False, of="one per row of X")
    wa = as_vector(w, "w", length=Xa.shape[1], of="one per column of X")
    lam = check_positive(lam, "lam")
    b = _scalar(b, "b")
    out = _objective(wa, b, Xa, ya, lam)
    check_finite_output("w, b or lam", out)
    return out


def _objective(w, b, X, y, lam) -> float:
    """F(w, b) of (15.12) for validated float64 arrays (one pass, single-threaded: a
    BLAS matrix-vector product was slower than the SGD run itself on a busy machine)."""
    return float(_objective_kernel(np.ascontiguousarray(w, dtype=np.float64), float(b), X, y, float(lam)))


@jit(warmup=lambda: (np.ones(2), 0.5, np.ones((3, 2)), np.array([1.0, -1.0, 1.0]), 0.1))
def _objective_kernel(w, b, X, y, lam):
    m, d = X.shape
    hinge_sum = 0.0
    for i in range(m):
        s = b
        for q in range(d):
            s += w[q] * X[i, q]
        h = 1.0 - y[i] * s
        if h > 0.0:
            hinge_sum += h
    ww = 0.0
    for q in range(d):
        ww += w[q] * w[q]
    return 0.5 * lam * ww + hinge_sum / m
