"""The class-mean (Parzen-window) classifier from kernel values only
(HSS1 §1.2.1, UML ex. 16.6), and :func:`kernel_expansion`, which evaluates
f(x) = Σ_j α_j k(x_j, x) + b, the form of the representer theorem (UML Thm 16.1,
HSS1 Thm 6).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kmlteach._validation import (
    as_vector,
    check_binary_labels,
    check_finite_output,
    check_gram,
    check_kernel_test,
    check_real,
)

__all__ = ["ClassMeanResult", "class_mean_classifier", "kernel_expansion"]


# ----------------------------------------------------------------------------- class means


@dataclass(frozen=True)
class ClassMeanResult:
    """The class-mean classifier as a kernel expansion: f(x) = Σ_j alpha_j k(x_j, x) + b,
    with alpha_j = 1/m₊ (y_j = +1) or −1/m₋ (y_j = −1); predict +1 iff f(x) >= 0.

    Source: HSS1 §1.2.1, UML ex. 16.6.
    """

    alpha: np.ndarray
    b: float

    def decision_function(self, K_test) -> np.ndarray:
        return kernel_expansion(K_test, self.alpha, self.b)

    def predict(self, K_test) -> np.ndarray:
        return np.where(self.decision_function(K_test) >= 0.0, 1.0, -1.0)


def class_mean_classifier(K, y) -> ClassMeanResult:
    """Nearest class mean in feature space, from kernel values only (HSS1 (1.4)-(1.6), UML ex. 16.6).

    With ``c_± = (1/m_±) sum_{y_i = ±1} psi(x_i)``, ``w = c_+ - c_-`` and
    ``b = (||c_-||^2 - ||c_+||^2) / 2`` the rule is ``sign(<w, psi(x)> + b)``, i.e.
    "closer to c_+ than to c_-" (ties go to +1, as UML's ``<=``). In kernel form
    ``<w, psi(x)> = (1/m_+) sum_{y_i=+1} k(x, x_i) - (1/m_-) sum_{y_i=-1} k(x, x_i)`` and
    ``b = (1/2) (mean of K over (-,-) pairs - mean of K over (+,+) pairs)``.

    Returns
    -------
    ClassMeanResult with ``.alpha``, ``.b``, ``.decision_function(K_test)``, ``.predict(K_test)``
    """
    Ka = check_gram(K)
    ya = check_binary_labels(y, "y", n=Ka.shape[0], of="one per row of K")
    pos, neg = ya > 0, ya < 0
    alpha = np.where(pos, 1.0 / pos.sum(), -1.0 / neg.sum())
    b = 0.5 * (float(Ka[np.ix_(neg, neg)].mean()) - float(Ka[np.ix_(pos, pos)].mean()))
    return ClassMeanResult(alpha, b)


def kernel_expansion(K_test, alpha, b: float = 0.0) -> np.ndarray:
    """Evaluate ``f(z_a) = sum_j alpha_j k(x_j, z_a) + b`` for every row of ``K_test``.

    This is the predictor form of the representer theorem (UML Thm 16.1 and the display
    after (16.4); HSS1 Thm 6, Eq. (1.25)).

    Parameters
    ----------
    K_test : (n, m) with ``K_test[a, j] = k(z_a, x_j)``
    alpha : (m,)
    b : float, default=0.0
    """
    Kt = check_kernel_test(K_test, None)
    av = as_vector(alpha, "alpha", length=Kt.shape[1], of="one per column of K_test")
    out = Kt @ av + check_real(b, "b")
    check_finite_output("K_test, alpha or b", out)
    return out
