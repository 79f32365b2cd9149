"""Chapter 04 exercises: the contract (tests/exercise_contract.py: the reference and an independent
implementation pass, a wrong answer fails with a message, a stub says so, the notebook's solution
passes) and the oracles of the Kesler and subgradient exercises."""

from __future__ import annotations

import numpy as np
from exercise_contract import exercise_contract

from kmlteach import multiclass as M
from kmlteach.exercises import ch04


def _dot(a, b) -> float:
    return sum(float(p) * float(q) for p, q in zip(a, b))


def _psi(x, y, k):
    n = len(x)
    return np.array([float(x[j - y * n]) if y * n <= j < (y + 1) * n else 0.0 for j in range(k * n)])


def _ghinge(W, x, y, Delta):
    return max(Delta[c][y] + _dot(W[c], x) - _dot(W[y], x) for c in range(len(W)))


def _perceptron(X, y, k):
    W = [[0.0] * len(X[0]) for _ in range(k)]
    while True:
        clean = True
        for x, t in zip(X, y):
            s = [_dot(w, x) for w in W]
            j = max((c for c in range(k) if c != t), key=lambda c: (s[c], -c))  # smallest on ties
            if s[j] >= s[t]:
                W[t] = [a + b for a, b in zip(W[t], x)]
                W[j] = [a - b for a, b in zip(W[j], x)]
                clean = False
        if clean:
            return np.array(W)


def _ova(X, y, X_new, k, fit_binary):
    ws = [fit_binary(X, np.array([1.0 if t == c else -1.0 for t in y])) for c in range(k)]
    out = []
    for x in X_new:
        s = [_dot(w, x) for w in ws]
        out.append(s.index(max(s)))
    return np.array(out)


def _kesler(x, i, k):
    return np.array([_psi(x, i, k) - _psi(x, j, k) for j in range(k) if j != i])


def _hinge_subgradient(W, x, y, Delta):
    v = [Delta[c][y] + _dot(W[c], x) - _dot(W[y], x) for c in range(len(W))]
    yhat = v.index(max(v))
    G = np.zeros((len(W), len(x)))
    G[yhat] += x
    G[y] -= x
    return G


def _first_violator(X, y, k):  # the first label at least as high, not the strongest
    W = np.zeros((k, X.shape[1]))
    while True:
        upd = False
        for x, yi in zip(X, y):
            s = W @ x
            for j in range(k):
                if j != yi and s[j] >= s[yi]:
                    W[yi] += x
                    W[j] -= x
                    upd = True
                    break
        if not upd:
            return W


def _ova_last_index(X, y, X_new, k, fit_binary):
    S = np.column_stack([X_new @ fit_binary(X, np.where(y == c, 1.0, -1.0)) for c in range(k)])
    return k - 1 - np.argmax(S[:, ::-1], axis=1)  # ties to the largest index


INDEPENDENT = {
    "04.multivector_psi": _psi,
    "04.generalized_hinge": _ghinge,
    "04.multiclass_perceptron": _perceptron,
    "04.one_vs_all": _ova,
    "04.kesler": _kesler,
    "04.hinge_subgradient": _hinge_subgradient,
}
WRONG = {
    "04.multivector_psi": lambda x, y, k: ch04.psi(x, (y + 1) % k, k),  # blocks counted from 1
    "04.generalized_hinge": lambda W, x, y, Delta: float(np.max(W @ x - (W @ x)[y])),  # no Δ
    "04.multiclass_perceptron": _first_violator,
    "04.one_vs_all": _ova_last_index,
    "04.kesler": lambda x, i, k: -ch04.kesler_vectors(x, i, k),
    "04.hinge_subgradient": lambda W, x, y, Delta: -ch04.hinge_subgradient(W, x, y, Delta),
}

(
    test_every_exercise_has_its_test_functions,
    test_reference_and_independent_solution_pass,
    test_wrong_answer_fails_with_message,
    test_stub_reports_not_implemented,
    test_written_solutions_pass,
) = exercise_contract(["04"], INDEPENDENT, WRONG)


def test_kesler_reference_matches_kesler_embed():
    X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
    emb = M.kesler_embed(X, [2, 0, 1])
    np.testing.assert_array_equal(ch04.kesler_vectors(X[0], 2, 3), emb.Z[emb.example == 0])


def test_hinge_subgradient_satisfies_the_subgradient_inequality():
    # oracle: the library's generalized hinge, l(W') >= l(W) + <G, W' - W> for every W'
    rng = np.random.default_rng(7)
    for _ in range(50):
        k, n = int(rng.integers(2, 5)), int(rng.integers(1, 4))
        D = rng.uniform(0.5, 2.0, size=(k, k))
        np.fill_diagonal(D, 0.0)
        W, x, y = rng.normal(size=(k, n)), rng.normal(size=n), int(rng.integers(0, k))
        G = ch04.hinge_subgradient(W, x, y, D)
        loss = lambda V, x=x, y=y, D=D: float(M.generalized_hinge(V, x[None, :], [y], delta=D)[0])
        for _ in range(20):
            V = W + rng.normal(size=(k, n))
            assert loss(V) >= loss(W) + np.sum(G * (V - W)) - 1e-12
