"""Exercises of chapters 06-07: references pass and agree with the library, wrong answers
fail with a message, stubs say "not implemented", written solutions are correct."""

from __future__ import annotations

import re

import numpy as np
import pytest

from kmlteach import metrics, ranking
from kmlteach.exercises import check, get

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


@pytest.mark.parametrize("ex_id", IDS)
def test_reference_and_library_pass(ex_id, capsys):
    ex = get(ex_id)
    assert ex is not None
    assert check(ex_id, ex.reference)
    assert check(ex_id, LIBRARY[ex_id])
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("ex_id", IDS)
def test_wrong_answer_fails_with_message(ex_id, capsys):
    assert not check(ex_id, WRONG[ex_id])
    out = capsys.readouterr().out
    assert "✗" in out and "expected" in out and "hint" in out


@pytest.mark.parametrize("ex_id", IDS)
def test_stub_reports_not_implemented(ex_id, capsys):
    def stub(*args):
        raise NotImplementedError

    assert not check(ex_id, stub)
    assert "not implemented yet" in capsys.readouterr().out


@pytest.mark.parametrize("ex_id", IDS)
def test_written_solutions_pass(ex_id):
    """The solution text shown to students is itself a correct answer (with the helper it
    builds on, as in the notebook: permutation for NDCG, confusion counts for F-beta)."""
    ex = get(ex_id)
    ns: dict = {"np": np, "permutation": get("06.permutation").reference,
                "confusion_counts": get("07.confusion").reference}
    name = re.match(r"def (\w+)\(", ex.solution).group(1)
    exec(ex.solution, ns)
    assert check(ex_id, ns[name], verbose=False)
