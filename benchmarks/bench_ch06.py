"""Chapter 06 benchmarks: the Hungarian method (``kmlteach.ranking.assignment``) against
``scipy.optimize.linear_sum_assignment`` on random real cost matrices, r = 100 and 500
(target: ratio ≥ 1, geometric mean over seeds), and one NDCG-surrogate subgradient (the assignment
problem (17.9) it needs) for r = 100 as an end-to-end figure.

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


def _assignment_row(r: int, seeds: int) -> dict:
    from scipy.optimize import linear_sum_assignment

    ours_t, ref_t = [], []
    for seed in range(seeds):
        A = np.random.default_rng(seed).random((r, r)) * 100
        v = ranking.assignment(A)
        rows, cols = linear_sum_assignment(A)
        assert abs(A[np.arange(r), v].sum() - A[rows, cols].sum()) < 1e-8 * r
        ours_t.append(best_time(lambda A=A: ranking.assignment(A), repeat=5))
        ref_t.append(best_time(lambda A=A: linear_sum_assignment(A), repeat=5))
    ratios = sorted(b / a for a, b in zip(ours_t, ref_t))
    ours, ref = float(np.exp(np.mean(np.log(ours_t)))), float(np.exp(np.mean(np.log(ref_t))))
    return row(
        f"assignment r={r} vs linear_sum_assignment (geo-mean {seeds} seeds)",
        ours,
        ref,
        "ratio >= 1",
        1.0,
        note=f"ratio min/median/max {ratios[0]:.2f}/{ratios[len(ratios) // 2]:.2f}/{ratios[-1]:.2f}",
    )


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
        best_time(lambda: ranking.ndcg_hinge(w, X, y)),
        best_time(reference),
        "ratio >= 0.33",
        0.33,
    )


def run(quick: bool = False) -> list[dict]:
    seeds = 2 if quick else 5
    return [_assignment_row(100, seeds), _assignment_row(500, seeds), _ndcg_row(100)]


if __name__ == "__main__":
    for r_ in run(quick="--quick" in sys.argv):
        print(r_)
