"""Oracle tests for kmlteach.ranking (UML §17.4-17.5.1) and its assignment kernel. — ``kmlteach.ranking.assignment``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment, linprog

from kmlteach import ranking as R


def brute_assignment_cost(A):
    r = A.shape[0]
    return min(A[np.arange(r), list(p)].sum() for p in itertools.permutations(range(r)))


def test_assignment_brute_force_small():
    rng = np.random.default_rng(4)
    for r in range(1, 8):
        for kind in ("real", "int"):
            A = rng.normal(size=(r, r)) if kind == "real" else rng.integers(0, 3, (r, r)).astype(float)
            v = R.assignment(A)
            assert sorted(v.tolist()) == list(range(r))
            assert A[np.arange(r), v].sum() == pytest.approx(brute_assignment_cost(A), abs=1e-9)


@pytest.mark.parametrize("r", [10, 57, 200])
@pytest.mark.parametrize("kind", ["real", "int", "ties"])
def test_assignment_matches_scipy(r, kind):
    rng = np.random.default_rng(r)
    if kind == "real":
        A = rng.normal(size=(r, r)) * 100
    elif kind == "int":
        A = rng.integers(-1000, 1000, (r, r)).astype(float)
    else:
        A = rng.integers(0, 3, (r, r)).astype(float)
    v = R.assignment(A)
    assert np.array_equal(np.sort(v), np.arange(r))
    rows, cols = linear_sum_assignment(A)
    assert A[np.arange(r), v].sum() == pytest.approx(A[rows, cols].sum(), rel=1e-12, abs=1e-9)
    assert R.assignment_cost(A, v) == pytest.approx(A[rows, cols].sum(), rel=1e-12, abs=1e-9)


def test_lemma_17_4_lp_over_doubly_stochastic_matrices():
    rng = np.random.default_rng(5)
    r = 6
    A = rng.normal(size=(r, r))
    # B >= 0, rows and columns sum to 1 (Eq. (17.10)); B flattened row-major
    A_eq = np.vstack([np.kron(np.eye(r), np.ones(r)), np.kron(np.ones(r), np.eye(r))])
    res = linprog(A.ravel(), A_eq=A_eq, b_eq=np.ones(2 * r), bounds=(0, None), method="highs")
    B = res.x.reshape(r, r)
    assert np.allclose(B, np.round(B), atol=1e-8)  # a vertex: a permutation matrix
    v = R.assignment(A)
    assert res.fun == pytest.approx(A[np.arange(r), v].sum(), abs=1e-9)


def test_bad_input_assignment():
    with pytest.raises(ValueError, match="A"):
        R.assignment(np.ones((2, 3)))
    with pytest.raises(ValueError, match="A"):
        R.assignment([[1.0, np.nan], [0.0, 1.0]])
    with pytest.raises(ValueError, match="A"):
        R.assignment(np.ones(3))
    with pytest.raises(TypeError, match="A"):
        R.assignment(np.array([["a", "b"], ["c", "d"]]))
    with pytest.raises(ValueError, match="A"):
        R.assignment(np.zeros((0, 0)))
    with pytest.raises(ValueError, match="v"):
        R.assignment_cost(np.eye(3), [0, 0, 1])


@pytest.mark.parametrize("scale", [1e150, 1e300, 1e307])
def test_assignment_never_hangs_on_huge_costs(scale):
    import time

    from scipy.optimize import linear_sum_assignment

    rng = np.random.default_rng(1)
    A = rng.normal(size=(12, 12))
    t0 = time.perf_counter()
    v = R.assignment(A * scale)
    assert time.perf_counter() - t0 < 1.0
    rows, cols = linear_sum_assignment(A)
    assert A[np.arange(12), v].sum() == pytest.approx(A[rows, cols].sum(), abs=1e-9)
    w = R.assignment(np.where(A > 0, 1.7e308, -1.7e308))  # the range itself overflows
    assert sorted(w) == list(range(12))


@pytest.mark.parametrize("scale", [1e100, 1e300, 1e307, 1.7e308])
def test_ndcg_most_violating_answers_or_names_y_score_within_a_second(scale):
    import time

    rng = np.random.default_rng(2)
    mu = rng.normal(size=10) * scale
    y = rng.integers(0, 4, size=10).astype(float)
    t0 = time.perf_counter()
    try:
        v = R.ndcg_most_violating(mu, y)
    except ValueError as exc:
        assert "y_score" in str(exc)
    else:
        assert sorted(v) == list(range(1, 11))
    assert time.perf_counter() - t0 < 1.0
