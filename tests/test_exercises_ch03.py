"""Exercises of chapter 03: references pass, wrong answers fail, stubs say "not implemented"."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import scipy.linalg

from kmlteach.exercises import check, get

IDS = ["03.center", "03.ngram", "03.diffusion", "03.kpca", "03.fisher"]


def _center(K):
    m = K.shape[0]
    one = np.full((m, m), 1.0 / m)
    return K - one @ K - K @ one + one @ K @ one


def _ngram(x, y, n):
    cx = Counter(x[i:i + n] for i in range(len(x) - n + 1))
    cy = Counter(y[i:i + n] for i in range(len(y) - n + 1))
    return sum(c * cy[s] for s, c in cx.items())


def _heat(A, beta):
    return scipy.linalg.expm(beta * (A - np.diag(A.sum(1))))


def _kpca(K, p):
    lam, U = np.linalg.eigh(_center(K))
    lam, U = lam[::-1][:p], U[:, ::-1][:, :p]
    return -U * np.sqrt(np.maximum(lam, 0))          # the opposite signs must pass too


def _fisher(X, theta):
    U = 1 / (1 + np.exp(-theta)) - X
    return U @ U.T


# independent implementations written from the formulas (not the library's)
INDEPENDENT = {"03.center": _center, "03.ngram": _ngram, "03.diffusion": _heat,
               "03.kpca": _kpca, "03.fisher": _fisher}
WRONG = {
    "03.center": lambda K: K - K.mean(),
    "03.ngram": lambda x, y, n: len(set(x[i:i + n] for i in range(len(x) - n + 1))
                                    & set(y[i:i + n] for i in range(len(y) - n + 1))),
    "03.diffusion": lambda A, beta: scipy.linalg.expm(-beta * (A - np.diag(A.sum(1)))),  # printed sign
    "03.kpca": lambda K, p: np.linalg.eigh(_center(K))[1][:, ::-1][:, :p],   # unscaled eigenvectors
    "03.fisher": lambda X, theta: X @ X.T,
}


@pytest.mark.parametrize("ex_id", IDS)
def test_reference_and_independent_solution_pass(ex_id, capsys):
    ex = get(ex_id)
    assert ex is not None
    assert check(ex_id, ex.reference)
    assert check(ex_id, INDEPENDENT[ex_id])
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
    """The solution text shown to students is itself a correct answer."""
    ex = get(ex_id)
    ns: dict = {"np": np}
    exec(ex.solution, ns)
    fn = [v for k, v in ns.items() if callable(v) and getattr(v, "__module__", None) is None
          and k not in ("np", "Counter")]
    assert len(fn) == 1
    assert check(ex_id, fn[0], verbose=False)
