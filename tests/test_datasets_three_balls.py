"""The three-balls data of UML Example 17.1 — ``kmlteach.datasets.three_balls``."""

from __future__ import annotations

import numpy as np
import pytest

from kmlteach.datasets import three_balls
from kmlteach.datasets._multiclass import THREE_BALLS_CENTRES, THREE_BALLS_RADII, example_17_1_weights


@pytest.mark.parametrize("n", [5, 50, 100, 123, 1000])
def test_three_balls_geometry(n):
    X, y = three_balls(n, seed=3)
    assert X.shape == (n, 2) and set(np.unique(y)) == {1, 2, 3}
    counts = np.bincount(y)[1:]
    assert abs(counts[0] - 0.4 * n) <= 0.5 and abs(counts[1] - 0.2 * n) <= 0.5
    assert counts.sum() == n
    assert np.all(X[:, 1] > 0)
    c = THREE_BALLS_CENTRES
    assert np.all(c[:, 1] == c[0, 1]) and c[0, 0] < c[1, 0] < c[2, 0]
    for lab in (1, 2, 3):
        r = np.linalg.norm(X[y == lab] - c[lab - 1], axis=1)
        assert np.all(r <= THREE_BALLS_RADII[lab - 1] + 1e-12)
    # the book's w1, w2, w3 (UML Example 17.1) classify every point correctly
    W = example_17_1_weights()
    np.testing.assert_allclose(W, [[-(2**-0.5), 2**-0.5], [0, 1], [2**-0.5, 2**-0.5]])
    assert np.all(np.argmax(X @ W.T, axis=1) + 1 == y)


def test_three_balls_seeded():
    a, b, c = three_balls(60, 1), three_balls(60, 1), three_balls(60, 2)
    assert np.array_equal(a[0], b[0]) and not np.array_equal(a[0], c[0])
