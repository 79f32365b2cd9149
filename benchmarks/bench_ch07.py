"""Chapter 07 benchmarks.

* ``bipartite_most_violating`` (the procedure "Solving Equation (17.14)", UML §17.5.1,
  O(r log r + P·N)) at r = 2 000 against the same procedure written with vectorised NumPy
  (prefix sums and the whole (P+1)×(N+1) grid of Δ values at once). Informative target:
  not slower (ratio ≥ 1).
* Metrics on 10⁶ scores against scikit-learn: ``average_precision`` vs
  ``average_precision_score``, ``auc`` vs ``roc_auc_score``, ``precision_recall_curve`` vs
  ``precision_recall_curve``. Target: within 2× (ratio ≥ 0.5); most of the time on both
  sides is the O(n log n) sort.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from run import best_time, row

from kmlteach import metrics, ranking


def numpy_most_violating_f1(mu, y):
    """Reference: the (17.14) procedure for F1 with NumPy arrays instead of loops."""
    pos, neg = np.sort(mu[y > 0])[::-1], np.sort(mu[y < 0])[::-1]
    P, N = len(pos), len(neg)
    SP, SN = np.r_[0.0, np.cumsum(pos)], np.r_[0.0, np.cumsum(neg)]
    a = np.arange(P + 1)[:, None]
    b = np.arange(N + 1)[None, :]
    c = P - a
    den = 2 * a + b + c
    delta = 1 - np.where(den > 0, 2 * a / np.maximum(den, 1), 1.0)
    alpha = delta + 2 * (SP[:, None] + SN[None, :]) - (SP[-1] + SN[-1])
    flat = alpha.size - 1 - np.argmax(alpha[::-1, ::-1].ravel())  # last maximiser, as "α ≥ α*"
    return alpha.ravel()[flat]


def _bipartite_row(r: int) -> dict:
    rng = np.random.default_rng(0)
    y = np.where(rng.random(r) < 0.5, 1.0, -1.0)
    mu = rng.normal(size=r) + 0.5 * y
    v = ranking.bipartite_most_violating(mu, y, "f1")
    a = np.sum((v > 0) & (y > 0))
    b = np.sum((v > 0) & (y < 0))
    c = np.sum((v < 0) & (y > 0))
    value = 1 - 2 * a / (2 * a + b + c) + (v - y) @ mu
    assert abs(value - (numpy_most_violating_f1(mu, y) - y @ mu)) < 1e-8
    return row(
        f"bipartite_most_violating f1 r={r} vs NumPy grid",
        best_time(lambda: ranking.bipartite_most_violating(mu, y, "f1")),
        best_time(lambda: numpy_most_violating_f1(mu, y)),
        "ratio >= 1",
        1.0,
    )


def _metric_rows(n: int) -> list[dict]:
    import sklearn.metrics as skm

    rng = np.random.default_rng(1)
    y = np.where(rng.random(n) < 0.1, 1.0, -1.0)
    s = np.round(rng.normal(size=n) + y, 3)  # with ties, as real scores have
    assert abs(metrics.average_precision(s, y) - skm.average_precision_score(y, s)) < 1e-10
    assert abs(metrics.auc(s, y) - skm.roc_auc_score(y, s)) < 1e-10
    pairs = [
        (
            "average_precision",
            lambda: metrics.average_precision(s, y),
            lambda: skm.average_precision_score(y, s),
        ),
        ("auc", lambda: metrics.auc(s, y), lambda: skm.roc_auc_score(y, s)),
        (
            "precision_recall_curve",
            lambda: metrics.precision_recall_curve(s, y),
            lambda: skm.precision_recall_curve(y, s),
        ),
    ]
    return [
        row(f"{name} n={n:.0e} vs scikit-learn", best_time(ours), best_time(ref), "ratio >= 0.5", 0.5)
        for name, ours, ref in pairs
    ]


def run(quick: bool = False) -> list[dict]:
    return [_bipartite_row(2_000)] + _metric_rows(200_000 if quick else 1_000_000)


if __name__ == "__main__":
    for r_ in run(quick="--quick" in sys.argv):
        print(r_)
