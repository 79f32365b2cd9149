"""Decision trees grown greedily (UML ch. 18; the papaya tree of its opening page).

Every inner node tests one feature against a threshold, x_j ≤ θ (left) or not (right);
every leaf predicts the majority label of the training points that reach it.

Greedy growth (UML §18.2, ID3 with real-valued features as in §18.2.3): at a node with
sample S, choose the feature j and threshold θ of largest gain

    Gain(S; j, θ) = C(S) − (|S_≤| / |S|) C(S_≤) − (|S_>| / |S|) C(S_>),

where C is a measure of impurity of the label frequencies p_1, …, p_k of a set (UML
§18.2.1 gives the three for two classes, with a = P[y = 1]):

* training error  C = 1 − max_c p_c          (binary: min(a, 1 − a));
* information gain C = −Σ_c p_c log₂ p_c      (binary: the entropy of a);
* Gini index       C = 1 − Σ_c p_c²          (binary: 2a(1 − a)).

Candidate thresholds are the midpoints between consecutive distinct values of x_j among
the node's points. Growth stops at a pure node, at ``max_depth``, when no split leaves
``min_samples_leaf`` points on both sides, or when every feature is constant on the node;
a split of zero gain is still made (as scikit-learn does), so a tree of unlimited depth
fits every training set without repeated points exactly. With ``max_features`` < d, each
split looks at a fresh random subset of the features (random forests, Breiman 2001).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import (
    _describe,
    check_choice,
    check_int,
    check_multiclass_labels,
    check_rng,
    check_X,
)
from kmlteach.ensembles.tree_text import export_text, tree_nodes

__all__ = ["DecisionTree", "decision_tree", "CRITERIA", "resolve_max_features"]

CRITERIA = ("gini", "entropy", "error")
_NO_LIMIT = np.iinfo(np.int64).max


@dataclass(frozen=True, eq=False)
class DecisionTree:
    """A fitted tree: node arrays in creation order (node 0 is the root, a parent's id is
    smaller than its children's).

    Attributes
    ----------
    classes : array (k,)
        The labels, as ``np.unique(y)``; predictions are drawn from these.
    feature, threshold : arrays (n_nodes,)
        The test x[feature] ≤ threshold of an inner node; ``feature = -1`` at a leaf.
    left, right : arrays (n_nodes,) of child ids (−1 at a leaf).
    value : array (n_nodes,)
        Index into ``classes`` of the majority training label at the node (ties → the
        smallest index); a leaf predicts ``classes[value]``.
    counts : array (n_nodes, k)
        Number of training points of each class reaching the node.
    impurity : array (n_nodes,)
        C(S) of the node's training points under ``criterion``.
    node_depth : array (n_nodes,)
    criterion : str
    n_features : int

    Source: UML §18.2.
    """

    classes: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    counts: np.ndarray
    impurity: np.ndarray
    node_depth: np.ndarray
    criterion: str
    n_features: int

    @property
    def n_nodes(self) -> int:
        return len(self.feature)

    @property
    def depth(self) -> int:
        """Length of the longest root-to-leaf path (0 for a single leaf)."""
        return int(self.node_depth.max())

    @property
    def n_leaves(self) -> int:
        return int(np.sum(self.feature < 0))

    def apply(self, X) -> np.ndarray:
        """The id of the leaf each row of ``X`` falls into."""
        X = check_X(X, "X", n_cols=self.n_features, bounded=False)
        return _tree_apply_kernel(X, self.feature, self.threshold, self.left, self.right)

    def predict(self, X) -> np.ndarray:
        """The majority label of the leaf each row falls into."""
        return self.classes[self.value[self.apply(X)]]

    @property
    def nodes(self) -> list[dict]:
        """The nodes as a list of dicts (id, depth, test or leaf label, class counts)."""
        return tree_nodes(self)

    def export_text(self, feature_names=None, decimals: int = 3) -> str:
        """The tree as indented text, one line per test and per leaf."""
        return export_text(self, feature_names, decimals)


def resolve_max_features(max_features, d: int) -> int:
    """scikit-learn's ``max_features`` → a number of features in 1..d.

    None → d; "sqrt" → ⌊√d⌋; "log2" → ⌊log₂ d⌋ (both at least 1); an int in 1..d; a
    float in (0, 1] → max(1, ⌊f·d⌋).
    """
    d = check_int(d, "d", minimum=1)
    if max_features is None:
        return d
    if isinstance(max_features, str):
        check_choice(max_features, "max_features", ("sqrt", "log2"))
        f = math.sqrt(d) if max_features == "sqrt" else math.log2(d)
        return max(1, int(f))
    if isinstance(max_features, (float, np.floating)):
        f = float(max_features)
        if not (0.0 < f <= 1.0):
            raise ValueError(f"max_features as a fraction must lie in (0, 1], got {max_features!r}")
        return max(1, int(f * d))
    if isinstance(max_features, bool) or not isinstance(max_features, (int, np.integer)):
        raise TypeError(
            f"max_features must be None, 'sqrt', 'log2', an int or a float in (0, 1], "
            f"got {_describe(max_features)}"
        )
    return check_int(max_features, "max_features", minimum=1, maximum=d)


def decision_tree(
    X, y, max_depth=None, criterion: str = "gini", min_samples_leaf: int = 1, max_features=None, seed=0
) -> DecisionTree:
    """Grow a decision tree greedily (UML §18.2, with the gains of §18.2.1).

    Parameters
    ----------
    X : array (m, d)
    y : array (m,) of any sortable hashable labels (at least two classes)
    max_depth : int ≥ 0 or None
        Longest root-to-leaf path; 0 gives a single leaf, None no limit.
    criterion : "gini", "entropy" or "error"
        The impurity C in the gain (Gini index, information gain, training error).
    min_samples_leaf : int ≥ 1
        Every leaf keeps at least this many training points.
    max_features : None, "sqrt", "log2", int or float
        Number of features examined per split, drawn afresh at every split (as in
        scikit-learn; a feature that is constant on the node does not count).
    seed : int or None
        Seeds the feature sampling (and nothing else).

    Returns
    -------
    DecisionTree
        ``.predict(X)``, ``.depth``, ``.n_leaves``, ``.export_text()``, ``.nodes``.

    Notes
    -----
    Ties between equally good splits go to the first one examined (features in
    index order when ``max_features`` is None, thresholds from low to high).
    ``DecisionTreeClassifier(criterion=..., max_depth=...)`` of scikit-learn grows the
    same tree on data without tied gains ("error" is ours only).
    """
    X = check_X(X, bounded=False)
    classes, yi = check_multiclass_labels(y, "y", n=X.shape[0])
    depth = (
        int(_NO_LIMIT) if max_depth is None else check_int(max_depth, "max_depth", minimum=0, maximum=10**9)
    )
    crit = CRITERIA.index(check_choice(criterion, "criterion", CRITERIA))
    leaf = check_int(min_samples_leaf, "min_samples_leaf", minimum=1, maximum=X.shape[0])
    n_feat = resolve_max_features(max_features, X.shape[1])
    rng = check_rng(seed)
    return _grow(X, yi, classes, depth, crit, leaf, n_feat, int(rng.integers(0, 2**31 - 1)))


def _grow(
    X, yi, classes, max_depth: int, crit: int, min_leaf: int, n_feat: int, seed: int, weights=None, order=None
) -> DecisionTree:
    """Build a tree on checked arrays (yi: int64 indices into ``classes``).

    ``weights`` (default 1): integer multiplicities, e.g. bootstrap counts — the tree is
    the one grown on the sample with every row repeated that often, only faster.
    ``order`` (d, n): row j the rows sorted by feature j (default: sorted here; consumed).
    """
    w = np.ones(X.shape[0]) if weights is None else weights
    S = np.ascontiguousarray(np.argsort(X, axis=0, kind="stable").T) if order is None else order
    arrays = _grow_tree_kernel(X, yi, w, len(classes), max_depth, crit, min_leaf, n_feat, seed, S)
    feature, threshold, left, right, value, counts, impurity, node_depth = arrays
    return DecisionTree(
        classes=classes,
        feature=feature,
        threshold=threshold,
        left=left,
        right=right,
        value=value,
        counts=counts,
        impurity=impurity,
        node_depth=node_depth,
        criterion=CRITERIA[crit],
        n_features=X.shape[1],
    )


@jit(warmup=lambda: (np.array([1.0, 2.0]), 3.0, 1))
def _impurity(c, n, crit):
    """C of a node with class counts c (n = their sum): 0 Gini, 1 entropy (bits), 2 error."""
    if n <= 0:
        return 0.0
    if crit == 0:
        s = 0.0
        for v in c:
            s += (v / n) ** 2
        return 1.0 - s
    if crit == 1:
        s = 0.0
        for v in c:
            if v > 0:
                p = v / n
                s -= p * np.log2(p)
        return s
    return 1.0 - c.max() / n


def _grow_example():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0]])
    return X, np.array([0, 1, 0, 1]), np.ones(4), 2, 10, 0, 1, 2, 0, np.array([[0, 1, 2, 3], [1, 3, 0, 2]])


@jit(warmup=_grow_example, nogil=True)
def _grow_tree_kernel(X, yi, w, k, max_depth, crit, min_leaf, n_feat, seed, S):
    """Depth-first greedy growth; returns the node arrays (trimmed). Row i counts w[i]
    times (sizes, class counts and ``min_leaf`` are in these units). S[j] lists the rows
    sorted by feature j (overwritten: a node's rows are S[j, start:end], sorted by
    feature j, each split partitions every S[j] — sorted once, never per node)."""
    n, d = X.shape
    np.random.seed(seed)
    cap = 2 * n + 1
    feature = np.full(cap, -1, dtype=np.int64)
    threshold = np.zeros(cap)
    left = np.full(cap, -1, dtype=np.int64)
    right = np.full(cap, -1, dtype=np.int64)
    value = np.zeros(cap, dtype=np.int64)
    counts = np.zeros((cap, k))
    impurity = np.zeros(cap)
    node_depth = np.zeros(cap, dtype=np.int64)
    feats = np.arange(d)
    Xt = np.empty((d, n))  # one feature per row: gathers stay in cache
    for i in range(n):
        for j in range(d):
            Xt[j, i] = X[i, j]
    vals = np.empty(n)
    tmp = np.empty(n, dtype=np.int64)
    goes_left = np.zeros(n, dtype=np.bool_)
    # stack of (node, start, end) segments of idx
    st_node = np.zeros(cap, dtype=np.int64)
    st_start = np.zeros(cap, dtype=np.int64)
    st_end = np.zeros(cap, dtype=np.int64)
    for i in range(n):
        counts[0, yi[i]] += w[i]
    n_nodes = 1
    top = 1
    st_node[0], st_start[0], st_end[0] = 0, 0, n
    cl = np.zeros(k)
    cr = np.zeros(k)
    while top > 0:
        top -= 1
        node, start, end = st_node[top], st_start[top], st_end[top]
        size = end - start
        c = counts[node]
        total = c.sum()
        value[node] = np.argmax(c)
        impurity[node] = _impurity(c, total, crit)
        if c.max() == total or node_depth[node] >= max_depth or total < 2 * min_leaf:
            continue
        best = np.inf
        best_j, best_pos, best_thr = -1, -1, 0.0
        tol = 1e-12 * total
        visited = 0
        for r in range(d):
            if visited >= n_feat:
                break
            if n_feat < d:  # a random feature not yet drawn at this node
                q = r + np.random.randint(0, d - r)
                feats[r], feats[q] = feats[q], feats[r]
            j = feats[r]
            rws = S[j, start:end]  # order within equal values is irrelevant
            xj = Xt[j]
            for p in range(size):
                vals[p] = xj[rws[p]]
            if vals[0] == vals[size - 1]:
                continue  # constant on this node: does not count
            visited += 1
            cl[:] = 0.0
            cr[:] = c
            nl = 0.0
            for p in range(size - 1):
                row = rws[p]
                lab = yi[row]
                cl[lab] += w[row]
                cr[lab] -= w[row]
                nl += w[row]
                nr = total - nl
                a = vals[p]
                b = vals[p + 1]
                if a == b or nl < min_leaf or nr < min_leaf:
                    continue
                if crit == 0:  # Gini: n (1 - Σ (c/n)²) = n - Σ c² / n
                    sl = 0.0
                    sr = 0.0
                    for u in range(k):
                        sl += cl[u] * cl[u]
                        sr += cr[u] * cr[u]
                    child = (nl - sl / nl) + (nr - sr / nr)
                else:
                    child = nl * _impurity(cl, nl, crit) + nr * _impurity(cr, nr, crit)
                if child < best - tol:
                    thr = 0.5 * a + 0.5 * b
                    if thr >= b:
                        thr = a
                    best, best_j, best_pos, best_thr = child, j, p + 1, thr
        if n_feat < d:
            for r in range(d):
                feats[r] = r
        if best_j < 0:
            continue
        xj = Xt[best_j]  # x_j <= thr first in every S[f], stably (each part stays sorted)
        for p in range(start, end):
            goes_left[S[0, p]] = xj[S[0, p]] <= best_thr
        mid = start + best_pos
        for f in range(d):
            Sf = S[f]
            nl_, nr_ = start, 0
            for p in range(start, end):  # branch-free
                row = Sf[p]
                gl = goes_left[row]
                Sf[nl_], tmp[nr_] = row, row
                nl_ += gl
                nr_ += 1 - gl
            Sf[mid:end] = tmp[:nr_]
        feature[node], threshold[node] = best_j, best_thr
        for child_id, s0, s1 in ((n_nodes, start, mid), (n_nodes + 1, mid, end)):
            for p in range(s0, s1):
                counts[child_id, yi[S[0, p]]] += w[S[0, p]]
            node_depth[child_id] = node_depth[node] + 1
        left[node], right[node] = n_nodes, n_nodes + 1
        # push right first so that the left subtree is grown first
        st_node[top], st_start[top], st_end[top] = n_nodes + 1, mid, end
        st_node[top + 1], st_start[top + 1], st_end[top + 1] = n_nodes, start, mid
        top += 2
        n_nodes += 2
    return (
        feature[:n_nodes].copy(),
        threshold[:n_nodes].copy(),
        left[:n_nodes].copy(),
        right[:n_nodes].copy(),
        value[:n_nodes].copy(),
        counts[:n_nodes].copy(),
        impurity[:n_nodes].copy(),
        node_depth[:n_nodes].copy(),
    )


@jit(
    warmup=lambda: (
        np.array([[0.0], [2.0]]),
        np.array([0, -1, -1], dtype=np.int64),
        np.array([1.0, 0.0, 0.0]),
        np.array([1, -1, -1], dtype=np.int64),
        np.array([2, -1, -1], dtype=np.int64),
    ),
    nogil=True,
)
def _tree_apply_kernel(X, feature, threshold, left, right):
    """Leaf id of every row of X."""
    out = np.empty(X.shape[0], dtype=np.int64)
    for i in range(X.shape[0]):
        node = 0
        while feature[node] >= 0:
            if X[i, feature[node]] <= threshold[node]:
                node = left[node]
            else:
                node = right[node]
        out[i] = node
    return out
