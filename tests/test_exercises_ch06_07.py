"""Exercises of chapters 06-07: references pass and agree with the library, wrong answers
fail with a message, stubs say "not implemented", written solutions are correct."""

from __future__ import annotations

import numpy as np
from exercise_contract import exercise_contract

from kmlteach import metrics, ranking
from kmlteach.exercises import get

IDS = ["06.permutation", "06.kendall", "06.ndcg", "07.confusion", "07.fbeta", "07.precision_at_k"]

# the library functions are independent implementations of the same formulas
LIBRARY = {
    "06.permutation": ranking.permutation,
    "06.kendall": ranking.kendall_tau_loss,
    "06.ndcg": lambda yp, y, k: ranking.ndcg_loss(yp, y, k=k),
    "07.confusion": lambda s, y, theta: tuple(metrics.confusion_counts(s, y, theta)),
    "07.fbeta": lambda s, y, theta, beta: metrics.f_beta(s, y, theta, beta=beta),
    "07.precision_at_k": metrics.precision_at_k,
}


def _descending_permutation(y):
    return ranking.permutation(-np.asarray(y))          # ranks from the top: a classic slip


WRONG = {
    "06.permutation": _descending_permutation,
    "06.kendall": lambda yp, y: ranking.kendall_tau_loss(yp, y) * (len(y) - 1) / len(y),  # 1/r² scale
    "06.ndcg": lambda yp, y, k: ranking.ndcg_loss(yp, y),                                  # ignores k
    "07.confusion": lambda s, y, theta: tuple(metrics.confusion_counts(s, y, theta))[::-1],
    "07.fbeta": lambda s, y, theta, beta: metrics.f_beta(s, y, theta, beta=1 / beta),
    "07.precision_at_k": lambda s, y, k: metrics.precision_at_k(s, y, min(k + 1, len(y))),
}


# the written solutions of 06.ndcg and 07.fbeta build on the earlier exercise, as in the notebook
NAMESPACE = {"np": np, "permutation": get("06.permutation").reference,
             "confusion_counts": get("07.confusion").reference}

(test_reference_and_independent_solution_pass, test_wrong_answer_fails_with_message,
 test_stub_reports_not_implemented, test_written_solutions_pass) = exercise_contract(
    IDS, LIBRARY, WRONG, NAMESPACE)
