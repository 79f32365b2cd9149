"""Small 2-D generators shared by several chapters."""

from __future__ import annotations

import numpy as np

from .._validation import (
    as_matrix,
    as_vector,
    check_finite_output,
    check_int,
    check_nonnegative,
    check_positive,
    check_rng,
)


def random_direction(rng, d: int) -> np.ndarray:
    """A unit vector of R^d drawn uniformly from the sphere (a normalised Gaussian draw)."""
    u = rng.normal(size=d)
    return u / np.linalg.norm(u)


def separable(m: int = 40, d: int = 2, margin: float = 0.5, seed=None):
    """Linearly separable ±1 data with a guaranteed gap (UML §15.1's setting).

    The labels come first: exactly ⌈m/2⌉ are +1, in random order. The points start
    uniform in [-1, 1]^d; along a random unit direction u, each point's signed distance
    s to the hyperplane ⟨u, x⟩ = c (c the median of the projections) is replaced by
    y·(|s| + margin/2): the point moves to the side its label asks for, at least
    ``margin/2`` away. So (w, b) = (u, −c) separates the sample with geometric margin
    >= margin/2; the components orthogonal to u are left as they were.

    Returns ``(X, y)`` with ``X`` (m, d) and ``y`` in {-1, +1}, both classes present.
    """
    m = check_int(m, "m", minimum=2)
    d = check_int(d, "d", minimum=1)
    margin = check_nonnegative(margin, "margin")
    rng = check_rng(seed)
    u = random_direction(rng, d)
    X = rng.uniform(-1, 1, size=(m, d))
    y = np.where(np.arange(m) % 2 == 0, 1.0, -1.0)
    rng.shuffle(y)
    s = X @ u
    s = s - np.median(s)
    X = X - np.outer(s, u) + np.outer(y * (np.abs(s) + margin / 2), u)
    return X, y


def blobs(m: int = 60, centers=((-1.0, -1.0), (1.0, 1.0)), std: float = 0.6, seed=None):
    """Gaussian blobs; with two centres the labels are -1/+1, otherwise 0..k-1."""
    m = check_int(m, "m", minimum=1)
    std = check_positive(std, "std")
    rng = check_rng(seed)
    C = as_matrix(centers, "centers")
    k = C.shape[0]
    labels = np.arange(m) % k
    X = C[labels] + std * rng.normal(size=(m, C.shape[1]))
    check_finite_output("centers or std", X)
    y = np.where(labels == 0, -1.0, 1.0) if k == 2 else labels.astype(np.int64)
    return X, y


def rings(m: int = 200, radii=(1.0, 2.5), noise: float = 0.15, seed=None):
    """Two concentric noisy rings; inner ring -1, outer ring +1."""
    m = check_int(m, "m", minimum=2)
    noise = check_nonnegative(noise, "noise")
    rng = check_rng(seed)
    lab = np.arange(m) % 2
    r = as_vector(radii, "radii", length=2, of="one per ring")[lab] + noise * rng.normal(size=m)
    t = rng.uniform(0, 2 * np.pi, size=m)
    X = np.c_[r * np.cos(t), r * np.sin(t)]
    check_finite_output("radii or noise", X)
    return X, np.where(lab == 0, -1.0, 1.0)


def moons(m: int = 200, noise: float = 0.1, seed=None):
    """Two interleaving half circles (as scikit-learn's make_moons); labels -1/+1."""
    m = check_int(m, "m", minimum=2)
    noise = check_nonnegative(noise, "noise")
    rng = check_rng(seed)
    lab = np.arange(m) % 2
    t = rng.uniform(0, np.pi, size=m)
    X = np.where(lab[:, None] == 0, np.c_[np.cos(t), np.sin(t)], np.c_[1 - np.cos(t), 0.5 - np.sin(t)])
    X = X + noise * rng.normal(size=X.shape)
    check_finite_output("noise", X)
    return X, np.where(lab == 0, -1.0, 1.0)


def line_example():
    """The 1-D example of UML §16.1: x = -10..10, label +1 iff |x| > 2.

    Returns ``(x, y)`` with ``x`` of shape (21,) and ``y`` in {-1, +1}.
    """
    x = np.arange(-10, 11, dtype=float)
    y = np.where(np.abs(x) > 2, 1.0, -1.0)
    return x, y
