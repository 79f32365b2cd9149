"""Random forests (SL "bagged trees++", after Breiman 2001).

Bagged decision trees in which every split looks only at a fresh random subset of
``max_features`` features (√d by default): the trees become individually a little
worse and less alike, and their vote better. The OOB error comes for free as in
:func:`bagging`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import (
    check_bootstraps,
    check_choice,
    check_int,
    check_multiclass_labels,
    check_rng,
    check_X,
)
from kmlteach.ensembles.bagging import _MAX_ENTRIES, BaggingResult, _bag
from kmlteach.ensembles.trees import _NO_LIMIT, CRITERIA, DecisionTree, _grow, resolve_max_features

__all__ = ["RandomForestResult", "random_forest"]


@dataclass(frozen=True, eq=False)
class RandomForestResult(BaggingResult):
    """A random forest: a :class:`BaggingResult` whose members are :class:`DecisionTree`.

    Extra attributes: ``max_features`` (the number of features examined per split),
    ``max_depth`` (None = unlimited), ``criterion``.

    Source: SL random forests, UML §18.3.
    """

    max_features: int = 0
    max_depth: int | None = None
    criterion: str = "gini"

    def _member_indices(self, est, X: np.ndarray) -> np.ndarray:
        if isinstance(est, DecisionTree):  # trees share the forest's classes
            return est.value[est.apply(X)]
        return super()._member_indices(est, X)


def random_forest(
    X,
    y,
    n_trees=100,
    max_features="sqrt",
    max_depth=None,
    seed=0,
    criterion: str = "gini",
    min_samples_leaf: int = 1,
) -> RandomForestResult:
    """A random forest (SL ensembles slides; Breiman 2001) with the out-of-bag error.

    Parameters
    ----------
    X : array (m, d)
    y : array (m,) of any sortable labels (at least two classes)
    n_trees : int ≥ 1
        Number of bootstrap samples and trees.
    max_features : None, "sqrt", "log2", int or float (fraction), default "sqrt"
        Features examined per split, drawn afresh at every split, as in scikit-learn;
        None (all features) gives bagged trees.
    max_depth : int or None
        Depth limit of each tree (None: grown until pure).
    seed : int or None
        Seeds the bootstrap samples and the feature sampling; same seed, same forest.
    criterion : "gini", "entropy" or "error"
    min_samples_leaf : int ≥ 1

    Returns
    -------
    RandomForestResult
        ``.predict(X)``, ``.oob_error``, ``.estimators`` (the trees, each predicting the
        original labels), ``.samples``, ``.oob_error_path``, ``.n_oob``,
        ``.n_never_oob``, ``.votes(X)``.

    Notes
    -----
    Each tree is :func:`decision_tree` grown on its bootstrap sample with repeated points
    repeated (computed on the distinct points weighted by their multiplicity, which
    gives the same tree), so ``min_samples_leaf`` counts repetitions. A bootstrap sample with a
    single class gives a one-leaf tree.
    """
    X = check_X(X, bounded=False)
    classes, yi = check_multiclass_labels(y, "y", n=X.shape[0])
    B = check_bootstraps(n_trees, "n_trees", X.shape[0], _MAX_ENTRIES)
    n_feat = resolve_max_features(max_features, X.shape[1])
    depth = (
        int(_NO_LIMIT) if max_depth is None else check_int(max_depth, "max_depth", minimum=0, maximum=10**9)
    )
    crit = CRITERIA.index(check_choice(criterion, "criterion", CRITERIA))
    leaf = check_int(min_samples_leaf, "min_samples_leaf", minimum=1, maximum=X.shape[0])
    rng = check_rng(seed)

    order = np.ascontiguousarray(np.argsort(X, axis=0, kind="stable").T)  # sorted once per forest

    def fit(idx, tree_seed):
        count = np.bincount(idx, minlength=X.shape[0])
        rows = np.flatnonzero(count)  # grow on distinct rows, weighted by count
        tree = _grow(
            X[rows],
            yi[rows],
            classes,
            depth,
            crit,
            leaf,
            n_feat,
            tree_seed,
            weights=count[rows].astype(np.float64),
            order=_sample_order_kernel(order, count, rows.shape[0]),
        )
        return tree, tree.value[tree.apply(X)]

    # trees grow on several threads (the kernels release the GIL), same trees in any case
    fields = _bag(X.shape[0], len(classes), yi, B, rng, fit, seeded=True)
    return RandomForestResult(
        classes=classes,
        n_features=X.shape[1],
        max_features=n_feat,
        max_depth=max_depth,
        criterion=CRITERIA[crit],
        **fields,
    )


@jit(warmup=lambda: (np.array([[0, 2, 1], [2, 1, 0]]), np.array([1, 0, 2]), 2), nogil=True)
def _sample_order_kernel(order, count, n):
    """The forest's sort of every feature (``order``, d × m) restricted to the rows with
    ``count > 0``, renumbered 0..n−1 in row order: the sorted rows of a tree's sample."""
    d, m = order.shape
    pos = np.full(m, -1)
    c = 0
    for i in range(m):
        if count[i] > 0:
            pos[i] = c
            c += 1
    S = np.empty((d, n), dtype=np.int64)
    for j in range(d):
        c = 0
        for i in range(m):
            r = pos[order[j, i]]
            if r >= 0:
                S[j, c] = r
                c += 1
    return S
