"""Reduced-error pruning of a decision tree on a held-out set (UML §18.2.2).

UML §18.2.2 prunes a grown tree bottom-up, replacing a subtree by a leaf when that does
not hurt an estimate of the error. Here the estimate is the number of mistakes on a
validation set the tree was not grown on (Quinlan's reduced-error pruning): visiting the
inner nodes from the bottom up, a node becomes a leaf (predicting the majority training
label it already stores) when, on the validation points that reach it, the leaf makes
no more mistakes than its (already pruned) subtree.
"""

from __future__ import annotations

import numpy as np

from kmlteach._validation import _describe, check_X
from kmlteach.ensembles.trees import DecisionTree

__all__ = ["prune"]


def prune(tree: DecisionTree, X_val, y_val) -> DecisionTree:
    """Reduced-error pruning of ``tree`` on the held-out set (X_val, y_val) (UML §18.2.2).

    Parameters
    ----------
    tree : DecisionTree
        A tree returned by :func:`decision_tree`.
    X_val : array (n, d)
    y_val : array (n,) of labels (values absent from ``tree.classes`` count as mistakes)

    Returns
    -------
    DecisionTree
        A new tree, never larger, whose validation error is at most that of ``tree``;
        subtrees that no validation point reaches become leaves.
    """
    if not isinstance(tree, DecisionTree):
        raise TypeError(f"tree must be a DecisionTree from decision_tree(), got {_describe(tree)}")
    X_val = check_X(X_val, "X_val", n_cols=tree.n_features, min_rows=0, bounded=False)
    if y_val is None or isinstance(y_val, (str, bytes)):
        raise TypeError(f"y_val must be a 1-D array of labels, got {_describe(y_val)}")
    y_val = np.asarray(y_val)
    if y_val.shape != (X_val.shape[0],):
        raise ValueError(
            f"y_val must be 1-D with one label per row of X_val ({X_val.shape[0]}), got shape {y_val.shape}"
        )
    n = tree.n_nodes
    # where every validation point goes: the set reaching each node, top-down (ids grow downwards)
    reach: list[np.ndarray] = [np.empty(0, dtype=np.int64)] * n
    reach[0] = np.arange(X_val.shape[0])
    for i in range(n):
        if tree.feature[i] >= 0:
            r = reach[i]
            go_left = X_val[r, tree.feature[i]] <= tree.threshold[i]
            reach[tree.left[i]], reach[tree.right[i]] = r[go_left], r[~go_left]
    wrong_as_leaf = np.array([np.sum(y_val[reach[i]] != tree.classes[tree.value[i]]) for i in range(n)])
    subtree = wrong_as_leaf.copy()
    is_leaf = tree.feature < 0
    for i in range(n - 1, -1, -1):  # children before parents
        if not is_leaf[i]:
            below = subtree[tree.left[i]] + subtree[tree.right[i]]
            if wrong_as_leaf[i] <= below:
                is_leaf[i] = True
            else:
                subtree[i] = below
    return _compact(tree, is_leaf)


def _compact(tree: DecisionTree, is_leaf: np.ndarray) -> DecisionTree:
    """The tree restricted to the nodes above the new leaves, renumbered top-down."""
    keep, new_id = [0], {0: 0}
    pos = 0
    while pos < len(keep):
        i = keep[pos]
        pos += 1
        if not is_leaf[i]:
            for c in (tree.left[i], tree.right[i]):
                new_id[int(c)] = len(keep)
                keep.append(int(c))
    keep_arr = np.array(keep, dtype=np.int64)
    leaf = is_leaf[keep_arr]
    remap = np.vectorize(lambda c: new_id.get(int(c), -1), otypes=[np.int64])
    return DecisionTree(
        classes=tree.classes,
        feature=np.where(leaf, -1, tree.feature[keep_arr]),
        threshold=np.where(leaf, 0.0, tree.threshold[keep_arr]),
        left=np.where(leaf, -1, remap(tree.left[keep_arr])),
        right=np.where(leaf, -1, remap(tree.right[keep_arr])),
        value=tree.value[keep_arr],
        counts=tree.counts[keep_arr],
        impurity=tree.impurity[keep_arr],
        node_depth=tree.node_depth[keep_arr],
        criterion=tree.criterion,
        n_features=tree.n_features,
    )
