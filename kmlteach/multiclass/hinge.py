"""The generalized hinge loss of a linear multiclass predictor (UML §17.2.4,
Eq. (17.3)), its subgradient, and the RLM multiclass SVM objective (UML §17.2.5).
"""

from __future__ import annotations

import numpy as np

from kmlteach._validation import (
    as_matrix,
    as_vector,
    check_finite_output,
    check_label_range,
    check_nonnegative,
    check_X,
)
from kmlteach.multiclass.psi import (
    check_delta,
    labels_to_index,
    psi_matrix,
    resolve_psi,
)
from kmlteach.svm.conventions import lam_to_C

__all__ = [
    "generalized_hinge",
    "generalized_hinge_subgradient",
    "multiclass_svm_objective",
    "crammer_singer_C",
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
            raise ValueError(
                f"w must have one row per class (k >= 2) for the multivector Ψ, "
                f"got shape {W.shape}; pass psi= for another feature map"
            )
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
            raise ValueError(
                f"classes must list the {k} classes, got {classes.shape[0] if classes.ndim == 1 else classes.shape}"
            )
    yi = labels_to_index(y, classes, "y", n=X.shape[0])
    check_label_range(
        yi,
        k,
        "y",
        of=(
            "w has one row per class"
            if psi is None
            else "classes"
            if classes is not None
            else "psi.n_classes"
        ),
    )
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
    """The multiclass SVM (RLM) objective of UML §17.2.5 in the course's λ convention:

        (λ/2) ‖w‖² + (1/m) Σ_i ℓ(w, (x_i, y_i))   with ℓ the generalized hinge (17.3).

    §17.2.5 prints λ_book‖w‖², i.e. λ_book = λ/2. Crammer & Singer's form
    ½ Σ_y ‖w_y‖² + C Σ_i ξ_i (LinearSVC(multi_class="crammer_singer")) is the same
    problem with C = 1/(λ m) (:func:`kmlteach.svm.lam_to_C`), divided by C·m.
    """
    lam = check_nonnegative(lam, "lam")
    value = objective_value(w, lam, generalized_hinge(w, X, y, delta=delta, psi=psi, classes=classes))
    check_finite_output("w, lam or delta", value)
    return value


def objective_value(w, lam: float, losses: np.ndarray) -> float:
    """(λ/2)‖w‖² + mean loss, unchecked (inf when w or the losses are huge)."""
    wa = np.asarray(w, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        return float(0.5 * lam * np.sum(wa * wa) + losses.mean())


def crammer_singer_C(lam: float, m: int) -> float:
    """C of Crammer & Singer's ½‖W‖² + C Σ ξ_i equivalent to (λ/2)‖W‖² + (1/m) Σ ξ_i:
    C = 1/(λ m) (UML §17.2.5; the same conversion as :func:`kmlteach.svm.lam_to_C`)."""
    return lam_to_C(lam, m)
