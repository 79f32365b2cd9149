"""Structured output prediction on chains (UML §17.3, HSS2 §2.2.1 and §2.4).

A word image ``x`` is an (r, n) array, one row per letter image (UML writes it as an
n x r matrix with one column per letter). A labelling ``y`` is a sequence of r labels
in 0..q-1. The chain feature map of UML §17.3 has two blocks (d = nq + q²):

* type 1 (pixel x letter): Ψ¹[j, i] = (1/r) Σ_t x[t, i] 1[y_t = j]
* type 2 (letter bigram):  Ψ²[a, b] = (1/r) Σ_{t≥2} 1[y_{t-1} = a] 1[y_t = b]

so a weight vector is a pair ``W_unary`` (q, n) and ``W_pair`` (q, q), flattened as
``w = concat(W_unary.ravel(), W_pair.ravel())``. Note the order: ``W_pair[a, b]``
scores b *right after* a, the convention of :func:`viterbi`; UML indexes its type-2
feature (i, j) as "i follows j", i.e. our ``[j, i]``. The book's Ψ carries a factor
1/r; the objective of Eq. (17.4), Σ_t ⟨w, φ(x, y_t, y_{t-1})⟩, does not, so
:func:`chain_score` (= Eq. (17.4)) equals r ⟨w, Ψ(x, y)⟩.

Tie rule used everywhere (Viterbi, brute force, learners): the smallest label index
wins each argmax. For whole labellings this selects, among all maximisers, the one
that is smallest when compared from the *last* position backwards.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ._jit import jit
from ._validation import as_matrix, as_vector, check_int, check_positive, check_rng

__all__ = ["ViterbiResult", "ChainModel", "TaxonomyDelta", "viterbi", "brute_force_argmax",
           "loss_augmented_viterbi", "psi", "chain_score", "unary_scores", "hamming_loss",
           "structured_sgd", "structured_perceptron", "predict", "letter_error",
           "taxonomy_delta", "taxonomy_hinge", "HSS_TAXONOMY"]


# ----------------------------------------------------------------------------- results
@dataclass(frozen=True)
class ViterbiResult:
    """Output of :func:`viterbi`: ``labels`` (r,), ``score`` and the trace.

    ``M[s, τ]`` is the best score of a prefix of length τ+1 ending in label s
    (UML Eq. (17.5)); ``backpointers[s, τ]`` is the s' achieving it (-1 in column 0).
    """
    labels: np.ndarray
    score: float
    M: np.ndarray
    backpointers: np.ndarray


@dataclass(frozen=True)
class ChainModel:
    """A learned chain model: ``W_unary`` (q, n), ``W_pair`` (q, q), flat ``w``.

    ``W_unary_last`` / ``W_pair_last`` are the last iterate; ``n_updates`` counts the
    non-zero updates (perceptron mistakes); ``history`` holds the number of mistakes
    of each perceptron epoch (empty for SGD).
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


# ----------------------------------------------------------------------------- checks
def _check_scores(unary, pairwise, initial):
    U = as_matrix(unary, "unary")
    q = U.shape[1]
    P = as_matrix(pairwise, "pairwise")
    if P.shape != (q, q):
        raise ValueError(f"pairwise must have shape ({q}, {q}) to match unary's {q} labels, "
                         f"got {P.shape}")
    if initial is None:
        init = np.zeros(q)
    else:
        init = as_vector(initial, "initial", length=q)
    return U, P, init


