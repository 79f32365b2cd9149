"""Chapter 05: chain features, Viterbi, loss-augmented decoding, learners, taxonomy Δ. — ``kmlteach.structured.chain``."""

import itertools

import numpy as np
import pytest

from kmlteach import structured as S


# ---------------------------------------------------------------------------- features
def test_psi_decomposes_and_scores():
    rng = np.random.default_rng(1)
    x = rng.random((5, 7))
    y = np.array([2, 0, 0, 3, 1])
    q = 4
    p = S.psi(x, y, n_labels=q)
    assert p.shape == (7 * q + q * q,)
    # explicit definition of UML §17.3 (type-2 index [previous, next])
    F1 = np.zeros((q, 7))
    for t in range(5):
        F1[y[t]] += x[t]
    F2 = np.zeros((q, q))
    for t in range(1, 5):
        F2[y[t - 1], y[t]] += 1
    np.testing.assert_allclose(p, np.r_[F1.ravel(), F2.ravel()] / 5)
    Wu, Wp = rng.normal(size=(q, 7)), rng.normal(size=(q, q))
    w = np.r_[Wu.ravel(), Wp.ravel()]
    assert S.chain_score(x, y, Wu, Wp) == pytest.approx(5 * w @ p)
    # the Viterbi optimum equals the best chain score over all labellings
    res = S.viterbi(S.unary_scores(x, Wu), Wp)
    best = max(S.chain_score(x, np.array(c), Wu, Wp) for c in itertools.product(range(q), repeat=5))
    assert res.score == pytest.approx(best)


def test_hamming_loss():
    assert S.hamming_loss([0, 1, 2, 3], [0, 1, 0, 0]) == 0.5
    assert S.hamming_loss(np.array([4]), np.array([4])) == 0.0


def test_perceptron_mistake_bound_collins_theorem():
    """HSS2 Thm 11: on separable data at most (R/γ)² mistakes."""
    q, n = 3, 4
    rng = np.random.default_rng(11)
    wstar = rng.normal(size=n * q + q * q)
    wstar /= np.linalg.norm(wstar)
    X, Y, gammas, R = [], [], [], 0.0
    for _ in range(12):
        x = rng.normal(size=(int(rng.integers(2, 4)), n))
        labs = list(itertools.product(range(q), repeat=x.shape[0]))
        sc = np.array([wstar @ S.psi(x, np.array(c), q) for c in labs])
        top = int(np.argmax(sc))
        y = np.array(labs[top])
        X.append(x)
        Y.append(y)
        gammas.append(sc[top] - np.max(np.delete(sc, top)))
        R = max(R, max(np.linalg.norm(S.psi(x, y, q) - S.psi(x, np.array(c), q)) for c in labs))
    gamma = min(gammas)
    assert gamma > 0
    model = S.structured_perceptron(X, Y, epochs=100_000, seed=0, n_labels=q, average=False)
    assert model.history[-1] == 0  # converged
    assert model.n_updates <= (R / gamma) ** 2
    assert all(np.array_equal(p, y) for p, y in zip(model.predict(X), Y))


def test_bad_input_features():
    x, Wu, Wp = np.ones((3, 4)), np.zeros((2, 4)), np.zeros((2, 2))
    with pytest.raises(ValueError, match="y"):
        S.psi(x, [0, 1], n_labels=2)
    with pytest.raises(ValueError, match="y"):
        S.psi(x, [0, 1, 5], n_labels=2)
    with pytest.raises(ValueError, match="n_labels"):
        S.psi(x, [0, 1, 1], n_labels=0)
    with pytest.raises(ValueError, match="x"):
        S.psi(np.full((3, 4), np.nan), [0, 1, 1], n_labels=2)
    with pytest.raises(ValueError, match="x"):
        S.chain_score(np.ones((3, 5)), [0, 1, 1], Wu, Wp)
    with pytest.raises(ValueError, match="W_pair"):
        S.chain_score(x, [0, 1, 1], Wu, np.zeros((3, 3)))
    with pytest.raises(ValueError, match="W_unary"):
        S.unary_scores(x, np.zeros(4))
    with pytest.raises(ValueError, match="y_pred"):
        S.hamming_loss([0, 1], [0, 1, 2])
    with pytest.raises(ValueError, match="y_true"):
        S.hamming_loss([], [])
