"""Chapter 05: chain features, Viterbi, loss-augmented decoding, learners, taxonomy Δ."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from kmlteach import structured as S
from kmlteach.datasets import ocr_words

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _instance(seed, r, q, integer):
    rng = np.random.default_rng(seed)
    if integer:  # small integers force many exact ties
        return (rng.integers(-2, 3, (r, q)).astype(float), rng.integers(-2, 3, (q, q)).astype(float),
                rng.integers(-1, 2, q).astype(float))
    return rng.normal(size=(r, q)), rng.normal(size=(q, q)), rng.normal(size=q)


def _oracle_argmax(U, P, init, cost=None):
    """Independent enumeration; ties: smallest labelling read from the back."""
    r, q = U.shape
    best, best_key, best_y = -np.inf, None, None
    for y in itertools.product(range(q), repeat=r):
        s = init[y[0]] + U[0, y[0]] + (0 if cost is None else cost[0, y[0]])
        for t in range(1, r):
            s = s + P[y[t - 1], y[t]] + (U[t, y[t]] + (0 if cost is None else cost[t, y[t]]))
        key = y[::-1]
        if s > best or (s == best and key < best_key):
            best, best_key, best_y = s, key, y
    return np.array(best_y), best


# ---------------------------------------------------------------------------- Viterbi
@SETTINGS
@given(seed=st.integers(0, 10_000), r=st.integers(1, 6), q=st.integers(1, 4),
       integer=st.booleans(), with_init=st.booleans())
def test_viterbi_equals_brute_force(seed, r, q, integer, with_init):
    U, P, init = _instance(seed, r, q, integer)
    init_arg = init if with_init else None
    init = init if with_init else np.zeros(q)
    res = S.viterbi(U, P, init_arg)
    y, best = _oracle_argmax(U, P, init)
    assert res.score == pytest.approx(best, abs=1e-12)
    np.testing.assert_array_equal(res.labels, y)
    bf = S.brute_force_argmax(U, P, init_arg)
    np.testing.assert_array_equal(bf.labels, y)
    assert res.M.shape == (q, r) and res.backpointers.shape == (q, r)
    assert res.score == pytest.approx(res.M[:, -1].max())


def test_viterbi_trace_matches_recursion():
    U, P, init = _instance(3, 5, 4, False)
    res = S.viterbi(U, P, init)
    np.testing.assert_allclose(res.M[:, 0], init + U[0])
    for tau in range(1, 5):
        cand = res.M[:, tau - 1][:, None] + P          # [s', s]
        np.testing.assert_allclose(res.M[:, tau], cand.max(axis=0) + U[tau])
        np.testing.assert_array_equal(res.backpointers[:, tau], cand.argmax(axis=0))
    assert np.all(res.backpointers[:, 0] == -1)
    for tau in range(4, 0, -1):
        assert res.labels[tau - 1] == res.backpointers[res.labels[tau], tau]


def test_viterbi_all_ties_picks_zeros():
    res = S.viterbi(np.zeros((4, 3)), np.zeros((3, 3)))
    assert res.labels.tolist() == [0, 0, 0, 0] and res.score == 0.0


def test_viterbi_matches_hmmlearn():
    hmm = pytest.importorskip("hmmlearn.hmm")
    rng = np.random.default_rng(0)
    q, r = 26, 2000
    start = rng.dirichlet(np.ones(q))
    trans = rng.dirichlet(np.ones(q), size=q)
    emis = rng.dirichlet(np.ones(q), size=q)
    model = hmm.CategoricalHMM(n_components=q, n_features=q)
    model.startprob_, model.transmat_, model.emissionprob_ = start, trans, emis
    obs = rng.integers(0, q, r)
    logprob, states = model.decode(obs.reshape(-1, 1), algorithm="viterbi")
    res = S.viterbi(np.log(emis[:, obs]).T, np.log(trans), np.log(start))
    np.testing.assert_array_equal(res.labels, states)
    assert res.score == pytest.approx(logprob, rel=1e-10)


# ---------------------------------------------------------------- loss-augmented decoding
@SETTINGS
@given(seed=st.integers(0, 10_000), r=st.integers(1, 5), q=st.integers(1, 4),
       integer=st.booleans())
def test_loss_augmented_equals_brute_force(seed, r, q, integer):
    U, P, init = _instance(seed, r, q, integer)
    y_true = np.random.default_rng(seed + 1).integers(0, q, r)
    cost = (np.arange(q)[None, :] != y_true[:, None]).astype(float)
    y, best = _oracle_argmax(U, P, init, cost)
    res = S.loss_augmented_viterbi(U, P, y_true, init)
    np.testing.assert_array_equal(res.labels, y)
    assert res.score == pytest.approx(best, abs=1e-12)
    # the objective is Hamming(y', y) + score(y')
    ham = r * S.hamming_loss(res.labels, y_true)
    plain = U[np.arange(r), res.labels].sum() + init[res.labels[0]] + \
        P[res.labels[:-1], res.labels[1:]].sum()
    assert res.score == pytest.approx(ham + plain)


def test_loss_augmented_with_general_delta():
    U, P, init = _instance(5, 4, 3, False)
    y_true = np.array([0, 2, 1, 1])
    D = np.array([[0.0, 2.0, 0.5], [1.0, 0.0, 3.0], [0.2, 0.7, 0.0]])
    cost = D[:, y_true].T
    y, best = _oracle_argmax(U, P, init, cost)
    res = S.loss_augmented_viterbi(U, P, y_true, init, delta=D)
    np.testing.assert_array_equal(res.labels, y)


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
        Wu, Wp = w[: n * q].reshape(q, n), w[n * q:].reshape(q, q)
        U = x @ Wu.T
        cost = (np.arange(q)[None, :] != y[:, None]).astype(float)
        yhat, _ = _oracle_argmax(U, Wp if transitions else np.zeros((q, q)), np.zeros(q), cost)
        v = S.psi(x, yhat, q) - S.psi(x, y, q)
        if not transitions:
            v[n * q:] = 0
        w = w - eta * v
    return total / T, w


@pytest.mark.parametrize("transitions", [True, False])
def test_structured_sgd_follows_the_book(transitions):
    X, Y = _tiny()
    model = S.structured_sgd(X, Y, eta=0.3, T=40, seed=7, n_labels=3, transitions=transitions)
    wbar, wlast = _reference_sgd(X, Y, 0.3, 40, 7, 3, transitions)
    np.testing.assert_allclose(model.w, wbar, atol=1e-10)
    np.testing.assert_allclose(np.r_[model.W_unary_last.ravel(), model.W_pair_last.ravel()],
                               wlast, atol=1e-10)
    if not transitions:
        assert np.all(model.W_pair == 0)


def test_structured_sgd_seed():
    X, Y = _tiny()
    a = S.structured_sgd(X, Y, eta=0.3, T=30, seed=1, n_labels=3)
    b = S.structured_sgd(X, Y, eta=0.3, T=30, seed=1, n_labels=3)
    c = S.structured_sgd(X, Y, eta=0.3, T=30, seed=2, n_labels=3)
    np.testing.assert_array_equal(a.w, b.w)
    assert not np.array_equal(a.w, c.w)


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
            Wu, Wp = w[: n * q].reshape(q, n), w[n * q:].reshape(q, q)
            z, _ = _oracle_argmax(X[i] @ Wu.T, Wp, np.zeros(q))
            if not np.array_equal(z, Y[i]):
                k += 1
                w = w + eta * (S.psi(X[i], Y[i], q) - S.psi(X[i], z, q))
        mistakes.append(k)
        if k == 0:
            break
    return total / visits, w, mistakes


def test_structured_perceptron_follows_collins():
    X, Y = _tiny(seed=3)
    model = S.structured_perceptron(X, Y, epochs=4, eta=1.0, seed=5, n_labels=3)
    wbar, wlast, mistakes = _reference_perceptron(X, Y, 4, 1.0, 5, 3)
    np.testing.assert_allclose(model.w, wbar, atol=1e-10)
    np.testing.assert_allclose(np.r_[model.W_unary_last.ravel(), model.W_pair_last.ravel()],
                               wlast, atol=1e-10)
    assert model.history.tolist() == mistakes and model.n_updates == sum(mistakes)


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
    counts = Counter(w[i:i + 2] for w in train.words for i in range(len(w) - 1))
    frequent = {b for b, _ in counts.most_common(60)}
    order = np.argsort(chain.W_pair, axis=None)[::-1][:20]
    top = {chr(97 + k // 26) + chr(97 + k % 26) for k in order}
    assert len(top & frequent) >= 10


# ---------------------------------------------------------------------------- taxonomy
def test_taxonomy_delta_fig_2_1():
    tax = S.taxonomy_delta()
    D, L = tax.delta, list(tax.labels)
    assert set(L) == {"Computers", "Hardware", "Software", "Storage", "Cables", "HDD", "CDROM",
                      "Freeware", "Shareware", "Opensource"}
    i = L.index
    assert D[i("CDROM"), i("HDD")] == 2 and D[i("CDROM"), i("Cables")] == 3
    assert D[i("CDROM"), i("HDD")] < D[i("CDROM"), i("Cables")]
    assert D[i("HDD"), i("Opensource")] == 5
    np.testing.assert_array_equal(D, D.T)
    assert np.all(np.diag(D) == 0) and np.all(D[~np.eye(len(L), dtype=bool)] > 0)
    leaves = S.taxonomy_delta(leaves_only=True)
    assert set(leaves.labels) == {"Cables", "HDD", "CDROM", "Freeware", "Shareware", "Opensource"}


def test_taxonomy_two_level_reduces_to_rho():
    rho = 1.7
    tax = S.taxonomy_delta({"root": ["a", "b", "c", "d"]}, edge_weight=rho / 2, leaves_only=True)
    np.testing.assert_allclose(tax.delta, rho * (1 - np.eye(4)))
    f = np.array([0.5, 2.0, 1.0, -1.0])
    # (2.21) with this Δ is the multiclass hinge (2.12) with margin ρ
    assert S.taxonomy_hinge(f, 0, tax.delta) == pytest.approx(max(0, rho + 2.0 - 0.5))
    assert S.taxonomy_hinge(f, 1, tax.delta) == pytest.approx(max(0, rho + 1.0 - 2.0))


# ---------------------------------------------------------------------------- bad input
def test_bad_input_viterbi_family():
    U, P = np.zeros((3, 2)), np.zeros((2, 2))
    for fn in (S.viterbi, S.brute_force_argmax):
        with pytest.raises(ValueError, match="unary"):
            fn(np.zeros(3), P)
        with pytest.raises(ValueError, match="unary"):
            fn(np.zeros((0, 2)), P)
        with pytest.raises(ValueError, match="unary"):
            fn([[np.nan, 0.0]], P)
        with pytest.raises(TypeError, match="unary"):
            fn("abc", P)
        with pytest.raises(TypeError, match="unary"):
            fn(np.array([["a", "b"]]), P)
        with pytest.raises(ValueError, match="pairwise"):
            fn(U, np.zeros((3, 3)))
        with pytest.raises(ValueError, match="pairwise"):
            fn(U, [[0.0, np.inf], [0.0, 0.0]])
        with pytest.raises(ValueError, match="initial"):
            fn(U, P, np.zeros(3))
    with pytest.raises(ValueError, match="unary"):
        S.brute_force_argmax(np.zeros((20, 4)), np.zeros((4, 4)))
    assert S.viterbi([[1.0, 2.0]], [[0.0, 0.0], [0.0, 0.0]]).labels.tolist() == [1]  # lists ok
    with pytest.raises(ValueError, match="y_true"):
        S.loss_augmented_viterbi(U, P, [0, 1])
    with pytest.raises(ValueError, match="y_true"):
        S.loss_augmented_viterbi(U, P, [0, 1, 2])
    with pytest.raises(ValueError, match="y_true"):
        S.loss_augmented_viterbi(U, P, [0, 1, 0.5])
    with pytest.raises(TypeError, match="y_true"):
        S.loss_augmented_viterbi(U, P, None)
    with pytest.raises(ValueError, match="delta"):
        S.loss_augmented_viterbi(U, P, [0, 1, 1], delta=np.zeros((3, 3)))


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


def test_bad_input_taxonomy():
    with pytest.raises(TypeError, match="tree"):
        S.taxonomy_delta(tree=[("a", "b")])
    with pytest.raises(ValueError, match="tree"):
        S.taxonomy_delta(tree={"a": ["b"], "c": ["d"]})
    with pytest.raises(ValueError, match="tree"):
        S.taxonomy_delta(tree={"a": ["b", "c"], "b": ["c"]})
    with pytest.raises(ValueError, match="edge_weight"):
        S.taxonomy_delta(edge_weight=-1)
    D = S.taxonomy_delta().delta
    with pytest.raises(ValueError, match="delta"):
        S.taxonomy_hinge(np.zeros(3), 0, D)
    with pytest.raises(ValueError, match="y"):
        S.taxonomy_hinge(np.zeros(10), 10, D)
    with pytest.raises(ValueError, match="scores"):
        S.taxonomy_hinge(np.full(10, np.nan), 0, D)
