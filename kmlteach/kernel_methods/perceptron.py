"""The kernel perceptron (UML ex. 16.2): the Batch Perceptron with
w = Σ α_j ψ(x_j) kept as the coefficient vector α.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import check_binary_labels, check_gram, check_int

__all__ = ["KernelPerceptronResult", "kernel_perceptron"]


# ----------------------------------------------------------------------------- kernel perceptron


@dataclass(frozen=True)
class KernelPerceptronResult:
    """``alpha``: w = Σ_j alpha_j ψ(x_j) (alpha_j = y_j × number of updates on j);
    ``n_updates``; ``converged`` (no mistake left within ``max_updates``).

    Source: UML ex. 16.2.
    """

    alpha: np.ndarray
    n_updates: int
    converged: bool


def kernel_perceptron(K, y, max_updates: int = 100_000) -> KernelPerceptronResult:
    """The Batch Perceptron (UML §9.1.2) run through kernel values only (UML ex. 16.2).

    ``w = sum_j alpha_j psi(x_j)`` starts at 0; while some i has
    ``y_i sum_j alpha_j K(x_j, x_i) <= 0`` (a mistake, with ``<=`` so that it fires at
    w = 0), take the **smallest** such i and set ``alpha_i += y_i`` (i.e. w += y_i psi(x_i)).
    Same choice rule as :func:`kmlteach.svm.perceptron`, so with ``K = Psi Psi^T`` both
    give the same sequence of updates and ``Psi^T alpha`` equals its ``w``.

    Returns
    -------
    KernelPerceptronResult with ``.alpha``, ``.n_updates``, ``.converged``
    """
    Ka = check_gram(K)
    ya = check_binary_labels(y, "y", n=Ka.shape[0], of="one per row of K")
    max_updates = check_int(max_updates, "max_updates", minimum=0)
    alpha, n_up, ok = _kernel_perceptron_kernel(Ka, ya, max_updates)
    return KernelPerceptronResult(alpha, int(n_up), bool(ok))


@jit(warmup=lambda: (np.eye(2), np.array([1.0, -1.0]), 10))
def _kernel_perceptron_kernel(K, y, max_updates):
    m = K.shape[0]
    alpha = np.zeros(m)
    s = np.zeros(m)  # s_i = sum_j alpha_j K[j, i]
    n_up = 0
    while True:
        i = -1
        for r in range(m):
            if y[r] * s[r] <= 0.0:
                i = r
                break
        if i < 0:
            return alpha, n_up, True
        if n_up >= max_updates:
            return alpha, n_up, False
        alpha[i] += y[i]
        for j in range(m):
            s[j] += y[i] * K[i, j]
        n_up += 1
