"""Chapter 05: chain features, Viterbi, loss-augmented decoding, learners, taxonomy Δ. — ``kmlteach.structured.learning``."""

import numpy as np
import pytest
from helpers import oracle_argmax

from kmlteach import structured as S
from kmlteach.datasets import ocr_words


# ---------------------------------------------------------------------------- learning
def _tiny(seed=0, m=6, q=3, n=4):
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(int(rng.integers(1, 5)), n)) for _ in range(m)]
    Y = [rng.integers(0, q, x.shape[0]) for x in X]
    return X, Y


def _reference_sgd(X, Y, eta, T, seed, q, transitions=True):
    """UML §17.2.5 with explicit Ψ vectors and brute-force loss-augmented argmax."""
    n = X[0].shape[1]
    d = n * q + q * q
    w = np.zeros(d)
    total = np.zeros(d)
    for i in np.random.default_rng(seed).integers(0, len(X), size=T):
        total += w
        x, y = X[i], Y[i]
        Wu, Wp = w[: n * q].reshape(q, n), w[n * q :].reshape(q, q)
        U = x @ Wu.T
        cost = (np.arange(q)[None, :] != y[:, None]).astype(float)
        yhat, _ = oracle_argmax(U, Wp if transitions else np.zeros((q, q)), np.zeros(q), cost)
        v = S.psi(x, yhat, q) - S.psi(x, y, q)
        if not transitions:
            v[n * q :] = 0
        w = w - eta * v
    return total / T, w


def _reference_perceptron(X, Y, epochs, eta, seed, q):
    n = X[0].shape[1]
    w = np.zeros(n * q + q * q)
    total, visits, mistakes = np.zeros_like(w), 0, []
    rng = np.random.default_rng(seed)
    for _ in range(epochs):
        k = 0
        for i in rng.permutation(len(X)):
            total += w
            visits += 1
            Wu, Wp = w[: n * q].reshape(q, n), w[n * q :].reshape(q, q)
            z, _ = oracle_argmax(X[i] @ Wu.T, Wp, np.zeros(q))
            if not np.array_equal(z, Y[i]):
                k += 1
                w = w + eta * (S.psi(X[i], Y[i], q) - S.psi(X[i], z, q))
        mistakes.append(k)
        if k == 0:
            break
    return total / visits, w, mistakes


@pytest.mark.parametrize("transitions", [True, False])
def test_structured_sgd_follows_the_book(transitions):
    X, Y = _tiny()
    model = S.structured_sgd(X, Y, eta=0.3, T=40, seed=7, n_labels=3, transitions=transitions)
    wbar, wlast = _reference_sgd(X, Y, 0.3, 40, 7, 3, transitions)
    np.testing.assert_allclose(model.w, wbar, atol=1e-10)
    np.testing.assert_allclose(
        np.r_[model.W_unary_last.ravel(), model.W_pair_last.ravel()], wlast, atol=1e-10
    )
    if not transitions:
        assert np.all(model.W_pair == 0)


def test_structured_sgd_seed():
    X, Y = _tiny()
    a = S.structured_sgd(X, Y, eta=0.3, T=30, seed=1, n_labels=3)
    b = S.structured_sgd(X, Y, eta=0.3, T=30, seed=1, n_labels=3)
    c = S.structured_sgd(X, Y, eta=0.3, T=30, seed=2, n_labels=3)
    np.testing.assert_array_equal(a.w, b.w)
    assert not np.array_equal(a.w, c.w)


def test_structured_perceptron_follows_collins():
    X, Y = _tiny(seed=3)
    model = S.structured_perceptron(X, Y, epochs=4, eta=1.0, seed=5, n_labels=3)
    wbar, wlast, mistakes = _reference_perceptron(X, Y, 4, 1.0, 5, 3)
    np.testing.assert_allclose(model.w, wbar, atol=1e-10)
    np.testing.assert_allclose(
        np.r_[model.W_unary_last.ravel(), model.W_pair_last.ravel()], wlast, atol=1e-10
    )
    assert model.history.tolist() == mistakes and model.n_updates == sum(mistakes)


def test_chain_beats_independent_letters_on_ocr():
    train = ocr_words(250, noise=0.45, seed=10)
    test = ocr_words(250, noise=0.45, seed=11)
    chain = S.structured_sgd(train.X, train.y, eta=0.5, T=4000, seed=0)
    alone = S.structured_sgd(train.X, train.y, eta=0.5, T=4000, seed=0, transitions=False)
    e_chain = S.letter_error(chain, test.X, test.y)
    e_alone = S.letter_error(alone, test.X, test.y)
    print(f"letter error: chain {e_chain:.3f}, independent {e_alone:.3f}")
    assert e_chain < e_alone - 0.03
    # the strongest learned transitions are frequent English bigrams
    from collections import Counter

    counts = Counter(w[i : i + 2] for w in train.words for i in range(len(w) - 1))
    frequent = {b for b, _ in counts.most_common(60)}
    order = np.argsort(chain.W_pair, axis=None)[::-1][:20]
    top = {chr(97 + k // 26) + chr(97 + k % 26) for k in order}
    assert len(top & frequent) >= 10


def test_bad_input_learners():
    X, Y = _tiny()
    for fn in (S.structured_sgd, S.structured_perceptron):
        with pytest.raises(TypeError, match="X"):
            fn(np.ones((3, 4)), Y, n_labels=3)
        with pytest.raises(TypeError, match="X"):
            fn([], [], n_labels=3)
        with pytest.raises(ValueError, match="Y"):
            fn(X, Y[:-1], n_labels=3)
        with pytest.raises(ValueError, match=r"Y\[0\]"):
            fn(X, [y + 5 for y in Y], n_labels=3)
        with pytest.raises(ValueError, match=r"X\[1\]"):
            fn([X[0], np.ones((2, 9))] + X[2:], Y, n_labels=3)
        with pytest.raises(ValueError, match=r"X\[0\]"):
            fn([np.full_like(X[0], np.nan)] + X[1:], Y, n_labels=3)
        with pytest.raises(ValueError, match="eta"):
            fn(X, Y, eta=0.0, n_labels=3)
        with pytest.raises(ValueError, match="n_labels"):
            fn(X, Y, n_labels=1)
        with pytest.raises(TypeError, match="seed"):
            fn(X, Y, n_labels=3, seed="x")
        with pytest.raises(TypeError, match="transitions"):
            fn(X, Y, n_labels=3, transitions="yes")
    with pytest.raises(ValueError, match="T"):
        S.structured_sgd(X, Y, T=0, n_labels=3)
    with pytest.raises(ValueError, match="epochs"):
        S.structured_perceptron(X, Y, epochs=0, n_labels=3)
    model = S.structured_sgd(X, Y, T=5, n_labels=3)
    with pytest.raises(TypeError, match="model"):
        S.predict("model", X)
    with pytest.raises(ValueError, match=r"X\[0\]"):
        S.predict(model, [np.ones((2, 9))])
    with pytest.raises(ValueError, match="Y"):
        S.letter_error(model, X, Y[:2])
