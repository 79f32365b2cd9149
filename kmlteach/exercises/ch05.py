"""Exercises of chapter 05 (structured output prediction, UML §17.3).

Only the code of each exercise's record in ``records/ch05.toml`` (see :mod:`.record`): the
reference implementation, the visible cases and any catalogued mistake's wrong implementation.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ..structured import chain_score, loss_augmented_viterbi, viterbi
from .model import Case


def _rng(seed):
    return np.random.default_rng(seed)


# 05.chain_score — UML §17.3, Eq. (17.4) ---------------------------------------------------


def score(x, y, W_unary, W_pair):
    """Σ_t ⟨W_unary[y_t], x_t⟩ + Σ_{t≥1} W_pair[y_{t-1}, y_t] (rows of x are letters)."""
    return chain_score(x, y, W_unary, W_pair)


def _score_cases():
    r = _rng(51)
    cases = [
        Case(
            (
                np.array([[1.0, 0.0], [0.0, 1.0]]),
                np.array([0, 1]),
                np.array([[2.0, 0.0], [0.0, 3.0]]),
                np.array([[0.0, 0.5], [-1.0, 0.0]]),
            ),
            label="two letters: 2 + 3 + W_pair[0, 1] = 5.5",
        ),
        Case(
            (np.array([[1.0, 2.0, 3.0]]), np.array([1]), np.arange(6.0).reshape(2, 3), np.ones((2, 2))),
            label="one letter: no bigram term",
        ),
    ]
    for _ in range(5):
        q, n, length = int(r.integers(2, 5)), int(r.integers(1, 6)), int(r.integers(2, 7))
        cases.append(
            Case(
                (
                    r.random((length, n)),
                    r.integers(0, q, length),
                    r.normal(size=(q, n)),
                    r.normal(size=(q, q)),
                ),
                label=f"random x, y and weights: {length} letters of {n} pixels, {q} labels",
            )
        )
    return cases


# 05.viterbi — UML §17.3, Eq. (17.5) -------------------------------------------------------


def viterbi_decode(unary, pairwise):
    """The labelling maximising Σ_t unary[t, y_t] + Σ_t pairwise[y_{t-1}, y_t]
    (smallest index on ties), as an int array of length r."""
    return viterbi(unary, pairwise).labels


def _viterbi_cases():
    r = _rng(52)
    cases = [
        Case(
            (np.array([[1.0, 0.0], [0.0, 0.2], [0.0, 0.2]]), np.array([[0.0, -1.0], [0.0, 0.5]])),
            label="three positions, two labels",
        ),
        Case((np.zeros((3, 3)), np.zeros((3, 3))), label="all ties: smallest indices"),
    ]
    for _ in range(6):
        q, length = int(r.integers(2, 6)), int(r.integers(1, 9))
        cases.append(
            Case(
                (r.normal(size=(length, q)), r.normal(size=(q, q))),
                label=f"random scores, {length} positions, {q} labels",
            )
        )
    return cases


# 05.loss_augmented — UML exercise 17.3 ----------------------------------------------------


def loss_augmented(unary, pairwise, y_true):
    """argmax_y Σ_t 1[y_t ≠ y_true_t] + Σ_t unary[t, y_t] + Σ_t pairwise[y_{t-1}, y_t]."""
    return loss_augmented_viterbi(unary, pairwise, y_true).labels


def _loss_aug_cases():
    r = _rng(53)
    cases = [
        Case(
            (np.array([[0.5, 0.0], [0.5, 0.0]]), np.zeros((2, 2)), np.array([0, 0])),
            label="the loss (+1 per wrong letter) outweighs a 0.5 preference",
        ),
        Case(
            (np.array([[3.0, 0.0], [0.0, 3.0]]), np.zeros((2, 2)), np.array([0, 1])),
            label="a margin of 3 keeps the true labelling",
        ),
    ]
    for _ in range(6):
        q, length = int(r.integers(2, 6)), int(r.integers(1, 8))
        cases.append(
            Case(
                (r.normal(size=(length, q)), r.normal(size=(q, q)), r.integers(0, q, length)),
                label=f"random scores and y_true, {length} positions, {q} labels",
            )
        )
    return cases


# 05.score_coefficients — a derivation: the score is linear in w (UML §17.3) --------------


def score_coefficients(x, y, q):
    """(G_unary (q, n), G_pair (q, q)) with chain score = ⟨G_unary, W_unary⟩ + ⟨G_pair, W_pair⟩:
    G_unary[s] = Σ_{t: y_t = s} x_t and G_pair[a, b] = #{t ≥ 1: (y_{t-1}, y_t) = (a, b)}.
    They are r·Ψ(x, y) (UML's Ψ divides both feature types by r)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=np.int64)
    Gu = np.zeros((q, x.shape[1]))
    np.add.at(Gu, y, x)
    Gp = np.zeros((q, q))
    np.add.at(Gp, (y[:-1], y[1:]), 1.0)
    return Gu, Gp


def _coef_cases():
    r = _rng(54)
    cases = [
        Case(
            (np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]]), np.array([0, 0, 0]), 2),
            label="'aaa': one letter three times, the bigram (a, a) twice",
        ),
        Case((np.array([[1.0, 2.0, 3.0]]), np.array([1]), 3), label="one letter: no bigram"),
    ]
    for _ in range(5):
        q, n, length = int(r.integers(2, 5)), int(r.integers(1, 6)), int(r.integers(2, 8))
        cases.append(
            Case(
                (r.random((length, n)), r.integers(0, q, length), q),
                label=f"random x and y: {length} letters of {n} pixels, {q} labels",
            )
        )
    return cases


