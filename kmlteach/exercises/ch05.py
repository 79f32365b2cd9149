"""Exercises of chapter 05 (structured output prediction, UML §17.3)."""

from __future__ import annotations

import numpy as np

from ..structured import chain_score, loss_augmented_viterbi, viterbi
from .core import Case, Exercise, exact, register
from .quiz import Question, register_question


def _rng(seed):
    return np.random.default_rng(seed)


# 05.chain_score — UML §17.3, Eq. (17.4) ---------------------------------------------------

def score(x, y, W_unary, W_pair):
    """Σ_t ⟨W_unary[y_t], x_t⟩ + Σ_{t≥1} W_pair[y_{t-1}, y_t] (rows of x are letters)."""
    return chain_score(x, y, W_unary, W_pair)


def _score_cases():
    r = _rng(51)
    cases = [Case((np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([0, 1]),
                   np.array([[2.0, 0.0], [0.0, 3.0]]), np.array([[0.0, 0.5], [-1.0, 0.0]])),
                  label="two letters: 2 + 3 + W_pair[0, 1] = 5.5"),
             Case((np.array([[1.0, 2.0, 3.0]]), np.array([1]), np.arange(6.0).reshape(2, 3),
                   np.ones((2, 2))), label="one letter: no bigram term")]
    for _ in range(5):
        q, n, length = int(r.integers(2, 5)), int(r.integers(1, 6)), int(r.integers(2, 7))
        cases.append(Case((r.random((length, n)), r.integers(0, q, length), r.normal(size=(q, n)),
                           r.normal(size=(q, q)))))
    return cases


register(Exercise(
    id="05.chain_score", title="score of a labelling (UML (17.4))",
    reference=score, cases=_score_cases,
    minutes=8,
    hint=(
        'The chain score is a sum of two kinds of terms: one per letter (pixels × letter '
        'weights) and one per pair of neighbouring letters (UML (17.4)).',
        'For the letters, select the weight row of each true letter and multiply with '
        "that letter's pixels; for the pairs, look up W_pair[previous, next] for the r − "
        '1 bigrams.',
        "W_unary[y] picks one weight row per letter, so np.sum(W_unary[y] * x) is the type-1 "
        "part; W_pair[y[:-1], y[1:]] lists the weights of the r - 1 bigrams.",
    ),
    solution=("def score(x, y, W_unary, W_pair):\n"
              "    return float(np.sum(W_unary[y] * x) + np.sum(W_pair[y[:-1], y[1:]]))\n"),
))


# 05.viterbi — UML §17.3, Eq. (17.5) -------------------------------------------------------

def viterbi_decode(unary, pairwise):
    """The labelling maximising Σ_t unary[t, y_t] + Σ_t pairwise[y_{t-1}, y_t]
    (smallest index on ties), as an int array of length r."""
    return viterbi(unary, pairwise).labels


def _viterbi_cases():
    r = _rng(52)
    cases = [Case((np.array([[1.0, 0.0], [0.0, 0.2], [0.0, 0.2]]), np.array([[0.0, -1.0], [0.0, 0.5]])),
                  label="three positions, two labels"),
             Case((np.zeros((3, 3)), np.zeros((3, 3))), label="all ties: smallest indices")]
    for _ in range(6):
        q, length = int(r.integers(2, 6)), int(r.integers(1, 9))
        cases.append(Case((r.normal(size=(length, q)), r.normal(size=(q, q)))))
    return cases


register(Exercise(
    id="05.viterbi", title="the Viterbi recursion (UML (17.5))",
    reference=viterbi_decode, cases=_viterbi_cases, compare=exact(),
    prepare=lambda got: np.asarray(got, dtype=np.int64),
    minutes=20,
    hint=(
        'Dynamic programming: the best prefix ending in letter s at step τ extends the '
        "best prefix ending in some s' at step τ − 1 (UML (17.5)); remember which s' won.",
        'Fill a table M (q × r) column by column and a table I of the winning '
        'predecessors; the answer ends at the best cell of the last column, and I leads '
        'back from there.',
        "Keep M with one column per position: M[:, 0] = unary[0]; for τ ≥ 1, "
        "cand = M[:, τ-1][:, None] + pairwise is indexed [s', s]; M[:, τ] = cand.max(0) + "
        "unary[τ] and I[:, τ] = cand.argmax(0). Then start from argmax M[:, -1] and follow I "
        "backwards (np.argmax returns the smallest index on ties).",
    ),
    solution=("def viterbi_decode(unary, pairwise):\n"
              "    r, q = unary.shape\n"
              "    M = np.zeros((q, r))\n"
              "    I = np.zeros((q, r), dtype=int)\n"
              "    M[:, 0] = unary[0]\n"
              "    for tau in range(1, r):\n"
              "        cand = M[:, tau - 1][:, None] + pairwise\n"
              "        I[:, tau] = cand.argmax(axis=0)\n"
              "        M[:, tau] = cand.max(axis=0) + unary[tau]\n"
              "    y = np.zeros(r, dtype=int)\n"
              "    y[-1] = np.argmax(M[:, -1])\n"
              "    for tau in range(r - 1, 0, -1):\n"
              "        y[tau - 1] = I[y[tau], tau]\n"
              "    return y\n"),
))


# 05.loss_augmented — UML exercise 17.3 ----------------------------------------------------

def loss_augmented(unary, pairwise, y_true):
    """argmax_y Σ_t 1[y_t ≠ y_true_t] + Σ_t unary[t, y_t] + Σ_t pairwise[y_{t-1}, y_t]."""
    return loss_augmented_viterbi(unary, pairwise, y_true).labels


def _loss_aug_cases():
    r = _rng(53)
    cases = [Case((np.array([[0.5, 0.0], [0.5, 0.0]]), np.zeros((2, 2)), np.array([0, 0])),
                  label="the loss (+1 per wrong letter) outweighs a 0.5 preference"),
             Case((np.array([[3.0, 0.0], [0.0, 3.0]]), np.zeros((2, 2)), np.array([0, 1])),
                  label="a margin of 3 keeps the true labelling")]
    for _ in range(6):
        q, length = int(r.integers(2, 6)), int(r.integers(1, 8))
        cases.append(Case((r.normal(size=(length, q)), r.normal(size=(q, q)),
                           r.integers(0, q, length))))
    return cases


register(Exercise(
    id="05.loss_augmented", title="loss-augmented decoding (UML ex. 17.3)",
    reference=loss_augmented, cases=_loss_aug_cases, compare=exact(),
    prepare=lambda got: np.asarray(got, dtype=np.int64),
    minutes=12,
    hint=(
        'Loss-augmented decoding maximises score + Hamming loss; the Hamming loss is a '
        'sum over positions, just like the letter terms of the score (UML ex. 17.3).',
        'Add the per-position loss to the unary scores, then decode as usual with '
        'Viterbi.',
        "The Hamming loss is a sum over positions, so add it to the unary scores: "
        "cost[t, s] = 1 if s != y_true[t] else 0; then decode unary + cost with your Viterbi.",
    ),
    solution=("def loss_augmented(unary, pairwise, y_true):\n"
              "    q = unary.shape[1]\n"
              "    cost = (np.arange(q)[None, :] != np.asarray(y_true)[:, None]).astype(float)\n"
              "    return viterbi_decode(unary + cost, pairwise)\n"),
))
