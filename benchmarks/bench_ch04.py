"""Chapter 04 benchmarks: multiclass SGD and the reductions against scikit-learn.

* ``multiclass_svm_sgd`` (UML §17.2.5, multivector Ψ, 0–1 Δ) vs
  ``LinearSVC(multi_class="crammer_singer")`` and vs ``SGDClassifier`` (hinge,
  one-vs-all) on 50 000 × 50 with 10 classes (quick: 10 000 × 20), like with like: the
  target is the test accuracy of the exact Crammer–Singer solution minus 1 point, and
  each method is timed at its cheapest setting that reaches it (ours: T = m/4, m/2, m,
  ...; LinearSVC: max_iter = 1, 2, 3, 5, ...; SGDClassifier: epochs = 1, 2, 3, 5, ...).
  Ratio = reference time / our time; target >= 1.
* ``one_vs_all`` / ``all_pairs`` vs ``OneVsRestClassifier`` / ``OneVsOneClassifier`` with
  the same base learner (``LogisticRegression``): fit + predict time, i.e. the overhead
  of our wrappers (copying the learner, building ±1 labels, collecting scores).
  Target: ratio >= 0.8.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from run import best_time, row

from kmlteach import multiclass as mc


def _data(m, d, k, seed=0, m_test=10_000, radius=2.5):
    """k Gaussian classes (identity covariance) with means on a sphere of the given radius:
    the Bayes rule is argmax_c <mu_c, x>, a homogeneous linear multiclass predictor, and
    each class is also well separated from the rest (fair to one-vs-all)."""
    rng = np.random.default_rng(seed)
    mu = rng.normal(size=(k, d))
    mu *= radius / np.linalg.norm(mu, axis=1, keepdims=True)
    y = rng.integers(0, k, size=m + m_test)
    X = mu[y] + rng.normal(size=(m + m_test, d))
    return X[:m], y[:m], X[m:], y[m:]


def _once(fit):
    """Wall-clock time of one call (scikit-learn has nothing to compile) and its result."""
    t0 = time.perf_counter()
    out = fit()
    return time.perf_counter() - t0, out


def _time_to_accuracy(X, y, Xt, yt, target, eta):
    """Smallest T in (m/4, m/2, m, 2m, ...) whose test accuracy reaches ``target``."""
    m = X.shape[0]
    T = m // 4
    while True:
        res = mc.multiclass_svm_sgd(X, y, eta=eta, T=T, seed=0)
        acc = float(np.mean(res.predict(Xt) == yt))
        if acc >= target or T >= 64 * m:
            break
        T *= 2
    t = best_time(lambda: mc.multiclass_svm_sgd(X, y, eta=eta, T=T, seed=0), repeat=3)
    return t, T, acc


def _cheapest(fit, settings, Xt, yt, target):
    """Time the first setting (in increasing cost) whose model reaches ``target`` test
    accuracy; returns (seconds, setting, accuracy)."""
    acc = float("nan")
    for setting in settings:
        model = fit(setting)
        acc = float(np.mean(model.predict(Xt) == yt))
        if acc >= target:
            break
    t = best_time(lambda: fit(setting), repeat=3)
    return t, setting, acc


def _sgd_rows(quick: bool) -> list[dict]:
    """Like with like: every method is timed at its cheapest setting that reaches the
    same test accuracy (the exact Crammer–Singer solution's accuracy minus 1 point)."""
    from sklearn.linear_model import SGDClassifier
    from sklearn.svm import LinearSVC

    m, d, k = (10_000, 20, 10) if quick else (50_000, 50, 10)
    X, y, Xt, yt = _data(m, d, k)

    def crammer_singer(max_iter):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return LinearSVC(
                multi_class="crammer_singer",
                fit_intercept=False,
                C=1.0,
                max_iter=max_iter,
                tol=1e-1,
                random_state=0,
            ).fit(X, y)

    def sgd_ova(epochs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return SGDClassifier(
                loss="hinge",
                alpha=1e-4,
                fit_intercept=False,
                max_iter=epochs,
                tol=None,
                average=True,
                random_state=0,
            ).fit(X, y)

    exact = crammer_singer(1000)
    target = float(np.mean(exact.predict(Xt) == yt)) - 0.01
    t_ours, T, acc = _time_to_accuracy(X, y, Xt, yt, target, eta=0.01)
    rows = []
    for name, fit, settings, unit in (
        ("LinearSVC(crammer_singer)", crammer_singer, (1, 2, 3, 5, 10, 20, 50, 100, 1000), "max_iter"),
        ("SGDClassifier(hinge, OvA, averaged)", sgd_ova, (1, 2, 3, 5, 10, 20), "epochs"),
    ):
        t_ref, setting, acc_ref = _cheapest(fit, settings, Xt, yt, target)
        rows.append(
            row(
                f"multiclass_svm_sgd vs {name}, {m}x{d}, k={k}, same test accuracy",
                t_ours,
                t_ref,
                ">= 1x",
                1.0,
                note=f"target acc {target:.3f}: ours {acc:.3f} (T={T:,}) vs ref {acc_ref:.3f} "
                f"({unit}={setting})",
            )
        )
    return rows


def _reduction_rows(quick: bool) -> list[dict]:
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier

    m, d, k = (2_000, 10, 4) if quick else (10_000, 20, 6)
    X, y, Xt, yt = _data(m, d, k, seed=1, m_test=2_000)
    base = LogisticRegression(max_iter=1000)
    rows = []
    for name, ours, ref in (
        (
            "one_vs_all vs OneVsRestClassifier",
            lambda: mc.one_vs_all(X, y, base).predict(Xt),
            lambda: OneVsRestClassifier(base).fit(X, y).predict(Xt),
        ),
        (
            "all_pairs vs OneVsOneClassifier",
            lambda: mc.all_pairs(X, y, base).predict(Xt),
            lambda: OneVsOneClassifier(base).fit(X, y).predict(Xt),
        ),
    ):
        t_o = best_time(ours, repeat=5)
        t_r = best_time(ref, repeat=5)
        agree = float(np.mean(ours() == ref()))
        rows.append(
            row(
                f"{name} (LogisticRegression), {m}x{d}, k={k}",
                t_o,
                t_r,
                ">= 0.8x",
                0.8,
                note=f"prediction agreement {agree:.4f}",
            )
        )
    return rows


def run(quick: bool = False) -> list[dict]:
    return _sgd_rows(quick) + _reduction_rows(quick)


if __name__ == "__main__":
    for r in run(quick="--quick" in sys.argv):
        print(r)
