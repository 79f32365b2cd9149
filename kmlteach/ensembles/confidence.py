"""Boosting the confidence (SL "Boosting the confidence", after Kearns & Vazirani).

A learner L returns a hypothesis of error below ε only with some probability δ₀. The
learner L′ runs L k times on independent samples and keeps the hypothesis with the
fewest mistakes on a fresh sample S. All k runs fail with probability (1 − δ₀)^k
≤ e^{−δ₀k}, which is below δ/2 once k > (1/δ₀) ln(2/δ); the other δ/2 is left for
picking a good run on S, at the price of accepting error ε + γ.

(The slide calls 1 − δ₀ the "confidence" of L, but counts (1 − δ₀)^k for "all runs
fail": that count needs δ₀ to be the *success* probability, as in Kearns & Vazirani;
δ₀ is the success probability here.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from kmlteach._validation import as_vector, check_int, check_nonnegative, check_probability, check_rng

__all__ = ["ConfidenceBoosting", "runs_needed", "boost_confidence"]


def runs_needed(delta0, delta) -> int:
    """The smallest integer k > (1/δ₀) ln(2/δ) (SL, boosting the confidence).

    Examples: δ₀ = 0.1, δ = 0.01 → 53; δ₀ = 0.5, δ = 0.05 → 8.
    """
    d0 = check_probability(delta0, "delta0", open_left=True)
    d = check_probability(delta, "delta", open_left=True, open_right=True)
    return int(math.floor(math.log(2.0 / d) / d0)) + 1


@dataclass(frozen=True)
class ConfidenceBoosting:
    """Measured behaviour of L′ for each target δ (arrays of the length of ``deltas``).

    Attributes
    ----------
    deltas : the targets δ
    k : runs of L used for each δ (``runs_needed(delta0, δ)``)
    delta0 : float, the measured success probability of L (error < ε)
    all_fail : measured fraction of repetitions in which all k runs had error ≥ ε
    all_fail_bound : (1 − δ₀)^k, the slide's bound on ``all_fail`` (should be < δ/2)
    failure : measured fraction of repetitions in which L′'s choice has error > ε + γ
    eps, gamma, n, sample_size, reps : the simulation's settings

    Source: SL boosting (boosting the confidence).
    """

    deltas: np.ndarray
    k: np.ndarray
    delta0: float
    all_fail: np.ndarray
    all_fail_bound: np.ndarray
    failure: np.ndarray
    eps: float
    gamma: float
    n: int
    sample_size: int
    reps: int


def _weak_thresholds(rng: np.random.Generator, shape: tuple, n: int) -> np.ndarray:
    """L: from n uniform points on [0, 1] labelled +1 iff x ≤ ½, the threshold halfway
    between the largest positive (0 if none) and the smallest negative (1 if none)."""
    x = rng.random(shape + (n,))
    largest_pos = np.where(x <= 0.5, x, 0.0).max(axis=-1)
    smallest_neg = np.where(x > 0.5, x, 1.0).min(axis=-1)
    return 0.5 * (largest_pos + smallest_neg)


def boost_confidence(
    deltas=(0.3, 0.2, 0.1, 0.05, 0.02, 0.01),
    eps: float = 0.05,
    gamma: float = 0.02,
    n: int = 4,
    sample_size: int = 400,
    reps: int = 4000,
    seed=0,
) -> ConfidenceBoosting:
    """Simulate L′ = "best of k runs of L on a fresh sample" and measure its failure rate.

    The task: x uniform on [0, 1], label +1 iff x ≤ ½. L sees ``n`` examples and returns
    the midpoint threshold θ̂ between the classes; its error is |θ̂ − ½|, below ``eps``
    with probability δ₀ (estimated from 200 000 runs). For each δ, L′ runs L
    k = ``runs_needed(δ₀, δ)`` times, counts each θ̂'s mistakes on a fresh sample of
    ``sample_size`` points and keeps the fewest (SL, boosting the confidence). Repeated
    ``reps`` times per δ.

    Returns
    -------
    ConfidenceBoosting
        ``failure`` (error of L′ > ε + γ) should stay below δ, and ``all_fail`` near
        ``all_fail_bound`` = (1 − δ₀)^k < δ/2.
    """
    deltas = as_vector(deltas, "deltas")
    if np.any((deltas <= 0) | (deltas >= 1)):
        raise ValueError("deltas must lie in (0, 1)")
    eps = check_probability(eps, "eps", open_left=True)
    if eps >= 0.5:
        raise ValueError(f"eps must be below 1/2, got {eps}")
    gamma = check_nonnegative(gamma, "gamma")
    n = check_int(n, "n", minimum=1, maximum=10_000)
    sample_size = check_int(sample_size, "sample_size", minimum=1, maximum=1_000_000)
    reps = check_int(reps, "reps", minimum=1, maximum=1_000_000)
    rng = check_rng(seed)
    delta0 = float(np.mean(np.abs(_weak_thresholds(rng, (200_000,), n) - 0.5) < eps))
    if delta0 == 0.0:
        raise ValueError(f"with n = {n} and eps = {eps} the learner L never succeeds; increase n or eps")
    ks = np.array([runs_needed(delta0, d) for d in deltas], dtype=np.int64)
    if int(ks.max()) * reps * max(n, 1) > 100_000_000:
        raise ValueError(
            f"reps = {reps} repetitions of up to {int(ks.max())} runs are too many; "
            f"lower reps or raise the smallest delta"
        )
    all_fail, failure = np.empty(len(deltas)), np.empty(len(deltas))
    for i, k in enumerate(ks):
        theta = _weak_thresholds(rng, (reps, int(k)), n)
        err = np.abs(theta - 0.5)
        S = np.sort(rng.random((reps, sample_size)), axis=1)
        lo, hi = np.minimum(theta, 0.5), np.maximum(theta, 0.5)
        # mistakes of θ̂ on S: the points between θ̂ and ½
        mistakes = np.array(
            [
                np.searchsorted(S[r], hi[r], "right") - np.searchsorted(S[r], lo[r], "right")
                for r in range(reps)
            ]
        )
        chosen = err[np.arange(reps), np.argmin(mistakes, axis=1)]
        all_fail[i] = np.mean(np.all(err >= eps, axis=1))
        failure[i] = np.mean(chosen > eps + gamma)
    return ConfidenceBoosting(
        deltas=deltas,
        k=ks,
        delta0=delta0,
        all_fail=all_fail,
        all_fail_bound=(1.0 - delta0) ** ks.astype(float),
        failure=failure,
        eps=eps,
        gamma=gamma,
        n=n,
        sample_size=sample_size,
        reps=reps,
    )
