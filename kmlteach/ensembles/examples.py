"""Small data sets of chapter 08: the slides' AdaBoost toy example and UML's papayas."""

from __future__ import annotations

import numpy as np

from kmlteach._validation import check_int, check_probability, check_rng

__all__ = ["toy_example", "papaya", "PAPAYA_BOX"]

_TOY_X = (
    np.array([[1, 9], [2, 6], [6, 1], [8, 5], [7, 3], [3, 10], [4, 7], [5, 8], [10, 4], [9, 2]], dtype=float)
    / 10
)
_TOY_Y = np.array([1, 1, 1, 1, 1, -1, -1, -1, -1, -1], dtype=float)

#: colour range (pale green .. pale yellow) and softness range of a tasty papaya
PAPAYA_BOX = (0.35, 0.70, 0.40, 0.75)


def toy_example() -> tuple[np.ndarray, np.ndarray]:
    """Ten points in the plane (five per class) for the slides' three-round toy example.

    The SL AdaBoost slides ("A Toy Example", after Schapire) print ε = 0.30, 0.21, 0.14 and
    α = 0.42, 0.65, 0.92 but not the points. These ten points reproduce the run exactly
    with axis-parallel decision stumps: each round's best stump misclassifies three
    points, so ε_1 = 3/10, ε_2 = 3/14, ε_3 = 3/22 (α = 0.4236, 0.6496, 0.9229), and the
    vote of the three stumps has training error 0. Every exact tie between stumps
    (round 1 has several) leads to the same ε sequence.

    Returns
    -------
    X : array (10, 2) in [0.1, 1]²
    y : array (10,) in {−1, +1}
    """
    return _TOY_X.copy(), _TOY_Y.copy()


def papaya(m, noise: float = 0.08, seed=0) -> tuple[np.ndarray, np.ndarray, tuple]:
    """UML's papayas (§2.1, tree of §18 opening): colour and softness on [0, 1]².

    A papaya is tasty (+1) iff its colour lies in [0.35, 0.70] (pale green to pale
    yellow) and its softness in [0.40, 0.75] (gives slightly to palm pressure); each
    label is then flipped with probability ``noise``. Points are uniform on [0, 1]².

    Parameters
    ----------
    m : int ≥ 1
    noise : float in [0, 0.5]
    seed : int or None

    Returns
    -------
    X : array (m, 2), columns (colour, softness)
    y : array (m,) in {−1, +1}
    box : tuple (colour_lo, colour_hi, softness_lo, softness_hi) = ``PAPAYA_BOX``
    """
    m = check_int(m, "m", minimum=1, maximum=10_000_000)
    noise = check_probability(noise, "noise")
    if noise > 0.5:
        raise ValueError(f"noise must be at most 0.5 (a flip probability), got {noise}")
    rng = check_rng(seed)
    X = rng.random((m, 2))
    c0, c1, s0, s1 = PAPAYA_BOX
    tasty = (X[:, 0] >= c0) & (X[:, 0] <= c1) & (X[:, 1] >= s0) & (X[:, 1] <= s1)
    y = np.where(tasty, 1.0, -1.0)
    flip = rng.random(m) < noise
    y[flip] = -y[flip]
    return X, y, PAPAYA_BOX
