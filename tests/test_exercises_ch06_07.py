"""Exercises of chapters 06-07: references pass and agree with the library, wrong answers
fail with a message, stubs say "not implemented", written solutions are correct."""

from __future__ import annotations

import itertools

import numpy as np
from exercise_contract import exercise_contract

from kmlteach import metrics, ranking
from kmlteach.exercises import get


def _ndcg_costs(mu, y, k):
    r = len(y)
    j = np.arange(1, r + 1)
    D = ranking.discount(j, r, k=k)
    ideal = float(np.sum(ranking.discount(ranking.permutation(y), r, k=k) * y))
    beta = y / ideal if ideal > 0 else np.zeros(r)
    return np.array([[jj * -mu[i] + D[jj - 1] * beta[i] for jj in j] for i in range(r)])


def _fixed_ab_brute(mu, y, a, b):
    """All labellings with a positives and b negatives at +1, lexicographic order of the
    chosen indices, first strict maximum of sum v_i mu_i."""
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    best, arg = -np.inf, None
    for P in itertools.combinations(pos.tolist(), a):
        for N in itertools.combinations(neg.tolist(), b):
            v = -np.ones(len(y))
            v[list(P)] = 1.0
            v[list(N)] = 1.0
            if v @ mu > best + 1e-12:
                best, arg = v @ mu, v
    return arg


# the library functions are independent implementations of the same formulas
LIBRARY = {
    "06.permutation": ranking.permutation,
    "06.kendall": ranking.kendall_tau_loss,
    "06.ndcg": lambda yp, y, k: ranking.ndcg_loss(yp, y, k=k),
    "07.confusion": lambda s, y, theta: tuple(metrics.confusion_counts(s, y, theta)),
    "07.fbeta": lambda s, y, theta, beta: metrics.f_beta(s, y, theta, beta=beta),
    "07.precision_at_k": metrics.precision_at_k,
    "06.ndcg_costs": _ndcg_costs,
    "07.fixed_ab": _fixed_ab_brute,
    "07.reliability": lambda p, y, n: tuple(metrics.reliability_curve(p, y, n_bins=n)),
}


def _descending_permutation(y):
    return ranking.permutation(-np.asarray(y))  # ranks from the top: a classic slip


def _swapped_axes(curve):
    return curve.prob_pred, curve.prob_true, curve.counts  # the diagram's two axes exchanged


WRONG = {
    "06.permutation": _descending_permutation,
    "06.kendall": lambda yp, y: ranking.kendall_tau_loss(yp, y) * (len(y) - 1) / len(y),  # 1/r² scale
    "06.ndcg": lambda yp, y, k: ranking.ndcg_loss(yp, y),  # ignores k
    "07.confusion": lambda s, y, theta: tuple(metrics.confusion_counts(s, y, theta))[::-1],
    "07.fbeta": lambda s, y, theta, beta: metrics.f_beta(s, y, theta, beta=1 / beta),
    "07.precision_at_k": lambda s, y, k: metrics.precision_at_k(s, y, min(k + 1, len(y))),
    "06.ndcg_costs": lambda mu, y, k: _ndcg_costs(-np.asarray(mu), y, k),  # lost the minus
    "07.fixed_ab": lambda mu, y, a, b: _fixed_ab_brute(-np.asarray(mu), y, a, b),  # worst first
    "07.reliability": lambda p, y, n: _swapped_axes(metrics.reliability_curve(p, y, n_bins=n)),
}


# the written solutions of 06.ndcg and 07.fbeta build on the earlier exercise, as in the notebook
NAMESPACE = {
    "np": np,
    "permutation": get("06.permutation").reference,
    "confusion_counts": get("07.confusion").reference,
}

(
    test_every_exercise_has_its_test_functions,
    test_reference_and_independent_solution_pass,
    test_wrong_answer_fails_with_message,
    test_stub_reports_not_implemented,
    test_written_solutions_pass,
) = exercise_contract(["06", "07"], LIBRARY, WRONG, NAMESPACE)


def test_ndcg_costs_solved_by_assignment_give_the_most_violating_ranking():
    rng = np.random.default_rng(11)
    ref = get("06.ndcg_costs").reference
    for _ in range(30):
        r, k = int(rng.integers(2, 7)), None
        k = int(rng.integers(1, r + 1))
        y = rng.integers(0, 4, r).astype(float)
        mu = rng.normal(size=r)
        v = ranking.assignment(ref(mu, y, k)) + 1
        np.testing.assert_array_equal(v, ranking.ndcg_most_violating(mu, y, k=k))


def test_fixed_ab_maximiser_is_the_procedure_of_17_14():
    # for the (a, b) the library picks, the exercise's labelling is the library's answer
    rng = np.random.default_rng(12)
    ref = get("07.fixed_ab").reference
    for _ in range(30):
        r = int(rng.integers(3, 9))
        y = np.where(rng.random(r) < 0.5, 1, -1)
        y[0], y[1] = 1, -1
        mu = rng.normal(size=r)
        v = ranking.bipartite_most_violating(mu, y, "f1")
        a, b = int(np.sum((v > 0) & (y > 0))), int(np.sum((v > 0) & (y < 0)))
        np.testing.assert_array_equal(ref(mu, y, a, b), v)


def test_fraud_feedback_argues_with_the_regularised_hinge():
    """Issue 38, point 5: the soft-SVM minimises (λ/2)‖w‖² plus the average hinge loss, so the
    feedback on 07.c_fraud's wrong choices argues with that objective, not with the 0-1 loss."""
    from kmlteach.exercises.quiz import questions

    (q,) = [q for q in questions("07") if q.id == "07.c_fraud"]
    wrong = [f for i, f in enumerate(q.feedback) if i not in q.answers()]
    assert all("hinge" in f and "zero-one" not in f for f in wrong), wrong
