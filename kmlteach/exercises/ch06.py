"""Exercises of chapter 06 (ranking, UML §17.4): π(y), Kendall tau, NDCG with top-k."""

from __future__ import annotations

import numpy as np

from .core import Case, Exercise, allclose, exact, register
from .quiz import Question, register_question


def _rng(seed):
    return np.random.default_rng(seed)


# 06.permutation — π(y) -------------------------------------------------------------------

def permutation(y):
    """π(y)_i = 1-based position of y_i in y sorted increasingly (ties: smaller index first)."""
    y = np.asarray(y, dtype=float)
    order = np.argsort(y, kind="stable")
    pi = np.empty(len(y), dtype=int)
    pi[order] = np.arange(1, len(y) + 1)
    return pi


def _permutation_cases():
    r = _rng(61)
    cases = [Case((np.array([2.0, 1.0, 6.0, -1.0, 0.5]),), label="the book's example (2, 1, 6, -1, 0.5)"),
             Case((np.array([3.0]),), label="a single item"),
             Case((np.array([1.0, 1.0, 0.0]),), label="a tie: the smaller index gets the smaller position")]
    for n in (4, 7, 12):
        cases.append(Case((np.round(r.normal(size=n), 3),)))
    return cases


register(Exercise(
    id="06.permutation", title="the permutation π(y) (UML §17.4)",
    reference=permutation, cases=_permutation_cases, compare=exact(),
    minutes=6,
    hint=(
        'π(y)_i is the position of item i when the items are sorted by score, the largest'
        ' score getting position r (UML §17.4).',
        'Sorting gives the items in order; you need the inverse: for each item, its place'
        ' in that order (1-based). Use a stable sort so ties keep their input order.',
        "np.argsort(y, kind='stable') lists the items from the smallest to the largest score; "
        "the item at place p of that list has position p + 1. Invert the list: "
        "pi[order] = np.arange(1, r + 1).",
    ),
    solution=("def permutation(y):\n    order = np.argsort(y, kind='stable')\n"
              "    pi = np.empty(len(y), dtype=int)\n    pi[order] = np.arange(1, len(y) + 1)\n"
              "    return pi\n"),
))


# 06.kendall — the Kendall-tau loss ------------------------------------------------------

def kendall_tau_loss(y_pred, y_true):
    """2/(r(r-1)) Σ_{i<j} 1[sign(y'_i − y'_j) ≠ sign(y_i − y_j)]."""
    yp = np.asarray(y_pred, dtype=float)
    y = np.asarray(y_true, dtype=float)
    r = len(y)
    sp = np.sign(yp[:, None] - yp[None, :])
    st = np.sign(y[:, None] - y[None, :])
    disagree = np.triu(sp != st, k=1).sum()
    return 2.0 * disagree / (r * (r - 1))


def _kendall_cases():
    r = _rng(62)
    cases = [Case((np.array([1.0, 2.0, 3.0]), np.array([10.0, 20.0, 30.0])), label="same order"),
             Case((np.array([3.0, 2.0, 1.0]), np.array([10.0, 20.0, 30.0])), label="reversed order"),
             Case((np.array([1.0, 2.0]), np.array([5.0, 5.0])), label="a pair tied in y only")]
    for n in (4, 6, 9):
        cases.append(Case((np.round(r.normal(size=n), 2), r.integers(0, 4, n).astype(float))))
    return cases


register(Exercise(
    id="06.kendall", title="the Kendall-tau loss (UML §17.4)",
    reference=kendall_tau_loss, cases=_kendall_cases, compare=allclose(),
    minutes=8,
    hint=(
        "Kendall's tau loss counts the pairs of items that the two vectors order "
        'differently, divided by the number of pairs (UML §17.4).',
        "For every pair i < j compare sign(y'_i − y'_j) with sign(y_i − y_j); the pair "
        'counts as a disagreement when the two signs differ.',
        "Loop over the pairs i < j (or build the r×r matrices of sign(y_i − y_j) with "
        "broadcasting and keep the upper triangle). A pair counts when the two signs differ — "
        "np.sign(0) = 0, so a pair tied in one vector only counts. Divide by r(r−1)/2.",
    ),
    solution=("def kendall_tau_loss(y_pred, y_true):\n    r = len(y_true)\n    bad = 0\n"
              "    for i in range(r):\n        for j in range(i + 1, r):\n"
              "            if np.sign(y_pred[i] - y_pred[j]) != np.sign(y_true[i] - y_true[j]):\n"
              "                bad += 1\n    return 2 * bad / (r * (r - 1))\n"),
))


# 06.ndcg — the NDCG loss with a top-k discount ------------------------------------------

