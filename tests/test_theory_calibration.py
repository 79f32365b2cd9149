"""Calibration constants of HSS2 (2.27), checked against the definition."""

import numpy as np
import pytest

from kmlteach import theory as T

# H(η) = min_f η ψ(f) + (1 − η) ψ(−f), in closed form (independent of the package)
H = {
    "soft_margin": lambda e: 1 - np.abs(2 * e - 1),
    "squared_soft_margin": lambda e: 1 - (2 * e - 1) ** 2,
    "logistic": lambda e: -e * np.log(e) - (1 - e) * np.log(1 - e),
    "exponential": lambda e: 2 * np.sqrt(e * (1 - e)),
}
PSI = {
    "soft_margin": lambda z: np.maximum(0, 1 - z),
    "squared_soft_margin": lambda z: np.maximum(0, 1 - z) ** 2,
    "logistic": lambda z: np.log1p(np.exp(-z)),
    "exponential": lambda z: np.exp(-z),
}


@pytest.mark.parametrize(
    "loss,c_tight",
    [
        ("soft_margin", 1.0),
        ("squared_soft_margin", 1.0),
        ("logistic", np.sqrt(2)),
        ("exponential", np.sqrt(2)),
    ],
)
def test_smallest_constant_matches_closed_form(loss, c_tight):
    c = T.calibration(loss, n_grid=4000)
    assert c.c_min == pytest.approx(c_tight, rel=1e-4)
    # H⁻ − H from the closed forms (H⁻ = ψ(0) for these losses)
    np.testing.assert_allclose(c.excess_psi, PSI[loss](0.0) - H[loss](c.eta), atol=1e-9)
    if loss in T.BOOK_CALIBRATION:
        assert (c.c_book, c.s_book) == T.BOOK_CALIBRATION[loss] and c.holds
        assert c.c_min <= c.c_book


@pytest.mark.parametrize("loss", list(T.BOOK_CALIBRATION))
def test_book_constants_satisfy_2_27_on_random_distributions(loss):
    """E[χ(yf)] − E[χ(yf*)] ≤ c (E[ψ(yf)] − E[ψ(yf*_ψ)])^s for random finite problems."""
    c, s = T.BOOK_CALIBRATION[loss]
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(500):
        m = int(rng.integers(1, 6))
        p = rng.dirichlet(np.ones(m))
        eta = rng.uniform(0.001, 0.999, size=m)
        f = rng.normal(scale=rng.choice([0.01, 1.0, 5.0]), size=m)
        chi = np.where(f > 0, 1 - eta, np.where(f < 0, eta, 0.5))  # P(sign error), χ(0) = ½
        ex01 = p @ (chi - np.minimum(eta, 1 - eta))
        expsi = p @ (eta * PSI[loss](f) + (1 - eta) * PSI[loss](-f) - H[loss](eta))
        assert ex01 <= c * max(expsi, 0.0) ** s + 1e-12
        worst = max(worst, ex01 / max(expsi, 1e-300) ** s)
    assert worst > 0.3  # the check is not vacuous


def test_conditional_risk_and_bad_input():
    np.testing.assert_allclose(
        T.conditional_risk("exponential", 0.3, 0.5), 0.3 * np.exp(-0.5) + 0.7 * np.exp(0.5)
    )
    with pytest.raises(ValueError, match="loss"):
        T.calibration("hinge2")
    with pytest.raises(ValueError, match="s"):
        T.calibration("logistic", s=1.5)
    with pytest.raises(ValueError, match="n_grid"):
        T.calibration("logistic", n_grid=3)