# Catalogued mistakes (wrong implementations the records' ``mistakes`` name) -------------


def _score_parts(x, y, W_unary, W_pair, *, wrap=False, transposed=False, pairs=True):
    x, y = np.asarray(x, dtype=float), np.asarray(y)
    Wu, Wp = np.asarray(W_unary, dtype=float), np.asarray(W_pair, dtype=float)
    total = float(sum(Wu[y[t]] @ x[t] for t in range(len(y))))
    if pairs:
        Wp = Wp.T if transposed else Wp
        total += float(sum(Wp[y[t - 1], y[t]] for t in range(0 if wrap else 1, len(y))))
    return total


_score_from_first = partial(_score_parts, wrap=True)
_score_pair_transposed = partial(_score_parts, transposed=True)
_score_no_pairs = partial(_score_parts, pairs=False)


def _viterbi(
    unary, pairwise, *, reverse=False, transposed=False, ties_last=False, first_unary=True, pointer_shift=0
):
    U, P = np.asarray(unary, dtype=float), np.asarray(pairwise, dtype=float)
    P = P.T if transposed else P
    r, q = U.shape
    pick = (lambda v: q - 1 - int(np.argmax(v[::-1]))) if ties_last else (lambda v: int(np.argmax(v)))
    best, back = (U[0].copy() if first_unary else np.zeros(q)), np.zeros((r, q), dtype=np.int64)
    for t in range(1, r):
        cand = best[:, None] + P
        back[t] = [pick(cand[:, b]) for b in range(q)]
        best = cand[back[t], np.arange(q)] + U[t]
    path = [pick(best)]
    for t in range(r - 1, 0, -1):  # pointer_shift=1 reads the column of the position before
        path.append(int(back[t - pointer_shift, path[-1]]))
    return np.array(path if reverse else path[::-1], dtype=np.int64)


_viterbi_reversed = partial(_viterbi, reverse=True)
_viterbi_transposed = partial(_viterbi, transposed=True)
_viterbi_ties_last = partial(_viterbi, ties_last=True)
_viterbi_no_first_unary = partial(_viterbi, first_unary=False)
_viterbi_pointer_off_by_one = partial(_viterbi, pointer_shift=1)


def _viterbi_greedy(unary, pairwise):
    return np.argmax(np.asarray(unary, dtype=float), axis=1)


def _hamming(unary, y_true):
    U = np.asarray(unary, dtype=float)
    return (np.arange(U.shape[1])[None, :] != np.asarray(y_true)[:, None]).astype(float)


def _loss_aug_on_pairs(unary, pairwise, y_true):
    P = np.asarray(pairwise, dtype=float)
    return viterbi(unary, P + 1.0 - np.eye(len(P))).labels


def _loss_aug_subtracted(unary, pairwise, y_true):
    return viterbi(np.asarray(unary, dtype=float) - _hamming(unary, y_true), pairwise).labels


def _loss_aug_plain(unary, pairwise, y_true):
    return viterbi(unary, pairwise).labels


def _coef_parts(x, y, q, *, buffered=False, transposed=False, wrap=False, per_letter=False):
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=np.int64)
    Gu, Gp = np.zeros((q, x.shape[1])), np.zeros((q, q))
    if buffered:
        Gu[y] += x  # repeated labels are added once
    else:
        np.add.at(Gu, y, x)
    a, b = (np.r_[y[-1:], y[:-1]], y) if wrap else (y[:-1], y[1:])
    np.add.at(Gp, (b, a) if transposed else (a, b), 1.0)
    return (Gu / len(y), Gp / len(y)) if per_letter else (Gu, Gp)


_coef_buffered = partial(_coef_parts, buffered=True)
_coef_transposed = partial(_coef_parts, transposed=True)
_coef_divided = partial(_coef_parts, per_letter=True)
_coef_wrap = partial(_coef_parts, wrap=True)
