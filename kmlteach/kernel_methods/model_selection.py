"""Choosing a kernel's width σ and the regularisation λ by k-fold cross-validation.

UML §11.2.4 (validation; not among this course's sources, used here as the standard
recipe): split the training sample into k folds; for every candidate (λ, σ) train on
k − 1 folds and measure the accuracy on the fold left out; keep the candidate with the
best mean accuracy. The learner is soft-SVM with a Gaussian kernel trained by SGD
(:func:`kmlteach.kernel_methods.kernel_sgd_svm`, UML §16.3), and the features are
standardised inside each split with the training folds' means and standard deviations,
so nothing of the held-out fold leaks into training.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kmlteach._validation import check_binary_labels, check_int, check_positive, check_rng, check_X
from kmlteach.kernel_methods.sgd import _kernel_sgd_svm
from kmlteach.kernels.gram import gram

__all__ = ["CVResult", "kfold_indices", "standardize", "cross_validate_kernel_svm"]


@dataclass(frozen=True)
class CVResult:
    """Output of :func:`cross_validate_kernel_svm`.

    ``scores[a, b, f]`` is the held-out accuracy of (``lams[a]``, ``sigmas[b]``) on fold
    ``f``; ``mean`` and ``std`` average over the folds; ``best`` = (a, b) of the highest
    mean accuracy (the first in (λ, σ) order on ties) with ``best_lam``, ``best_sigma``;
    ``folds`` the fold number of every example.

    Source: UML §11.2.4 (k-fold cross-validation; beyond the course's sources).
    """

    lams: np.ndarray
    sigmas: np.ndarray
    scores: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    best: tuple
    best_lam: float
    best_sigma: float
    folds: np.ndarray


def kfold_indices(y, k: int = 5, seed=0) -> np.ndarray:
    """The fold (0..k−1) of every example, stratified: each class is shuffled with
    ``seed`` and dealt to the folds in turn, so every fold has its share of each class
    (UML §11.2.4, beyond the course's sources)."""
    ya = check_binary_labels(y, "y")
    k = check_int(k, "k", minimum=2, maximum=ya.size)
    rng = check_rng(seed)
    folds = np.empty(ya.size, dtype=np.int64)
    start = 0
    for label in (-1.0, 1.0):
        idx = np.flatnonzero(ya == label)
        folds[rng.permutation(idx)] = (start + np.arange(idx.size)) % k
        start += idx.size
    return folds


def standardize(X_train, X_test):
    """(X_train, X_test) centred and scaled by the training rows' mean and standard
    deviation (a constant feature is only centred); see UML §11.2.4 on keeping the
    held-out data out of training."""
    A = check_X(X_train, "X_train")
    B = check_X(X_test, "X_test")
    if B.shape[1] != A.shape[1]:
        raise ValueError(f"X_test must have {A.shape[1]} columns like X_train, got {B.shape[1]}")
    mu = A.mean(axis=0)
    sd = A.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    return (A - mu) / sd, (B - mu) / sd


def cross_validate_kernel_svm(X, y, lams, sigmas, *, k: int = 5, T: int | None = None, seed=0) -> CVResult:
    """k-fold cross-validated accuracy of Gaussian-kernel soft-SVM (UML §16.3) for every (λ, σ).

    Parameters
    ----------
    X : (m, d) features; y : (m,) labels in {-1, +1}
    lams, sigmas : 1-D sequences of positive candidates (σ as in
        :func:`kmlteach.kernels.gram`: ``k(x, x') = exp(-||x − x'||² / (2σ))``)
    k : number of folds (≥ 2); T : SGD steps per fit (default 20 × the training size);
    seed : folds and SGD draws

    Returns
    -------
    CVResult
    """
    Xa = check_X(X, "X")
    ya = check_binary_labels(y, "y", n=Xa.shape[0], of="one per row of X")
    lam_arr = np.array([check_positive(v, "lams") for v in np.atleast_1d(np.asarray(lams, dtype=object))])
    sig_arr = np.array([check_positive(v, "sigmas") for v in np.atleast_1d(np.asarray(sigmas, dtype=object))])
    if lam_arr.size == 0 or sig_arr.size == 0:
        raise ValueError("lams and sigmas must each hold at least one candidate")
    folds = kfold_indices(ya, k, seed)
    if T is not None:
        T = check_int(T, "T", minimum=1)
    scores = np.zeros((lam_arr.size, sig_arr.size, k))
    for f in range(k):
        tr, te = folds != f, folds == f
        A, B = standardize(Xa[tr], Xa[te])
        steps = 20 * int(tr.sum()) if T is None else T
        for b, sigma in enumerate(sig_arr):
            K = gram("gaussian", A, sigma=sigma)
            K_te = gram("gaussian", B, A, sigma=sigma)
            for a, lam in enumerate(lam_arr):
                # the unchecked core, as the estimators call it: K comes from gram() and the
                # labels, λ and T were checked above (kernel_sgd_svm's check of the m × m K, a
                # parallel pass, cost more than the fit itself on a busy two-core machine)
                alpha = _kernel_sgd_svm(K, ya[tr], lam, steps, seed).alpha
                pred = np.where(K_te @ alpha >= 0, 1.0, -1.0)
                scores[a, b, f] = np.mean(pred == ya[te])
    mean, std = scores.mean(axis=2), scores.std(axis=2)
    # ties (equal fold accuracies in another order) must not depend on the rounding of a sum
    a, b = np.unravel_index(int(np.argmax(np.round(mean, 12))), mean.shape)
    return CVResult(
        lam_arr, sig_arr, scores, mean, std, (int(a), int(b)), float(lam_arr[a]), float(sig_arr[b]), folds
    )
