"""Chapter 05: chain features, Viterbi, loss-augmented decoding, learners, taxonomy Δ. — ``kmlteach.structured.viterbi``."""

import numpy as np
import pytest
from helpers import oracle_argmax
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kmlteach import structured as S

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _instance(seed, r, q, integer):
    rng = np.random.default_rng(seed)
    if integer:  # small integers force many exact ties
        return (
            rng.integers(-2, 3, (r, q)).astype(float),
            rng.integers(-2, 3, (q, q)).astype(float),
            rng.integers(-1, 2, q).astype(float),
        )
    return rng.normal(size=(r, q)), rng.normal(size=(q, q)), rng.normal(size=q)


# ---------------------------------------------------------------------------- Viterbi
@SETTINGS
@given(
    seed=st.integers(0, 10_000),
    r=st.integers(1, 6),
    q=st.integers(1, 4),
    integer=st.booleans(),
    with_init=st.booleans(),
)
def test_viterbi_equals_brute_force(seed, r, q, integer, with_init):
    U, P, init = _instance(seed, r, q, integer)
    init_arg = init if with_init else None
    init = init if with_init else np.zeros(q)
    res = S.viterbi(U, P, init_arg)
    y, best = oracle_argmax(U, P, init)
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
        cand = res.M[:, tau - 1][:, None] + P  # [s', s]
        np.testing.assert_allclose(res.M[:, tau], cand.max(axis=0) + U[tau])
        np.testing.assert_array_equal(res.backpointers[:, tau], cand.argmax(axis=0))
    assert np.all(res.backpointers[:, 0] == -1)
    for tau in range(4, 0, -1):
        assert res.labels[tau - 1] == res.backpointers[res.labels[tau], tau]


@pytest.mark.parametrize("q", [1, 2, 3, 4, 5, 7, 8, 9, 26])
@pytest.mark.parametrize("integer", [True, False])
def test_viterbi_table_is_the_recursion_bit_for_bit(q, integer):
    """The kernel takes the predecessors four at a time over labels padded to a multiple
    of 4: for every q (padding 0-3), with exact ties or without, the table, the
    backpointers (smallest s' on ties, numpy's argmax rule) and the path must be the
    recursion's own, to the bit."""
    r = 40
    U, P, init = _instance(q, r, q, integer)
    res = S.viterbi(U, P, init)
    M = np.empty((q, r))
    M[:, 0] = init + U[0]
    for tau in range(1, r):
        cand = M[:, tau - 1][:, None] + P
        np.testing.assert_array_equal(res.backpointers[:, tau], cand.argmax(axis=0))
        M[:, tau] = cand.max(axis=0) + U[tau]
    np.testing.assert_array_equal(res.M, M)
    assert res.score == M[:, -1].max()
    assert res.labels[-1] == int(np.argmax(M[:, -1]))


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


def _hmm(seed, q, k, r, zeros=False):
    rng = np.random.default_rng(seed)
    start = rng.dirichlet(np.ones(q))
    trans = rng.dirichlet(np.ones(q), size=q)
    emis = rng.dirichlet(np.ones(k), size=q)
    if zeros:  # forbidden moves and symbols a state never emits
        trans[rng.random((q, q)) < 0.3] = 0.0
        trans[np.arange(q), np.arange(q)] += 0.1
        trans /= trans.sum(axis=1, keepdims=True)
        emis[rng.random((q, k)) < 0.2] = 0.0
        emis[:, 0] += 0.05
        emis /= emis.sum(axis=1, keepdims=True)
    return start, trans, emis, rng.integers(0, k, r)


@pytest.mark.parametrize(
    "q, k, r, zeros",
    [(26, 26, 2000, False), (3, 7, 500, False), (5, 4, 300, True), (1, 3, 10, False), (4, 4, 1, False)],
)
def test_hmm_viterbi_matches_hmmlearn(q, k, r, zeros):
    hmm = pytest.importorskip("hmmlearn.hmm")
    start, trans, emis, obs = _hmm(q + k + r, q, k, r, zeros)
    model = hmm.CategoricalHMM(n_components=q, n_features=k)
    model.startprob_, model.transmat_, model.emissionprob_ = start, trans, emis
    with np.errstate(divide="ignore"):
        logprob, states = model.decode(obs.reshape(-1, 1), algorithm="viterbi")
    res = S.hmm_viterbi(start, trans, emis, obs)
    if not zeros:  # with zeros the rounded products can tie exactly (tie rules differ)
        np.testing.assert_array_equal(res.labels, states)
    assert res.score == pytest.approx(logprob, rel=1e-10)
    y = res.labels
    with np.errstate(divide="ignore"):
        own = np.log(start[y[0]]) + np.log(emis[y, obs]).sum() + np.log(trans[y[:-1], y[1:]]).sum()
    assert own == pytest.approx(logprob, rel=1e-10)
    # the path uses only allowed moves and emissions
    assert np.all(trans[res.labels[:-1], res.labels[1:]] > 0)
    assert np.all(emis[res.labels, obs] > 0) and start[res.labels[0]] > 0
    assert res.M.shape == (q, 1) and res.backpointers.shape == (q, r)