def ndcg_loss(y_pred, y_true, k):
    """1 − G(y', y)/G(y, y) with D(i) = 1/log2(r − i + 2) for the top-k positions i, else 0."""
    yp = np.asarray(y_pred, dtype=float)
    y = np.asarray(y_true, dtype=float)
    r = len(y)

    def D(pos):
        rank = r - pos + 1                      # rank 1 = top
        return np.where(rank <= k, 1.0 / np.log2(r - pos + 2.0), 0.0)

    def G(scores):
        return float(D(permutation(scores)) @ y)

    return 1.0 - G(yp) / G(y)


def _ndcg_cases():
    r = _rng(63)
    cases = [Case((np.array([0.3, 0.2, 0.1]), np.array([3.0, 2.0, 1.0]), 3), label="ideal order"),
             Case((np.array([0.1, 0.2, 0.3]), np.array([3.0, 2.0, 0.0]), 3), label="reversed order"),
             Case((np.array([0.9, 0.1, 0.5, 0.3]), np.array([0.0, 3.0, 1.0, 2.0]), 1), label="k = 1")]
    for n, k in ((5, 2), (6, 3), (8, 8), (10, 4)):
        y = r.integers(0, 4, n).astype(float)
        y[int(r.integers(n))] = 3.0             # at least one relevant item
        yp = r.permutation(n).astype(float) + 0.5 * r.random(n)   # no ties in the prediction
        cases.append(Case((yp, y, k)))
    return cases


register(Exercise(
    id="06.ndcg", title="the NDCG loss with a top-k discount (UML §17.4)",
    reference=ndcg_loss, cases=_ndcg_cases, compare=allclose(),
    minutes=15,
    hint=(
        'NDCG rewards putting relevant items on top, with a discount that decreases with '
        "the position and is 0 below the top k (UML §17.4); the loss is 1 − G(y', y)/G(y,"
        ' y).',
        "Compute the positions π(y') with your permutation, the discount of each "
        "position, then G(y', y) = Σ_i D(π(y')_i) · y_i, and the same with y' = y for the"
        ' normaliser.',
        "Use your permutation: the item with position π_i = r is on top. The discount of position "
        "i is 1/log2(r − i + 2) when i ≥ r − k + 1 (the top k places) and 0 otherwise. "
        "G(y', y) = Σ_i D(π(y')_i) · y_i; the loss is 1 − G(y', y)/G(y, y).",
    ),
    solution=("def ndcg_loss(y_pred, y_true, k):\n    r = len(y_true)\n\n    def D(pos):\n"
              "        return np.where(pos >= r - k + 1, 1 / np.log2(r - pos + 2), 0.0)\n\n"
              "    G = lambda s: D(permutation(s)) @ y_true\n"
              "    return 1 - G(y_pred) / G(y_true)\n"),
))


# Concept checks (predict, then reveal) and the recap quiz --------------------------------

register_question(Question(
    id="06.c_ndcg_top1", kind="concept",
    prompt=("True relevances y = (3, 0, 2, 1, 0, 2), predicted scores y' = (0.6, 0.9, 0.2, 0.5, "
            "0.1, 0.7). What is the NDCG loss with top k = 1? (a number)"),
    choices=(), answer=1.0, tol=1e-3,
    explanation=("Only the item on top counts. y' puts item 2 (score 0.9) on top, and its true "
                 "relevance is 0: G(y', y) = 0, so the loss is 1 − 0 = 1."),
))
register_question(Question(
    id="06.c_kendall_floor", kind="concept",
    prompt=("Same y = (3, 0, 2, 1, 0, 2). A scorer that never gives two items the same score: "
            "what is the smallest Kendall-tau loss it can reach?"),
    choices=("0", "1/15", "2/15", "1/2"),
    answer=2,
    explanation=("Two pairs are tied in y (the two 0s, the two 2s); a tie-free y' orders both "
                 "pairs, so both count as disagreements: at least 2 of the 15 pairs."),
))
register_question(Question(
    id="06.q1",
    prompt="Kendall-tau loss of a list ranked in exactly the reverse order (no ties)? (a number)",
    choices=(), answer=1.0, tol=1e-6,
    explanation="Every pair is ordered the other way: all r(r − 1)/2 pairs disagree.",
))
register_question(Question(
    id="06.q2",
    prompt="Why is the 0–1 ranking loss 1[π(y') ≠ π(y)] a poor training target?",
    choices=("it is not defined with ties",
             "one swap costs as much as a completely reversed list",
             "it is always 0", "it needs the top-k discount"),
    answer=1,
    explanation="It only says right/wrong for the whole permutation (UML §17.4).",
))
register_question(Question(
    id="06.q3",
    prompt="With a top-k discount, the NDCG loss does not change when you",
    choices=("swap the items on top", "reorder the items below the predicted top k among "
             "themselves", "move an item from below into the top k", "change k"),
    answer=1,
    explanation="Positions below the top k have discount 0, so their order does not count.",
))
register_question(Question(
    id="06.q4",
    prompt="The discount of the second place from the top, 1/log₂(3), is about (a number)",
    choices=(), answer=0.6309, tol=0.005,
    explanation="1/log₂ 3 = 0.6309…; the top place has discount 1/log₂ 2 = 1.",
))
register_question(Question(
    id="06.q5",
    prompt=("Why can the NDCG surrogate's most violating ranking be found without trying all r! "
            "permutations?"),
    choices=("it is an assignment problem: items to positions with a cost matrix A, solved "
             "exactly in O(r³) (Lemma 17.4, the Hungarian method)",
             "sorting by score always gives it", "it is NP-hard, so we approximate it",
             "only the top item matters"),
    answer=0,
    explanation=("The objective is a sum over items of a cost that depends on the item and its "
                 "position (UML (17.9)); Lemma 17.4 says the LP relaxation has a permutation as "
                 "its optimum."),
))


