"""Exercises of chapter 08: references pass, independent implementations (written from the
formulas with explicit loops) agree, wrong answers fail with a message, stubs say "not
implemented", written solutions are correct, and the hints are tiered."""

from __future__ import annotations

import math

import numpy as np
import pytest
from exercise_contract import chapter_ids, exercise_contract

from kmlteach.exercises import get, hint

IDS = chapter_ids(["08"])  # from the registry: a new exercise is tested at once


def _stump_loop(X, y, D, feature, threshold, sign):
    total = 0.0
    for i in range(len(y)):
        h = sign if X[i, feature] <= threshold else -sign
        total += D[i] * (h != y[i])
    return total


def _round_loop(D, y, h):
    eps = sum(D[i] for i in range(len(y)) if h[i] != y[i])
    alpha = 0.5 * math.log((1 - eps) / eps)
    # Z in closed form (slides, proof step 3), the new weights by the two cases
    Z = 2 * math.sqrt(eps * (1 - eps))
    new = np.array(
        [D[i] * (math.exp(alpha) if h[i] != y[i] else math.exp(-alpha)) / Z for i in range(len(y))]
    )
    return new, eps, alpha, Z


def _bound_loop(epsilons):
    prod, s = 1.0, 0.0
    for e in epsilons:
        g = 0.5 - e
        prod *= math.sqrt(1 - 4 * g * g)  # = 2 sqrt(eps (1 - eps))
        s += g * g
    return prod, math.exp(-2 * s)


def _oob_loop(predictions, samples, y):
    B, m = predictions.shape
    wrong = counted = 0
    for i in range(m):
        members = [b for b in range(B) if i not in set(samples[b].tolist())]
        if not members:
            continue
        vote = sum(predictions[b, i] for b in members)
        counted += 1
        wrong += (1.0 if vote > 0 else -1.0) != y[i]
    return wrong / counted


def _c(a, criterion):
    if criterion == "error":
        return a if a <= 0.5 else 1 - a
    if criterion == "gini":
        return 1 - a * a - (1 - a) * (1 - a)  # the usual Gini index = 2a(1 - a)
    return sum(-p * math.log(p, 2) for p in (a, 1 - a) if p > 0)


def _gain_loop(y, left, criterion):
    m = len(y)
    node = _c(sum(v > 0 for v in y) / m, criterion)
    for side in (True, False):
        ys = [y[i] for i in range(m) if left[i] == side]
        if ys:
            node -= len(ys) / m * _c(sum(v > 0 for v in ys) / len(ys), criterion)
    return node


def _alpha_numeric(w_correct, w_wrong, w_abstain=0.0):
    # bisection on the increasing derivative Z'(α) of the convex Z(α): an oracle that knows
    # no closed form
    dZ = lambda a: -w_correct * math.exp(-a) + w_wrong * math.exp(a)
    lo, hi = -20.0, 20.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if dZ(mid) < 0 else (lo, mid)
    x = 0.5 * (lo + hi)
    return x, w_abstain + w_correct * math.exp(-x) + w_wrong * math.exp(x)


INDEPENDENT = {
    "08.stump_error": _stump_loop,
    "08.adaboost_round": _round_loop,
    "08.training_bound": _bound_loop,
    "08.oob_error": _oob_loop,
    "08.split_gain": _gain_loop,
    "08.best_alpha": _alpha_numeric,
}

WRONG = {
    # the unweighted error (ignores D)
    "08.stump_error": lambda X, y, D, j, t, s: float(np.mean(np.where(X[:, j] <= t, s, -s) != y)),
    # forgets to normalise D
    "08.adaboost_round": lambda D, y, h: (lambda r: (r[0] * r[3], *r[1:]))(_round_loop(D, y, h)),
    # drops the factor 2 in Z_t
    "08.training_bound": lambda e: (float(np.prod(np.sqrt(e * (1 - e)))), _bound_loop(e)[1]),
    # lets every member vote, in-bag or not
    "08.oob_error": lambda P, S, y: float(np.mean(np.where(P.sum(0) > 0, 1.0, -1.0) != y)),
    # forgets to weight the children by their sizes
    "08.split_gain": lambda y, L, c: (
        _c(np.mean(y > 0), c) - sum(_c(np.mean(y[s] > 0), c) for s in (L, ~L) if s.any()) / 2
    ),
    # α without the ½
    "08.best_alpha": lambda wc, ww, wa=0.0: (math.log(wc / ww), _alpha_numeric(wc, ww, wa)[1]),
}

(
    test_every_exercise_has_its_test_functions,
    test_reference_and_independent_solution_pass,
    test_wrong_answer_fails_with_message,
    test_stub_reports_not_implemented,
    test_written_solutions_pass,
) = exercise_contract(["08"], INDEPENDENT, WRONG)


@pytest.mark.parametrize("ex_id", IDS)
def test_hints_are_tiered(ex_id, capsys):
    ex = get(ex_id)
    assert isinstance(ex.hints, tuple) and 2 <= len(ex.hints) <= 3
    assert all(isinstance(h, str) and len(h) > 20 for h in ex.hints)
    # the shared tiered hints: level 1 first, then level=2, ... (the last one close to code)
    for level, expected in enumerate(ex.hints, 1):
        hint(ex_id, level=level)
        out = capsys.readouterr().out
        assert " ".join(out.split()).startswith(" ".join(expected.split()))  # printed, wrapped
        if level == 1:
            assert f"hint 1 of {len(ex.hints)}" in out


def test_slides_toy_example_numbers():
    """ε = 3/10, 3/14, 3/22 give α = 0.42, 0.65, 0.92 (SL toy example); the printed, rounded
    ε = 0.30, 0.21, 0.14 give 0.42, 0.66, 0.91 instead."""
    ref = get("08.best_alpha").reference
    exact = [round(ref(1 - e, e)[0], 2) for e in (3 / 10, 3 / 14, 3 / 22)]
    rounded = [round(ref(1 - e, e)[0], 2) for e in (0.30, 0.21, 0.14)]
    assert exact == [0.42, 0.65, 0.92]
    assert rounded == [0.42, 0.66, 0.91]
    prod_z, exp_bound = get("08.training_bound").reference(np.array([3 / 10, 3 / 14, 3 / 22]))
    assert prod_z == pytest.approx(0.516, abs=1e-3) and exp_bound == pytest.approx(0.602, abs=1e-3)
