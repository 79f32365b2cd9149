"""The loss gallery of HSS2 §2.4 (and the margin losses of §2.5), with gradients in f.

Every loss takes the prediction(s) ``f`` and the label ``y`` and returns a
:class:`LossEval` ``(value, gradient)``, where ``gradient = ∂l/∂f`` is the coefficient
that multiplies ``k(x, ·)`` (or ``k((x, ỹ), ·)``) in the functional gradient — the
right-hand column of HSS2's table (2.10)–(2.22). At a kink the subgradient printed
there is used (the one that is 0 on the flat side).

=========================  ====================================  ==========================
name                       l(f, y)                               ∂l/∂f
=========================  ====================================  ==========================
``soft_margin``            max(0, ρ − y f)            (2.10)     −y if y f < ρ, else 0
``squared_soft_margin``    max(0, ρ − y f)²                      −2y max(0, ρ − y f)
``logistic``               log(1 + e^{−y f})          (2.14)     −y / (1 + e^{y f})
``exponential``            e^{−y f}                   (§2.5.3)   −y e^{−y f}
``novelty``                max(0, ρ − f)              (2.19)     −1 if f < ρ, else 0
``epsilon_insensitive``    max(0, |f − y| − ε)                   sign(f − y) if |f − y| > ε
``huber``                  ½r² if |r| ≤ δ else δ(|r| − δ/2)      r if |r| ≤ δ else δ sign r
``multiclass_logistic``    −f_y + log Σ_ỹ e^{f_ỹ}      (2.16)     p(ỹ | x) − 1[ỹ = y]
``multiclass_soft_margin`` max(0, max_{ỹ≠y}(Δ(y, ỹ) + f_ỹ) − f_y)  (2.12), (2.21): e_{y*} − e_y
=========================  ====================================  ==========================

(r = f − y.) The rows without an equation number (squared soft margin, ε-insensitive,
Huber) go beyond the sources: HSS2's table does not contain them. The multiclass losses take a score matrix ``F`` of shape (n, k) with
``F[i, ỹ] = f(x_i, ỹ)`` and integer labels 0..k−1; ``Δ`` defaults to ρ(1 − δ_{y,ỹ})
(Crammer–Singer, (2.12)); a taxonomy gives Δ = :func:`graph_distance` of its weighted
tree ((2.21), Fig. 2.1), and the two-level tree with edges ρ/2 gives back (2.12).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kmlteach._validation import (
    as_matrix,
    as_vector,
    check_finite_output,
    check_nonnegative,
    check_positive,
    check_square,
)

__all__ = [
    "BINARY_LOSSES",
    "LOSS_GALLERY",
    "LossEval",
    "epsilon_insensitive",
    "exponential",
    "graph_distance",
    "huber",
    "logistic",
    "multiclass_logistic",
    "multiclass_soft_margin",
    "novelty",
    "soft_margin",
    "squared_soft_margin",
]


class LossEval(NamedTuple):
    """``(value, gradient)``: losses (n,) and ∂l/∂f, of the shape of f.

    Source: HSS2 §2.4.
    """

    value: np.ndarray
    gradient: np.ndarray


def _fy(f, y, binary=True):
    fa = as_vector(f, "f")
    ya = as_vector(y, "y", length=fa.shape[0], of="one per entry of f")
    if binary and not np.all(np.abs(ya) == 1.0):
        raise ValueError("y must contain only the labels -1 and +1")
    return fa, ya


def soft_margin(f, y, rho=1.0):
    """Soft-margin (hinge) loss max(0, ρ − y f), HSS2 (2.10)–(2.11)."""
    fa, ya = _fy(f, y)
    rho = check_positive(rho, "rho")
    z = ya * fa
    return LossEval(np.maximum(0.0, rho - z), np.where(z < rho, -ya, 0.0))


def squared_soft_margin(f, y, rho=1.0):
    """Squared soft-margin loss max(0, ρ − y f)² (differentiable everywhere).

    Beyond the sources: HSS2's loss table (2.10)–(2.22) does not list it; it is the
    square of the soft-margin row (2.10).
    """
    fa, ya = _fy(f, y)
    rho = check_positive(rho, "rho")
    h = np.maximum(0.0, rho - ya * fa)
    with np.errstate(over="ignore", invalid="ignore"):
        out = LossEval(h * h, -2.0 * ya * h)
    check_finite_output("f or rho", out.value, out.gradient)
    return out


def logistic(f, y):
    """Logistic loss log(1 + e^{−y f}) (natural log), HSS2 (2.14)–(2.15); overflow-free."""
    fa, ya = _fy(f, y)
    z = ya * fa
    return LossEval(np.logaddexp(0.0, -z), -ya * np.exp(-np.logaddexp(0.0, z)))


def exponential(f, y):
    """Exponential (boosting) loss e^{−y f}, HSS2 §2.5.3."""
    fa, ya = _fy(f, y)
    with np.errstate(over="ignore"):
        e = np.exp(-ya * fa)
    return LossEval(e, -ya * e)


def novelty(f, rho=1.0):
    """One-class (novelty) loss max(0, ρ − f), labels ignored, HSS2 (2.19)–(2.20)."""
    fa = as_vector(f, "f")
    rho = check_nonnegative(rho, "rho")
    return LossEval(np.maximum(0.0, rho - fa), np.where(fa < rho, -1.0, 0.0))


def epsilon_insensitive(f, y, epsilon=0.1):
    """ε-insensitive loss max(0, |f − y| − ε) for regression (Vapnik).

    Beyond the sources: HSS2's loss table (2.10)–(2.22) does not list it, and the
    course's sources contain no support vector regression.
    """
    fa, ya = _fy(f, y, binary=False)
    eps = check_nonnegative(epsilon, "epsilon")
    r = fa - ya
    return LossEval(np.maximum(0.0, np.abs(r) - eps), np.where(np.abs(r) > eps, np.sign(r), 0.0))


def huber(f, y, delta=1.0):
    """Huber's robust loss: ½r² for |r| ≤ δ, δ(|r| − δ/2) beyond (r = f − y).

    Beyond the sources: HSS2's loss table (2.10)–(2.22) does not list it.
    """
    fa, ya = _fy(f, y, binary=False)
    d = check_positive(delta, "delta")
    r = fa - ya
    small = np.abs(r) <= d
    return LossEval(
        np.where(small, 0.5 * r * r, d * (np.abs(r) - 0.5 * d)), np.where(small, r, d * np.sign(r))
    )


def _scores(F, y):
    Fa = as_matrix(F, "F", min_cols=2)
    ya = as_vector(y, "y", length=Fa.shape[0], of="one per row of F")
    if not np.all((ya == np.round(ya)) & (ya >= 0) & (ya < Fa.shape[1])):
        raise ValueError(f"y must hold integer labels 0..{Fa.shape[1] - 1} (columns of F)")
    return Fa, ya.astype(np.int64)


def multiclass_logistic(F, y):
    """Multiclass logistic loss −f(x, y) + log Σ_ỹ exp f(x, ỹ), HSS2 (2.16)–(2.18).

    The gradient row is ``p(· | x) − e_y`` with ``p`` the softmax of the scores.
    """
    Fa, ya = _scores(F, y)
    rows = np.arange(Fa.shape[0])
    mx = Fa.max(axis=1, keepdims=True)
    lse = (mx + np.log(np.exp(Fa - mx).sum(axis=1, keepdims=True)))[:, 0]
    P = np.exp(Fa - lse[:, None])
    P[rows, ya] -= 1.0
    return LossEval(lse - Fa[rows, ya], P)


def multiclass_soft_margin(F, y, delta=None, rho=1.0):
    """Δ-rescaled soft margin max(0, max_{ỹ≠y}[Δ(y, ỹ) + f(x, ỹ)] − f(x, y)).

    ``delta`` (k, k) with zero diagonal, default ρ(1 − δ_{y,ỹ}) (Crammer–Singer, HSS2
    (2.12)); a taxonomy's :func:`graph_distance` gives (2.21). The gradient row is
    ``e_{y*} − e_y`` when the loss is positive (y* the maximiser; ties to the smallest
    label), else 0. ``rho`` is used only when ``delta`` is None.
    """
    Fa, ya = _scores(F, y)
    n, k = Fa.shape
    rho = check_positive(rho, "rho")  # checked even when a given delta makes it unused
    if delta is None:
        D = rho * (1.0 - np.eye(k))
    else:
        D = check_square(delta, "delta")
        if D.shape[0] != k or np.any(np.diag(D) != 0) or np.any(D < 0):
            raise ValueError(f"delta must be a non-negative ({k}, {k}) matrix with zero diagonal")
    rows = np.arange(n)
    A = D[ya] + Fa
    A[rows, ya] = -np.inf
    star = np.argmax(A, axis=1)
    val = A[rows, star] - Fa[rows, ya]
    grad = np.zeros_like(Fa)
    pos = val > 0
    grad[rows[pos], star[pos]] = 1.0
    grad[rows[pos], ya[pos]] = -1.0
    return LossEval(np.maximum(0.0, val), grad)


def graph_distance(W):
    """Δ_G: least total edge weight of a path between every two nodes (HSS2 §2.4).

    ``W[a, b] > 0`` is the weight of the (undirected) edge a–b, 0 means no edge.
    Floyd–Warshall; raises if the graph is not connected.
    """
    Wa = check_square(W, "W", symmetric=True)
    if np.any(Wa < 0):
        raise ValueError("W must hold non-negative edge weights (0 = no edge)")
    D = np.where(Wa > 0, Wa, np.inf)
    np.fill_diagonal(D, 0.0)
    for m in range(D.shape[0]):
        D = np.minimum(D, D[:, m : m + 1] + D[m : m + 1, :])
    if not np.all(np.isfinite(D)):
        raise ValueError("W must describe a connected graph (some nodes cannot be reached)")
    return D


BINARY_LOSSES = ("soft_margin", "squared_soft_margin", "logistic", "exponential")
"""Margin losses ψ(y f) of the calibration analysis (HSS2 §2.5.3)."""

LOSS_GALLERY = {
    "soft_margin": soft_margin,
    "squared_soft_margin": squared_soft_margin,
    "logistic": logistic,
    "exponential": exponential,
    "novelty": novelty,
    "epsilon_insensitive": epsilon_insensitive,
    "huber": huber,
    "multiclass_logistic": multiclass_logistic,
    "multiclass_soft_margin": multiclass_soft_margin,
}
"""Name → loss function, for figures and widgets that iterate over the gallery."""
