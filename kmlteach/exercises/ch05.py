"""Exercises of chapter 05 (structured output prediction, UML §17.3)."""

from __future__ import annotations

import numpy as np

from ..structured import chain_score, loss_augmented_viterbi, viterbi
from .core import Case, Exercise, allclose, exact, register
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


# Concept checks (predict, then reveal) and the recap quiz --------------------------------

register_question(Question(
    id="05.c_cost", kind="concept",
    prompt=("A 5-letter word over q = 26 letters has 26⁵ ≈ 1.2·10⁷ labellings. About how many "
            "additions does the Viterbi recursion need to find the best one?"),
    choices=("5 · 26 = 130", "5 · 26² ≈ 3 400", "26⁵ / 5 ≈ 2.4·10⁶", "2²⁶ ≈ 6.7·10⁷"),
    answer=1,
    explanation=("Each of the r columns of M is filled by trying every (s', s) pair: q² "
                 "candidates per step, O(r q²) in all (UML (17.5))."),
))
register_question(Question(
    id="05.c_noise", kind="concept",
    prompt=("At noise 0.1 every letter image is easy to read on its own. Compared with a model "
            "that reads each letter independently, the chain model's letter error will be"),
    choices=("much lower (half or less)", "about the same", "much higher"),
    answer=1,
    explanation=("When every letter can be read alone there is little left for the bigram "
                 "weights to fix: in the sweep below the two errors agree to 0.001."),
))
register_question(Question(
    id="05.q1",
    prompt=("The chain feature map with q letters and n pixels per letter image has dimension"),
    choices=("n·q", "n·q + q²", "q^r", "n + q"),
    answer=1,
    explanation=("n·q pixel–letter features (type 1) and q² letter-bigram features (type 2), "
                 "whatever the word length r (UML §17.3)."),
))
register_question(Question(
    id="05.q2",
    prompt="How many cells does the Viterbi table M have for a 7-letter word over 26 letters?",
    choices=(), answer=182.0, tol=0.0,
    explanation="One row per letter and one column per position: q · r = 26 · 7 = 182.",
))
register_question(Question(
    id="05.q3",
    prompt="Why can loss-augmented decoding with the Hamming loss reuse the Viterbi recursion?",
    choices=("the Hamming loss is a sum over positions, so it adds to the unary scores",
             "the Hamming loss is convex", "Viterbi maximises any loss",
             "the Hamming loss does not depend on the true labelling"),
    answer=0,
    explanation=("Adding 1[s ≠ y_t] to the unary score of letter s at position t keeps the "
                 "chain structure (UML exercise 17.3)."),
))
register_question(Question(
    id="05.q4",
    prompt="Does the backtracked best labelling pass through the best cell of every column of M?",
    choices=("always", "not necessarily", "never"),
    answer=1,
    explanation=("M[s, τ] is the best prefix ending in s at τ; the best full labelling may go "
                 "through a prefix that was not the best one at τ, because the transitions "
                 "after τ favour it."),
))
register_question(Question(
    id="05.q5",
    prompt=("A taxonomy cost Δ(y', y) is the distance between y' and y in a tree over the "
            "labels (HSS2 §2.4). For a flat tree (every label a child of the root, edges of "
            "weight 1/2), Δ is"),
    choices=("0 for every pair", "1 for every wrong label: the 0–1 cost",
             "the Hamming loss", "larger for labels with distant indices"),
    answer=1,
    explanation="Any two distinct leaves are two half-edges apart: distance 1.",
))


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
    cases = [Case((np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]]), np.array([0, 0, 0]), 2),
                  label="'aaa': one letter three times, the bigram (a, a) twice"),
             Case((np.array([[1.0, 2.0, 3.0]]), np.array([1]), 3), label="one letter: no bigram")]
    for _ in range(5):
        q, n, length = int(r.integers(2, 5)), int(r.integers(1, 6)), int(r.integers(2, 8))
        cases.append(Case((r.random((length, n)), r.integers(0, q, length), q)))
    return cases


register(Exercise(
    id="05.score_coefficients", title="derive the coefficients of the chain score (UML §17.3)",
    reference=score_coefficients, cases=_coef_cases, compare=allclose(),
    minutes=12,
    hint=(
        "The score Σ_t ⟨W_unary[y_t], x_t⟩ + Σ_t W_pair[y_{t-1}, y_t] is linear in the "
        "weights: write it as ⟨G_unary, W_unary⟩ + ⟨G_pair, W_pair⟩ and read off G.",
        "W_unary[s] meets every x_t with y_t = s: collect them. W_pair[a, b] appears once "
        "per occurrence of the bigram (a, b). Repeated letters and bigrams add up.",
        "Gu = np.zeros((q, n)); np.add.at(Gu, y, x); Gp = np.zeros((q, q)); "
        "np.add.at(Gp, (y[:-1], y[1:]), 1.0); return Gu, Gp (a plain loop works too).",
    ),
    solution=("def score_coefficients(x, y, q):\n    Gu = np.zeros((q, x.shape[1]))\n"
              "    Gp = np.zeros((q, q))\n    for t in range(len(y)):\n        Gu[y[t]] += x[t]\n"
              "        if t > 0:\n            Gp[y[t - 1], y[t]] += 1.0\n    return Gu, Gp\n"),
))
