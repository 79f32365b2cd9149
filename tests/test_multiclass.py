"""Chapter 04: multiclass reductions, linear multiclass predictors, perceptrons, Kesler.

Oracles: brute force (LP feasibility for halfspace ERM, Hamming decoding), naive
re-implementations of the book's pseudo-code, scikit-learn (OneVsRest/OneVsOne,
LinearSVC crammer_singer, Perceptron), and theorems (hinge >= Δ, subgradient
inequality, Theorem 17.5's (R‖w*‖)² bound, Kesler's equivalence).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from kmlteach import multiclass as M
from kmlteach.datasets import three_balls
from kmlteach.datasets._multiclass import THREE_BALLS_CENTRES, THREE_BALLS_RADII, example_17_1_weights


def random_problem(seed, m=60, d=3, k=4, spread=3.0):
    rng = np.random.default_rng(seed)
    C = rng.normal(scale=spread, size=(k, d))
    y = np.arange(m) % k
    X = C[y] + rng.normal(size=(m, d))
    return X, y


def separable_problem(seed, m=40, d=3, k=4, gamma=0.3):
    """Data labelled by argmax of a random W, keeping only points with margin >= gamma."""
    rng = np.random.default_rng(seed)
    Wt = rng.normal(size=(k, d))
    X = []
    while len(X) < m:
        x = rng.normal(size=d) * 2
        s = np.sort(Wt @ x)
        if s[-1] - s[-2] >= gamma:
            X.append(x)
    X = np.array(X)
    return X, np.argmax(X @ Wt.T, axis=1), Wt


# ---------------------------------------------------------------------------------------
# Example 17.1: three_balls
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [5, 50, 100, 123, 1000])
def test_three_balls_geometry(n):
    X, y = three_balls(n, seed=3)
    assert X.shape == (n, 2) and set(np.unique(y)) == {1, 2, 3}
    counts = np.bincount(y)[1:]
    assert abs(counts[0] - 0.4 * n) <= 0.5 and abs(counts[1] - 0.2 * n) <= 0.5
    assert counts.sum() == n
    assert np.all(X[:, 1] > 0)
    c = THREE_BALLS_CENTRES
    assert np.all(c[:, 1] == c[0, 1]) and c[0, 0] < c[1, 0] < c[2, 0]
    for lab in (1, 2, 3):
        r = np.linalg.norm(X[y == lab] - c[lab - 1], axis=1)
        assert np.all(r <= THREE_BALLS_RADII[lab - 1] + 1e-12)
    # the book's w1, w2, w3 (UML Example 17.1) classify every point correctly
    W = example_17_1_weights()
    np.testing.assert_allclose(W, [[-2 ** -0.5, 2 ** -0.5], [0, 1], [2 ** -0.5, 2 ** -0.5]])
    assert np.all(np.argmax(X @ W.T, axis=1) + 1 == y)


def test_three_balls_seeded():
    a, b, c = three_balls(60, 1), three_balls(60, 1), three_balls(60, 2)
    assert np.array_equal(a[0], b[0]) and not np.array_equal(a[0], c[0])


def test_example_17_1_ova_with_erm_halfspaces_loses_class_2():
    X, y = three_balls(100, seed=0)
    # ERM for "class 2 vs rest" is the all-negative labelling: error = mass of class 2
    erm = M.erm_halfspace_2d(X, np.where(y == 2, 1.0, -1.0))
    assert erm.errors == 20 and np.all(erm.predict(X) == -1)
    ova = M.one_vs_all(X, y, M.erm_halfspace_2d)
    pred = ova.predict(X)
    assert not np.any(pred == 2)                         # class 2 is never predicted
    assert np.mean(pred[y == 2] == 2) == 0.0
    assert np.all(pred[y != 2] == y[y != 2])             # the other classes are fine
    dec = ova.decide(X)
    assert np.array_equal(dec.ties, y == 2)              # class-2 points: all three say -1
    assert np.array_equal(ova.ties, y == 2) and "smallest" in ova.rule   # set by predict
    assert np.array_equal(ova.tie_mask(X[:3]), np.zeros(3, dtype=bool))
    assert np.array_equal(ova.tied_classes[y == 2], np.ones((20, 3), dtype=bool))
    # the multiclass linear predictor learned by SGD has zero training error
    res = M.multiclass_svm_sgd(X, y, eta=0.1, T=20_000, seed=0)
    assert np.all(res.predict(X) == y)


# ---------------------------------------------------------------------------------------
# exact 2-D halfspace ERM vs brute force (LP feasibility over subsets)
# ---------------------------------------------------------------------------------------

def _separable(X, t):
    from scipy.optimize import linprog

    if len(t) == 0 or np.all(t == t[0]):
        return True
    # find (w, b): t_l (w·x_l + b) >= 1
    A = -t[:, None] * np.c_[X, np.ones(len(t))]
    r = linprog(np.zeros(3), A_ub=A, b_ub=-np.ones(len(t)), bounds=[(None, None)] * 3,
                method="highs")
    return r.status == 0


def _brute_force_erm(X, t):
    m = len(t)
    for n_err in range(m + 1):
        for wrong in itertools.combinations(range(m), n_err):
            keep = np.setdiff1d(np.arange(m), wrong)
            if _separable(X[keep], t[keep]):
                return n_err
    return m


@pytest.mark.parametrize("seed", range(6))
def test_erm_halfspace_2d_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    if seed < 2:   # integer grid: collinear points
        X = rng.integers(0, 3, size=(8, 2)).astype(float)
        X = np.unique(X, axis=0)
    else:
        X = rng.normal(size=(8, 2))
    t = rng.choice([-1.0, 1.0], size=len(X))
    t[0], t[1] = 1.0, -1.0
    res = M.erm_halfspace_2d(X, t)
    assert res.errors == _brute_force_erm(X, t)
    assert res.errors == int(np.sum(res.predict(X) != t))   # the returned (w, b) realises it


# ---------------------------------------------------------------------------------------
# generalized hinge loss, subgradient, objective
# ---------------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 5))
def test_generalized_hinge_upper_bounds_delta(seed, k):
    rng = np.random.default_rng(seed)
    d, m = 3, 12
    W = rng.normal(size=(k, d))
    X = rng.normal(size=(m, d))
    y = rng.integers(0, k, size=m)
    D = rng.uniform(0.1, 3.0, size=(k, k))
    np.fill_diagonal(D, 0.0)
    loss = M.generalized_hinge(W, X, y, delta=D)
    pred = np.argmax(X @ W.T, axis=1)
    assert np.all(loss >= D[pred, y] - 1e-12)
    # direct evaluation of (17.3)
    direct = [max(D[yp, y[i]] + W[yp] @ X[i] - W[y[i]] @ X[i] for yp in range(k)) for i in range(m)]
    np.testing.assert_allclose(loss, direct, rtol=0, atol=1e-12)
    # equality when the correct score beats every y' by at least Δ(y', y)
    Ws = 50.0 * np.eye(k, d) if d >= k else None
    if Ws is not None:
        Xs = np.eye(k, d)[y] * 1.0
        np.testing.assert_allclose(M.generalized_hinge(Ws, Xs, y, delta=D), 0.0)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_subgradient_inequality(seed):
    rng = np.random.default_rng(seed)
    k, d, m = 4, 3, 5
    W = rng.normal(size=(k, d))
    X = rng.normal(size=(m, d))
    y = rng.integers(0, k, size=m)
    G = M.generalized_hinge_subgradient(W, X, y)
    f = M.generalized_hinge(W, X, y).mean()
    for _ in range(10):
        V = W + rng.normal(size=W.shape)
        assert M.generalized_hinge(V, X, y).mean() >= f + np.sum(G * (V - W)) - 1e-10


def test_remark_17_2_binary_case_is_the_hinge():
    # Y = {±1}, Ψ(x, y) = y x / 2: generalized hinge = max(0, 1 - y<w, x>)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    w = rng.normal(size=3)
    labels = np.array([-1, 1])
    psi = lambda x, c: labels[c] * np.asarray(x) / 2.0   # noqa: E731
    y = rng.choice(labels, size=20)
    loss = M.generalized_hinge(w, X, y, psi=psi, classes=labels)
    np.testing.assert_allclose(loss, np.maximum(0, 1 - y * (X @ w)), atol=1e-12)


def test_objective_and_crammer_singer_conversion():
    X, y = random_problem(0, m=30)
    W = np.random.default_rng(1).normal(size=(4, 3))
    lam = 0.05
    obj = M.multiclass_svm_objective(W, X, y, lam)
    # the course's one convention: (λ/2)‖w‖² + mean loss (UML (15.12)); §17.2.5's λ is half
    assert obj == pytest.approx(0.5 * lam * np.sum(W ** 2) + M.generalized_hinge(W, X, y).mean())
    C = M.crammer_singer_C(lam, 30)
    assert C == pytest.approx(1.0 / (lam * 30))
    cs = 0.5 * np.sum(W ** 2) + C * M.generalized_hinge(W, X, y).sum()
    assert cs / (C * 30) == pytest.approx(obj)


# ---------------------------------------------------------------------------------------
# SGD for multiclass learning (§17.2.5) and the RLM multiclass SVM
# ---------------------------------------------------------------------------------------

def _naive_sgd(X, yi, D, idx, eta, k):
    """The pseudo-code of §17.2.5 with explicit Ψ vectors (written independently)."""
    m, n = X.shape

    def psi(x, c):
        v = np.zeros(k * n)
        v[c * n:(c + 1) * n] = x
        return v

    w = np.zeros(k * n)
    ws = []
    for i in idx:
        ws.append(w.copy())
        x, y = X[i], yi[i]
        vals = [D[c, y] + w @ (psi(x, c) - psi(x, y)) for c in range(k)]
        yh = int(np.argmax(vals))
        w = w - eta * (psi(x, yh) - psi(x, y))
    return np.mean(ws, axis=0), ws[-1]


def test_sgd_matches_the_pseudocode_and_general_path():
    X, y = random_problem(2, m=40, k=3)
    labels = np.array(["cat", "dog", "whale"])[y]
    D = np.array([[0, 1, 3], [1, 0, 3], [3, 3, 0]], dtype=float)
    res = M.multiclass_svm_sgd(X, labels, eta=0.05, T=300, seed=7, delta=D)
    assert res.classes.tolist() == ["cat", "dog", "whale"] and res.W.shape == (3, 3)
    idx = np.random.default_rng(7).integers(0, 40, size=300)
    assert np.array_equal(res.indices, idx)
    wbar, wlast = _naive_sgd(X, y, D, idx, 0.05, 3)
    np.testing.assert_allclose(res.w, wbar, atol=1e-12)
    np.testing.assert_allclose(res.w_last, wlast, atol=1e-12)
    # general Ψ path (object and plain callable): bit-identical
    gen = M.multiclass_svm_sgd(X, labels, eta=0.05, T=300, seed=7, delta=D, psi=M.MultivectorPsi(3, 3))
    assert np.array_equal(gen.w, res.w) and np.array_equal(gen.w_last, res.w_last)
    fn = lambda x, c: M.multivector_psi(x, c, 3)   # noqa: E731
    gen2 = M.multiclass_svm_sgd(X, labels, eta=0.05, T=300, seed=7, delta=D, psi=fn)
    assert np.array_equal(gen2.w, res.w)
    np.testing.assert_array_equal(gen2.predict(X[:5]), res.predict(X[:5]))
    # a callable Δ on labels gives the same as the matrix
    cost = {("whale", "cat"): 3, ("whale", "dog"): 3, ("cat", "whale"): 3, ("dog", "whale"): 3}
    dfun = lambda a, b: 0.0 if a == b else cost.get((a, b), 1.0)   # noqa: E731
    res2 = M.multiclass_svm_sgd(X, labels, eta=0.05, T=300, seed=7, delta=dfun)
    assert np.array_equal(res2.W, res.W)
    # different seeds draw different indices
    assert not np.array_equal(M.multiclass_svm_sgd(X, labels, 0.05, 300, seed=8).indices, idx)


def test_multiclass_svm_matches_crammer_singer():
    """λ‖w‖² + mean g-hinge  <->  ½‖W‖² + C Σ ξ with C = 1/(2λm) (LinearSVC crammer_singer)."""
    from sklearn.svm import LinearSVC

    X, y = random_problem(4, m=80, d=3, k=4, spread=1.5)
    lam = 0.01
    C = M.crammer_singer_C(lam, 80)
    # liblinear's coordinate order comes from random_state: pin it (None would take the
    # global NumPy state, making the oracle's own convergence depend on test order)
    ref = LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C, tol=1e-10,
                    max_iter=200_000, random_state=0).fit(X, y)
    assert ref.n_iter_ < 200_000, "the liblinear oracle did not converge"
    W_ref = ref.coef_
    ours = M.multiclass_svm(X, y, lam, T=200_000, seed=0)
    obj_ref = M.multiclass_svm_objective(W_ref, X, y, lam)
    obj_ours = M.multiclass_svm_objective(ours.W, X, y, lam)
    assert ours.objective == pytest.approx(obj_ours)
    # stated tolerance: within 1 % of the reference optimum (SGD gap ~ log T /(λT))
    assert obj_ours <= obj_ref * 1.01
    assert obj_ref <= obj_ours + 1e-6                       # the reference is (near) optimal
    # general Ψ path of the same solver agrees
    gen = M.multiclass_svm(X, y, lam, T=2000, seed=0, psi=M.MultivectorPsi(4, 3))
    fast = M.multiclass_svm(X, y, lam, T=2000, seed=0)
    np.testing.assert_allclose(gen.w, fast.w, rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------------------
# perceptrons and Kesler
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
def test_batch_perceptron_bound_theorem_17_5(seed):
    X, y, Wt = separable_problem(seed)
    # w* = W_true / γ has unit multiclass margin
    S = X @ Wt.T
    srt = np.sort(S, axis=1)
    gamma = np.min(srt[:, -1] - srt[:, -2])
    w_star = Wt / gamma
    R = np.sqrt(2.0) * np.max(np.linalg.norm(X, axis=1))       # max ‖Ψ(x,y_i) − Ψ(x,y)‖
    res = M.multiclass_perceptron(X, y)
    assert res.converged
    assert res.n_updates <= (R * np.linalg.norm(w_star)) ** 2
    assert np.all(res.predict(X) == y)
    # the other perceptrons separate the sample too; the conservative update (η = 1)
    # follows the batch perceptron's path exactly
    cons = M.conservative_perceptron(X, y, max_epochs=1000)
    assert cons.converged and np.array_equal(cons.W, res.W) and cons.n_updates == res.n_updates
    for f in (M.kesler_perceptron, M.collins_perceptron):
        r = f(X, y, max_epochs=1000)
        assert r.converged and np.all(r.predict(X) == y)
        assert r.n_mistakes <= (R * np.linalg.norm(w_star)) ** 2


def test_perceptron_general_psi_matches_multivector():
    X, y, _ = separable_problem(9, m=25, k=3)
    a = M.multiclass_perceptron(X, y)
    b = M.multiclass_perceptron(X, y, psi=M.MultivectorPsi(3, 3))
    np.testing.assert_allclose(b.w, a.w)
    assert a.n_updates == b.n_updates
    c = M.collins_perceptron(X, y)
    e = M.collins_perceptron(X, y, psi=M.MultivectorPsi(3, 3))
    np.testing.assert_allclose(e.w, c.w)


def test_collins_tie_rule_at_zero():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    r = M.collins_perceptron(X, [0, 1], max_epochs=1)
    # at w = 0, example 0 (class 0) wins the tie -> no update; example 1 is a mistake
    np.testing.assert_array_equal(r.W, [[0.0, -1.0], [0.0, 1.0]])
    c = M.conservative_perceptron(X, [0, 1], max_epochs=1)
    np.testing.assert_array_equal(c.W, [[1.0, -1.0], [-1.0, 1.0]])   # ties are mistakes


def test_kesler_embedding_turns_multiclass_into_one_binary_problem():
    X, y, _ = separable_problem(5, m=30, k=4)
    emb = M.kesler_embed(X, y)
    assert emb.Z.shape == (30 * 3, 4 * 3)
    # block y_i holds +x, block j holds −x, and ⟨W, x_ij⟩ = (w_i − w_j)·x
    W = np.random.default_rng(0).normal(size=(4, 3))
    for r in range(0, emb.Z.shape[0], 7):
        i, j, a = emb.example[r], emb.competitor[r], emb.label[r]
        Zr = emb.Z[r].reshape(4, 3)
        np.testing.assert_array_equal(Zr[a], X[i])
        np.testing.assert_array_equal(Zr[j], -X[i])
        assert np.count_nonzero(np.delete(Zr, [a, j], axis=0)) == 0
        assert emb.Z[r] @ W.ravel() == pytest.approx((W[a] - W[j]) @ X[i])
    full = M.kesler_embed(X, y, negatives=True)
    assert full.Z.shape == (2 * 90, 12) and set(full.t) == {-1.0, 1.0}
    # a binary perceptron on the embedded problem is a multiclass predictor
    from sklearn.linear_model import Perceptron

    clf = Perceptron(fit_intercept=False, tol=None, max_iter=1000, shuffle=False).fit(full.Z, full.t)
    Wk = full.weights(clf.coef_)
    assert np.all(np.argmax(X @ Wk.T, axis=1) == y)
    try:
        from kmlteach.svm import perceptron
    except ImportError:
        return
    p = perceptron(full.Z, full.t)
    assert p.converged
    assert np.all(np.argmax(X @ full.weights(p.w).T, axis=1) == y)


# ---------------------------------------------------------------------------------------
# reductions vs scikit-learn
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("k", [3, 4, 5, 6])
def test_one_vs_all_agrees_with_sklearn(k):
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    X, y = random_problem(10 + k, m=30 * k, d=4, k=k, spread=1.5)
    base = LogisticRegression(C=1.0, tol=1e-10, max_iter=10_000)
    ours = M.one_vs_all(X, y, base)
    ref = OneVsRestClassifier(base).fit(X, y)
    Xt = random_problem(100 + k, m=300, d=4, k=k, spread=1.5)[0]
    agree = np.mean(ours.predict(Xt) == ref.predict(Xt))
    print(f"one_vs_all vs OneVsRestClassifier(LogisticRegression), k={k}: agreement {agree:.4f}")
    assert agree >= 0.995
    np.testing.assert_allclose(ours.decision_function(Xt), ref.decision_function(Xt), atol=1e-5)


@pytest.mark.parametrize("k", [3, 4, 6])
def test_all_pairs_agrees_with_sklearn_except_ties(k):
    from sklearn.multiclass import OneVsOneClassifier
    from sklearn.svm import LinearSVC

    X, y = random_problem(20 + k, m=30 * k, d=3, k=k, spread=1.2)
    base = LinearSVC(C=1.0, tol=1e-8, max_iter=100_000, random_state=0)
    ours = M.all_pairs(X, y, base)
    ref = OneVsOneClassifier(base).fit(X, y)
    Xt = random_problem(200 + k, m=400, d=3, k=k, spread=1.2)[0]
    dec = ours.decide(Xt)
    untied = ~dec.ties
    agree = np.mean(dec.labels[untied] == ref.predict(Xt)[untied])
    print(f"all_pairs vs OneVsOneClassifier(LinearSVC), k={k}: agreement {agree:.4f} on "
          f"{untied.sum()} untied points ({dec.ties.sum()} ties)")
    assert agree >= 0.99
    # tied points are exactly those with several classes at the maximal vote count
    V = ours.votes(Xt)
    assert np.array_equal(dec.ties, (V == V.max(axis=1, keepdims=True)).sum(axis=1) > 1)
    assert np.all(dec.index == np.argmax(V, axis=1))


def _stump_learner(X, t):
    """A ±1 'learner': the sign of the first coordinate minus the midpoint of the means."""
    thr = 0.5 * (X[t > 0, 0].mean() + X[t < 0, 0].mean())
    sgn = 1.0 if X[t > 0, 0].mean() > thr else -1.0
    return lambda Z: np.where(sgn * (Z[:, 0] - thr) > 0, 1.0, -1.0)


def test_all_pairs_vote_ties_and_tournament_by_hand():
    # three classes whose pairwise learners beat each other in a cycle at some points
    X = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]] * 4) + 0.01 * np.arange(12)[:, None]
    y = np.array([0, 1, 2] * 4)
    cyc = {(0, 1): 1.0, (0, 2): -1.0, (1, 2): 1.0}   # 0 beats 1, 2 beats 0, 1 beats 2

    class Fixed:
        def __init__(self):
            self.v = None

        def fit(self, X, t):
            key = {frozenset({0, 1}): (0, 1), frozenset({0, 2}): (0, 2),
                   frozenset({1, 2}): (1, 2)}
            self.v = cyc[key[frozenset(np.unique(np.round(X[:, 0])).astype(int).tolist())]]
            return self

        def predict(self, Z):
            return np.full(len(Z), self.v)

    model = M.all_pairs(X, y, Fixed())
    assert np.all(model.ties)                                    # training points, after fit
    dec = model.decide(X[:3])
    assert np.all(dec.ties) and np.all(dec.index == 0)           # 1 win each -> smallest index
    assert "smallest" in dec.rule
    tour = model.decide(X[:3], decision="tournament")
    # bracket: (0 vs 1) -> 0; 0 vs 2 (bye) -> 2
    assert np.all(tour.index == 2) and not np.any(tour.ties)
    assert M.all_pairs(X, y, _stump_learner, decision="tournament").predict(X).shape == (12,)


# ---------------------------------------------------------------------------------------
# ECOC
# ---------------------------------------------------------------------------------------

def test_ecoc_exhaustive_code_and_hamming_decoding():
    Mx = M.ecoc_code(4, "exhaustive")
    assert Mx.shape == (4, 7)
    dist = (Mx[:, None, :] != Mx[None, :, :]).sum(axis=2)
    assert np.all(dist[~np.eye(4, dtype=bool)] == 4)            # 2^{k-2}
    X, y = random_problem(3, m=40, d=2, k=4)
    flip_col = 2

    def memorising_learner(Xtr, t):
        # returns the training bit of the nearest training point; column 2 is corrupted
        corrupt = np.array_equal(t, Mx[y, flip_col])
        def score(Z):
            nn = np.argmin(((Z[:, None, :] - Xtr[None, :, :]) ** 2).sum(axis=2), axis=1)
            return -t[nn] if corrupt else t[nn]
        return score

    model = M.ecoc(X, y, memorising_learner, code=Mx)
    # one wrong bit out of 7 with codewords 4 apart: corrected
    assert np.all(model.predict(X) == y)
    # brute-force Hamming decoding
    B = model.bits(X)
    brute = [min(range(4), key=lambda c: (np.sum(B[i] != Mx[c]), c)) for i in range(40)]
    np.testing.assert_array_equal(model.decide(X).index, brute)
    rnd = M.ecoc_code(5, "random", n_bits=12, seed=0)
    assert rnd.shape == (5, 12) and np.all(np.abs(rnd) == 1)
    assert np.array_equal(rnd, M.ecoc_code(5, "random", n_bits=12, seed=0))
    assert np.array_equal(M.ecoc_code(3, "ova"), 2 * np.eye(3) - 1)


# ---------------------------------------------------------------------------------------
# TF-IDF Ψ
# ---------------------------------------------------------------------------------------

def test_tfidf_psi_by_hand():
    TF = np.array([[2, 0, 1], [0, 3, 1], [1, 1, 0]], dtype=float)
    y = ["a", "b", "b"]
    psi = M.TfidfPsi(TF, y, smooth=0.0 + 1.0)
    # DF(j, 'a') = occurrences outside topic a = rows 1, 2; DF(j, 'b') = row 0
    DFa = np.array([1, 4, 1.0])
    DFb = np.array([2, 0, 1.0])
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(psi(x, 0), x * np.log(3 / (DFa + 1)))
    np.testing.assert_allclose(psi(x, 1), x * np.log(3 / (DFb + 1)))
    assert psi.dim == 3
    with pytest.raises(ValueError, match="DF"):
        M.TfidfPsi(TF, y, smooth=0.0)          # word 1 never occurs outside topic b
    # SGD with the TF-IDF map runs and predicts labels
    res = M.multiclass_svm_sgd(TF, y, eta=0.1, T=50, seed=0, psi=psi)
    assert res.W is None and set(res.predict(TF)) <= {"a", "b"}


# ---------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------

X0 = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [2.0, 0.5]])
y0 = np.array([0, 1, 2, 1])


@pytest.mark.parametrize("fn", [
    lambda X, y: M.multiclass_svm_sgd(X, y, 0.1, 10, 0),
    lambda X, y: M.multiclass_svm(X, y, 0.1, 10, 0),
    lambda X, y: M.multiclass_perceptron(X, y),
    lambda X, y: M.kesler_perceptron(X, y),
    lambda X, y: M.conservative_perceptron(X, y),
    lambda X, y: M.collins_perceptron(X, y),
    lambda X, y: M.kesler_embed(X, y),
    lambda X, y: M.one_vs_all(X, y, _stump_learner),
    lambda X, y: M.all_pairs(X, y, _stump_learner),
    lambda X, y: M.ecoc(X, y, _stump_learner, code="ova"),
])
def test_bad_X_and_y(fn):
    with pytest.raises(ValueError, match="X"):
        fn(np.array([[0.0, np.nan]] * 4), y0)
    with pytest.raises(ValueError, match="X"):
        fn(np.zeros(4), y0)
    with pytest.raises(ValueError, match="X"):
        fn(np.zeros((0, 2)), y0[:0])
    with pytest.raises(TypeError, match="X"):
        fn(np.array([["a", "b"]] * 4), y0)
    with pytest.raises(ValueError, match="y"):
        fn(X0, y0[:3])
    with pytest.raises(ValueError, match="y"):
        fn(X0, np.zeros(4))                      # a single class
    with pytest.raises(ValueError, match="y"):
        fn(X0, np.array([0, 1, np.nan, 1]))
    with pytest.raises(TypeError, match="y"):
        fn(X0, None)
    fn(X0.tolist(), y0.tolist())                 # lists are fine


def test_bad_parameters():
    with pytest.raises(ValueError, match="eta"):
        M.multiclass_svm_sgd(X0, y0, 0.0, 10, 0)
    with pytest.raises(TypeError, match="eta"):
        M.multiclass_svm_sgd(X0, y0, "1", 10, 0)
    with pytest.raises(ValueError, match="T"):
        M.multiclass_svm_sgd(X0, y0, 0.1, 0, 0)
    with pytest.raises(TypeError, match="T"):
        M.multiclass_svm_sgd(X0, y0, 0.1, 2.5, 0)
    with pytest.raises(ValueError, match="seed"):
        M.multiclass_svm_sgd(X0, y0, 0.1, 10, -1)
    with pytest.raises(ValueError, match="lam"):
        M.multiclass_svm(X0, y0, -1.0, 10, 0)
    with pytest.raises(ValueError, match="delta"):
        M.multiclass_svm_sgd(X0, y0, 0.1, 10, 0, delta=np.ones((3, 3)))       # diagonal
    with pytest.raises(ValueError, match="delta"):
        M.multiclass_svm_sgd(X0, y0, 0.1, 10, 0, delta=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="delta"):
        M.multiclass_svm_sgd(X0, y0, 0.1, 10, 0, delta=-(1 - np.eye(3)))
    with pytest.raises(TypeError, match="psi"):
        M.multiclass_svm_sgd(X0, y0, 0.1, 10, 0, psi=3)
    with pytest.raises(ValueError, match="psi"):
        M.multiclass_svm_sgd(X0, y0, 0.1, 10, 0, psi=M.MultivectorPsi(4, 2))
    with pytest.raises(ValueError, match="max_updates"):
        M.multiclass_perceptron(X0, y0, max_updates=-1)
    with pytest.raises(ValueError, match="eta"):
        M.kesler_perceptron(X0, y0, eta=0)
    with pytest.raises(ValueError, match="max_epochs"):
        M.collins_perceptron(X0, y0, max_epochs=0)
    with pytest.raises(TypeError, match="learner"):
        M.one_vs_all(X0, y0, None)
    with pytest.raises(TypeError, match="learner"):
        M.all_pairs(X0, y0, 3)
    with pytest.raises(ValueError, match="decision"):
        M.all_pairs(X0, y0, _stump_learner, decision="majority")
    with pytest.raises(ValueError, match="code"):
        M.ecoc(X0, y0, _stump_learner, code=np.ones((3, 4)))          # constant columns
    with pytest.raises(ValueError, match="code"):
        M.ecoc(X0, y0, _stump_learner, code=np.array([[1, -1], [1, -1], [-1, 1]]))  # equal rows
    with pytest.raises(ValueError, match="code"):
        M.ecoc(X0, y0, _stump_learner, code=np.array([[1, 0], [-1, 1], [1, -1]]))
    with pytest.raises(ValueError, match="code"):
        M.ecoc(X0, y0, _stump_learner, code=np.array([[1, -1], [-1, 1]]))
    with pytest.raises(ValueError, match="kind"):
        M.ecoc_code(3, "dense")
    with pytest.raises(ValueError, match="k"):
        M.ecoc_code(12, "exhaustive")


def test_bad_input_losses_and_maps():
    W = np.ones((3, 2))
    with pytest.raises(ValueError, match="X"):
        M.generalized_hinge(W, np.ones((2, 3)), [0, 1])
    with pytest.raises(ValueError, match="y"):
        M.generalized_hinge(W, np.ones((2, 2)), [0, 3])
    with pytest.raises(ValueError, match="y"):
        M.generalized_hinge(W, np.ones((2, 2)), [0, 1, 1])
    with pytest.raises(TypeError, match="y"):
        M.generalized_hinge(W, np.ones((2, 2)), ["a", "b"])
    with pytest.raises(ValueError, match="w"):
        M.generalized_hinge(np.ones((1, 2)), np.ones((2, 2)), [0, 0])
    with pytest.raises(ValueError, match="w"):
        M.generalized_hinge([1.0, np.nan], np.ones((2, 2)), [0, 0], psi=M.MultivectorPsi(2, 1))
    with pytest.raises(ValueError, match="delta"):
        M.generalized_hinge(W, np.ones((2, 2)), [0, 1], delta=np.eye(3))
    with pytest.raises(ValueError, match="y"):
        M.generalized_hinge_subgradient(W, np.ones((2, 2)), [0, 1], classes=[5, 6, 7])
    with pytest.raises(ValueError, match="lam"):
        M.multiclass_svm_objective(W, np.ones((2, 2)), [0, 1], -1.0)
    with pytest.raises(ValueError, match="lam"):
        M.crammer_singer_C(0.0, 10)
    with pytest.raises(ValueError, match="k"):
        M.multivector_psi([1.0], 0, 1)
    with pytest.raises(ValueError, match="y"):
        M.multivector_psi([1.0], 3, 3)
    with pytest.raises(ValueError, match="x"):
        M.MultivectorPsi(3, 2)([1.0, 2.0, 3.0], 0)
    with pytest.raises(ValueError, match="TF"):
        M.TfidfPsi(-np.ones((2, 2)), [0, 1])
    with pytest.raises(ValueError, match="y"):
        M.TfidfPsi(np.ones((2, 2)), [0, 0])
    with pytest.raises(ValueError, match="X"):
        M.erm_halfspace_2d(np.ones((3, 3)), [1, -1, 1])
    with pytest.raises(ValueError, match="y"):
        M.erm_halfspace_2d(np.ones((3, 2)), [1, 0, 1])
    with pytest.raises(ValueError, match="y"):
        M.erm_halfspace_2d(np.ones((3, 2)), [1, 1, 1])
    model = M.one_vs_all(X0, y0, _stump_learner)
    with pytest.raises(ValueError, match="X"):
        model.predict(np.ones((2, 3)))
    res = M.multiclass_svm_sgd(X0, y0, 0.1, 10, 0)
    with pytest.raises(ValueError, match="X"):
        res.predict(np.ones((2, 3)))
    emb = M.kesler_embed(X0, y0)
    with pytest.raises(ValueError, match="w"):
        emb.weights(np.ones(5))


def test_bad_input_three_balls():
    with pytest.raises(ValueError, match="n"):
        three_balls(3, 0)
    with pytest.raises(TypeError, match="n"):
        three_balls("100", 0)
    with pytest.raises(ValueError, match="seed"):
        three_balls(100, -2)
    with pytest.raises(ValueError, match="radius2"):
        three_balls(100, 0, radius2=2.0)
    with pytest.raises(ValueError, match="mass2"):
        three_balls(100, 0, mass2=1.0)
    with pytest.raises(ValueError, match="shift"):
        three_balls(100, 0, shift=(1.0, 2.0, 3.0))


def test_least_squares_learner_is_the_normal_equations():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    t = np.where(X[:, 0] + 0.3 * rng.normal(size=30) > 0, 1.0, -1.0)
    sc = M.least_squares_learner(X, t, lam=0.0)
    ref = np.linalg.lstsq(np.c_[X, np.ones(30)], t, rcond=None)[0]
    np.testing.assert_allclose(np.r_[sc.w, sc.b], ref, atol=1e-10)
    assert set(sc.predict(X)) <= {-1.0, 1.0}
    with pytest.raises(ValueError, match="lam"):
        M.least_squares_learner(X, t, lam=-1.0)
    with pytest.raises(ValueError, match="y"):
        M.least_squares_learner(X, np.ones(30))
    with pytest.raises(ValueError, match="X"):
        M.least_squares_learner(X[:, :0], t)


def test_max_updates_caps_the_online_perceptrons():
    X, y, _ = separable_problem(1, m=30, k=3)
    for f in (M.kesler_perceptron, M.conservative_perceptron, M.collins_perceptron):
        r = f(X, y, max_updates=2)
        assert r.n_updates == 2 and not r.converged
        with pytest.raises(ValueError, match="max_updates"):
            f(X, y, max_updates=-1)
    g = M.collins_perceptron(X, y, psi=M.MultivectorPsi(3, 3), max_updates=2)
    np.testing.assert_allclose(g.w, M.collins_perceptron(X, y, max_updates=2).w)


def test_stump_learner_is_an_erm_over_stumps():
    rng = np.random.default_rng(3)
    for _ in range(5):
        X = rng.integers(0, 6, size=(15, 2)).astype(float)
        t = rng.choice([-1.0, 1.0], size=15)
        t[:2] = (1.0, -1.0)
        st = M.stump_learner(X, t)
        # brute force: every feature, every threshold at a data value (or below all), both signs
        best = min(np.sum(s * np.where(X[:, f] > th, 1.0, -1.0) != t)
                   for f in range(2) for th in np.r_[X[:, f].min() - 1, X[:, f]] for s in (1.0, -1.0))
        assert st.errors == best == int(np.sum(st.predict(X) != t))
    with pytest.raises(ValueError, match="y"):
        M.stump_learner(X, np.ones(15))
    with pytest.raises(ValueError, match="X"):
        st.predict(np.ones((2, 0)))


def test_multiclass_svm_estimator():
    import warnings

    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(M.MulticlassSVM(), on_fail=None)   # no expected failure
    failed = {r["check_name"] for r in results if r["status"] not in ("passed", "skipped")}
    assert not failed, failed
    X, y = random_problem(6, m=60, d=2, k=3)
    labels = np.array(["a", "b", "c"])[y]
    est = M.MulticlassSVM(lam=0.01, T=5000, seed=1, fit_intercept=False).fit(X, labels)
    ref = M.multiclass_svm(X, labels, 0.01, T=5000, seed=1)
    np.testing.assert_array_equal(est.coef_, ref.W)
    np.testing.assert_array_equal(est.predict(X), ref.predict(X))
    est2 = M.MulticlassSVM(T=5000).fit(X, labels)
    assert est2.coef_.shape == (3, 2) and est2.intercept_.shape == (3,)
    with pytest.raises(ValueError, match="features"):
        est.predict(np.ones((2, 3)))
    with pytest.raises(ValueError, match="class"):
        M.MulticlassSVM().fit(X, np.zeros(60))


def test_reductions_accept_kmlteach_svm_results_and_estimators():
    svm = pytest.importorskip("kmlteach.svm")
    X, y = random_problem(8, m=60, d=2, k=3, spread=4.0)
    Xb = np.c_[X, np.ones(60)]
    # a function returning a result with .w / .b (soft_svm with a bias)
    m1 = M.one_vs_all(X, y, lambda A, t: svm.soft_svm(A, t, 0.01, homogeneous=False))
    ref = [svm.soft_svm(X, np.where(y == c, 1.0, -1.0), 0.01, homogeneous=False) for c in range(3)]
    S = np.column_stack([X @ r.w + r.b for r in ref])
    np.testing.assert_array_equal(m1.predict(X), np.argmax(S, axis=1))
    # the estimator SoftSVM is cloned per sub-problem
    est = svm.SoftSVM(lam=0.01)
    m2 = M.all_pairs(X, y, est)
    assert not hasattr(est, "coef_")                        # the original is untouched
    assert len({id(e) for e in m2.estimators.values()}) == 3
    # the perceptron on lifted data as a plain binary learner
    m3 = M.one_vs_all(Xb, y, lambda A, t: svm.perceptron(A, t, max_updates=2000))
    assert m3.predict(Xb).shape == (60,)


def test_losses_with_labels_in_any_class_order():
    W = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    X = np.array([[2.0, 0.5], [0.1, 1.0], [-1.0, -2.0]])
    classes = np.array(["whale", "cat", "dog"])             # row order of W, not sorted
    y = np.array(["whale", "cat", "dog"])
    np.testing.assert_allclose(M.generalized_hinge(W, X, y, classes=classes),
                               M.generalized_hinge(W, X, [0, 1, 2]))
    with pytest.raises(ValueError, match="y"):
        M.generalized_hinge(W, X, ["whale", "cat", "cow"], classes=classes)


@pytest.mark.parametrize("n", [5, 8, 9, 13, 61, 123])
def test_three_balls_erm_loses_class_2_for_any_n(n):
    X, y = three_balls(n, seed=n)
    erm = M.erm_halfspace_2d(X, np.where(y == 2, 1.0, -1.0))
    assert erm.constant and erm.errors == np.sum(y == 2)
    assert not np.any(M.one_vs_all(X, y, M.erm_halfspace_2d).predict(X) == 2)
