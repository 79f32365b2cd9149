"""Shared pieces of chapter 04: class-sensitive feature maps Ψ, cost matrices Δ,
label handling and the linear multiclass predictor (UML §17.2).

Public names are re-exported by :mod:`kmlteach.multiclass`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import (
    _describe,
    as_matrix,
    as_vector,
    check_int,
    check_multiclass_labels,
    check_nonnegative,
    check_X,
)

__all__ = [
    "MultivectorPsi",
    "TfidfPsi",
    "multivector_psi",
    "zero_one_delta",
    "LinearMulticlass",
]


# ---------------------------------------------------------------------------------------
# labels
# ---------------------------------------------------------------------------------------


def labels_to_index(y, classes, name: str = "y", n: int | None = None) -> np.ndarray:
    """Map labels to 0-based indices into ``classes``.

    ``classes=None`` means ``y`` already holds class indices (integers); they are
    returned as int64 after a range check is done by the caller.
    """
    if np.ndim(y) == 0 and not (y is None or isinstance(y, (str, bytes))):
        y = [y]
    check_multiclass_labels(y, name, n=n, min_classes=1)  # shape, length, NaN checks
    arr = np.asarray(y)
    if classes is None:
        if arr.dtype.kind == "f":
            if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
                raise ValueError(f"{name} must hold integer class indices 0..k-1 when classes is not given")
            arr = arr.astype(np.int64)
        elif arr.dtype.kind not in "iu":
            raise TypeError(
                f"{name} must hold integer class indices 0..k-1 when classes is not "
                f"given, got dtype {arr.dtype}"
            )
        return np.ascontiguousarray(arr, dtype=np.int64)
    classes = np.asarray(classes)
    if classes.ndim != 1 or classes.shape[0] == 0:
        raise ValueError(f"classes must be a non-empty 1-D array of labels, got shape {classes.shape}")
    try:
        order = np.argsort(classes, kind="stable")
        pos = np.searchsorted(classes[order], arr)
    except TypeError:
        raise TypeError(f"{name} labels are not comparable with the classes {classes[:5]!r}") from None
    pos = order[np.clip(pos, 0, classes.shape[0] - 1)]
    bad = classes[pos] != arr
    if np.any(bad):
        raise ValueError(
            f"{name} contains labels that are not among the classes "
            f"{classes.tolist()[:10]}: e.g. {arr[bad][0]!r}"
        )
    return np.ascontiguousarray(pos, dtype=np.int64)


# ---------------------------------------------------------------------------------------
# class-sensitive feature maps Ψ (UML §17.2.1)
# ---------------------------------------------------------------------------------------


class MultivectorPsi:
    """The multivector construction (UML §17.2.1, Eq. (17.2)).

    Ψ(x, y) ∈ R^{nk} is zero except for block y (0-based here; the book counts
    1..k), which holds x. Hence ⟨w, Ψ(x, y)⟩ = ⟨w_y, x⟩ for w = [w_0; ...; w_{k-1}],
    i.e. ``w = W.ravel()`` for the (k, n) matrix W whose rows are the w_y.

    Parameters
    ----------
    n_classes : int (k >= 2)
    n_features : int (n >= 1)
    """

    def __init__(self, n_classes: int, n_features: int):
        self.n_classes = check_int(n_classes, "n_classes", minimum=2)
        self.n_features = check_int(n_features, "n_features", minimum=1)
        self.dim = self.n_classes * self.n_features

    def __call__(self, x, y: int) -> np.ndarray:
        x = as_vector(x, "x", length=self.n_features)
        y = check_int(y, "y", minimum=0, maximum=self.n_classes - 1)
        out = np.zeros(self.dim)
        out[y * self.n_features : (y + 1) * self.n_features] = x
        return out

    def all(self, x) -> np.ndarray:
        """The k vectors Ψ(x, 0), ..., Ψ(x, k-1) as rows of a (k, nk) array."""
        x = as_vector(x, "x", length=self.n_features)
        n, k = self.n_features, self.n_classes
        out = np.zeros((k, self.dim))
        for c in range(k):
            out[c, c * n : (c + 1) * n] = x
        return out

    def __repr__(self):
        return f"MultivectorPsi(n_classes={self.n_classes}, n_features={self.n_features})"


def multivector_psi(x, y: int, k: int) -> np.ndarray:
    """Ψ(x, y) of the multivector construction (17.2) for a class index y in 0..k-1.

    >>> multivector_psi([1.0, 2.0], 1, 3)
    array([0., 0., 1., 2., 0., 0.])
    """
    x = as_vector(x, "x")
    k = check_int(k, "k", minimum=2)
    return MultivectorPsi(k, x.shape[0])(x, y)


class TfidfPsi:
    """The TF-IDF class-sensitive feature map (UML §17.2.1).

    Built from a training corpus given as term counts ``TF`` (m documents × d words)
    and topics ``y``:

        Ψ_j(x, y) = TF(j, x) · log(m / DF(j, y)),

    where DF(j, y) is the number of occurrences of word j in the training documents
    whose topic is *not* y. ⚠ The book leaves DF(j, y) = 0 (a word that never occurs
    outside topic y) undefined; we use log(m / (DF + smooth)) with ``smooth=1`` by
    default (``smooth=0`` gives the book's formula and raises if some DF is 0).
    Unlike the multivector map, the dimension is d, independent of the number of
    topics.

    Attributes: ``classes``, ``n_classes``, ``dim``, ``idf`` (k, d) = log(m / (DF + smooth)).
    """

    def __init__(self, TF, y, smooth: float = 1.0):
        TF = check_X(TF, "TF")
        if np.any(TF < 0):
            raise ValueError("TF must hold non-negative term counts")
        self.classes, yi = check_multiclass_labels(y, "y", n=TF.shape[0], of="one label per row of TF")
        self.smooth = check_nonnegative(smooth, "smooth")
        m, d = TF.shape
        k = self.classes.shape[0]
        total = TF.sum(axis=0)
        per_class = np.zeros((k, d))
        np.add.at(per_class, yi, TF)
        DF = total[None, :] - per_class  # occurrences outside topic y
        denom = DF + self.smooth
        if np.any(denom <= 0):
            raise ValueError("some word never occurs outside a topic (DF = 0): use smooth > 0")
        self.DF = DF
        self.idf = np.log(m / denom)
        self.n_classes = k
        self.n_features = d
        self.dim = d

    def __call__(self, x, y: int) -> np.ndarray:
        x = as_vector(x, "x", length=self.n_features)
        y = check_int(y, "y", minimum=0, maximum=self.n_classes - 1)
        return x * self.idf[y]

    def all(self, x) -> np.ndarray:
        x = as_vector(x, "x", length=self.n_features)
        return x[None, :] * self.idf

    def __repr__(self):
        return f"TfidfPsi(n_classes={self.n_classes}, dim={self.dim}, smooth={self.smooth})"


def psi_matrix(psi, x, k: int) -> np.ndarray:
    """Rows Ψ(x, 0..k-1) as a C-contiguous float64 (k, dim) array, checked."""
    if hasattr(psi, "all"):
        P = np.asarray(psi.all(x), dtype=np.float64)
    else:
        P = np.asarray([np.asarray(psi(x, c), dtype=np.float64).ravel() for c in range(k)])
    if P.ndim != 2 or P.shape[0] != k:
        raise ValueError(
            f"psi must return one feature vector per class: expected {k} rows, got shape {P.shape}"
        )
    if not np.all(np.isfinite(P)):
        raise ValueError("psi returned NaN or infinite features")
    return np.ascontiguousarray(P)


def resolve_psi(psi, k: int, n_features: int):
    """-> (psi, is_multivector, dim). None means MultivectorPsi(k, n_features); another
    feature map (object with ``.all(x)`` or callable ``psi(x, y)``) is checked on a zero vector."""
    if psi is None:
        psi = MultivectorPsi(k, n_features)
        return psi, True, psi.dim
    if isinstance(psi, MultivectorPsi):
        if psi.n_classes != k or psi.n_features != n_features:
            raise ValueError(f"psi is {psi!r} but the data have {k} classes and {n_features} features")
        return psi, True, psi.dim
    if not callable(psi) and not hasattr(psi, "all"):
        raise TypeError(
            f"psi must be None, a feature-map object with .all(x) or a callable "
            f"psi(x, y) -> vector, got {_describe(psi)}"
        )
    nk = getattr(psi, "n_classes", k)
    if nk != k:
        raise ValueError(f"psi has {nk} classes but y has {k}")
    try:
        P = psi_matrix(psi, np.zeros(n_features), k)
    except (TypeError, ValueError, IndexError) as exc:
        raise ValueError(f"psi could not be evaluated on a vector of {n_features} features: {exc}") from None
    return psi, False, P.shape[1]


# ---------------------------------------------------------------------------------------
# cost matrices Δ (UML §17.2.2)
# ---------------------------------------------------------------------------------------


def zero_one_delta(k: int) -> np.ndarray:
    """Δ(y', y) = 1[y' ≠ y] as a (k, k) matrix. Source: UML §17.2.4."""
    k = check_int(k, "k", minimum=2)
    return 1.0 - np.eye(k)


def check_delta(delta, classes, name: str = "delta", labels: str = "y") -> np.ndarray:
    """Δ as a (k, k) float64 matrix D with D[y', y] = Δ(y', y) (prediction first).

    ``delta`` is None (0–1 loss), a (k, k) array in that orientation, or a callable
    ``delta(y_pred, y_true)`` evaluated on the class labels. Δ must be finite,
    non-negative, with Δ(y, y) = 0 (UML §17.2.2).
    """
    k = len(classes)
    if delta is None:
        return zero_one_delta(k)
    if callable(delta) and not isinstance(delta, np.ndarray):
        try:
            D = np.array([[float(delta(classes[a], classes[b])) for b in range(k)] for a in range(k)])
        except Exception as exc:
            raise ValueError(f"{name}(y_pred, y_true) failed on the class labels: {exc}") from None
    else:
        D = as_matrix(delta, name)
    if D.shape != (k, k):
        raise ValueError(
            f"{name} must be a ({k}, {k}) matrix (one row and column per class of {labels}), "
            f"got shape {D.shape}"
        )
    if not np.all(np.isfinite(D)):
        raise ValueError(f"{name} must be finite")
    if np.any(D < 0):
        raise ValueError(f"{name} must be non-negative: Δ maps to R_+ (UML §17.2.2)")
    if np.any(np.diag(D) != 0):
        raise ValueError(f"{name} must have a zero diagonal: Δ(y, y) = 0 (UML §17.2.2)")
    return np.ascontiguousarray(D)


# ---------------------------------------------------------------------------------------
# the predictor h_w(x) = argmax_y ⟨w, Ψ(x, y)⟩
# ---------------------------------------------------------------------------------------


@jit(warmup=lambda: (np.ones((3, 2)), np.ones((2, 2)), 1, np.empty(3)))
def _row_scores(W, X, i, s):
    """s[c] = ⟨W[c], X[i]⟩ with a sequential sum (the order the general path uses too)."""
    for c in range(W.shape[0]):
        acc = 0.0
        for j in range(X.shape[1]):
            acc += W[c, j] * X[i, j]
        s[c] = acc


@jit(warmup=lambda: (1.0 - np.eye(3), np.array([0.5, 1.0, -1.0]), 1))
def _augmented_argmax(D, s, y):
    """argmax_c Δ(c, y) + s[c] − s[y], smallest index on ties."""
    best = -np.inf
    yh = 0
    for c in range(D.shape[0]):
        val = D[c, y] + s[c] - s[y]
        if val > best:
            best = val
            yh = c
    return yh


@dataclass(frozen=True)
class LinearMulticlass:
    """A linear multiclass predictor h_w(x) = argmax_y ⟨w, Ψ(x, y)⟩ (UML §17.2).

    ``w`` is the flat weight vector; for the multivector Ψ, ``W = w.reshape(k, n)``
    holds one row w_y per class (rows in the order of ``classes``) and
    ⟨w, Ψ(x, y)⟩ = ⟨W[y], x⟩. For another Ψ, ``W`` is None. Ties in the argmax go to
    the class that comes first in ``classes``.
    """

    W: np.ndarray | None
    classes: np.ndarray
    w: np.ndarray
    psi: object = field(default=None, repr=False)

    @property
    def n_classes(self) -> int:
        return int(self.classes.shape[0])

    def decision_function(self, X) -> np.ndarray:
        """Scores ⟨w, Ψ(x, y)⟩, shape (m, k)."""
        if self.W is not None:
            X = check_X(X, "X", n_cols=self.W.shape[1])
            return X @ self.W.T
        X = check_X(X, "X")
        k = self.n_classes
        return np.array([psi_matrix(self.psi, x, k) @ self.w for x in X])

    def predict(self, X) -> np.ndarray:
        """argmax_y of the scores (smallest class index among ties), as original labels."""
        return self.classes[np.argmax(self.decision_function(X), axis=1)]

    def score(self, X, y) -> float:
        """Accuracy on (X, y)."""
        return float(np.mean(self.predict(X) == np.asarray(y)))