def _check_labelling(y, name, r, q):
    if y is None or isinstance(y, (str, bytes)):
        raise TypeError(f"{name} must be a 1-D array of integer labels, got {type(y).__name__}")
    arr = np.asarray(y)
    if arr.dtype.kind not in "iuf" or arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of integer labels, got shape {arr.shape} "
                         f"and dtype {arr.dtype}")
    if r is not None and arr.shape[0] != r:
        raise ValueError(f"{name} must have length {r} (one label per position), got {arr.shape[0]}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr) & (arr == np.round(arr))):
        raise ValueError(f"{name} must contain integer labels")
    if np.any(arr < 0) or np.any(arr >= q):
        raise ValueError(f"{name} must contain labels in 0..{q - 1}, got values in "
                         f"[{arr.min():g}, {arr.max():g}]")
    return np.ascontiguousarray(arr, dtype=np.int64)


def _check_flag(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")


def _check_x(x, name="x", n=None):
    return as_matrix(x, name, n_cols=n)


def _check_weights(W_unary, W_pair, n=None):
    Wu = as_matrix(W_unary, "W_unary", n_cols=n)
    q = Wu.shape[0]
    Wp = as_matrix(W_pair, "W_pair")
    if Wp.shape != (q, q):
        raise ValueError(f"W_pair must have shape ({q}, {q}) to match W_unary's {q} rows, "
                         f"got {Wp.shape}")
    return Wu, Wp


# ----------------------------------------------------------------------------- Viterbi
@jit(warmup=lambda: (np.zeros((3, 2)), np.zeros((2, 2)), np.zeros(2), np.zeros((3, 2)),
                     np.zeros((3, 2), dtype=np.int64), np.zeros(3, dtype=np.int64)))
def _viterbi_fill(unary, pairwise, initial, Mt, It, labels):
    """UML §17.3 dynamic programme on the transposed layout: fills Mt[τ, s] = M[s, τ],
    It[τ, s] = I[s, τ] and labels (r,). Returns the max.

    The max over s' runs as the outer loop, so that the inner loop over s is an
    element-wise compare-and-select that the compiler vectorises; visiting s' in
    increasing order with a strict ``>`` keeps the smallest index on ties."""
    r, q = unary.shape
    for s in range(q):
        Mt[0, s] = initial[s] + unary[0, s]
        It[0, s] = -1
    for tau in range(1, r):
        m0 = Mt[tau - 1, 0]
        for s in range(q):
            Mt[tau, s] = m0 + pairwise[0, s]
            It[tau, s] = 0
        for sp in range(1, q):
            m = Mt[tau - 1, sp]
            for s in range(q):
                v = m + pairwise[sp, s]
                if v > Mt[tau, s]:
                    Mt[tau, s] = v
                    It[tau, s] = sp
        for s in range(q):
            Mt[tau, s] += unary[tau, s]
    last = 0
    for s in range(1, q):
        if Mt[r - 1, s] > Mt[r - 1, last]:
            last = s
    labels[r - 1] = last
    for tau in range(r - 1, 0, -1):
        labels[tau - 1] = It[tau, labels[tau]]
    return Mt[r - 1, last]


def viterbi(unary, pairwise, initial=None) -> ViterbiResult:
    """Maximise Σ_t unary[t, y_t] + initial[y_0] + Σ_{t≥1} pairwise[y_{t-1}, y_t].

    The dynamic programme of UML §17.3, Eq. (17.5):
    M[s, 0] = initial[s] + unary[0, s] and
    M[s, τ] = max_{s'} (M[s', τ-1] + pairwise[s', s]) + unary[τ, s], with
    backpointers I[s, τ] = the maximising s'; then y_{r-1} = argmax_s M[s, r-1] and
    y_{τ-1} = I[y_τ, τ]. Ties go to the smallest label index. O(r q²) time.

    Parameters
    ----------
    unary : array (r, q)
        ``unary[t, s]`` scores label s at position t (for the chain model:
        ⟨W_unary[s], x_t⟩, see :func:`unary_scores`).
    pairwise : array (q, q)
        ``pairwise[a, b]`` scores label b right after label a.
    initial : array (q,), optional
        Score of the first label (default 0, as in UML where y_0 is a dummy).

    Returns
    -------
    ViterbiResult
        ``labels`` (r,) int64, ``score``, ``M`` (q, r), ``backpointers`` (q, r).

    Examples
    --------
    >>> viterbi([[1.0, 0.0], [0.0, 0.5]], [[0.0, 1.0], [0.0, 0.0]]).labels.tolist()
    [0, 1]
    """
    U, P, init = _check_scores(unary, pairwise, initial)
    r, q = U.shape
    Mt = np.empty((r, q))
    It = np.empty((r, q), dtype=np.int64)
    labels = np.empty(r, dtype=np.int64)
    score = _viterbi_fill(U, P, init, Mt, It, labels)
    return ViterbiResult(labels=labels, score=float(score), M=Mt.T, backpointers=It.T)


def _path_score(U, P, init, y):
    """Score of one labelling, summed in the same order as the DP."""
    total = init[y[0]] + U[0, y[0]]
    for t in range(1, len(y)):
        total = total + P[y[t - 1], y[t]] + U[t, y[t]]
    return total


def brute_force_argmax(unary, pairwise, initial=None, max_labellings: int = 2_000_000):
    """Enumerate all q**r labellings (for tests and small demonstrations).

    Same objective and tie rule as :func:`viterbi`: among maximisers, the labelling
    that is smallest when read from the last position backwards. Returns a
    :class:`ViterbiResult` whose ``M`` and ``backpointers`` are empty.
    """
    U, P, init = _check_scores(unary, pairwise, initial)
    r, q = U.shape
    max_labellings = check_int(max_labellings, "max_labellings")
    if q ** r > max_labellings:
        raise ValueError(f"unary: brute force would enumerate q**r = {q}**{r} labellings "
                         f"(more than max_labellings={max_labellings}); use viterbi")
    best, best_y = -np.inf, None
    # itertools.product is lexicographic in (y_0, ..., y_{r-1}); enumerating reversed
    # tuples makes the first strict maximum the smallest from the back.
    for rev in itertools.product(range(q), repeat=r):
        y = rev[::-1]
        s = _path_score(U, P, init, y)
        if s > best:
            best, best_y = s, y
    return ViterbiResult(labels=np.array(best_y, dtype=np.int64), score=float(best),
                         M=np.empty((q, 0)), backpointers=np.empty((q, 0), dtype=np.int64))


def loss_augmented_viterbi(unary, pairwise, y_true, initial=None, delta=None) -> ViterbiResult:
    """argmax_y Σ_t δ(y_t, y_true_t) + score(y): the oracle of SGD (UML ex. 17.3).

    With Δ(y', y) = Σ_t δ(y'_t, y_t) the loss adds to the unary scores, so the same DP
    solves it: unary'[t, s] = unary[t, s] + δ(s, y_true_t). The default δ is the
    Hamming cost 1[s ≠ y_true_t]; with UML's Δ = (1/r)·Hamming and Ψ carrying the same
    1/r, the factor cancels. ``delta`` may be any (q, q) matrix δ[predicted, true].
    The returned ``score`` includes the loss term.
    """
    U, P, init = _check_scores(unary, pairwise, initial)
    r, q = U.shape
    yt = _check_labelling(y_true, "y_true", r, q)
    D = 1.0 - np.eye(q) if delta is None else as_matrix(delta, "delta")
    if D.shape != (q, q):
        raise ValueError(f"delta must have shape ({q}, {q}), got {D.shape}")
    return viterbi(U + D[:, yt].T, P, init)


# ----------------------------------------------------------------------------- features
def unary_scores(x, W_unary) -> np.ndarray:
    """unary[t, s] = ⟨W_unary[s], x_t⟩, the type-1 part of ⟨w, φ(x, s, ·)⟩ (r, q)."""
    Wu = as_matrix(W_unary, "W_unary")
    xa = _check_x(x, "x", Wu.shape[1])
    return xa @ Wu.T


def psi(x, y, n_labels: int = 26) -> np.ndarray:
    """The explicit chain feature vector Ψ(x, y) of UML §17.3, length nq + q².

    Ψ = concat(Ψ¹.ravel(), Ψ².ravel()) with Ψ¹[j, i] = (1/r) Σ_t x[t, i] 1[y_t = j] and
    Ψ²[a, b] = (1/r) Σ_{t≥2} 1[y_{t-1} = a, y_t = b].
    """
    q = check_int(n_labels, "n_labels", minimum=1)
    xa = _check_x(x)
    r, n = xa.shape
    ya = _check_labelling(y, "y", r, q)
    F1 = np.zeros((q, n))
    np.add.at(F1, ya, xa)
    F2 = np.zeros((q, q))
    np.add.at(F2, (ya[:-1], ya[1:]), 1.0)
    return np.concatenate([F1.ravel(), F2.ravel()]) / r


def chain_score(x, y, W_unary, W_pair) -> float:
    """Σ_t ⟨w, φ(x, y_t, y_{t-1})⟩ = Σ_t ⟨W_unary[y_t], x_t⟩ + Σ_{t≥2} W_pair[y_{t-1}, y_t].

    This is the objective of UML Eq. (17.4), equal to r·⟨w, Ψ(x, y)⟩ and to
    ``viterbi(unary_scores(x, W_unary), W_pair)``'s score at its argmax.
    """
    Wu, Wp = _check_weights(W_unary, W_pair)
    xa = _check_x(x, "x", Wu.shape[1])
    ya = _check_labelling(y, "y", xa.shape[0], Wu.shape[0])
    return float(np.sum(Wu[ya] * xa) + np.sum(Wp[ya[:-1], ya[1:]]))


def hamming_loss(y_pred, y_true) -> float:
    """Δ(y', y) = (1/r) Σ_t 1[y'_t ≠ y_t] (UML §17.3)."""
    yt = np.asarray(y_true)
    if yt.ndim != 1 or yt.shape[0] == 0:
        raise ValueError(f"y_true must be a non-empty 1-D array of labels, got shape {yt.shape}")
    yp = np.asarray(y_pred)
    if yp.shape != yt.shape:
        raise ValueError(f"y_pred must have the shape of y_true {yt.shape}, got {yp.shape}")
    return float(np.mean(yp != yt))


# ----------------------------------------------------------------------------- learning
def _check_sample(X, Y, n_labels, name_X="X", name_Y="Y"):
    q = check_int(n_labels, "n_labels", minimum=2)
    if isinstance(X, np.ndarray) and X.ndim == 2:
        raise TypeError(f"{name_X} must be a list of (r_i, n) arrays (one per word), got one 2-D array")
    if not isinstance(X, (list, tuple)) or len(X) == 0:
        raise TypeError(f"{name_X} must be a non-empty list of (r_i, n) arrays, got {type(X).__name__}")
    if not isinstance(Y, (list, tuple)) or len(Y) != len(X):
        raise ValueError(f"{name_Y} must be a list with one label array per word of {name_X} "
                         f"({len(X)}), got {type(Y).__name__}"
                         + (f" of length {len(Y)}" if isinstance(Y, (list, tuple)) else ""))
    Xs, Ys = [], []
    n = None
    for i, (x, y) in enumerate(zip(X, Y)):
        xa = as_matrix(x, f"{name_X}[{i}]", n_cols=n)
        n = xa.shape[1]
        Xs.append(xa)
        Ys.append(_check_labelling(y, f"{name_Y}[{i}]", xa.shape[0], q))
    offsets = np.zeros(len(Xs) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([x.shape[0] for x in Xs])
    return np.ascontiguousarray(np.vstack(Xs)), np.concatenate(Ys), offsets, q


def _warm_learn():
    X = np.zeros((3, 2)); y = np.zeros(3, dtype=np.int64); off = np.array([0, 3], dtype=np.int64)
    return (X, y, off, np.zeros(2, dtype=np.int64), 0.1, 2, 1, np.zeros((2, 2)), np.zeros((2, 2)),
            np.zeros((2, 2)), np.zeros((2, 2)))


@jit(warmup=_warm_learn)
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
            _viterbi_fill(U[:r], Wp, init, M[:r], I[:r], lab[:r])
        else:
            _viterbi_fill(U[:r], Pz, init, M[:r], I[:r], lab[:r])
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
    return ChainModel(W_unary=Au, W_pair=Ap, w=np.concatenate([Au.ravel(), Ap.ravel()]),
                      W_unary_last=Wu, W_pair_last=Wp, n_updates=int(updates),
                      history=np.asarray(history, dtype=float))


def structured_sgd(X, Y, eta: float = 0.1, T: int = 1000, seed=None, n_labels: int = 26,
                   transitions: bool = True) -> ChainModel:
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
    Xc, yc, off, q = _check_sample(X, Y, n_labels)
    eta = check_positive(eta, "eta")
    T = check_int(T, "T")
    rng = check_rng(seed)
    _check_flag(transitions, "transitions")
    order = rng.integers(0, off.shape[0] - 1, size=T).astype(np.int64)
    n = Xc.shape[1]
    Wu, Wp, Su, Sp = np.zeros((q, n)), np.zeros((q, q)), np.zeros((q, n)), np.zeros((q, q))
    upd = _structured_learn_kernel(Xc, yc, off, order, eta, q, 1 if transitions else 3,
                                   Wu, Wp, Su, Sp)
    return _model(Wu, Wp, Su, Sp, T, True, upd, [])


def structured_perceptron(X, Y, epochs: int = 5, eta: float = 1.0, seed=None,
                          n_labels: int = 26, average: bool = True,
                          transitions: bool = True) -> ChainModel:
    """Collins' perceptron for structured outputs (HSS2 §2.2.1; Collins 2002).

    w = 0; in each epoch visit the examples in a random order (``rng.permutation``);
    predict z = argmax_y ⟨w, Ψ(x_i, y)⟩ with :func:`viterbi`; if z ≠ y_i set
    w ← w + η (Ψ(x_i, y_i) − Ψ(x_i, z)). Ψ is the chain map of this module (with its
    1/r). With ``average`` the output is the mean of w over all visits (the averaged
    perceptron); ``history`` holds the mistakes of each epoch.
    """
    Xc, yc, off, q = _check_sample(X, Y, n_labels)
    epochs = check_int(epochs, "epochs")
    eta = check_positive(eta, "eta")
    rng = check_rng(seed)
    _check_flag(average, "average")
    _check_flag(transitions, "transitions")
    m = off.shape[0] - 1
    n = Xc.shape[1]
    Wu, Wp, Su, Sp = np.zeros((q, n)), np.zeros((q, q)), np.zeros((q, n)), np.zeros((q, q))
    history, total = [], 0
    for _ in range(epochs):
        order = rng.permutation(m).astype(np.int64)
        k = _structured_learn_kernel(Xc, yc, off, order, eta, q, 0 if transitions else 2,
                                     Wu, Wp, Su, Sp)
        history.append(k)
        total += k
        if k == 0:
            break
    return _model(Wu, Wp, Su, Sp, m * len(history), average, total, history)


def predict(model, X) -> list:
    """Viterbi decoding of every word with a :class:`ChainModel`."""
    if not isinstance(model, ChainModel):
        raise TypeError(f"model must be a ChainModel (from structured_sgd or "
                        f"structured_perceptron), got {type(model).__name__}")
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
    """Fraction of all letters of the sample that :func:`predict` gets wrong."""
    pred = predict(model, X)
    if not isinstance(Y, (list, tuple)) or len(Y) != len(pred):
        raise ValueError(f"Y must be a list with one label array per word ({len(pred)})")
    wrong = sum(int(np.sum(p != np.asarray(y))) for p, y in zip(pred, Y))
    return wrong / sum(len(p) for p in pred)


from ._taxonomy import HSS_TAXONOMY, TaxonomyDelta, taxonomy_delta, taxonomy_hinge  # noqa: E402,F401
