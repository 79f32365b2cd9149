"""Chapter 06 benchmarks: the Hungarian method (``kmlteach.ranking.assignment``) against
``scipy.optimize.linear_sum_assignment``, and the NDCG surrogate's assignment (17.9).

* random real cost matrices, r = 100 and 500 (target: ratio ≥ 1, geometric mean over
  seeds, paired and interleaved timings);
* the NDCG cost matrix A[i, j] = −μ_i j + β_i D(j) of (17.9), r = 100 and 500 (issue 38
  point 6): the solver ``ndcg_hinge`` uses (started from the rows sorted by score, see
  ``kmlteach.ranking.surrogates._ndcg_assignment``; target ≥ 1), the same with scores 300
  times smaller (the sorted start is then far from optimal and most of the work is the
  repair), and the generic ``assignment(A)`` without a start (no target: on this matrix
  its search visits as many rows as SciPy's, ≈ r²/4, and the difference is the cost of
  a visit);
* one NDCG-surrogate subgradient (``ndcg_hinge``, r = 100) end to end, against building
  the same cost matrix with NumPy and calling SciPy's solver.

Both solvers run the same O(r³) shortest-augmenting-path scheme; the geometric mean of
the time ratios over several seeds is reported because the work depends on the matrix.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from run import best_time, row

from kmlteach import ranking
from kmlteach.ranking.assignment import solve_from_order
from kmlteach.ranking.surrogates import _ndcg_cost_matrix


def _interleaved(fa, fb, repeat: int = 7) -> tuple[float, float]:
    """Best wall times of ``fa()`` and ``fb()``, called alternately after a warm-up of
    each. No pause between calls (``run.paired_best`` sleeps 0.1 s before each one, for
    OpenBLAS's spinning threads): neither side here starts threads, and a call of a few
    hundred microseconds after a pause measured mostly cold caches (both sides at 1×)."""
    fa()
    fb()
    a = b = float("inf")
    for _ in range(repeat):
        a = min(a, best_time(fa, 1, warmup=False))
        b = min(b, best_time(fb, 1, warmup=False))
    return a, b


def _geo_row(name, pairs, target, min_ratio, note=""):
    """A row from (ours, reference) times over seeds: geometric means, ratio spread."""
    ours_t, ref_t = zip(*pairs)
    ratios = sorted(b / a for a, b in pairs)
    ours, ref = float(np.exp(np.mean(np.log(ours_t)))), float(np.exp(np.mean(np.log(ref_t))))
    return row(
        name,
        ours,
        ref,
        target,
        min_ratio,
        note=f"ratio min/median/max {ratios[0]:.2f}/{ratios[len(ratios) // 2]:.2f}/{ratios[-1]:.2f}"
        + (f"; {note}" if note else ""),
    )


def _assignment_row(r: int, seeds: int) -> dict:
    from scipy.optimize import linear_sum_assignment

    pairs = []
    for seed in range(seeds):
        A = np.random.default_rng(seed).random((r, r)) * 100
        v = ranking.assignment(A)
        rows, cols = linear_sum_assignment(A)
        assert abs(A[np.arange(r), v].sum() - A[rows, cols].sum()) < 1e-8 * r
        pairs.append(_interleaved(lambda A=A: ranking.assignment(A), lambda A=A: linear_sum_assignment(A)))
    return _geo_row(
        f"assignment r={r} vs linear_sum_assignment (geo-mean {seeds} seeds)", pairs, "ratio >= 1", 1.0
    )


def _ndcg_problem(r: int, seed: int, scale: float = 1.0):
    """The cost matrix (17.9) of a query with r documents (10 features, relevance 0-3,
    linear scores μ = Xw with w ~ N(0, scale² I)), the scores and β = y/G(y, y)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(r, 10))
    y = rng.integers(0, 4, r).astype(float)
    mu = X @ (rng.normal(size=10) * scale)
    A, _, ideal = _ndcg_cost_matrix(mu, y, r)
    return A, mu, y / ideal


def _ndcg_assignment_rows(r: int, seeds: int) -> list[dict]:
    from scipy.optimize import linear_sum_assignment

    out = []
    for label, scale, target in (
        ("ndcg_hinge's solver (rows sorted by score)", 1.0, 1.0),
        ("ndcg_hinge's solver, scores 300x smaller", 1 / 300, 1.0),
        ("generic assignment(A), no start", 1.0, None),
    ):
        pairs = []
        for seed in range(seeds):
            A, mu, beta = _ndcg_problem(r, seed, scale)
            if target is None:

                def ours(A=A):
                    return ranking.assignment(A)

            else:

                def ours(A=A, mu=mu, beta=beta):  # the sort is part of the solver's work
                    return solve_from_order(A, np.lexsort((-beta, mu)), "w")

            v = ours()
            rows, cols = linear_sum_assignment(A)
            assert abs(A[np.arange(r), v].sum() - A[rows, cols].sum()) <= 1e-9 * r * np.abs(A).max()
            pairs.append(_interleaved(ours, lambda A=A: linear_sum_assignment(A)))
        out.append(
            _geo_row(
                f"assignment on the NDCG cost matrix r={r}: {label} vs linear_sum_assignment",
                pairs,
                "ratio >= 1" if target else "(no target)",
                target,
                note=f"geo-mean {seeds} seeds",
            )
        )
    return out


def _ndcg_row(r: int) -> dict:
    """One subgradient of the NDCG surrogate vs brute force is hopeless; compare with
    building the same cost matrix and calling SciPy's solver."""
    from scipy.optimize import linear_sum_assignment

    rng = np.random.default_rng(0)
    X = rng.normal(size=(r, 10))
    y = rng.integers(0, 4, r).astype(float)
    w = rng.normal(size=10)

    def reference():
        mu = X @ w
        pos = np.arange(1, r + 1, dtype=float)
        D = 1 / np.log2(r - pos + 2)
        ideal = D[np.argsort(np.argsort(y, kind="stable"))] @ y
        A = np.outer(-mu, pos) + np.outer(y / ideal, D)
        return linear_sum_assignment(A)[1] + 1

    np.testing.assert_array_equal(np.sort(ranking.ndcg_hinge(w, X, y).v), np.arange(1, r + 1))
    return row(
        f"ndcg_hinge subgradient r={r} vs NumPy + linear_sum_assignment",
        *_interleaved(lambda: ranking.ndcg_hinge(w, X, y), reference),
        "ratio >= 1",
        1.0,
    )


def run(quick: bool = False) -> list[dict]:
    seeds = 2 if quick else 5
    return [
        _assignment_row(100, seeds),
        _assignment_row(500, seeds),
        *_ndcg_assignment_rows(100, seeds),
        *_ndcg_assignment_rows(500, 2 if quick else 3),
        _ndcg_row(100),
    ]


if __name__ == "__main__":
    for r_ in run(quick="--quick" in sys.argv):
        print(r_)
