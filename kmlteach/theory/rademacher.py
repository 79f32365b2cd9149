"""Rademacher averages of linear and kernel classes, and the margin bound (2.28) (HSS2 §2.5).

For F = {x ↦ ⟨w, x⟩ : ||w|| ≤ 1} the supremum in the empirical Rademacher average is
attained at w ∝ Σ σ_i x_i, so

    R̂_n[F] = E_σ sup_w (1/n) Σ σ_i ⟨w, x_i⟩ = E_σ ||(1/n) Σ σ_i x_i||
            ≤ (1/n) (E_σ ||Σ σ_i x_i||²)^{1/2} = √(Σ ||x_i||²) / n          (2.26)

by Jensen and E σ_iσ_j = δ_ij; Khintchine–Kahane gives the matching lower bound up to
1/√2. In an RKHS, ||Σ σ_i φ(x_i)||² = σᵀKσ and Σ||φ(x_i)||² = tr K. The estimate is
Monte-Carlo over ``n_draws`` sign vectors σ drawn with ``np.random.default_rng(seed)``
(``rademacher_linear`` and ``rademacher_kernel`` draw the same σ for the same seed).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kmlteach._validation import (
    check_finite_output,
    check_int,
    check_nonnegative,
    check_positive,
    check_probability,
    check_rng,
    check_square,
    check_X,
)

__all__ = [
    "MarginBound",
    "RademacherEstimate",
    "margin_bound",
    "rademacher_kernel",
    "rademacher_linear",
]

_CHUNK = 1_000_000  # sign entries per block


@dataclass(frozen=True)
class RademacherEstimate:
    """Monte-Carlo estimate of E_σ||(1/n) Σ σ_i x_i|| with its standard error and bound.

    Source: HSS2 §2.5.2 (Rademacher averages).
    """

    estimate: float
    stderr: float
    bound: float  # √(Σ||x_i||²)/n, resp. √(tr K)/n
    samples: np.ndarray  # ||(1/n) Σ σ_i x_i|| for each draw


def _signs(rng, n_draws, n):
    for start in range(0, n_draws, max(1, _CHUNK // n)):
        m = min(n_draws - start, max(1, _CHUNK // n))
        yield 2.0 * rng.integers(0, 2, size=(m, n)) - 1.0


def _estimate(samples, bound):
    k = samples.size
    se = float(np.std(samples, ddof=1) / np.sqrt(k)) if k > 1 else float("nan")
    return RademacherEstimate(estimate=float(np.mean(samples)), stderr=se, bound=bound, samples=samples)


def rademacher_linear(X, n_draws=1000, seed=0):
    """Empirical Rademacher average of the unit ball of linear functions, HSS2 (2.26).

    Parameters
    ----------
    X : array (n, d)
    n_draws : int, default=1000
        Number of sign vectors σ ∈ {±1}ⁿ.
    seed : int or None

    Returns
    -------
    RademacherEstimate
        ``.estimate`` = mean of ||(1/n) Σ σ_i x_i|| over the draws, ``.stderr``,
        ``.bound`` = √(Σ||x_i||²)/n, ``.samples``.

    Examples
    --------
    >>> r = rademacher_linear(np.eye(4))      # orthonormal: every draw gives √n / n
    >>> round(r.estimate, 12), round(r.bound, 12)
    (0.5, 0.5)
    """
    Xa = check_X(X, "X")
    k = check_int(n_draws, "n_draws", minimum=2, maximum=10_000_000)
    rng = check_rng(seed)
    n = Xa.shape[0]
    samples = np.concatenate([np.linalg.norm(S @ Xa, axis=1) for S in _signs(rng, k, n)]) / n
    return _estimate(samples, float(np.sqrt(np.sum(Xa * Xa))) / n)


def rademacher_kernel(K, n_draws=1000, seed=0):
    """The same average for the unit ball of an RKHS: E_σ √(σᵀKσ)/n ≤ √(tr K)/n (HSS2 §2.5.2).

    ``K`` is the Gram matrix of the sample (e.g. ``kmlteach.kernels.gram``). With the
    same seed the σ are those of :func:`rademacher_linear`, so ``K = X Xᵀ`` gives the
    same estimate up to rounding.
    """
    Ka = check_square(K, "K", symmetric=True)
    k = check_int(n_draws, "n_draws", minimum=2, maximum=10_000_000)
    rng = check_rng(seed)
    n = Ka.shape[0]
    if np.any(np.diag(Ka) < 0):
        raise ValueError("K must be positive semi-definite (a negative diagonal entry was found)")
    c = float(np.max(np.abs(Ka))) or 1.0  # work with K / c: σᵀKσ of a huge K must not overflow
    Kc = Ka / c
    parts = [np.sqrt(np.maximum(np.einsum("ij,ij->i", S @ Kc, S), 0.0)) for S in _signs(rng, k, n)]
    root = np.sqrt(c)
    return _estimate(np.concatenate(parts) * root / n, float(np.sqrt(np.trace(Kc)) * root) / n)


@dataclass(frozen=True)
class MarginBound:
    """The terms of (2.28); ``bound`` = their sum (a bound on the 0–1 risk)."""

    bayes_risk: float  # E[χ(y f*_χ)]
    approximation: float  # δ(F, ψ)
    scale: float  # 4 R W γ / √n
    confidence: float  # scale · √(−2 log δ)   (McDiarmid)
    complexity: float  # scale · r / R           (Rademacher average of the linear part)
    offset: float  # scale · √(8 log 2)     (the bounded offset b)
    estimation: float  # confidence + complexity + offset
    bound: float


def margin_bound(n, W, R, gamma, delta=0.05, r=None, approximation=0.0, bayes_risk=0.0):
    """The rate bound (2.28) of HSS2 §2.5.4, term by term.

    With probability ≥ 1 − δ the empirical minimiser of the soft-margin loss
    max(0, 1 − γ y f(x)) over {||w|| ≤ W} (offset bounded by max⟨w, x⟩), on data with
    ||x|| ≤ R and average radius r = √(E||x||²), has 0–1 risk at most

        bayes_risk + δ(F, ψ) + (4 R W γ / √n) (√(−2 log δ) + r/R + √(8 log 2)).

    Parameters
    ----------
    n : int  sample size.
    W, R, gamma : float > 0
    delta : float in (0, 1)  confidence parameter.
    r : float in (0, R], optional  average radius (default R).
    approximation : float ≥ 0, bayes_risk : float in [0, 1]  the two terms the sample cannot control.

    Returns
    -------
    MarginBound
    """
    n_ = check_int(n, "n", minimum=1)
    W_, R_, g = check_positive(W, "W"), check_positive(R, "R"), check_positive(gamma, "gamma")
    d = check_probability(delta, "delta", open_left=True, open_right=True)
    r_ = R_ if r is None else check_positive(r, "r")
    if r_ > R_ * (1 + 1e-12):
        raise ValueError(
            f"r (the average radius) cannot exceed R (a bound on ||x||): r = {r_:g} > R = {R_:g}"
        )
    a = check_nonnegative(approximation, "approximation")
    b = check_probability(bayes_risk, "bayes_risk")  # a 0-1 risk
    with np.errstate(over="ignore"):
        scale = 4.0 * R_ * W_ * g / np.sqrt(n_)
    check_finite_output("W, R or gamma", scale)
    conf = scale * np.sqrt(-2.0 * np.log(d))
    comp = scale * r_ / R_
    off = scale * np.sqrt(8.0 * np.log(2.0))
    est = conf + comp + off
    return MarginBound(
        bayes_risk=b,
        approximation=a,
        scale=float(scale),
        confidence=float(conf),
        complexity=float(comp),
        offset=float(off),
        estimation=float(est),
        bound=float(b + a + est),
    )
