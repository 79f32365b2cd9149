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


def _ndcg_like(r, rng, scale):
    """The rank-2 cost of (17.9): every row prefers the same ends of the ranking."""
    mu = rng.normal(size=r) * scale
    beta = rng.integers(0, 4, r) / 10.0
    pos = np.arange(1, r + 1, dtype=float)
    return np.outer(-mu, pos) + np.outer(beta, 1 / np.log2(r - pos + 2))


@pytest.mark.parametrize("r", [1, 2, 9, 60, 150])
def test_assignment_on_matrices_whose_rows_share_their_cheapest_columns(r):
    """The branch that drops JV's column reduction (it settles few rows here)."""
    rng = np.random.default_rng(r)
    for scale in (1.0, 0.01, 0.0):
        A = _ndcg_like(r, rng, scale)
        v = R.assignment(A)
        rows, cols = linear_sum_assignment(A)
        assert np.array_equal(np.sort(v), np.arange(r))
        assert A[np.arange(r), v].sum() == pytest.approx(A[rows, cols].sum(), rel=1e-12, abs=1e-9)


@pytest.mark.parametrize("r", [1, 2, 7, 40, 120])
def test_solve_from_order_is_exact_from_any_start(r):
    """Oracle SciPy: the start (a guessed order) changes the speed, never the optimum —
    good guesses (sorted scores on the NDCG-like matrix), random ones, and random
    matrices that are far from Monge."""
    from kmlteach.ranking.assignment import solve_from_order

    rng = np.random.default_rng(100 + r)
    for kind in ("ndcg", "real", "ties"):
        for _ in range(3):
            if kind == "ndcg":
                A = _ndcg_like(r, rng, float(rng.choice([1.0, 0.05, 0.0])))
            elif kind == "real":
                A = rng.normal(size=(r, r))
            else:
                A = rng.integers(0, 3, (r, r)).astype(float)
            rows, cols = linear_sum_assignment(A)
            for order in (np.argsort(A[:, -1] - A[:, 0]), rng.permutation(r)):
                v = solve_from_order(A, order, "A")
                assert np.array_equal(np.sort(v), np.arange(r))
                assert A[np.arange(r), v].sum() == pytest.approx(A[rows, cols].sum(), rel=1e-12, abs=1e-9)


def test_solve_from_order_on_a_shuffled_monge_matrix():
    """A Monge matrix (C[i, j] = f(i − j) with f convex), its rows shuffled and the
    shuffle given as the start: the identity (cost 0, the only optimum) comes back."""
    from kmlteach.ranking.assignment import solve_from_order

    r = 30
    idx = np.arange(r)
    C = (idx[:, None] - idx[None, :]) ** 2.0
    perm = np.random.default_rng(0).permutation(r)
    A = C[np.argsort(perm)]  # row perm[k] of A is row k of C
    np.testing.assert_array_equal(solve_from_order(A, perm, "A")[perm], idx)


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
