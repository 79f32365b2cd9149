"""Margin losses of binary classification and a subgradient of each.

Every loss here is a function of the *margin* ``z = y * f(x)`` only (for a linear
predictor ``z = y <w, x>`` or ``y (<w, x> + b)``): positive ``z`` means a correct
prediction, and the larger ``z``, the more confident. Each loss takes an array of
margins (any shape; a Python or NumPy scalar gives a float) and returns the losses
elementwise; ``<name>_subgradient`` returns one element of the subdifferential with
respect to ``z`` at each margin, the choice at each kink being documented.

By the chain rule a subgradient with respect to ``w`` of ``loss(y <w, x>)`` is
``loss_subgradient(z) * y * x``; for the hinge this is ``-y x`` when ``z < 1`` and
``0`` otherwise, exactly the vector ``v`` that SGD for Soft-SVM uses (UML §15.5,
Example 14.2).

=============  ===============================  ======================================
name           loss l(z)                        subgradient chosen
=============  ===============================  ======================================
``zero_one``   1[z <= 0]                        0 (the derivative wherever it exists)
``hinge``      max(0, 1 - z)       (UML §15.2)  -1 if z < 1, else 0
``ramp``       min(1, max(0, 1 - z)) (§15.2.3)  -1 if 0 <= z < 1, else 0
``logistic``   log(1 + exp(-z))   (HSS2 2.14)   -1 / (1 + exp(z))
``exponential`` exp(-z)           (HSS2 §2.5)   -exp(-z)
=============  ===============================  ======================================

The 0–1 loss counts a margin of exactly 0 as a mistake (as the perceptron's test
``y <w, x> <= 0`` does). It and the ramp loss are not convex, so "subgradient" means
the derivative away from the kinks and a one-sided derivative at them. The hinge,
logistic and exponential losses are convex and the values returned satisfy the
subgradient inequality ``l(u) >= l(z) + g (u - z)`` everywhere, kinks included.

:data:`LOSSES` maps each name to ``(loss, subgradient)`` so that figures and widgets
can iterate over the gallery.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._validation import _check_finite, _to_float_array

__all__ = [
    "zero_one",
    "hinge",
    "ramp",
    "logistic",
    "exponential",
    "zero_one_subgradient",
    "hinge_subgradient",
    "ramp_subgradient",
    "logistic_subgradient",
    "exponential_subgradient",
    "LOSSES",
]


def _margins(margins, name: str = "margins"):
    """Margins as a float64 array (any shape) and whether the input was a scalar."""
    scalar = isinstance(margins, (numbers.Real, np.floating, np.integer)) and not isinstance(margins, bool)
    if isinstance(margins, bool):
        raise TypeError(f"{name} must be a number or an array of numbers, got bool {margins!r}")
    z = _to_float_array(margins, name)
    if z.size == 0:
        raise ValueError(f"{name} is empty; pass at least one margin y*f(x)")
    _check_finite(z, name)
    return z, scalar


def _out(values: np.ndarray, scalar: bool):
    return float(values) if scalar else values


def zero_one(margins):
    """0–1 loss ``1[z <= 0]`` of margins ``z = y f(x)`` (a margin of 0 is a mistake).

    Parameters
    ----------
    margins : array_like of float
        Margins ``y * f(x)``; any shape.

    Returns
    -------
    ndarray of float (same shape), or float for a scalar input.

    Examples
    --------
    >>> zero_one([-1.0, 0.0, 0.5])
    array([1., 1., 0.])
    """
    z, scalar = _margins(margins)
    return _out((z <= 0).astype(np.float64), scalar)


def zero_one_subgradient(margins):
    """Derivative of the 0–1 loss where it exists: 0 everywhere (also returned at z = 0,
    where the loss jumps and no subgradient exists).

    Source: UML §15.2.3 (the 0–1 loss of a margin).
    """
    z, scalar = _margins(margins)
    return _out(np.zeros_like(z), scalar)


def hinge(margins):
    """Hinge loss ``max(0, 1 - z)`` of margins ``z = y f(x)`` (UML §15.2).

    Examples
    --------
    >>> hinge([-1.0, 0.0, 1.0, 2.0])
    array([2., 1., 0., 0.])
    """
    z, scalar = _margins(margins)
    return _out(np.maximum(0.0, 1.0 - z), scalar)


def hinge_subgradient(margins):
    """A subgradient of the hinge loss in z: ``-1`` if ``z < 1``, else ``0``.

    At the kink z = 1 the subdifferential is [-1, 0]; we return 0, the choice of
    UML §15.5 (no update when ``y <w, x> >= 1``).
    """
    z, scalar = _margins(margins)
    return _out(np.where(z < 1.0, -1.0, 0.0), scalar)


def ramp(margins):
    """Ramp loss ``min(1, max(0, 1 - z))`` (UML §15.2.3): the hinge capped at 1."""
    z, scalar = _margins(margins)
    return _out(np.minimum(1.0, np.maximum(0.0, 1.0 - z)), scalar)


def ramp_subgradient(margins):
    """Derivative of the ramp loss: ``-1`` on ``0 <= z < 1``, else ``0``.

    The ramp is not convex. At its kinks we return a one-sided derivative: at z = 1
    the right one (0, as for the hinge), at z = 0 the right one (-1).
    Source: UML §15.2.3 (the ramp loss).
    """
    z, scalar = _margins(margins)
    return _out(np.where((z >= 0.0) & (z < 1.0), -1.0, 0.0), scalar)


def logistic(margins):
    """Logistic loss ``log(1 + exp(-z))`` (natural log; HSS2 Eq. (2.14)), computed
    without overflow for large ``|z|``."""
    z, scalar = _margins(margins)
    return _out(np.logaddexp(0.0, -z), scalar)


def logistic_subgradient(margins):
    """Derivative of the logistic loss: ``-1 / (1 + exp(z))`` (HSS2 Eq. (2.15)),
    evaluated stably as ``-(1 - tanh(z/2)) / 2``."""
    z, scalar = _margins(margins)
    return _out(-0.5 * (1.0 - np.tanh(0.5 * z)), scalar)


def exponential(margins):
    """Exponential loss ``exp(-z)`` (the loss AdaBoost minimises; HSS2 §2.5).

    Overflows to ``inf`` for margins below about -709, like ``np.exp``.
    """
    z, scalar = _margins(margins)
    with np.errstate(over="ignore"):
        return _out(np.exp(-z), scalar)


def exponential_subgradient(margins):
    """Derivative of the exponential loss: ``-exp(-z)``.

    Source: HSS2 §2.4 (loss table); the loss of AdaBoost (SL boosting).
    """
    z, scalar = _margins(margins)
    with np.errstate(over="ignore"):
        return _out(-np.exp(-z), scalar)


#: name -> (loss, subgradient), in the order of the loss gallery.
LOSSES = {
    "zero_one": (zero_one, zero_one_subgradient),
    "hinge": (hinge, hinge_subgradient),
    "ramp": (ramp, ramp_subgradient),
    "logistic": (logistic, logistic_subgradient),
    "exponential": (exponential, exponential_subgradient),
}


def __dir__():
    return sorted(__all__)
