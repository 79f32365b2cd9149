"""Chapter 02/03 benchmarks: Gram matrices, kernel SGD-SVM and kernel PCA against scikit-learn.

* ``gram("gaussian", X)`` vs ``sklearn.metrics.pairwise.rbf_kernel`` on 4 000 × 50
  (same γ = 1/(2σ)), 3 seeds, best of 5 each. Target: ratio ≥ 1.5 (median).
* ``kernel_sgd_svm`` (UML §16.3) vs ``SVC(kernel="rbf")`` on 3 000 two-moons points
  (test set of 3 000): SVC with C = 1/(λm) and the same γ is timed on ``fit``; for us we
  double T (starting at m) until the test accuracy is within 1 point of SVC's, and time
  Gram matrix + SGD at that T (the search itself is not counted). Reported, no target.
* ``gram`` + ``kernel_pca(K, 2)`` vs ``KernelPCA(2, kernel="rbf")`` (both from X, so both
  include the kernel computation) on 2 000 points. Reported, no target.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from run import best_time, row, seeded_row

from kmlteach import kernel_methods as km
from kmlteach import kernels as kk
from kmlteach.datasets import moons


def _gram_row(quick: bool) -> dict:
    from sklearn.metrics.pairwise import rbf_kernel

    n = 1000 if quick else 4000
    sigma = 25.0
    seeds = (0, 1) if quick else (0, 1, 2)
    X0 = np.random.default_rng(0).normal(size=(n, 50))
    err = float(np.max(np.abs(kk.gram("gaussian", X0, sigma=sigma) - rbf_kernel(X0, gamma=1 / (2 * sigma)))))
    return seeded_row(
        f"gram gaussian {n}x50 vs rbf_kernel",
        lambda s: np.random.default_rng(s).normal(size=(n, 50)),
        lambda X: kk.gram("gaussian", X, sigma=sigma),
        lambda X: rbf_kernel(X, gamma=1.0 / (2 * sigma)),
        seeds,
        "ratio >= 1.5",
        1.5,
        note=f"max |diff| {err:.1e}",
    )


def _svm_row(quick: bool) -> dict:
    from sklearn.svm import SVC

    m = 1000 if quick else 3000
    X, y = moons(m=m, noise=0.2, seed=0)
    Xt, yt = moons(m=m, noise=0.2, seed=1)
    sigma, lam = 0.1, 1e-4
    gamma = 1.0 / (2 * sigma)
    svc = SVC(kernel="rbf", gamma=gamma, C=1.0 / (lam * m))
    ref = best_time(lambda: svc.fit(X, y), repeat=5)
    acc_ref = float(np.mean(svc.predict(Xt) == yt))
    Kt = kk.gram("gaussian", Xt, X, sigma=sigma)
    K = kk.gram("gaussian", X, sigma=sigma)
    T, acc = m, 0.0
    while T <= 256 * m:
        alpha = km.kernel_sgd_svm(K, y, lam, T, 0).alpha
        acc = float(np.mean(np.where(Kt @ alpha >= 0, 1.0, -1.0) == yt))
        if acc >= acc_ref - 0.01:
            break
        T *= 2

    def ours_fit():
        K_ = kk.gram("gaussian", X, sigma=sigma)
        return km.kernel_sgd_svm(K_, y, lam, T, 0)

    ours = best_time(ours_fit, repeat=5)
    return row(
        f"kernel_sgd_svm vs SVC(rbf), {m} moons",
        ours,
        ref,
        "reported",
        None,
        note=f"T = {T} ({T // m} m): test acc {100 * acc:.1f} % vs SVC {100 * acc_ref:.1f} %",
    )


def _kpca_row(quick: bool) -> dict:
    from sklearn.decomposition import KernelPCA

    m = 800 if quick else 2000
    X, _ = moons(m=m, noise=0.1, seed=0)
    sigma = 0.2

    def ours():
        return km.kernel_pca(kk.gram("gaussian", X, sigma=sigma), 2).embedding

    sk = KernelPCA(n_components=2, kernel="rbf", gamma=1.0 / (2 * sigma))
    t_ours = best_time(ours, repeat=5)
    t_ref = best_time(lambda: sk.fit_transform(X), repeat=5)
    E, R = ours(), sk.fit_transform(X)
    err = float(np.max(np.abs(np.abs(E) - np.abs(R))))
    return row(
        f"gram + kernel_pca vs KernelPCA(rbf), {m} points",
        t_ours,
        t_ref,
        "reported",
        None,
        note=f"max |diff| up to sign {err:.1e}",
    )


def run(quick: bool = False) -> list[dict]:
    return [_gram_row(quick), _svm_row(quick), _kpca_row(quick)]


if __name__ == "__main__":
    for r in run(quick="--quick" in sys.argv):
        print(r)
