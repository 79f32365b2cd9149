"""SGD for multiclass learning (UML §17.2.5) and the RLM multiclass SVM solved with it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kmlteach._jit import jit
from kmlteach._linalg import dot
from kmlteach._validation import (
    check_finite_output,
    check_finite_result,
    check_int,
    check_multiclass_labels,
    check_positive,
    check_rng,
    check_X,
)
from kmlteach.multiclass.hinge import _loss_augmented, _scores, objective_value
from kmlteach.multiclass.psi import (
    LinearMulticlass,
    _augmented_argmax,
    _row_scores,
    check_delta,
    psi_matrix,
    resolve_psi,
)

__all__ = ["MulticlassSGDResult", "multiclass_svm_sgd", "MulticlassSVMResult", "multiclass_svm"]


# ---------------------------------------------------------------------------------------
# SGD for multiclass learning (UML §17.2.5)
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MulticlassSGDResult(LinearMulticlass):
    """Output of :func:`multiclass_svm_sgd`: ``W`` = w̄ (k, n) for the multivector Ψ,
    ``w`` = w̄ flat, ``w_last`` = w⁽ᵀ⁾, ``indices`` the sampled examples, ``eta``, ``T``.

    Source: UML §17.2.5.
    """

    w_last: np.ndarray | None = None
    indices: np.ndarray | None = None
    eta: float = 0.0
    T: int = 0


def _prepare(X, y, delta, psi):
    X = check_X(X, "X")
    classes, yi = check_multiclass_labels(y, "y", n=X.shape[0])
    k = classes.shape[0]
    D = check_delta(delta, classes)
    psi, mv, dim = resolve_psi(psi, k, X.shape[1])
    return X, classes, yi, k, D, psi, mv, dim


def multiclass_svm_sgd(X, y, eta, T, seed=None, delta=None, psi=None) -> MulticlassSGDResult:
    """SGD for Multiclass Learning, exactly as in UML §17.2.5.

    ::

        w⁽¹⁾ = 0
        for t = 1..T:
            sample (x, y) uniformly from the training set
            ŷ ∈ argmax_{y'} Δ(y', y) + ⟨w⁽ᵗ⁾, Ψ(x, y') − Ψ(x, y)⟩     (smallest index on ties)
            v_t = Ψ(x, ŷ) − Ψ(x, y)
            w⁽ᵗ⁺¹⁾ = w⁽ᵗ⁾ − η v_t
        output w̄ = (1/T) Σ_{t=1..T} w⁽ᵗ⁾          (w⁽¹⁾ = 0 included, w⁽ᵀ⁺¹⁾ not)

    With the default multivector Ψ a Numba kernel runs the loop; with ``psi`` given,
    a general Python loop does. Both use the same summation order and produce
    bit-identical results for the multivector Ψ.

    Parameters
    ----------
    X : ndarray (m, n)
    y : labels (any sortable values, at least 2 classes)
    eta : float > 0, step size η
    T : int >= 1, number of iterations
    seed : int or None; the T indices are ``np.random.default_rng(seed).integers(0, m, size=T)``
        (the convention of :func:`kmlteach.svm.sgd_indices`)
    delta : None (0–1), (k, k) matrix ``delta[y', y]`` = Δ(y', y), or callable on labels
    psi : None (multivector) or a feature map (``MultivectorPsi``, ``TfidfPsi``, a
        callable ``psi(x, y_index) -> vector``)

    Returns
    -------
    MulticlassSGDResult with ``.W`` (k, n) (rows in the order of ``.classes``; None for
    a non-multivector Ψ), ``.w``, ``.w_last``, ``.classes``, ``.predict(X)``.

    Examples
    --------
    >>> from kmlteach.datasets import three_balls
    >>> X, y = three_balls(100, seed=0)
    >>> res = multiclass_svm_sgd(X, y, eta=0.1, T=2000, seed=0)
    >>> res.W.shape, res.classes.tolist()
    ((3, 2), [1, 2, 3])
    """
    X, classes, yi, k, D, psi, mv, dim = _prepare(X, y, delta, psi)
    eta = check_positive(eta, "eta")
    T = check_int(T, "T", minimum=1)
    rng = check_rng(seed)
    idx = np.ascontiguousarray(rng.integers(0, X.shape[0], size=T), dtype=np.int64)
    if mv:
        Wbar, Wlast = _multiclass_sgd_kernel(X, yi, D, idx, eta, 0.0)
        check_finite_result("eta", Wbar)
        return MulticlassSGDResult(
            W=Wbar, classes=classes, w=Wbar.ravel(), psi=psi, w_last=Wlast.ravel(), indices=idx, eta=eta, T=T
        )
    w = np.zeros(dim)
    S = np.zeros(dim)
    w_last = w
    for t in range(T):
        S += w
        if t == T - 1:
            w_last = w.copy()
        i = idx[t]
        P = psi_matrix(psi, X[i], k)
        yh = _argmax_augmented(P, w, D, yi[i], k)
        w = w - eta * (P[yh] - P[yi[i]])
    wbar = S / T
    check_finite_result("eta", wbar, w_last)
    return MulticlassSGDResult(
        W=None, classes=classes, w=wbar, psi=psi, w_last=w_last, indices=idx, eta=eta, T=T
    )


def _argmax_augmented(P, w, D, y, k):
    """argmax_{y'} Δ(y', y) + ⟨w, Ψ(x, y')⟩ − ⟨w, Ψ(x, y)⟩ with sequential dot products."""
    s = np.empty(k)
    for c in range(k):
        s[c] = dot(w, P[c])
    return int(_augmented_argmax(D, s, int(y)))


def _sgd_warmup():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    return (
        X,
        np.array([0, 1, 2], dtype=np.int64),
        1.0 - np.eye(3),
        np.array([0, 1, 2, 1], dtype=np.int64),
        0.5,
        0.0,
    )


@jit(warmup=_sgd_warmup)
def _multiclass_sgd_kernel(X, yi, D, idx, eta, lam2):
    """Both SGDs on the multivector Ψ. lam2 = 0: §17.2.5 (w⁽ᵗ⁾ = V, V −= η v_t).
    lam2 > 0: §15.5 applied to the multiclass SVM (w⁽ᵗ⁾ = V/(lam2 t), V −= v_t).
    Returns (w̄, w⁽ᵀ⁾)."""
    k = D.shape[0]
    n = X.shape[1]
    T = idx.shape[0]
    V = np.zeros((k, n))
    Wt = np.zeros((k, n))
    S = np.zeros((k, n))
    s = np.empty(k)
    step = eta if lam2 == 0.0 else 1.0
    for t in range(T):
        denom = lam2 * (t + 1)
        for c in range(k):
            for j in range(n):
                Wt[c, j] = V[c, j] if lam2 == 0.0 else V[c, j] / denom
                S[c, j] += Wt[c, j]
        i = idx[t]
        y = yi[i]
        _row_scores(Wt, X, i, s)
        yh = _augmented_argmax(D, s, y)
        if yh != y:
            for j in range(n):
                V[yh, j] -= step * X[i, j]
                V[y, j] += step * X[i, j]
    for c in range(k):
        for j in range(n):
            S[c, j] = S[c, j] / T
    return S, Wt


# ---------------------------------------------------------------------------------------
# RLM multiclass SVM (UML §17.2.5) solved with the SGD of §15.5
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MulticlassSVMResult(LinearMulticlass):
    """Output of :func:`multiclass_svm`: ``W``/``w`` = w̄, ``objective`` = value of
    (λ/2)‖w̄‖² + mean generalized hinge, ``lam``, ``T``, ``indices``.

    Source: UML §17.2.5.
    """

    objective: float = float("nan")
    lam: float = 0.0
    T: int = 0
    indices: np.ndarray | None = None


def multiclass_svm(X, y, lam, T=None, seed=None, delta=None, psi=None) -> MulticlassSVMResult:
    """The multiclass SVM rule of UML §17.2.5, minimised by the SGD of §15.5.

    Objective, in the course's one λ convention (that of UML (15.12)):

        (λ/2)‖w‖² + (1/m) Σ_i max_{y'} [Δ(y', y_i) + ⟨w, Ψ(x_i, y') − Ψ(x_i, y_i)⟩].

    §17.2.5 prints λ_book‖w‖², the same problem for λ_book = λ/2. The objective is
    λ-strongly convex, so "the method described in Section 15.5" reads ::

        θ⁽¹⁾ = 0
        for t = 1..T:  w⁽ᵗ⁾ = θ⁽ᵗ⁾ / (λ t);  sample i;  ŷ as in (17.3) at w⁽ᵗ⁾
                       θ⁽ᵗ⁺¹⁾ = θ⁽ᵗ⁾ − (Ψ(x_i, ŷ) − Ψ(x_i, y_i))
        output w̄ = (1/T) Σ_t w⁽ᵗ⁾

    Its expected optimisation gap is bounded by a constant times log(T)/(λT).
    Crammer & Singer's ½‖W‖² + C Σ ξ_i (``LinearSVC(multi_class="crammer_singer")``)
    is the same problem for C = 1/(λm): see :func:`kmlteach.svm.lam_to_C`.

    Parameters
    ----------
    X, y, delta, psi : as in :func:`multiclass_svm_sgd`
    lam : float > 0
    T : int, default=20 m
    seed : int or None
    """
    X, classes, yi, k, D, psi, mv, dim = _prepare(X, y, delta, psi)
    lam = check_positive(lam, "lam")
    T = 20 * X.shape[0] if T is None else check_int(T, "T", minimum=1)
    return _multiclass_svm(X, classes, yi, D, psi, mv, dim, lam, T, check_rng(seed))


def _multiclass_svm(X, classes, yi, D, psi, mv, dim, lam, T, rng) -> MulticlassSVMResult:
    """:func:`multiclass_svm` on checked arguments (the estimator's fit validated them once)."""
    m, k = X.shape[0], classes.shape[0]
    idx = np.ascontiguousarray(rng.integers(0, m, size=T), dtype=np.int64)
    if mv:
        Wbar, _ = _multiclass_sgd_kernel(X, yi, D, idx, 1.0, lam)
        w = Wbar.ravel()
        W = Wbar
    else:
        theta = np.zeros(dim)
        S = np.zeros(dim)
        for t in range(T):
            wt = theta / (lam * (t + 1))
            S += wt
            i = idx[t]
            P = psi_matrix(psi, X[i], k)
            yh = _argmax_augmented(P, wt, D, yi[i], k)
            theta = theta - (P[yh] - P[yi[i]])
        w = S / T
        W = None
    check_finite_output("delta or lam", w)  # a huge Δ or a tiny λ overflows the iterates
    wk = W if mv else w
    losses = _loss_augmented(_scores(wk, X, None if mv else psi, mv, k), yi, D)[0].max(axis=1)
    obj = objective_value(wk, lam, losses)  # the generalized hinge of the checked sample
    check_finite_output("delta or lam", obj)
    return MulticlassSVMResult(W=W, classes=classes, w=w, psi=psi, objective=obj, lam=lam, T=T, indices=idx)