# 06.ndcg_costs — a derivation: the NDCG surrogate as an assignment problem (UML (17.9)) ---

def ndcg_costs(y_score, y_true, k):
    """The (r, r) cost matrix A[i, j−1] = j·α_i + D(j)·β_i, α_i = −y_score_i,
    β_i = y_true_i / G(y, y), positions j = 1..r; β = 0 when G(y, y) = 0. Minimising
    Σ_i A[i, v_i − 1] over permutations v maximises (17.8) for the NDCG loss."""
    mu, y = np.asarray(y_score, dtype=float), np.asarray(y_true, dtype=float)
    r = y.shape[0]
    j = np.arange(1, r + 1, dtype=float)
    D = np.where(j >= r - k + 1, 1.0 / np.log2(r - j + 2), 0.0)
    ideal = float(D[permutation(y) - 1] @ y)
    beta = y / ideal if ideal > 0 else np.zeros(r)
    return np.outer(-mu, j) + np.outer(beta, D)


def _cost_cases():
    r = _rng(64)
    cases = [Case((np.array([0.3, 0.2, 0.1]), np.array([3.0, 2.0, 1.0]), 3), label="r = 3, k = 3"),
             Case((np.array([0.9, 0.1, 0.5, 0.3]), np.array([0.0, 3.0, 1.0, 2.0]), 1),
                  label="k = 1: only the top position has a discount"),
             Case((np.array([0.5, -0.5]), np.array([0.0, 0.0]), 2),
                  label="no relevant item: G(y, y) = 0, so β = 0")]
    for n, k in ((5, 2), (6, 6), (7, 3)):
        y = r.integers(0, 4, n).astype(float)
        y[int(r.integers(n))] = 3.0
        cases.append(Case((r.normal(size=n), y, k)))
    return cases


register(Exercise(
    id="06.ndcg_costs", title="derive the assignment costs of the NDCG surrogate (UML (17.9))",
    reference=ndcg_costs, cases=_cost_cases, compare=allclose(),
    prepare=lambda got: np.asarray(got, dtype=float),
    minutes=20,
    hint=(
        "Write (17.8) for the NDCG loss: Δ(v, y) + Σ_i (v_i − π(y)_i) μ_i with "
        "Δ(v, y) = 1 − Σ_i D(v_i) y_i / G(y, y). Drop the terms that do not depend on v and "
        "turn the max into a min.",
        "What is left is a sum over items of a cost that depends only on the item i and its "
        "position v_i = j: A[i, j] = j·α_i + D(j)·β_i. Identify α_i and β_i.",
        "j = np.arange(1, r + 1); D[j] = 1/log2(r − j + 2) for j ≥ r − k + 1, else 0; "
        "G = D[pi(y) − 1] @ y with your permutation; "
        "A = np.outer(-y_score, j) + np.outer(y_true / G, D).",
    ),
    solution=("def ndcg_costs(y_score, y_true, k):\n    r = len(y_true)\n"
              "    j = np.arange(1, r + 1, dtype=float)\n"
              "    D = np.where(j >= r - k + 1, 1.0 / np.log2(r - j + 2), 0.0)\n"
              "    order = np.argsort(y_true, kind='stable')\n    pi = np.empty(r, dtype=int)\n"
              "    pi[order] = np.arange(1, r + 1)\n    G = D[pi - 1] @ y_true\n"
              "    beta = y_true / G if G > 0 else np.zeros(r)\n"
              "    return np.outer(-y_score, j) + np.outer(beta, D)\n"),
))
