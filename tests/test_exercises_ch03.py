"""Exercises of chapter 03: references pass, wrong answers fail, stubs say "not implemented"."""

from __future__ import annotations

from collections import Counter

import numpy as np
import scipy.linalg
from exercise_contract import exercise_contract


def _center(K):
    m = K.shape[0]
    one = np.full((m, m), 1.0 / m)
    return K - one @ K - K @ one + one @ K @ one


def _ngram(x, y, n):
    cx = Counter(x[i : i + n] for i in range(len(x) - n + 1))
    cy = Counter(y[i : i + n] for i in range(len(y) - n + 1))
    return sum(c * cy[s] for s, c in cx.items())


def _heat(A, beta):
    return scipy.linalg.expm(beta * (A - np.diag(A.sum(1))))


def _kpca(K, p):
    lam, U = np.linalg.eigh(_center(K))
    lam, U = lam[::-1][:p], U[:, ::-1][:, :p]
    return -U * np.sqrt(np.maximum(lam, 0))  # the opposite signs must pass too


def _fisher(X, theta):
    U = 1 / (1 + np.exp(-theta)) - X
    return U @ U.T


# independent implementations written from the formulas (not the library's)
def _mean_distance(K, mask):
    # ‖Σ c_i ψ(x_i)‖² = cᵀKc with c = 1_A/|A| − 1_B/|B|
    c = np.where(mask, 1.0 / mask.sum(), -1.0 / (~mask).sum())
    return c @ K @ c


INDEPENDENT = {
    "03.mean_distance": _mean_distance,
    "03.center": _center,
    "03.ngram": _ngram,
    "03.diffusion": _heat,
    "03.kpca": _kpca,
    "03.fisher": _fisher,
}
WRONG = {
    "03.mean_distance": lambda K, mask: (
        K[np.ix_(mask, mask)].mean() + K[np.ix_(~mask, ~mask)].mean() - K[np.ix_(mask, ~mask)].mean()
    ),  # forgot the 2 of the cross term
    "03.center": lambda K: K - K.mean(),
    "03.ngram": lambda x, y, n: len(
        set(x[i : i + n] for i in range(len(x) - n + 1)) & set(y[i : i + n] for i in range(len(y) - n + 1))
    ),
    "03.diffusion": lambda A, beta: scipy.linalg.expm(-beta * (A - np.diag(A.sum(1)))),  # printed sign
    "03.kpca": lambda K, p: np.linalg.eigh(_center(K))[1][:, ::-1][:, :p],  # unscaled eigenvectors
    "03.fisher": lambda X, theta: X @ X.T,
}


(
    test_every_exercise_has_its_test_functions,
    test_reference_and_independent_solution_pass,
    test_wrong_answer_fails_with_message,
    test_stub_reports_not_implemented,
    test_written_solutions_pass,
) = exercise_contract(["03"], INDEPENDENT, WRONG)


def test_ngram_concept_check_names_the_common_wrong_values(capsys):
    """Issue 36: a wrong number for 03.c_ngram gets feedback on what that number counts."""
    from kmlteach.exercises import ask

    expect = {
        3: "different 2-grams",
        4: "smaller of the two counts",
        5: "last 2-gram",
        9: "adds the two counts",
    }
    for value, words in expect.items():
        assert not ask("03.c_ngram", value)
        out = " ".join(capsys.readouterr().out.split())
        assert words in out and "7" not in out.replace("03.c_ngram", ""), (value, out)
    # the common wrong values are what the catalogued 03.ngram mistakes compute
    from kmlteach.exercises.ch03 import _ngram_distinct, _ngram_missing_last

    assert _ngram_distinct("banana", "bandana", 2) == 3 and _ngram_missing_last("banana", "bandana", 2) == 5
