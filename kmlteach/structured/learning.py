"""Learning a chain model: SGD for multiclass learning with the Viterbi DP as the
argmax oracle (UML §17.2.5 + §17.3), Collins' structured perceptron (HSS2 §2.2.1),
and prediction / letter error of a trained model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import (
    as_matrix,
    check_bool,
    check_finite_result,
    check_int,
    check_int_labels,
    check_positive,
    check_rng,
    check_sequences,
)
from kmlteach.structured.viterbi import _viterbi_fill, viterbi

__all__ = ["ChainModel", "structured_sgd", "structured_perceptron", "predict", "letter_error"]


@dataclass(frozen=True)
class ChainModel:
    """A learned chain model: ``W_unary`` (q, n), ``W_pair`` (q, q), flat ``w``.

    ``W_unary_last`` / ``W_pair_last`` are the last iterate; ``n_updates`` counts the
    non-zero updates (perceptron mistakes); ``history`` holds the number of mistakes
    of each perceptron epoch (empty for SGD).

    Source: UML §17.3, HSS2 §2.2.1.
    """

    W_unary: np.ndarray
    W_pair: np.ndarray
    w: np.ndarray
    W_unary_last: np.ndarray
    W_pair_last: np.ndarray
    n_updates: int
    history: np.ndarray

    def predict(self, X):
        return predict(self, X)


# ----------------------------------------------------------------------------- learning
def _warm_learn():
    X = np.zeros((3, 2))
    y = np.zeros(3, dtype=np.int64)
    off = np.array([0, 3], dtype=np.int64)
    return (
        X,
        y,
        off,
        np.zeros(2, dtype=np.int64),
        0.1,
        2,
        1,
        np.zeros((2, 2)),
        np.zeros((2, 2)),
        np.zeros((2, 2)),
        np.zeros((2, 2)),
    )


@jit(nogil=True, warmup=_warm_learn)  # nogil: chapter 05's noise widget trains in a thread
def _structured_learn_kernel(X, y, offsets, order, eta, q, mode, Wu, Wp, Su, Sp):
    """mode 1: SGD with loss-augmented argmax (UML §17.2.5); mode 0/2: perceptron
    (plain argmax; 2 = without transitions); mode 3: SGD without transitions.
    Accumulates Σ_t w^(t) (before each update, w^(1) = 0 included) in Su, Sp.
    Returns the number of non-zero updates."""
    n = X.shape[1]
    rmax = 0
    for i in range(offsets.shape[0] - 1):
        rmax = max(rmax, offsets[i + 1] - offsets[i])
    U = np.empty((rmax, q))
    M = np.empty((rmax, q))
    I = np.empty((rmax, q), dtype=np.int64)
    lab = np.empty(rmax, dtype=np.int64)
    rows = np.arange(rmax)  # the unary table U is read row by row
    init = np.zeros(q)
    Pz = np.zeros((q, q))
    use_pair = mode == 0 or mode == 1
    loss_aug = mode == 1 or mode == 3
    WuT = Wu.T.copy()
    updates = 0
    for k in range(order.shape[0]):
        Su += Wu
        Sp += Wp
        i = order[k]
        a, b = offsets[i], offsets[i + 1]
        r = b - a
        for t in range(r):
            # U[t, s] = Σ_j Wu[s, j] x[t, j], summed over j in order; the loop over s is
            # innermost (on the transposed copy WuT) so that it vectorises
            for s in range(q):
                U[t, s] = 0.0
            for j in range(n):
                xj = X[a + t, j]
                for s in range(q):
                    U[t, s] += WuT[j, s] * xj
            if loss_aug:
                for s in range(q):
                    if s != y[a + t]:
                        U[t, s] += 1.0
        if use_pair:
            _viterbi_fill(U[:r], rows[:r], Wp, init, M[:r], I[:r], lab[:r])
        else:
            _viterbi_fill(U[:r], rows[:r], Pz, init, M[:r], I[:r], lab[:r])
        differs = False
        for t in range(r):
            if lab[t] != y[a + t]:
                differs = True
        if not differs:
            continue
        updates += 1
        step = eta / r
        for t in range(r):
            yh, yt = lab[t], y[a + t]
            if yh != yt:
                for j in range(n):
                    Wu[yh, j] -= step * X[a + t, j]
                    Wu[yt, j] += step * X[a + t, j]
                    WuT[j, yh] = Wu[yh, j]
                    WuT[j, yt] = Wu[yt, j]
            if use_pair and t > 0:
                Wp[lab[t - 1], yh] -= step
                Wp[y[a + t - 1], yt] += step
    return updates


def _model(Wu, Wp, Su, Sp, T, average, updates, history):
    if average:
        Au, Ap = Su / T, Sp / T
    else:
        Au, Ap = Wu.copy(), Wp.copy()
    return ChainModel(
        W_unary=Au,
        W_pair=Ap,
        w=np.concatenate([Au.ravel(), Ap.ravel()]),
        W_unary_last=Wu,
        W_pair_last=Wp,
        n_updates=int(updates),
        history=np.asarray(history, dtype=float),
    )


def structured_sgd(
    X, Y, eta: float = 0.1, T: int = 1000, seed=None, n_labels: int = 26, transitions: bool = True
) -> ChainModel:
    """SGD for multiclass learning (UML §17.2.5) on chains, with the DP as oracle.

    w⁽¹⁾ = 0; for t = 1..T: draw i uniformly (``rng.integers(0, m, size=T)``), find
    ŷ = argmax_{y'} Δ(y', y_i) + ⟨w⁽ᵗ⁾, Ψ(x_i, y') − Ψ(x_i, y_i)⟩ with
    :func:`loss_augmented_viterbi` (Δ = mean Hamming), set v_t = Ψ(x_i, ŷ) − Ψ(x_i, y_i)
    and w⁽ᵗ⁺¹⁾ = w⁽ᵗ⁾ − η v_t. Output w̄ = (1/T) Σ_{t=1..T} w⁽ᵗ⁾.

    Parameters
    ----------
    X : list of (r_i, n) arrays;  Y : list of int arrays with labels in 0..n_labels-1
    eta : float > 0;  T : int >= 1;  seed : int or None
    transitions : bool, default=True
        False drops the type-2 features: an independent per-letter multiclass model
        with the same type-1 features (the baseline of the chapter).
    """
    Xc, yc, off, q = check_sequences(X, Y, n_labels)
    eta = check_positive(eta, "eta")
    T = check_int(T, "T")
    rng = check_rng(seed)
    check_bool(transitions, "transitions")
    order = rng.integers(0, off.shape[0] - 1, size=T).astype(np.int64)
    n = Xc.shape[1]
    Wu, Wp, Su, Sp = np.zeros((q, n)), np.zeros((q, q)), np.zeros((q, n)), np.zeros((q, q))
    upd = _structured_learn_kernel(Xc, yc, off, order, eta, q, 1 if transitions else 3, Wu, Wp, Su, Sp)
    check_finite_result("eta", Wu, Wp, Su, Sp)
    return _model(Wu, Wp, Su, Sp, T, True, upd, [])


def structured_perceptron(
    X,
    Y,
    epochs: int = 5,
    eta: float = 1.0,
    seed=None,
    n_labels: int = 26,
    average: bool = True,
    transitions: bool = True,
) -> ChainModel:
    """Collins' perceptron for structured outputs (HSS2 §2.2.1; Collins 2002).

    w = 0; in each epoch visit the examples in a random order (``rng.permutation``);
    predict z = argmax_y ⟨w, Ψ(x_i, y)⟩ with :func:`viterbi`; if z ≠ y_i set
    w ← w + η (Ψ(x_i, y_i) − Ψ(x_i, z)). Ψ is the chain map of this module (with its
    1/r). With ``average`` the output is the mean of w over all visits (the averaged
    perceptron); ``history`` holds the mistakes of each epoch.
    """
    Xc, yc, off, q = check_sequences(X, Y, n_labels)
    epochs = check_int(epochs, "epochs")
    eta = check_positive(eta, "eta")
    rng = check_rng(seed)
    check_bool(average, "average")
    check_bool(transitions, "transitions")
    m = off.shape[0] - 1
    n = Xc.shape[1]
    Wu, Wp, Su, Sp = np.zeros((q, n)), np.zeros((q, q)), np.zeros((q, n)), np.zeros((q, q))
    history, total = [], 0
    for _ in range(epochs):
        order = rng.permutation(m).astype(np.int64)
        k = _structured_learn_kernel(Xc, yc, off, order, eta, q, 0 if transitions else 2, Wu, Wp, Su, Sp)
        history.append(k)
        total += k
        if k == 0:
            break
    check_finite_result("eta", Wu, Wp, Su, Sp)
    return _model(Wu, Wp, Su, Sp, m * len(history), average, total, history)


def predict(model, X) -> list:
    """Viterbi decoding of every word with a :class:`ChainModel`. Source: UML §17.3."""
    if not isinstance(model, ChainModel):
        raise TypeError(
            f"model must be a ChainModel (from structured_sgd or "
            f"structured_perceptron), got {type(model).__name__}"
        )
    if isinstance(X, np.ndarray) and X.ndim == 2:
        X = [X]
    if not isinstance(X, (list, tuple)) or len(X) == 0:
        raise TypeError(f"X must be a non-empty list of (r_i, n) arrays, got {type(X).__name__}")
    n = model.W_unary.shape[1]
    out = []
    for i, x in enumerate(X):
        xa = as_matrix(x, f"X[{i}]", n_cols=n)
        out.append(viterbi(xa @ model.W_unary.T, model.W_pair).labels)
    return out


def letter_error(model, X, Y) -> float:
    """Fraction of all letters of the sample that :func:`predict` gets wrong.

    Source: UML §17.3 (Δ = mean Hamming).
    """
    pred = predict(model, X)
    if not isinstance(Y, (list, tuple)) or len(Y) != len(pred):
        raise ValueError(f"Y must be a list with one label array per word ({len(pred)})")
    wrong = 0
    for t, (p, y) in enumerate(zip(pred, Y)):
        yt = check_int_labels(y, f"Y[{t}]")
        if yt.shape != p.shape:
            raise ValueError(
                f"Y[{t}] must have one label per letter of X[{t}] ({p.shape[0]}), got {yt.shape[0]}"
            )
        wrong += int(np.sum(p != yt))
    return wrong / sum(len(p) for p in pred)
