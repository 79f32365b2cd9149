"""Chapter 05 exercises: references pass, wrong answers fail with a message, stubs say so."""

import itertools

import numpy as np
from exercise_contract import exercise_contract

from kmlteach.exercises import ch05
from kmlteach.structured import chain_score


def _score(x, y, Wu, Wp):
    total = 0.0
    for t in range(len(y)):
        total += Wu[y[t]] @ x[t]
        if t > 0:
            total += Wp[y[t - 1], y[t]]
    return total


def _enumerate(unary, pairwise, cost=None):
    """Brute force with the smallest-from-the-back tie rule."""
    r, q = unary.shape
    u = unary if cost is None else unary + cost
    best, key, arg = -np.inf, None, None
    for y in itertools.product(range(q), repeat=r):
        s = sum(u[t, y[t]] for t in range(r)) + sum(pairwise[y[t - 1], y[t]] for t in range(1, r))
        if s > best + 1e-12 or (abs(s - best) <= 1e-12 and y[::-1] < key):
            best, key, arg = s, y[::-1], y
    return np.array(arg)


def _loss_aug(unary, pairwise, y_true):
    q = unary.shape[1]
    return _enumerate(unary, pairwise, (np.arange(q)[None, :] != np.asarray(y_true)[:, None]) * 1.0)


def _coefficients(x, y, q):
    """The score is linear in (W_unary, W_pair): read each coefficient off the library's
    chain_score at a basis matrix."""
    n = x.shape[1]
    Gu, Gp = np.zeros((q, n)), np.zeros((q, q))
    for s in range(q):
        for j in range(n):
            E = np.zeros((q, n))
            E[s, j] = 1.0
            Gu[s, j] = chain_score(x, y, E, np.zeros((q, q)))
        for b in range(q):
            E = np.zeros((q, q))
            E[s, b] = 1.0
            Gp[s, b] = chain_score(x, y, np.zeros((q, n)), E)
    return Gu, Gp


def _coefficients_overwrite(x, y, q):
    Gu, Gp = np.zeros((q, x.shape[1])), np.zeros((q, q))
    Gu[y] = x  # a repeated letter keeps only its last image
    Gp[y[:-1], y[1:]] = 1.0
    return Gu, Gp


INDEPENDENT = {
    "05.chain_score": _score,
    "05.viterbi": _enumerate,
    "05.loss_augmented": _loss_aug,
    "05.score_coefficients": _coefficients,
}
WRONG = {
    "05.chain_score": lambda x, y, Wu, Wp: float(np.sum(Wu[y] * x)),  # forgets bigrams
    "05.viterbi": lambda unary, pairwise: unary.argmax(axis=1),  # greedy
    "05.loss_augmented": lambda unary, pairwise, y_true: ch05.viterbi_decode(unary, pairwise),
    "05.score_coefficients": _coefficients_overwrite,
}

(
    test_every_exercise_has_its_test_functions,
    test_reference_and_independent_solution_pass,
    test_wrong_answer_fails_with_message,
    test_stub_reports_not_implemented,
    test_written_solutions_pass,
) = exercise_contract(["05"], INDEPENDENT, WRONG, namespace={"np": np, "viterbi_decode": ch05.viterbi_decode})
