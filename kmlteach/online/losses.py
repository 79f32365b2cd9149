"""The losses NORMA can follow, as functions of the prediction f = f(x) and the label y.

NORMA (HSS2 Algorithm 2.1) needs only the derivative ``l'_t = ∂l(x_t, y_t, f)/∂f(x_t)``
at the current prediction: the new coefficient of ``k(x_t, ·)`` is ``−η_t l'_t``. The
table is the one of COURSE.md's ``norma`` row (HSS2 §2.2.2 and §2.4); at a kink the
derivative chosen is the one printed there (one element of the subdifferential).

=========================  ==============================  ===============================
loss                       l(f, y)                         l'(f, y) used by NORMA
=========================  ==============================  ===============================
``"hinge"``                max(0, 1 − y f)                 −y if y f < 1, else 0
``"perceptron"``           max(0, −y f)                    −y if y f ≤ 0, else 0
``"logistic"``             log(1 + e^{−y f})               −y / (1 + e^{y f})
``"squared"``              ½ (f − y)²                      f − y
``"epsilon_insensitive"``  max(0, |f − y| − ε)             sign(f − y) if |f − y| > ε, else 0
=========================  ==============================  ===============================

The perceptron loss takes its subgradient −y also at y f = 0, so that the first step
(f₁ = 0) is an update, as in the perceptron.
"""

from __future__ import annotations

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import as_vector, check_choice, check_nonnegative

__all__ = ["CLASSIFICATION_LOSSES", "NORMA_LOSSES", "norma_loss"]

NORMA_LOSSES = ("hinge", "perceptron", "logistic", "squared", "epsilon_insensitive")
"""Loss names accepted by :func:`kmlteach.online.norma` (codes 0..4 in the kernels)."""

CLASSIFICATION_LOSSES = ("hinge", "perceptron", "logistic")
"""Losses that need labels in {−1, +1}; the other two accept any real targets."""


@jit(warmup=lambda: (0.5, 1.0, 0, 0.1))
def _loss_and_derivative(f, y, code, eps):
    """(l(f, y), l'(f, y)) for loss ``code`` (the order of :data:`NORMA_LOSSES`)."""
    if code == 0:
        z = y * f
        return (1.0 - z, -y) if z < 1.0 else (0.0, 0.0)
    if code == 1:
        z = y * f
        return (-z, -y) if z <= 0.0 else (0.0, 0.0)
    if code == 2:
        z = y * f
        # log(1 + e^{-z}) and 1/(1 + e^{z}) without overflow for large |z|
        if z > 0.0:
            e = np.exp(-z)
            return np.log1p(e), -y * e / (1.0 + e)
        e = np.exp(z)
        return -z + np.log1p(e), -y / (1.0 + e)
    if code == 3:
        r = f - y
        return 0.5 * r * r, r
    r = f - y
    if r > eps:
        return r - eps, 1.0
    if r < -eps:
        return -r - eps, -1.0
    return 0.0, 0.0


@jit(warmup=lambda: (np.zeros(3), np.ones(3), 0, 0.1))
def _loss_kernel(f, y, code, eps):
    n = f.shape[0]
    val = np.empty(n)
    der = np.empty(n)
    for i in range(n):
        val[i], der[i] = _loss_and_derivative(f[i], y[i], code, eps)
    return val, der


def norma_loss(loss, f, y, epsilon=0.1):
    """Values and NORMA derivatives ``l'`` of a loss at predictions ``f`` and labels ``y``.

    Parameters
    ----------
    loss : {"hinge", "perceptron", "logistic", "squared", "epsilon_insensitive"}
        See the table in the module docstring (HSS2 §2.2.2, §2.4; COURSE.md §09).
    f : array_like (n,) or float
        Predictions f(x).
    y : array_like (n,) or float
        Labels (−1/+1 for the classification losses) or real targets.
    epsilon : float, default=0.1
        Width ε ≥ 0 of the insensitive zone (``"epsilon_insensitive"`` only).

    Returns
    -------
    values, derivatives : ndarray (n,) each (floats for scalar input)
        ``l(f, y)`` and the derivative ``∂l/∂f`` that NORMA uses.

    Examples
    --------
    >>> v, d = norma_loss("hinge", [0.5, 2.0], [1.0, 1.0])
    >>> v.tolist(), d.tolist()
    ([0.5, 0.0], [-1.0, 0.0])
    """
    code = NORMA_LOSSES.index(check_choice(loss, "loss", NORMA_LOSSES))
    scalar = np.ndim(f) == 0 and np.ndim(y) == 0 and not isinstance(f, (list, tuple))
    fa = as_vector(f, "f")
    ya = as_vector(y, "y", length=fa.shape[0], of="one per entry of f")
    if loss in CLASSIFICATION_LOSSES and not np.all(np.abs(ya) == 1.0):
        raise ValueError(f"y must contain only the labels -1 and +1 for the {loss} loss")
    eps = check_nonnegative(epsilon, "epsilon")
    val, der = _loss_kernel(fa, ya, code, eps)
    if scalar:
        return float(val[0]), float(der[0])
    return val, der
