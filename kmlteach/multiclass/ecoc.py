"""Error-correcting output codes (Dietterich & Bakiri 1995; not in the course sources):
a code matrix M ∈ {±1}^{k×n}, one binary learner per column, decoding by the nearest
row in Hamming distance (ties to the smallest class index).
"""

from __future__ import annotations

import numpy as np

from kmlteach._validation import (
    check_choice,
    check_code,
    check_int,
    check_learner,
    check_multiclass_labels,
    check_rng,
    check_X,
)
from kmlteach.multiclass.reductions import (
    Decision,
    _binary_scores,
    _fit_binary,
    _Reduction,
)

__all__ = ["ecoc_code", "ECOC", "ecoc"]


# ---------------------------------------------------------------------------------------
# error-correcting output codes (Dietterich & Bakiri 1995; not in the course sources)
# ---------------------------------------------------------------------------------------

_CODES = ("exhaustive", "random", "ova")


def ecoc_code(k: int, kind: str = "exhaustive", n_bits: int | None = None, seed=None) -> np.ndarray:
    """A code matrix M ∈ {−1, +1}^{k × L} for :func:`ecoc` (row c = codeword of class c).

    * ``"exhaustive"`` (Dietterich & Bakiri 1995, for 3 <= k <= 11): L = 2^{k−1} − 1
      columns, every non-trivial split of the classes once; minimum row distance
      2^{k−2}.
    * ``"random"``: L = ``n_bits`` (default ⌈10 log₂ k⌉) uniform ±1 entries; the best of
      200 draws (largest minimum row distance) without constant or repeated columns.
    * ``"ova"``: the identity code (+1 on the diagonal), i.e. one-vs-all.

    ECOC is not in the course's sources (UML §17.7 only cites it); this follows
    Dietterich & Bakiri, "Solving multiclass learning problems via error-correcting
    output codes", JAIR 2 (1995).
    """
    k = check_int(k, "k", minimum=2)
    kind = check_choice(kind, "kind", _CODES)
    if kind == "ova":
        return 2.0 * np.eye(k) - 1.0
    if kind == "exhaustive":
        if not 3 <= k <= 11:
            raise ValueError(f"k must be between 3 and 11 for the exhaustive code, got {k}")
        L = 2 ** (k - 1) - 1
        M = np.ones((k, L))
        for c in range(1, k):
            run = 2 ** (k - 1 - c)
            M[c] = np.where((np.arange(L) // run) % 2 == 0, -1.0, 1.0)
        return M
    L = int(np.ceil(10 * np.log2(k))) if n_bits is None else check_int(n_bits, "n_bits", minimum=1)
    rng = check_rng(seed)
    best, best_d = None, -1
    for _ in range(200):
        M = rng.choice([-1.0, 1.0], size=(k, L))
        for col in range(L):
            while np.all(M[:, col] == M[0, col]):
                M[:, col] = rng.choice([-1.0, 1.0], size=k)
        d = _min_row_distance(M)
        if d > best_d:
            best, best_d = M, d
    if best_d == 0:
        raise ValueError(f"n_bits={L} is too small to give {k} distinct codewords")
    return best


def _min_row_distance(M) -> int:
    k = M.shape[0]
    D = (M[:, None, :] != M[None, :, :]).sum(axis=2)
    return int(D[~np.eye(k, dtype=bool)].min())


class ECOC(_Reduction):
    """Fitted ECOC model: ``estimators[l]`` predicts bit l of the codeword, ``code`` (k, L).

    Source: Dietterich & Bakiri (1995); not in the course sources.
    """

    def __init__(self, classes, estimators, n_features, code):
        super().__init__(classes, estimators, n_features)
        self.code = code

    def bits(self, X) -> np.ndarray:
        """(m, L) predicted bits in {−1, +1} (score > 0 -> +1)."""
        X = self._X(X)
        return np.column_stack([np.where(_binary_scores(e, X) > 0, 1.0, -1.0) for e in self.estimators])

    def hamming(self, X) -> np.ndarray:
        """(m, k) Hamming distances between the predicted bits and each codeword."""
        B = self.bits(X)
        return (B[:, None, :] != self.code[None, :, :]).sum(axis=2).astype(float)

    def decide(self, X) -> Decision:
        return self._argmax_decision(
            -self.hamming(X),
            "nearest codeword in Hamming distance; ties go to the smallest class index",
        )


def ecoc(X, y, learner, code="exhaustive", n_bits: int | None = None, seed=None) -> ECOC:
    """Error-correcting output codes with Hamming decoding.

    **Not from the course sources**: the method is Dietterich & Bakiri (1995) (UML §17.7
    only cites it). Given a code matrix M ∈ {−1, +1}^{k×L}, bit l's binary problem
    relabels each example of class c with M[c, l]; a copy of ``learner`` is fitted per
    column. A new point gets the bits sign(h_l(x)) and the class whose codeword is
    nearest in Hamming distance (ties -> smallest index). If the codewords are at
    least d apart, ⌊(d − 1)/2⌋ wrong bits are corrected.

    Parameters
    ----------
    X, y, learner : as in :func:`one_vs_all`
    code : (k, L) array of ±1 (rows in ``np.unique(y)`` order), or ``"exhaustive"``,
        ``"random"``, ``"ova"`` (see :func:`ecoc_code`), default ``"exhaustive"``
    n_bits, seed : for ``code="random"``
    """
    X = check_X(X, "X")
    classes, yi = check_multiclass_labels(y, "y", n=X.shape[0])
    learner = check_learner(learner, returns="a scorer (y_pm1: labels -1/+1)")
    k = len(classes)
    if isinstance(code, str):
        code = check_choice(code, "code", _CODES)
        M = ecoc_code(k, code, n_bits=n_bits, seed=seed)
    else:
        M = check_code(code, k)
    ests = [_fit_binary(learner, X, M[yi, col]) for col in range(M.shape[1])]
    return ECOC(classes, ests, X.shape[1], M)._record_training_ties(X)
