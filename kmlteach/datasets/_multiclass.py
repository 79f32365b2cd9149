"""Generators for chapter 04 (multiclass): the three balls of UML Example 17.1."""

from __future__ import annotations

import numpy as np

from .._validation import (
    as_vector,
    check_int,
    check_positive,
    check_probability,
    check_rng,
)

__all__ = ["three_balls", "THREE_BALLS_CENTRES", "THREE_BALLS_RADII", "example_17_1_weights"]

# Geometry of our version of Example 17.1 (UML §17.1). The book's weight vectors
# w1 = (-1/√2, 1/√2), w2 = (0, 1), w3 = (1/√2, 1/√2) split the upper half-plane into
# three cones with apex at the origin: class 2 wins where |x1| < tan(22.5°) x2.
# With the centres on the line x2 = 5 and the radii below, every ball lies inside its
# own cone with room to spare (class 2: 5 sin 22.5° - 1 ≈ 0.91 from the cone's edge;
# classes 1 and 3: ≈ 1.2), so the book's weights classify every point correctly.
THREE_BALLS_CENTRES = np.array([[-5.0, 5.0], [0.0, 5.0], [5.0, 5.0]])
THREE_BALLS_RADII = np.array([1.5, 1.0, 1.5])
_GRID = 2.0**-16  # coordinates are multiples of this, so midpoints are exact


def example_17_1_weights() -> np.ndarray:
    """The weight vectors w1, w2, w3 of UML Example 17.1 as the rows of a (3, 2) array."""
    s = 1.0 / np.sqrt(2.0)
    return np.array([[-s, s], [0.0, 1.0], [s, s]])


def _in_disc(rng, count: int, radius: float) -> np.ndarray:
    """``count`` points uniform in the disc of the given radius, rounded to the grid."""
    r = radius * np.sqrt(rng.uniform(0.0, 1.0, size=count))
    t = rng.uniform(0.0, 2.0 * np.pi, size=count)
    P = np.c_[r * np.cos(t), r * np.sin(t)]
    P = np.round(P / _GRID) * _GRID
    # rounding may push a point a hair outside the disc: pull it back inside
    norms = np.linalg.norm(P, axis=1)
    out = norms > radius
    if np.any(out):
        P[out] = np.floor(P[out] / norms[out, None] * radius * 0.999 / _GRID) * _GRID
    return P


def _round_half_up(x: float) -> int:
    return int(np.floor(x + 0.5))


def three_balls(n: int = 100, seed=None, *, shift=(0.0, 0.0), radius2: float = 1.0, mass2: float = 0.2):
    """Three labelled discs on a horizontal line: UML Example 17.1.

    Classes 1, 2, 3 sit from left to right in discs centred at (-5, 5), (0, 5) and
    (5, 5) (radii 1.5, 1.0, 1.5), with masses 40 %, 20 %, 40 %: the class counts are
    ``round(0.4 n)``, ``round(0.2 n)`` and the rest. Every point has x2 > 0.

    The sample is built so that the argument of the example holds *exactly* on it,
    not only for the distribution: every class-2 point x = c2 + u is the midpoint of
    two pairs, (c1 + u, c3 + u) and (c1 + u + e, c3 + u - e), with a random e. So an
    affine function positive at k class-2 points is positive at >= 2k points of
    classes 1 and 3, and the empirical risk minimiser among halfspaces for "class 2
    vs the rest" labels every point -1 (strictly better than any other labelling).
    When rounding leaves fewer than 2 n2 points in class 1 or 3 (e.g. n = 123), the
    class-2 points without a second pair sit exactly on top of a fully paired one,
    which keeps the argument strict for every n >= 5. The remaining points of classes
    1 and 3 are uniform in their discs. Coordinates are multiples of 2**-16, so the
    midpoints are exact in floating point.

    The book's weights (:func:`example_17_1_weights`) classify every point correctly.

    Parameters
    ----------
    n : int, default=100
        Total number of points (>= 5).
    seed : int or None
    shift : (float, float), default=(0, 0)
        Move class 2's disc by this vector (used by the widget of notebook 04; the
        guarantees above hold for the default only).
    radius2 : float, default=1.0
        Radius of class 2's disc (at most 1.5, the radius of the others).
    mass2 : float, default=0.2
        Fraction of class 2; classes 1 and 3 share the rest equally.

    Returns
    -------
    X : ndarray of shape (n, 2)
    y : ndarray of shape (n,), int64 labels 1, 2, 3 (sorted by class)

    Examples
    --------
    >>> X, y = three_balls(100, seed=0)
    >>> np.bincount(y)[1:].tolist()
    [40, 20, 40]
    """
    n = check_int(n, "n", minimum=5)
    rng = check_rng(seed)
    shift = as_vector(shift, "shift", length=2)
    if np.max(np.abs(shift)) > 1e150:
        raise ValueError(f"shift must be at most 1e150 in absolute value, got {shift}")
    radius2 = check_positive(radius2, "radius2")
    R = float(THREE_BALLS_RADII[0])
    if radius2 > R:
        raise ValueError(f"radius2 must be at most {R} (the radius of classes 1 and 3), got {radius2}")
    mass2 = check_probability(mass2, "mass2", open_left=True, open_right=True)
    if abs(mass2 - 0.2) < 1e-12:
        n1 = _round_half_up(0.4 * n)
        n2 = _round_half_up(0.2 * n)
    else:
        n2 = _round_half_up(mass2 * n)
        n1 = _round_half_up((n - n2) / 2.0)
    n2 = min(max(n2, 1), n - 2)
    n1 = min(max(n1, 1), n - n2 - 1)
    n3 = n - n1 - n2
    c1, c2, c3 = THREE_BALLS_CENTRES
    c2 = c2 + np.round(shift / _GRID) * _GRID

    U = _in_disc(rng, n2, radius2)  # class-2 offsets
    E = _in_disc(rng, n2, R - radius2)  # second-pair offsets
    # class-2 points beyond the number of complete second pairs are placed on top of a
    # completely paired one (a "twin"), which keeps the ERM argument strict
    full = min(max(n1 - n2, 0), max(n3 - n2, 0), n2)
    if 0 < full < n2:
        U[full:] = U[np.arange(n2 - full) % full]
    X2 = c2 + U
    parts1, parts3 = [], []
    for count, store, centre, sign in ((n1, parts1, c1, 1.0), (n3, parts3, c3, -1.0)):
        p1 = min(count, n2)
        store.append(centre + U[:p1])
        p2 = min(count - p1, n2)
        store.append(centre + U[:p2] + sign * E[:p2])
        store.append(centre + _in_disc(rng, count - p1 - p2, R))
    X1 = np.vstack(parts1)
    X3 = np.vstack(parts3)
    X = np.vstack([X1, X2, X3])
    y = np.repeat(np.array([1, 2, 3], dtype=np.int64), [n1, n2, n3])
    return np.ascontiguousarray(X), y
