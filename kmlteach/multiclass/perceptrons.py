"""Multiclass perceptrons (UML ex. 17.2; slides; HSS2 §2.2.1); Kesler's construction, which
:func:`kesler_perceptron` runs on, is in :mod:`kmlteach.multiclass.kesler`.

All four perceptrons learn a linear multiclass predictor argmax_y ⟨w, Ψ(x, y)⟩. With the
multivector Ψ (UML (17.2)) they are different bookkeeping of the same idea, and the
differences show up in *which* competitor is demoted:

* :func:`multiclass_perceptron` — UML ex. 17.2 (batch): while some (i, y ≠ y_i) has
  ⟨w, Ψ(x_i, y_i)⟩ <= ⟨w, Ψ(x_i, y)⟩, add Ψ(x_i, y_i) − Ψ(x_i, y).
* :func:`kesler_perceptron` — the slides' perceptron in Kesler space: promote w_i,
  demote *every* violating w_j.
* :func:`conservative_perceptron` — the slides' conservative update: only the
  strongest competitor j*.
* :func:`collins_perceptron` — Collins (2002) as in HSS2 §2.2.1: predict
  z = argmax_y ⟨w, φ(x, y)⟩ and, if z ≠ y, add η(φ(x, y) − φ(x, z)).

Public names are re-exported by :mod:`kmlteach.multiclass`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import (
    check_finite_result,
    check_int,
    check_multiclass_labels,
    check_positive,
    check_X,
)
from kmlteach.multiclass.psi import (
    LinearMulticlass,
    _row_scores,
    psi_matrix,
    resolve_psi,
)

__all__ = [
    "multiclass_perceptron",
    "kesler_perceptron",
    "conservative_perceptron",
    "collins_perceptron",
    "MulticlassPerceptronResult",
]


@dataclass(frozen=True)
class MulticlassPerceptronResult(LinearMulticlass):
    """Output of the multiclass perceptrons: ``W`` (k, n) (multivector Ψ) and ``w`` flat,
    ``n_updates`` (number of weight updates; for the Kesler perceptron, of
    promote/demote pairs), ``n_mistakes`` (examples on which an update happened),
    ``epochs`` (passes over the data), ``converged`` (a full pass without update).

    Source: UML ex. 17.2, SL multiclass (Kesler), HSS2 §2.2.1.
    """

    n_updates: int = 0
    n_mistakes: int = 0
    epochs: int = 0
    converged: bool = False


_NO_CAP = np.iinfo(np.int64).max


def _prepare(X, y):
    X = check_X(X, "X")
    classes, yi = check_multiclass_labels(y, "y", n=X.shape[0])
    return X, classes, yi


def _result(classes, psi, W, w, n_upd, n_mis, epochs, converged) -> MulticlassPerceptronResult:
    return MulticlassPerceptronResult(
        W=W,
        classes=classes,
        w=w,
        psi=psi,
        n_updates=n_upd,
        n_mistakes=n_mis,
        epochs=epochs,
        converged=converged,
    )


def _run(X, yi, k, psi, mv, dim, eta, rule, cap, max_epochs):
    """The checked core of every perceptron below: (W, w, n_updates, n_mistakes, epochs,
    converged). The multivector Ψ runs in :func:`_perceptron_kernel`; any other Ψ runs
    here in Python with the kernel's rules 0 (the strongest competitor j*, if it scores
    at least s[y]: w + Ψ(x, y) − Ψ(x, j*)) and 2 (Collins: z = argmax over all labels,
    if z ≠ y: w + η(Ψ(x, y) − Ψ(x, z))); each update is a mistake."""
    if mv:
        W, n_upd, n_mis, epochs, converged = _perceptron_kernel(X, yi, k, cap, max_epochs, eta, rule)
        check_finite_result("eta", W)
        return W, W.ravel(), n_upd, n_mis, epochs, bool(converged)
    Ps = [psi_matrix(psi, x, k) for x in X]
    w = np.zeros(dim)
    n_upd, epochs, converged = 0, 0, False
    while epochs < max_epochs and n_upd < cap:
        epochs += 1
        updated = False
        for P, y in zip(Ps, yi):
            s = P @ w
            if rule == 0:
                j = int(np.argmax(np.where(np.arange(k) == y, -np.inf, s)))
                hit = s[j] >= s[y]
            else:
                j = int(np.argmax(s))
                hit = j != y
            if hit and n_upd < cap:
                w = w + P[y] - P[j] if rule == 0 else w + eta * (P[y] - P[j])
                n_upd += 1
                updated = True
        if not updated:
            converged = True
            break
    check_finite_result("eta", w)
    return None, w, n_upd, n_upd, epochs, converged


# ---------------------------------------------------------------------------------------
# batch multiclass perceptron (UML exercise 17.2)
# ---------------------------------------------------------------------------------------


def multiclass_perceptron(X, y, psi=None, max_updates: int = 100_000) -> MulticlassPerceptronResult:
    """Multiclass Batch Perceptron (UML §17.2.3 and exercise 17.2).

    ::

        w⁽¹⁾ = 0
        while some i and y ≠ y_i have ⟨w, Ψ(x_i, y_i)⟩ <= ⟨w, Ψ(x_i, y)⟩:
            w ← w + Ψ(x_i, y_i) − Ψ(x_i, y)

    The book lets the violating pair be any; we scan the examples cyclically in order
    and, at example i, take the competitor y ≠ y_i with the highest score (smallest
    index on ties); it violates iff its score is >= that of y_i. The loop stops after a
    full pass with no violation (then every y_i is the unique argmax) or after
    ``max_updates`` updates.

    Theorem 17.5: if some w* has ⟨w*, Ψ(x_i, y_i) − Ψ(x_i, y)⟩ >= 1 for all i, y ≠ y_i,
    the number of updates is at most (R‖w*‖)², R = max_{i,y} ‖Ψ(x_i, y_i) − Ψ(x_i, y)‖
    (√2 max_i ‖x_i‖ for the multivector Ψ). It thereby solves the realizable ERM
    problem of §17.2.3, a linear feasibility problem.

    Parameters
    ----------
    X : ndarray (m, n); y : labels (>= 2 classes)
    psi : None (multivector Ψ) or a class-sensitive feature map
    max_updates : int, default=100000

    Returns
    -------
    MulticlassPerceptronResult (``.W``, ``.w``, ``.n_updates``, ``.converged``, ...).
    """
    X, classes, yi = _prepare(X, y)
    max_updates = check_int(max_updates, "max_updates", minimum=0)
    k = len(classes)
    psi, mv, dim = resolve_psi(psi, k, X.shape[1])
    return _result(classes, psi, *_run(X, yi, k, psi, mv, dim, 1.0, 0, max_updates, _NO_CAP))


def _perc_warmup():
    X = np.array([[1.0, 0.2], [0.1, 1.0], [-1.0, -1.0]])
    return X, np.array([0, 1, 2], dtype=np.int64), 3, 100, 10, 1.0, 0


def _online(X, y, psi, eta, max_epochs, max_updates, rule):
    X, classes, yi = _prepare(X, y)
    k = len(classes)
    psi_used, mv, dim = resolve_psi(psi, k, X.shape[1])
    eta = check_positive(eta, "eta")
    max_epochs = check_int(max_epochs, "max_epochs", minimum=1)
    cap = _NO_CAP if max_updates is None else check_int(max_updates, "max_updates", minimum=0)
    run = _run(X, yi, k, psi_used, mv, dim, eta, rule, cap, max_epochs)
    # Kesler's and the conservative perceptron take no Ψ: their result's psi stays None
    return _result(classes, psi_used if rule == 2 else None, *run)


@jit(warmup=_perc_warmup)
def _perceptron_kernel(X, yi, k, max_updates, max_epochs, eta, rule):
    """Passes over the data in order until a pass makes no update, ``max_epochs``
    passes, or ``max_updates`` updates. At (x, y), with the scores s of the current W:
    rule 0 (batch / conservative): the strongest competitor j* (smallest index on
    ties) if s[y] − s[j*] <= 0; rule 1 (Kesler): every j ≠ y with s[y] − s[j] <= 0;
    rule 2 (Collins): z = argmax over all labels (smallest index) if z ≠ y.
    Each chosen j gets w_y += ηx, w_j −= ηx."""
    m, n = X.shape
    W = np.zeros((k, n))
    s = np.empty(k)
    viol = np.zeros(k, dtype=np.bool_)
    n_upd = 0
    n_mis = 0
    epochs = 0
    converged = False
    while epochs < max_epochs and n_upd < max_updates:
        epochs += 1
        updated = False
        for i in range(m):
            y = yi[i]
            _row_scores(W, X, i, s)
            for c in range(k):
                viol[c] = False
            if rule == 1:
                for c in range(k):
                    if c != y and s[y] - s[c] <= 0.0:
                        viol[c] = True
            elif rule == 0:
                jb = -1
                best = -np.inf
                for c in range(k):
                    if c != y and s[c] > best:
                        best = s[c]
                        jb = c
                if s[y] - s[jb] <= 0.0:
                    viol[jb] = True
            else:
                z = 0
                for c in range(1, k):
                    if s[c] > s[z]:
                        z = c
                if z != y:
                    viol[z] = True
            hit = False
            for c in range(k):
                if viol[c] and n_upd < max_updates:
                    for j in range(n):
                        W[y, j] += eta * X[i, j]
                        W[c, j] -= eta * X[i, j]
                    n_upd += 1
                    hit = True
            if hit:
                n_mis += 1
                updated = True
            if n_upd >= max_updates:
                break
        if not updated:
            converged = True
            break
    return W, n_upd, n_mis, epochs, converged


def kesler_perceptron(
    X, y, eta: float = 1.0, max_epochs: int = 100, max_updates: int | None = None
) -> MulticlassPerceptronResult:
    """The perceptron in Kesler space, written with one weight vector per class (slides).

    Online passes over the examples in order; at (x, i), with the scores of the current
    W, every competitor j ≠ i with (w_i − w_j)·x <= 0 is a violated constraint
    ⟨W, x_ij⟩ <= 0, and each one triggers w_i ← w_i + ηx (promotion) and
    w_j ← w_j − ηx (demotion). ⚠ The slides test "< 0", which from W = 0 never fires
    (the binary perceptron's ≥ 0 slip again); we use <= 0. Stops after a pass without
    violation (``converged``), ``max_epochs`` passes or ``max_updates`` promote/demote
    pairs (None: no cap). ``n_updates`` counts promote/demote pairs, ``n_mistakes`` the
    examples with at least one.
    """
    return _online(X, y, None, eta, max_epochs, max_updates, 1)


def conservative_perceptron(
    X, y, eta: float = 1.0, max_epochs: int = 100, max_updates: int | None = None
) -> MulticlassPerceptronResult:
    """The conservative multiclass perceptron (slides; the SNoW/LBJava update).

    At (x, i): j* = argmax_{j ≠ i} w_j·x (smallest index on ties); if
    (w_i − w_j*)·x <= 0, then w_i ← w_i + ηx and w_j* ← w_j* − ηx; nothing else changes.
    With η = 1 it follows exactly the path of :func:`multiclass_perceptron` (our scan
    order picks the same competitor). Stops after a pass without mistake, ``max_epochs``
    passes or ``max_updates`` updates (None: no cap).
    """
    return _online(X, y, None, eta, max_epochs, max_updates, 0)


def collins_perceptron(
    X, y, psi=None, eta: float = 1.0, max_epochs: int = 100, max_updates: int | None = None
) -> MulticlassPerceptronResult:
    """Collins' multiclass perceptron (HSS2 §2.2.1, Collins 2002).

    Online passes in order; z = argmax_y ⟨w, φ(x, y)⟩ over *all* labels, including the
    true one; if z ≠ y: w ← w + η(φ(x, y) − φ(x, z)). ⚠ The source leaves ties
    unspecified (at w = 0 every label ties): we take the smallest class index, so an
    example whose label ties with a smaller index counts as a mistake, but one whose
    label is the smallest tied index does not (unlike the conservative update, which
    treats every tie as a mistake). Mistake bound (Thm 11 of HSS2): (R/γ)² for a
    unit-norm w* with margin γ.

    ``psi`` None uses the multivector map (Numba); any other class-sensitive feature
    map runs in Python.
    """
    return _online(X, y, psi, eta, max_epochs, max_updates, 2)
