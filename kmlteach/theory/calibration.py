"""Calibration of convex margin losses: the constants c, s of HSS2 (2.27) (Zhang 2004).

(2.27): for every f,
``E[χ(y f)] − E[χ(y f*_χ)] ≤ c (E[ψ(y f)] − E[ψ(y f*_ψ)])^s``, with χ(ξ) = ½(1 − sgn ξ).
HSS2 states c = 4, s = 1 for the soft margin and c = √8, s = ½ for the exponential
and logistic losses.

How it is checked. Condition on x and write η = P(y = 1 | x). The conditional ψ-risk of
a value f is ``C_η(f) = η ψ(f) + (1 − η) ψ(−f)``; its minimum is ``H(η)`` and its
minimum over the values of the wrong sign (f (2η − 1) ≤ 0) is ``H⁻(η)``. A wrong sign
costs ``|2η − 1|`` in excess 0–1 risk and at least ``H⁻(η) − H(η)`` in excess ψ-risk, so

    |2η − 1| ≤ c (H⁻(η) − H(η))^s   for all η                         (*)

gives (2.27) pointwise, and for s ≤ 1 in expectation by Jensen's inequality.
:func:`calibration` computes H and H⁻ by numerical minimisation over f (golden-section
search, vectorised over a grid of η) and returns the smallest c for which (*) holds on
the grid, to compare with the book's c. Closed forms: soft margin H⁻ − H = |2η − 1|
(c = 1 suffices, s = 1); exponential 1 − 2√(η(1 − η)) and logistic (natural log)
KL(η ‖ ½), both ≥ (2η − 1)²/2 (c = √2, s = ½); squared soft margin (2η − 1)² (c = 1,
s = ½). The book's constants are larger than these, so (2.27) holds with them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kmlteach._validation import as_array, check_choice, check_finite_output, check_int, check_positive
from kmlteach.theory.losses import BINARY_LOSSES

__all__ = ["BOOK_CALIBRATION", "Calibration", "calibration", "conditional_risk"]

BOOK_CALIBRATION = {
    "soft_margin": (4.0, 1.0),
    "exponential": (np.sqrt(8.0), 0.5),
    "logistic": (np.sqrt(8.0), 0.5),
}
"""(c, s) as stated after HSS2 (2.27); the squared soft margin is not in the book."""

_S_DEFAULT = {"soft_margin": 1.0, "squared_soft_margin": 0.5, "exponential": 0.5, "logistic": 0.5}


def _psi(loss: str, z: np.ndarray) -> np.ndarray:
    if loss == "soft_margin":
        return np.maximum(0.0, 1.0 - z)
    if loss == "squared_soft_margin":
        return np.maximum(0.0, 1.0 - z) ** 2
    if loss == "logistic":
        return np.logaddexp(0.0, -z)
    return np.exp(-z)


def conditional_risk(loss, eta, f):
    """``C_η(f) = η ψ(f) + (1 − η) ψ(−f)`` (broadcast over ``eta`` and ``f``).

    Source: HSS2 §2.5.
    """
    check_choice(loss, "loss", BINARY_LOSSES)
    eta = as_array(eta, "eta")
    f = as_array(f, "f")
    if np.any((eta < 0) | (eta > 1)):
        raise ValueError("eta must lie in [0, 1] (a conditional probability)")
    try:
        np.broadcast_shapes(eta.shape, f.shape)
    except ValueError:
        raise ValueError(f"eta and f must broadcast together, got shapes {eta.shape} and {f.shape}") from None
    with np.errstate(over="ignore", invalid="ignore"):
        out = eta * _psi(loss, f) + (1.0 - eta) * _psi(loss, -f)
    check_finite_output("f", out)
    return out


def _golden_min(fun, lo, hi, iters=200):
    """Minimum of a convex function on [lo, hi] (arrays: one interval per entry)."""
    g = (np.sqrt(5.0) - 1.0) / 2.0
    a, b = lo.copy(), hi.copy()
    for _ in range(iters):
        c, d = b - g * (b - a), a + g * (b - a)
        left = fun(c) <= fun(d)
        b = np.where(left, d, b)
        a = np.where(left, a, c)
    x = 0.5 * (a + b)
    return np.minimum(np.minimum(fun(x), fun(lo)), fun(hi))


@dataclass(frozen=True)
class Calibration:
    """Result of :func:`calibration`.

    Source: HSS2 §2.5, Eq. (2.27).
    """

    loss: str
    s: float
    c_min: float  # smallest c with (*) on the grid
    c_book: float | None  # HSS2's constant (None for a loss the book does not list)
    s_book: float | None
    eta: np.ndarray  # the grid of η
    excess_01: np.ndarray  # |2η − 1|
    excess_psi: np.ndarray  # H⁻(η) − H(η)
    holds: bool | None  # does (*) hold with the book's (c, s)? None if the book has none


def calibration(loss, s=None, n_grid=2000, f_max=50.0):
    """Check the calibration inequality (2.27) of HSS2 §2.5.3 numerically.

    Parameters
    ----------
    loss : {"soft_margin", "squared_soft_margin", "logistic", "exponential"}
    s : float in (0, 1], optional
        Exponent; default the book's (or ½ for the squared soft margin).
    n_grid : int
        Number of η values, ``(i + ½)/n_grid`` (η = ½ itself is never on the grid).
    f_max : float
        Values f are searched in [−f_max, f_max].

    Returns
    -------
    Calibration
        ``c_min = max_η |2η − 1| / (H⁻(η) − H(η))^s`` and the book's (c, s).
    """
    check_choice(loss, "loss", BINARY_LOSSES)
    s_ = _S_DEFAULT[loss] if s is None else check_positive(s, "s")
    if s_ > 1.0:
        raise ValueError(f"s must lie in (0, 1] (Jensen's step needs s <= 1), got {s!r}")
    n = check_int(n_grid, "n_grid", minimum=10, maximum=10_000_000)
    B = check_positive(f_max, "f_max")
    with np.errstate(over="ignore", invalid="ignore"):
        edge = _psi(loss, np.array([-2 * B, 2 * B]))  # the search interval has width 2 f_max
    if not np.all(np.isfinite(edge)):
        raise ValueError(
            f"f_max = {B:g} is too large: the search of [-f_max, f_max] overflows the {loss} loss"
        )
    eta = (np.arange(n) + 0.5) / n
    eta = eta[np.abs(2 * eta - 1) > 1e-12]
    risk = lambda f: conditional_risk(loss, eta, f)
    lo, hi, zero = np.full(eta.shape, -B), np.full(eta.shape, B), np.zeros(eta.shape)
    H = _golden_min(risk, lo, hi)
    H_wrong = _golden_min(risk, np.where(eta > 0.5, lo, zero), np.where(eta > 0.5, zero, hi))
    excess_01 = np.abs(2 * eta - 1)
    excess_psi = np.maximum(H_wrong - H, 0.0)
    with np.errstate(divide="ignore"):
        c_min = float(np.max(excess_01 / excess_psi**s_))
    c_book, s_book = BOOK_CALIBRATION.get(loss, (None, None))
    holds = None if c_book is None else bool(np.all(excess_01 <= c_book * excess_psi**s_book + 1e-12))
    return Calibration(
        loss=loss,
        s=s_,
        c_min=c_min,
        c_book=c_book,
        s_book=s_book,
        eta=eta,
        excess_01=excess_01,
        excess_psi=excess_psi,
        holds=holds,
    )
