"""Multiclass classification (UML §17.1–17.2; lecture slides on multiclass and Kesler).

Three families, in the order of the chapter:

* **Reductions to binary problems** (UML §17.1, slides): :func:`one_vs_all`,
  :func:`all_pairs` (majority vote or tournament), :func:`ecoc` (error-correcting
  output codes, from Dietterich & Bakiri 1995, *not* in the course sources), and the
  exact 2-D halfspace ERM :func:`erm_halfspace_2d` used to replay Example 17.1.
  Implemented in :mod:`kmlteach._multiclass_reductions` and (demonstration binary
  learners) :mod:`kmlteach._multiclass_learners`.
* **Linear multiclass predictors** h_w(x) = argmax_y ⟨w, Ψ(x, y)⟩ (UML §17.2, this
  file): feature maps Ψ (multivector (17.2), TF-IDF), cost matrices Δ, the
  generalized hinge loss (17.3) and its subgradient, "SGD for Multiclass Learning"
  (§17.2.5) and the RLM multiclass SVM.
* **Multiclass perceptrons** (UML ex. 17.2, slides, HSS2 §2.2.1): batch, Kesler,
  conservative and Collins' perceptrons and the Kesler embedding. Implemented in
  :mod:`kmlteach._multiclass_perceptrons`.

Labels may be any sortable hashable values; internally classes are numbered 0..k-1
in the order of ``np.unique(y)``, and every argmax breaks ties towards the smallest
index (UML §17.1's rule).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._jit import jit
from ._linalg import dot
from ._multiclass_common import (LinearMulticlass, MultivectorPsi, TfidfPsi, _augmented_argmax,
                                 _check_index_range, _row_scores, check_delta,
                                 labels_to_index, multivector_psi, psi_matrix, resolve_psi,
                                 zero_one_delta)
from ._validation import (as_matrix, as_vector, check_int, check_multiclass_labels,
                          check_nonnegative, check_positive, check_rng, check_X)

__all__ = [
    # §17.2 linear predictors
    "MultivectorPsi", "TfidfPsi", "multivector_psi", "zero_one_delta", "LinearMulticlass",
    "generalized_hinge", "generalized_hinge_subgradient", "multiclass_svm_objective",
    "multiclass_svm_sgd", "multiclass_svm", "crammer_singer_C", "MulticlassSGDResult",
    "MulticlassSVMResult", "MulticlassSVM",
    # §17.1 reductions
    "one_vs_all", "all_pairs", "ecoc", "ecoc_code", "erm_halfspace_2d", "Decision",
    "least_squares_learner", "LinearScorer", "stump_learner", "Stump", "HalfspaceERM",
    # perceptrons
    "multiclass_perceptron", "kesler_embed", "kesler_perceptron", "conservative_perceptron",
    "collins_perceptron", "MulticlassPerceptronResult", "KeslerEmbedding",
]


# ---------------------------------------------------------------------------------------
# argument handling shared by the loss functions
# ---------------------------------------------------------------------------------------

def _weights_and_data(w, X, y, psi, classes):
    """-> (w as given shape, X, y indices, k, psi object or None, multivector?)."""
    if psi is None:
        W = as_matrix(w, "w")
        k, n = W.shape
        if k < 2:
            raise ValueError(f"w must have one row per class (k >= 2) for the multivector Ψ, "
                             f"got shape {W.shape}; pass psi= for another feature map")
        X = check_X(X, "X", n_cols=n)
        mv = True
        wout = W
    else:
        wv = as_vector(w, "w")
        X = check_X(X, "X")
        if classes is not None:
            k = len(np.asarray(classes))
        else:
            k = getattr(psi, "n_classes", None)
            if k is None:
                raise ValueError("pass classes= (or a psi with n_classes) to know the number of classes")
        psi, mv, dim = resolve_psi(psi, int(k), X.shape[1])
        if dim != wv.shape[0]:
            raise ValueError(f"w has length {wv.shape[0]} but psi maps into R^{dim}")
        wout = wv
    if classes is not None:
        classes = np.asarray(classes)
        if classes.ndim != 1 or classes.shape[0] != k:
            raise ValueError(f"classes must list the {k} classes, got {classes.shape[0] if classes.ndim == 1 else classes.shape}")
    yi = labels_to_index(y, classes, "y", n=X.shape[0])
    _check_index_range(yi, k, "y")
    return wout, X, yi, int(k), psi, mv


def _scores(w, X, psi, mv, k):
    """(m, k) matrix of ⟨w, Ψ(x_i, y)⟩."""
    if mv and psi is None:
        return X @ w.T
    return np.array([psi_matrix(psi, x, k) @ w for x in X])


def _loss_augmented(S, yi, D):
    """Values Δ(y', y_i) + s(y') - s(y_i) (m, k), and the argmax ŷ_i (smallest index on ties)."""
    m = S.shape[0]
    A = D[:, yi].T + S - S[np.arange(m), yi][:, None]
    return A, np.argmax(A, axis=1)


# ---------------------------------------------------------------------------------------
# generalized hinge loss (UML §17.2.4, Eq. (17.3))
# ---------------------------------------------------------------------------------------

def generalized_hinge(w, X, y, delta=None, psi=None, classes=None) -> np.ndarray:
    """Generalized hinge loss (UML §17.2.4, Eq. (17.3)) of each example.

        ℓ(w, (x, y)) = max_{y'} [ Δ(y', y) + ⟨w, Ψ(x, y') − Ψ(x, y)⟩ ]

    It upper-bounds Δ(h_w(x), y) and is convex in w (a max of affine functions).

    Parameters
    ----------
    w : ndarray (k, n) for the multivector Ψ (row y is w_y), or (dim,) with ``psi``
    X : ndarray (m, n)
    y : labels; class indices 0..k-1, or labels among ``classes``
    delta : None (0–1 loss), (k, k) array with ``delta[y', y]`` = Δ(y', y), or callable
    psi : None (multivector Ψ) or a feature map (object with ``.all(x)`` or ``psi(x, y)``)
    classes : array of the k labels, optional

    Returns
    -------
    ndarray (m,) of losses (>= 0).

    Examples
    --------
    >>> W = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> generalized_hinge(W, [[2.0, 0.5]], [0]).round(3).tolist()
    [0.0]
    """
    w, X, yi, k, psi, mv = _weights_and_data(w, X, y, psi, classes)
    D = check_delta(delta, np.arange(k) if classes is None else np.asarray(classes))
    A, _ = _loss_augmented(_scores(w, X, psi if not (mv and psi is None) else None, mv, k), yi, D)
    return A.max(axis=1)


def generalized_hinge_subgradient(w, X, y, delta=None, psi=None, classes=None) -> np.ndarray:
    """A subgradient of the *average* generalized hinge loss over the rows of X.

    For one example, v = Ψ(x, ŷ) − Ψ(x, y) with ŷ a maximiser in (17.3) (Claim 14.6;
    ties go to the smallest index); for m examples, the mean of these. Same shape as
    ``w`` (for the multivector Ψ: row ŷ gets +x, row y gets −x).
    """
    w, X, yi, k, psi, mv = _weights_and_data(w, X, y, psi, classes)
    D = check_delta(delta, np.arange(k) if classes is None else np.asarray(classes))
    m = X.shape[0]
    _, yhat = _loss_augmented(_scores(w, X, psi if not (mv and psi is None) else None, mv, k), yi, D)
    G = np.zeros_like(w)
    if psi is None:
        for i in range(m):
            if yhat[i] != yi[i]:
                G[yhat[i]] += X[i]
                G[yi[i]] -= X[i]
    else:
        for i in range(m):
            P = psi_matrix(psi, X[i], k)
            G += P[yhat[i]] - P[yi[i]]
    return G / m


def multiclass_svm_objective(w, X, y, lam, delta=None, psi=None, classes=None) -> float:
    """The multiclass SVM (RLM) objective of UML §17.2.5:

        λ ‖w‖² + (1/m) Σ_i ℓ(w, (x_i, y_i))   with ℓ the generalized hinge (17.3).

    Note λ‖w‖² (as printed in §17.2.5), not (λ/2)‖w‖². Crammer & Singer's form
    ½ Σ_y ‖w_y‖² + C Σ_i ξ_i (LinearSVC(multi_class="crammer_singer")) is the same
    problem with C = 1/(2 λ m) (see :func:`crammer_singer_C`), divided by C·m.
    """
    lam = check_nonnegative(lam, "lam")
    losses = generalized_hinge(w, X, y, delta=delta, psi=psi, classes=classes)
    wa = np.asarray(w, dtype=float)
    return float(lam * np.sum(wa * wa) + losses.mean())


def crammer_singer_C(lam: float, m: int) -> float:
    """C of ½‖W‖² + C Σ ξ_i equivalent to λ‖W‖² + (1/m) Σ ξ_i: C = 1/(2 λ m)."""
    lam = check_positive(lam, "lam")
    m = check_int(m, "m", minimum=1)
    return 1.0 / (2.0 * lam * m)


# ---------------------------------------------------------------------------------------
# SGD for multiclass learning (UML §17.2.5)
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class MulticlassSGDResult(LinearMulticlass):
    """Output of :func:`multiclass_svm_sgd`: ``W`` = w̄ (k, n) for the multivector Ψ,
    ``w`` = w̄ flat, ``w_last`` = w⁽ᵀ⁾, ``indices`` the sampled examples, ``eta``, ``T``."""
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
        return MulticlassSGDResult(W=Wbar, classes=classes, w=Wbar.ravel(), psi=psi,
                                   w_last=Wlast.ravel(), indices=idx, eta=eta, T=T)
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
    return MulticlassSGDResult(W=None, classes=classes, w=wbar, psi=psi, w_last=w_last,
                               indices=idx, eta=eta, T=T)


def _argmax_augmented(P, w, D, y, k):
    """argmax_{y'} Δ(y', y) + ⟨w, Ψ(x, y')⟩ − ⟨w, Ψ(x, y)⟩ with sequential dot products."""
    s = np.empty(k)
    for c in range(k):
        s[c] = dot(w, P[c])
    return int(_augmented_argmax(D, s, int(y)))



def _sgd_warmup():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    return X, np.array([0, 1, 2], dtype=np.int64), 1.0 - np.eye(3), np.array([0, 1, 2, 1], dtype=np.int64), 0.5, 0.0


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
    λ‖w̄‖² + mean generalized hinge, ``lam``, ``T``, ``indices``."""
    objective: float = float("nan")
    lam: float = 0.0
    T: int = 0
    indices: np.ndarray | None = None


def multiclass_svm(X, y, lam, T=None, seed=None, delta=None, psi=None) -> MulticlassSVMResult:
    """The multiclass SVM rule of UML §17.2.5, minimised by the SGD of §15.5.

    Objective: λ‖w‖² + (1/m) Σ_i max_{y'} [Δ(y', y_i) + ⟨w, Ψ(x_i, y') − Ψ(x_i, y_i)⟩].
    §17.2.5 points to "the method described in Section 15.5": with strong convexity
    2λ (the book's λ‖w‖², not (λ/2)‖w‖²) that SGD reads ::

        θ⁽¹⁾ = 0
        for t = 1..T:  w⁽ᵗ⁾ = θ⁽ᵗ⁾ / (2λ t);  sample i;  ŷ as in (17.3) at w⁽ᵗ⁾
                       θ⁽ᵗ⁺¹⁾ = θ⁽ᵗ⁾ − (Ψ(x_i, ŷ) − Ψ(x_i, y_i))
        output w̄ = (1/T) Σ_t w⁽ᵗ⁾

    Its expected optimisation gap decays like log(T)/(λT). Crammer & Singer's
    ½‖W‖² + C Σ ξ_i is the same problem for C = 1/(2λm) (:func:`crammer_singer_C`).

    Parameters
    ----------
    X, y, delta, psi : as in :func:`multiclass_svm_sgd`
    lam : float > 0
    T : int, default=20 m
    seed : int or None
    """
    X, classes, yi, k, D, psi, mv, dim = _prepare(X, y, delta, psi)
    lam = check_positive(lam, "lam")
    m = X.shape[0]
    T = 20 * m if T is None else check_int(T, "T", minimum=1)
    rng = check_rng(seed)
    idx = np.ascontiguousarray(rng.integers(0, m, size=T), dtype=np.int64)
    if mv:
        Wbar, _ = _multiclass_sgd_kernel(X, yi, D, idx, 1.0, 2.0 * lam)
        w = Wbar.ravel()
        W = Wbar
    else:
        theta = np.zeros(dim)
        S = np.zeros(dim)
        for t in range(T):
            wt = theta / (2.0 * lam * (t + 1))
            S += wt
            i = idx[t]
            P = psi_matrix(psi, X[i], k)
            yh = _argmax_augmented(P, wt, D, yi[i], k)
            theta = theta - (P[yh] - P[yi[i]])
        w = S / T
        W = None
    obj = multiclass_svm_objective(W if mv else w, X, yi, lam, delta=D, psi=None if mv else psi,
                                   classes=None)
    return MulticlassSVMResult(W=W, classes=classes, w=w, psi=psi, objective=obj, lam=lam, T=T,
                               indices=idx)


# re-exports (kept at the bottom: these modules import from _multiclass_common only)
from ._multiclass_reductions import (Decision, all_pairs, ecoc, ecoc_code,  # noqa: E402
                                     one_vs_all)
from ._multiclass_learners import (HalfspaceERM, LinearScorer, Stump,  # noqa: E402
                                   erm_halfspace_2d, least_squares_learner, stump_learner)
from ._multiclass_perceptrons import (KeslerEmbedding, MulticlassPerceptronResult,  # noqa: E402
                                      collins_perceptron, conservative_perceptron, kesler_embed,
                                      kesler_perceptron, multiclass_perceptron)
def __getattr__(name):
    # MulticlassSVM is built on scikit-learn's base classes (an optional dependency that
    # takes seconds to import): load it on first use only.
    if name == "MulticlassSVM":
        from ._multiclass_estimators import MulticlassSVM

        return MulticlassSVM
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
