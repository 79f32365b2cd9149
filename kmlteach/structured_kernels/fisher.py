"""Fisher kernels of exponential families (HSS1 §1.4.6, Eqs. (1.40)–(1.43)):
score, Fisher information, kernel and the maximum-likelihood parameter.
"""

from __future__ import annotations

import numpy as np

from kmlteach._validation import (
    as_matrix,
    as_vector,
    check_bool,
    check_choice,
    check_exp_family,
    check_positive,
)

__all__ = ["fisher_score", "fisher_information", "fisher_kernel", "exp_family_mle"]


# ---------------------------------------------------------------------------------------
# Fisher kernels of exponential families

_FAMILIES = ("bernoulli", "gaussian")


def _grad_g(theta, family, sigma):
    """∂g(θ): the mean of the sufficient statistic φ(x)."""
    return 1.0 / (1.0 + np.exp(-theta)) if family == "bernoulli" else sigma**2 * theta


def fisher_score(X, theta, family: str = "bernoulli", sigma: float = 1.0) -> np.ndarray:
    """Fisher scores ``U_θ(x) = ∂_θ(−log p(x|θ)) = ∂g(θ) − φ(x)``, HSS1 Eq. (1.40).

    Exponential families ``p(x|θ) = exp(<φ(x), θ> − g(θ))`` (w.r.t. a base measure),
    with φ(x) = x and natural parameter θ ∈ ℝᵈ:

    * ``"bernoulli"``: d independent coins, x ∈ {0,1}ᵈ, θ the log-odds,
      g(θ) = Σ log(1 + e^θ), ∂g = sigmoid(θ);
    * ``"gaussian"``: N(μ, σ² I) with known σ, θ = μ/σ², g(θ) = σ²‖θ‖²/2, ∂g = μ.

    Returns an (n, d) array, one row per row of ``X``.
    """
    X, theta, family, sigma = check_exp_family(X, theta, family, sigma, _FAMILIES)
    return _grad_g(theta, family, sigma)[None, :] - X


def fisher_information(theta, family: str = "bernoulli", sigma: float = 1.0) -> np.ndarray:
    """``I = E[U Uᵀ] = Cov(φ(x)) = ∂²g(θ)``, HSS1 Eq. (1.41): diag(p(1−p)) or σ² I."""
    family = check_choice(family, "family", _FAMILIES)
    theta = as_vector(theta, "theta")
    sigma = check_positive(sigma, "sigma")
    if family == "bernoulli":
        p = _grad_g(theta, family, sigma)
        return np.diag(p * (1 - p))
    return sigma**2 * np.eye(theta.size)


def fisher_kernel(
    X, Y=None, *, theta, family: str = "bernoulli", sigma: float = 1.0, normalized: bool = False
) -> np.ndarray:
    """Fisher kernel matrix, HSS1 Eq. (1.42).

    Unnormalised ``k(x, x') = U_θ(x)ᵀ U_θ(x')``, which by (1.43) equals
    ``[φ(x) − ∂g(θ)]ᵀ [φ(x') − ∂g(θ)]``: a linear kernel on centred sufficient
    statistics. ``normalized=True`` gives ``U_θ(x)ᵀ I⁻¹ U_θ(x')``.
    """
    X, theta, family, sigma = check_exp_family(X, theta, family, sigma, _FAMILIES)
    if Y is not None:
        Y = check_exp_family(as_matrix(Y, "Y", n_cols=X.shape[1]), theta, family, sigma, _FAMILIES, "Y")[0]
    else:
        Y = X
    check_bool(normalized, "normalized")
    UX = _grad_g(theta, family, sigma)[None, :] - X
    UY = _grad_g(theta, family, sigma)[None, :] - Y
    if normalized:
        info = np.diag(fisher_information(theta, family, sigma))
        if np.any(info <= 0):
            raise ValueError("theta gives a singular Fisher information (|theta| too large)")
        UX = UX / info[None, :]
    return UX @ UY.T


def exp_family_mle(X, family: str = "bernoulli", sigma: float = 1.0, eps: float = 1e-3) -> np.ndarray:
    """Maximum-likelihood natural parameter: ∂g(θ̂) = mean of φ(x) (clipped to [eps, 1−eps]
    for Bernoulli so that θ̂ stays finite). At θ̂ the Fisher scores average to zero.

    Source: HSS1 §1.4.6.
    """
    family = check_choice(family, "family", _FAMILIES)
    X = check_exp_family(X, np.zeros(as_matrix(X, "X").shape[1]), family, sigma, _FAMILIES)[0]
    mean = X.mean(axis=0)
    if family == "bernoulli":
        eps = check_positive(eps, "eps")
        if eps > 0.5:
            raise ValueError(
                f"eps must be at most 0.5 (the means are clipped to [eps, 1 - eps]), got {eps:g}"
            )
        mean = np.clip(mean, eps, 1 - eps)
        return np.log(mean / (1 - mean))
    return mean / sigma**2
