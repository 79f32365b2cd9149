"""Cross-validation of σ and λ (kmlteach.kernel_methods.model_selection) against
scikit-learn's own cross-validation of the same pipeline, on the bundled real data."""

import numpy as np
import pytest

from kmlteach.datasets import breast_cancer
from kmlteach.kernel_methods import cross_validate_kernel_svm, kfold_indices, standardize


def test_folds_partition_and_stratify():
    y = np.r_[np.ones(37), -np.ones(64)]
    folds = kfold_indices(y, 5, seed=3)
    assert sorted(set(folds.tolist())) == list(range(5))
    for f in range(5):
        pos, neg = np.sum((folds == f) & (y == 1)), np.sum((folds == f) & (y == -1))
        assert pos in (7, 8) and neg in (12, 13)
    assert np.array_equal(folds, kfold_indices(y, 5, seed=3))
    assert not np.array_equal(folds, kfold_indices(y, 5, seed=4))


def test_standardize_uses_training_statistics_only():
    rng = np.random.default_rng(0)
    A, B = rng.normal(3, 2, (50, 4)), rng.normal(0, 1, (10, 4))
    A2, B2 = standardize(A, B)
    assert np.allclose(A2.mean(axis=0), 0) and np.allclose(A2.std(axis=0), 1)
    assert np.allclose(B2, (B - A.mean(axis=0)) / A.std(axis=0))


def test_scores_equal_sklearn_cross_validation_of_the_same_pipeline():
    pytest.importorskip("sklearn")
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from kmlteach.kernel_methods import KernelSVM

    d = breast_cancer()
    X, y = d.X[::2], d.y[::2]  # 285 examples keep the test quick
    lams, sigmas = [1e-3, 1e-1], [4.0, 64.0]
    res = cross_validate_kernel_svm(X, y, lams, sigmas, k=4, seed=2)
    splits = [(np.flatnonzero(res.folds != f), np.flatnonzero(res.folds == f)) for f in range(4)]
    for a, lam in enumerate(lams):
        for b, sigma in enumerate(sigmas):
            pipe = make_pipeline(StandardScaler(), KernelSVM(kernel="gaussian", sigma=sigma, lam=lam, seed=2))
            theirs = cross_val_score(pipe, X, y, cv=splits, scoring="accuracy")
            # the same folds, standardisation, SGD draws and predictions; a prediction may
            # only flip where StandardScaler's rounding moves a score across 0
            assert np.max(np.abs(theirs - res.scores[a, b])) <= 1.0 / 70
    assert res.mean[res.best] == res.mean.max()
    assert (res.best_lam, res.best_sigma) == (lams[res.best[0]], sigmas[res.best[1]])


@pytest.mark.parametrize(
    "kw, name",
    [
        ({"lams": [0.0]}, "lams"),
        ({"sigmas": [-1.0]}, "sigmas"),
        ({"k": 1}, "k"),
        ({"T": 0}, "T"),
        ({"y": np.zeros(6)}, "y"),
        ({"X": np.full((6, 2), np.nan)}, "X"),
    ],
)
def test_bad_input_names_the_argument(kw, name):
    args = {
        "X": np.arange(12.0).reshape(6, 2),
        "y": np.array([1, -1, 1, -1, 1, -1]),
        "lams": [0.1],
        "sigmas": [1.0],
    }
    extra = {k: v for k, v in kw.items() if k in ("k", "T")}
    args.update({k: v for k, v in kw.items() if k not in extra})
    with pytest.raises(ValueError, match=name):
        cross_validate_kernel_svm(args["X"], args["y"], args["lams"], args["sigmas"], **extra)