@pytest.mark.parametrize("seed", range(3))
def test_hmm_viterbi_is_viterbi_on_the_logs_bit_for_bit(seed):
    start, trans, emis, obs = _hmm(seed, 6, 9, 400)
    res = S.hmm_viterbi(start, trans, emis, obs)
    ref = S.viterbi(np.log(emis)[:, obs].T, np.log(trans), np.log(start))
    np.testing.assert_array_equal(res.labels, ref.labels)
    np.testing.assert_array_equal(res.backpointers, ref.backpointers)
    np.testing.assert_array_equal(res.M[:, 0], ref.M[:, -1])
    assert res.score == ref.score
    # lists and float-coded observations are accepted
    assert (
        S.hmm_viterbi(
            start.tolist(), trans.tolist(), emis.tolist(), obs.astype(float).tolist()
        ).labels.tolist()
        == ref.labels.tolist()
    )


def test_bad_input_hmm_viterbi():
    start, trans, emis, obs = _hmm(0, 3, 4, 5)
    cases = [
        ("startprob", dict(startprob=[0.5, 0.5])),
        ("startprob", dict(startprob=[0.5, 0.6, -0.1])),
        ("startprob", dict(startprob=[0.2, 0.2, 0.2])),
        ("startprob", dict(startprob=[np.nan, 0.5, 0.5])),
        ("transmat", dict(transmat=np.full((3, 3), 0.5))),
        ("transmat", dict(transmat=np.eye(4))),
        ("transmat", dict(transmat=np.eye(3) * 2 - np.full((3, 3), 1 / 3))),
        ("emissionprob", dict(emissionprob=np.zeros((3, 0)))),
        ("emissionprob", dict(emissionprob=np.full((3, 4), 0.3))),
        ("emissionprob", dict(emissionprob=np.ones(4) / 4)),
        ("obs", dict(obs=[0, 4])),
        ("obs", dict(obs=[0, -1])),
        ("obs", dict(obs=[0.5, 1.0])),
        ("obs", dict(obs=np.zeros(0, dtype=int))),
        ("obs", dict(obs=np.zeros((2, 2), dtype=int))),
    ]
    base = dict(startprob=start, transmat=trans, emissionprob=emis, obs=obs)
    for name, change in cases:
        with pytest.raises(ValueError, match=name):
            S.hmm_viterbi(**{**base, **change})
    with pytest.raises(TypeError, match="obs"):
        S.hmm_viterbi(start, trans, emis, None)


# ---------------------------------------------------------------- loss-augmented decoding
@SETTINGS
@given(seed=st.integers(0, 10_000), r=st.integers(1, 5), q=st.integers(1, 4), integer=st.booleans())
def test_loss_augmented_equals_brute_force(seed, r, q, integer):
    U, P, init = _instance(seed, r, q, integer)
    y_true = np.random.default_rng(seed + 1).integers(0, q, r)
    cost = (np.arange(q)[None, :] != y_true[:, None]).astype(float)
    y, best = oracle_argmax(U, P, init, cost)
    res = S.loss_augmented_viterbi(U, P, y_true, init)
    np.testing.assert_array_equal(res.labels, y)
    assert res.score == pytest.approx(best, abs=1e-12)
    # the objective is Hamming(y', y) + score(y')
    ham = r * S.hamming_loss(res.labels, y_true)
    plain = U[np.arange(r), res.labels].sum() + init[res.labels[0]] + P[res.labels[:-1], res.labels[1:]].sum()
    assert res.score == pytest.approx(ham + plain)


def test_loss_augmented_with_general_delta():
    U, P, init = _instance(5, 4, 3, False)
    y_true = np.array([0, 2, 1, 1])
    D = np.array([[0.0, 2.0, 0.5], [1.0, 0.0, 3.0], [0.2, 0.7, 0.0]])
    cost = D[:, y_true].T
    y, best = oracle_argmax(U, P, init, cost)
    res = S.loss_augmented_viterbi(U, P, y_true, init, delta=D)
    np.testing.assert_array_equal(res.labels, y)


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


def test_viterbi_result_computes_backpointers_once_and_stays_read_only():
    # viterbi recomputes the backpointers from M on first access: int64, (q, r), and M
    # cannot change under them
    import copy
    import pickle

    U, P, init = _instance(11, 30, 5, False)
    res = S.viterbi(U, P, init)
    assert res.backpointers.dtype == np.int64 and res.backpointers.shape == (5, 30)
    assert res.backpointers is res.backpointers  # computed once
    assert not res.M.flags.writeable
    for other in (pickle.loads(pickle.dumps(res)), copy.deepcopy(res)):
        np.testing.assert_array_equal(other.backpointers, res.backpointers)
        np.testing.assert_array_equal(other.labels, res.labels)
        assert other.score == res.score
    with pytest.raises(AttributeError, match="read-only"):
        res.score = 0.0
