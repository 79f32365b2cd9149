"""Oracle and bad-input tests for kmlteach.structured_kernels (HSS1 §1.4, UML §16.2.1)."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse.csgraph
from hypothesis import given, settings
from hypothesis import strategies as st

from kmlteach import structured_kernels as sk

# ----------------------------------------------------------------------------- oracles


def brute_substrings(x, max_len=None):
    top = len(x) if max_len is None else max_len
    return {x[i:j] for i in range(len(x)) for j in range(i + 1, len(x) + 1) if j - i <= top}


def path_graph(n):
    A = np.zeros((n, n))
    for i in range(n - 1):
        A[i, i + 1] = A[i + 1, i] = 1
    return A


def test_adjacency_matrix():
    np.testing.assert_array_equal(sk.adjacency_matrix([(i, i + 1) for i in range(4)], 5), path_graph(5))
    A = sk.adjacency_matrix([(0, 1), (2, 1)], 3, directed=True)
    np.testing.assert_array_equal(A, [[0, 1, 0], [0, 0, 0], [0, 1, 0]])


def random_graph(rng, n, p=0.5, symmetric=True):
    A = (rng.random((n, n)) < p).astype(float)
    np.fill_diagonal(A, 0)
    if symmetric:
        A = np.triu(A, 1)
        A = A + A.T
    return A


def walks(A, max_len):
    """All walks (node sequences) with at most max_len edges, by explicit enumeration."""
    n = A.shape[0]
    out = [[(v,) for v in range(n)]]
    for _ in range(max_len):
        out.append([w + (u,) for w in out[-1] for u in range(n) if A[w[-1], u]])
    return out


short_text = st.text(alphabet="abc", max_size=9)

# ----------------------------------------------------------------------------- substring


@settings(max_examples=60, deadline=None)
@given(short_text, short_text, st.one_of(st.none(), st.integers(0, 10)))
def test_substring_kernel_matches_set_intersection(s, t, max_len):
    expected = len(brute_substrings(s, max_len) & brute_substrings(t, max_len))
    assert sk.substring_kernel(s, t, max_len) == expected
    assert sk.substring_kernel(t, s, max_len) == expected


def test_substring_kernel_examples_and_unicode():
    assert sk.substring_kernel("abab", "bab") == 5          # a b ab ba bab
    assert sk.substring_kernel("aaaa", "aa") == 2           # a aa
    assert sk.substring_kernel("", "abc") == 0
    assert sk.substring_kernel("xyz", "abc") == 0
    assert sk.substring_kernel("abc", "abc") == 6
    assert sk.substring_kernel("naïve→", "ïve→x", max_len=2) == 7    # ï v e → ïv ve e→
    rng = np.random.default_rng(1)
    s = "".join(rng.choice(list("acgt"), 300))
    t = "".join(rng.choice(list("acgt"), 250))
    assert sk.substring_kernel(s, t) == len(brute_substrings(s) & brute_substrings(t))
    assert sk.substring_kernel(s, s) == len(brute_substrings(s))


def test_substring_kernel_is_inner_product_of_indicators():
    words = ["banana", "bandana", "anna", "nab", "b"]
    for max_len in (None, 2):
        Phi, vocab = sk.substring_features(words, max_len=max_len)
        assert set(np.unique(Phi)) <= {0.0, 1.0}
        for i, w in enumerate(words):
            assert {vocab[j] for j in np.flatnonzero(Phi[i])} == brute_substrings(w, max_len)
        K = sk.structured_gram(sk.substring_kernel, words, max_len=max_len)
        np.testing.assert_array_equal(K, Phi @ Phi.T)
        assert np.linalg.eigvalsh(K).min() > -1e-9


# ----------------------------------------------------------------------------- n-grams, sets


@settings(max_examples=50, deadline=None)
@given(short_text, short_text, st.integers(1, 4))
def test_ngram_kernel_equals_count_vector_product(x, y, n):
    cx = Counter(x[i:i + n] for i in range(len(x) - n + 1))
    cy = Counter(y[i:i + n] for i in range(len(y) - n + 1))
    grams = ["".join(g) for g in itertools.product("abc", repeat=n)]   # all of Σⁿ
    expected = sum(cx[g] * cy[g] for g in grams)
    assert sk.ngram_kernel(x, y, n) == expected
    assert sk.ngram_counts(x, n) == cx


def test_ngram_features_and_example():
    assert sk.ngram_kernel("banana", "ananas", 2) == 8
    words = ["banana", "ananas", "nab", "a"]
    Phi, vocab = sk.ngram_features(words, 2)
    assert vocab == sorted(vocab)
    np.testing.assert_array_equal(Phi @ Phi.T, sk.structured_gram(sk.ngram_kernel, words, n=2))
    # "ban" has the bigrams ba, an: banana has ba once, an twice; ananas an twice; nab none
    np.testing.assert_array_equal(sk.structured_gram(sk.ngram_kernel, words, ["ban"], n=2)[:, 0],
                                  [3, 2, 0, 0])


@settings(max_examples=50, deadline=None)
@given(st.sets(st.integers(0, 8)), st.sets(st.integers(0, 8)))
def test_set_kernel_is_intersection_size_and_sum_of_vertices(A, B):
    expected = sum(1 for x in A for y in B if x == y)
    assert sk.set_kernel(A, B) == expected
    Phi, alphabet = sk.set_features([A, B], alphabet=range(9))
    assert alphabet == list(range(9))
    np.testing.assert_array_equal(Phi[0], [1.0 if v in A else 0.0 for v in range(9)])
    assert Phi[0] @ Phi[1] == expected


def test_set_features_sum_not_average():
    Phi, alphabet = sk.set_features([{"a", "b", "c"}, ["b", "c", "c"]])
    assert alphabet == ["a", "b", "c"]
    np.testing.assert_array_equal(Phi, [[1, 1, 1], [0, 1, 1]])
    assert Phi[0] @ Phi[1] == 2 == sk.set_kernel({"a", "b", "c"}, ("b", "c"))


# ----------------------------------------------------------------------------- R-convolution


def delta(a, b):
    return float(a == b)


def brute_convolution(x, y, relation, kernels):
    return sum(np.prod([k(a, b) for k, a, b in zip(kernels, zx, zy)])
               for zx in relation(x) for zy in relation(y))


@settings(max_examples=40, deadline=None)
@given(short_text, short_text)
def test_convolution_kernel_matches_double_sum(x, y):
    k_len = lambda a, b: 1.0 / (1.0 + abs(len(a) - len(b)))          # noqa: E731
    k_sub = lambda a, b: float(sk.substring_kernel(a, b))           # noqa: E731
    for kernels in ([delta, delta], [k_sub, k_len]):
        got = sk.convolution_kernel(x, y, sk.prefix_suffix_splits, kernels)
        assert got == pytest.approx(brute_convolution(x, y, sk.prefix_suffix_splits, kernels))
    # with delta part kernels two splits match only if x == y: |x| + 1 matching pairs
    assert sk.convolution_kernel(x, y, sk.prefix_suffix_splits, delta) == \
        (len(x) + 1 if x == y else 0)


def test_convolution_kernel_gram_psd():
    words = ["ab", "ba", "aab", "b", "", "abba"]
    K = sk.structured_gram(sk.convolution_kernel, words, relation=sk.prefix_suffix_splits,
                           part_kernels=lambda a, b: float(sk.ngram_kernel(a, b, 1)))
    assert np.linalg.eigvalsh(K).min() > -1e-9
    assert sk.prefix_suffix_splits("ab") == [("", "ab"), ("a", "b"), ("ab", "")]


# ----------------------------------------------------------------------------- diffusion


def test_diffusion_kernel_path_graph_rows_of_inventory():
    A = path_graph(5)
    heat = sk.diffusion_kernel(A, 0.5)
    printed = sk.diffusion_kernel(A, 0.5, sign="printed")
    np.testing.assert_allclose(heat[0], [0.674, 0.258, 0.058, 0.009, 0.001], atol=6e-4)
    np.testing.assert_allclose(printed[0], [1.905, -1.167, 0.309, -0.053, 0.006], atol=6e-4)
    limit = sk.diffusion_kernel_limit(A, 0.5, n=10_000)
    np.testing.assert_allclose(limit, printed, atol=1e-3)
    np.testing.assert_allclose(sk.diffusion_kernel_limit(A, 0.5, n=10_000, sign="heat"), heat, atol=1e-4)


@pytest.mark.parametrize("seed", range(4))
def test_diffusion_kernel_matches_scipy_expm(seed):
    rng = np.random.default_rng(seed)
    A = random_graph(rng, 7, 0.4)
    L = A - np.diag(A.sum(1))
    np.testing.assert_array_equal(sk.graph_laplacian(A), L)
    for beta in (0.1, 0.7, 2.0):
        heat = sk.diffusion_kernel(A, beta)
        np.testing.assert_allclose(heat, scipy.linalg.expm(beta * L), atol=1e-12, rtol=1e-10)
        np.testing.assert_allclose(sk.diffusion_kernel(A, beta, sign="printed"),
                                   scipy.linalg.expm(-beta * L), atol=1e-10, rtol=1e-10)
        assert np.linalg.eigvalsh(heat).min() > 0
        np.testing.assert_allclose(heat.sum(1), 1.0)      # heat is conserved: L 1 = 0


# ----------------------------------------------------------------------------- shortest path


def brute_shortest_path_kernel(A1, A2, l1, l2, kind, c=1.0):
    D1 = scipy.sparse.csgraph.shortest_path(A1, directed=True)
    D2 = scipy.sparse.csgraph.shortest_path(A2, directed=True)
    w1 = [(l1[i], l1[j], D1[i, j]) for i in range(len(l1)) for j in range(len(l1))
          if i != j and np.isfinite(D1[i, j])]
    w2 = [(l2[i], l2[j], D2[i, j]) for i in range(len(l2)) for j in range(len(l2))
          if i != j and np.isfinite(D2[i, j])]
    klen = (lambda d, e: float(np.isclose(d, e))) if kind == "delta" else \
        (lambda d, e: max(0.0, c - abs(d - e)))
    return sum(float(a == p) * float(b == q) * klen(d, e) for a, b, d in w1 for p, q, e in w2)


@pytest.mark.parametrize("seed", range(5))
def test_floyd_warshall_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    W = random_graph(rng, 8, 0.3, symmetric=False) * rng.integers(1, 5, (8, 8))
    np.testing.assert_array_equal(sk.shortest_paths(W),
                                  scipy.sparse.csgraph.shortest_path(W, directed=True))


@pytest.mark.parametrize("seed", range(5))
def test_shortest_path_kernel_brute_force(seed):
    rng = np.random.default_rng(seed)
    A1, A2 = random_graph(rng, 6, 0.4), random_graph(rng, 5, 0.5)
    l1, l2 = list(rng.choice(["C", "O"], 6)), list(rng.choice(["C", "O"], 5))
    assert sk.shortest_path_kernel(A1, A2, l1, l2) == brute_shortest_path_kernel(A1, A2, l1, l2, "delta")
    got = sk.shortest_path_kernel(A1, A2, l1, l2, length_kernel="bridge", c=1.5)
    assert got == pytest.approx(brute_shortest_path_kernel(A1, A2, l1, l2, "bridge", 1.5))
    assert sk.shortest_path_kernel(path_graph(5), path_graph(5)) == 8 ** 2 + 6 ** 2 + 4 ** 2 + 2 ** 2
    graphs = [random_graph(rng, n, 0.5) for n in (3, 4, 5, 6)]
    K = sk.structured_gram(sk.shortest_path_kernel, graphs)
    assert np.linalg.eigvalsh(K).min() > -1e-8


# ----------------------------------------------------------------------------- random walk


def brute_random_walk(A1, A2, l1, l2, decay, max_len):
    total = 0.0
    for ell, (W1, W2) in enumerate(zip(walks(A1, max_len), walks(A2, max_len))):
        seq1 = Counter(tuple(l1[v] for v in w) for w in W1)
        seq2 = Counter(tuple(l2[v] for v in w) for w in W2)
        total += decay ** ell * sum(c * seq2[s] for s, c in seq1.items())
    return total


@pytest.mark.parametrize("seed", range(4))
def test_random_walk_kernel_matches_walk_enumeration(seed):
    rng = np.random.default_rng(seed)
    A1 = random_graph(rng, 4, 0.6, symmetric=bool(seed % 2))
    A2 = random_graph(rng, 4, 0.6)
    l1, l2 = list(rng.integers(0, 2, 4)), list(rng.integers(0, 2, 4))
    for L in (0, 1, 3, 5):
        assert sk.random_walk_kernel(A1, A2, 0.3, l1, l2, max_length=L) == \
            pytest.approx(brute_random_walk(A1, A2, l1, l2, 0.3, L))
    decay = 0.05   # tail after 6 edges is below decay^7 * 16 * 3^7: tiny
    closed = sk.random_walk_kernel(A1, A2, decay, l1, l2)
    assert closed == pytest.approx(brute_random_walk(A1, A2, l1, l2, decay, 6), rel=1e-6)


def test_random_walk_kernel_divergence_is_reported():
    A = path_graph(3) + np.eye(3) * 0
    with pytest.raises(ValueError, match="decay"):
        sk.random_walk_kernel(A, A, 0.9)
    assert np.isfinite(sk.random_walk_kernel(A, A, 0.9, max_length=4))


# ----------------------------------------------------------------------------- Fisher


def neg_loglik(x, theta, family, sigma=1.0):
    if family == "bernoulli":
        p = 1 / (1 + np.exp(-theta))
        return -np.sum(x * np.log(p) + (1 - x) * np.log(1 - p))
    mu = sigma ** 2 * theta
    return np.sum((x - mu) ** 2) / (2 * sigma ** 2) + x.size * np.log(sigma * np.sqrt(2 * np.pi))


def numeric_score(x, theta, family, sigma=1.0, h=1e-6):
    return np.array([(neg_loglik(x, theta + h * e, family, sigma) - neg_loglik(x, theta - h * e, family, sigma))
                     / (2 * h) for e in np.eye(theta.size)])


@pytest.mark.parametrize("family,sigma", [("bernoulli", 1.0), ("gaussian", 1.0), ("gaussian", 0.7)])
def test_fisher_kernel_identity_1_43(family, sigma):
    rng = np.random.default_rng(3)
    theta = rng.normal(size=3)
    X = rng.integers(0, 2, (6, 3)).astype(float) if family == "bernoulli" else rng.normal(size=(6, 3))
    U = np.array([numeric_score(x, theta, family, sigma) for x in X])
    np.testing.assert_allclose(sk.fisher_score(X, theta, family, sigma), U, atol=1e-6)
    K = sk.fisher_kernel(X, theta=theta, family=family, sigma=sigma)
    np.testing.assert_allclose(K, U @ U.T, atol=1e-5)
    mean_phi = 1 / (1 + np.exp(-theta)) if family == "bernoulli" else sigma ** 2 * theta
    np.testing.assert_allclose(K, (X - mean_phi) @ (X - mean_phi).T, atol=1e-12)   # (1.43)


def test_fisher_information_and_normalised_kernel():
    theta = np.array([0.3, -1.2])
    # exact expectation over the four outcomes of two coins
    info = np.zeros((2, 2))
    for x in itertools.product([0.0, 1.0], repeat=2):
        x = np.array(x)
        u = numeric_score(x, theta, "bernoulli")
        info += np.exp(-neg_loglik(x, theta, "bernoulli")) * np.outer(u, u)
    np.testing.assert_allclose(sk.fisher_information(theta), info, atol=1e-6)
    X = np.array([[0, 1], [1, 1], [1, 0.0]])
    U = sk.fisher_score(X, theta)
    np.testing.assert_allclose(sk.fisher_kernel(X, theta=theta, normalized=True),
                               U @ np.linalg.inv(info) @ U.T, rtol=1e-5)
    np.testing.assert_allclose(sk.fisher_information(theta, "gaussian", sigma=2.0), 4 * np.eye(2))
    Y = np.array([[1.0, 1.0]])
    np.testing.assert_allclose(sk.fisher_kernel(X, Y, theta=theta), U @ sk.fisher_score(Y, theta).T)


def test_exp_family_mle_zeroes_mean_score():
    rng = np.random.default_rng(0)
    X = (rng.random((50, 3)) < [0.2, 0.5, 0.9]).astype(float)
    theta = sk.exp_family_mle(X)
    np.testing.assert_allclose(sk.fisher_score(X, theta).mean(0), 0, atol=1e-12)
    G = rng.normal(2.0, 0.5, (40, 2))
    theta = sk.exp_family_mle(G, "gaussian", sigma=0.5)
    np.testing.assert_allclose(sk.fisher_score(G, theta, "gaussian", 0.5).mean(0), 0, atol=1e-12)


# ----------------------------------------------------------------------------- bad input

G = path_graph(3)
BAD_CALLS = [
    (lambda: sk.substring_kernel(["a"], "b"), TypeError, "s"),
    (lambda: sk.substring_kernel("a", 3), TypeError, "t"),
    (lambda: sk.substring_kernel("a", "b", -1), ValueError, "max_len"),
    (lambda: sk.substring_kernel("a", "b", 1.5), TypeError, "max_len"),
    (lambda: sk.substring_features("abc"), TypeError, "strings"),
    (lambda: sk.substring_features([]), ValueError, "strings"),
    (lambda: sk.substring_features(["a", 1]), TypeError, r"strings\[1\]"),
    (lambda: sk.ngram_kernel("ab", "ab", 0), ValueError, "n"),
    (lambda: sk.ngram_kernel(None, "ab", 1), TypeError, "x"),
    (lambda: sk.ngram_kernel("ab", b"ab", 1), TypeError, "y"),
    (lambda: sk.ngram_counts("ab", "2"), TypeError, "n"),
    (lambda: sk.ngram_features([], 2), ValueError, "strings"),
    (lambda: sk.set_kernel("abc", {"a"}), TypeError, "A"),
    (lambda: sk.set_kernel({1}, 5), TypeError, "B"),
    (lambda: sk.set_kernel([[1]], {1}), TypeError, "A"),
    (lambda: sk.set_features({1, 2}), TypeError, "sets"),
    (lambda: sk.set_features([]), ValueError, "sets"),
    (lambda: sk.set_features([{1, 5}], alphabet=[1, 2]), ValueError, "alphabet"),
    (lambda: sk.prefix_suffix_splits(5), TypeError, "x"),
    (lambda: sk.convolution_kernel("a", "b", "splits", delta), TypeError, "relation"),
    (lambda: sk.convolution_kernel("a", "b", sk.prefix_suffix_splits, [delta]), TypeError, "part_kernels"),
    (lambda: sk.convolution_kernel("a", "b", sk.prefix_suffix_splits, 3), TypeError, "part_kernels"),
    (lambda: sk.convolution_kernel("a", "b", lambda x: [(x,)] if x == "a" else [(x, x)], delta),
     ValueError, "relation"),
    (lambda: sk.adjacency_matrix([(0, 3)], 3), ValueError, "edges"),
    (lambda: sk.adjacency_matrix([(0, 1, 2)], 3), ValueError, "edges"),
    (lambda: sk.adjacency_matrix("0-1", 3), TypeError, "edges"),
    (lambda: sk.adjacency_matrix([(0, 1)], 0), ValueError, "n_nodes"),
    (lambda: sk.graph_laplacian([[0, 1], [1, 0], [0, 0]]), ValueError, "A"),
    (lambda: sk.diffusion_kernel([[0, 1], [0, 0]], 0.5), ValueError, "symmetric"),
    (lambda: sk.diffusion_kernel([[0, 2], [2, 0]], 0.5), ValueError, "0/1"),
    (lambda: sk.diffusion_kernel([[0, -1], [-1, 0]], 0.5), ValueError, "non-negative"),
    (lambda: sk.diffusion_kernel([[0, np.nan], [np.nan, 0]], 0.5), ValueError, "A"),
    (lambda: sk.diffusion_kernel(np.zeros(3), 0.5), ValueError, "A"),
    (lambda: sk.diffusion_kernel(np.zeros((0, 0)), 0.5), ValueError, "A"),
    (lambda: sk.diffusion_kernel("graph", 0.5), TypeError, "A"),
    (lambda: sk.diffusion_kernel(G, 0.0), ValueError, "beta"),
    (lambda: sk.diffusion_kernel(G, "1"), TypeError, "beta"),
    (lambda: sk.diffusion_kernel(G, 0.5, sign="minus"), ValueError, "sign"),
    (lambda: sk.diffusion_kernel_limit(G, 0.5, n=0), ValueError, "n"),
    (lambda: sk.diffusion_kernel_limit(G, -0.5), ValueError, "beta"),
    (lambda: sk.diffusion_kernel_limit(G, 0.5, sign="heat!"), ValueError, "sign"),
    (lambda: sk.convolution_kernel("a", "b", lambda x: None, delta), TypeError, "relation"),
    (lambda: sk.convolution_kernel("a", "b", lambda x: [1, 2], delta), TypeError, "relation"),
    (lambda: sk.shortest_paths([[0, -1], [1, 0]]), ValueError, "W"),
    (lambda: sk.shortest_paths(np.ones((2, 3))), ValueError, "W"),
    (lambda: sk.shortest_path_kernel(G, np.ones((2, 3))), ValueError, "A2"),
    (lambda: sk.shortest_path_kernel(np.full((2, 2), np.inf), G), ValueError, "A1"),
    (lambda: sk.shortest_path_kernel(G, G, labels1=[1, 2]), ValueError, "labels1"),
    (lambda: sk.shortest_path_kernel(G, G, labels2="abc"), TypeError, "labels2"),
    (lambda: sk.shortest_path_kernel(G, G, labels2=[[1], [2], [3]]), TypeError, "labels2"),
    (lambda: sk.shortest_path_kernel(G, G, length_kernel="gauss"), ValueError, "length_kernel"),
    (lambda: sk.shortest_path_kernel(G, G, length_kernel="bridge", c=0), ValueError, "c"),
    (lambda: sk.random_walk_kernel(G, G * 2, 0.1), ValueError, "A2"),
    (lambda: sk.random_walk_kernel([[1, 2, 3]], G, 0.1), ValueError, "A1"),
    (lambda: sk.random_walk_kernel(G, G, 0), ValueError, "decay"),
    (lambda: sk.random_walk_kernel(G, G, None), TypeError, "decay"),
    (lambda: sk.random_walk_kernel(G, G, 0.1, labels1=[0, 1]), ValueError, "labels1"),
    (lambda: sk.random_walk_kernel(G, G, 0.1, max_length=-1), ValueError, "max_length"),
    (lambda: sk.fisher_score([[0, 2]], [0.0, 0.0]), ValueError, "X"),
    (lambda: sk.fisher_score([0, 1], [0.0, 0.0]), ValueError, "X"),
    (lambda: sk.fisher_score([[0, 1]], [0.0]), ValueError, "theta"),
    (lambda: sk.fisher_score([[0, 1]], [0.0, np.nan]), ValueError, "theta"),
    (lambda: sk.fisher_score([[0, 1]], [0.0, 0.0], family="poisson"), ValueError, "family"),
    (lambda: sk.fisher_score([[0.5, 1]], [0.0, 0.0], "gaussian", sigma=0), ValueError, "sigma"),
    (lambda: sk.fisher_information([0.0], family=1), ValueError, "family"),
    (lambda: sk.fisher_information([], family="gaussian"), ValueError, "theta"),
    (lambda: sk.fisher_kernel([[0, 1]], theta=[0.0, 1.0], normalized="yes"), TypeError, "normalized"),
    (lambda: sk.fisher_kernel([[0, 1]], [[0, 1, 1]], theta=[0.0, 1.0]), ValueError, "Y"),
    (lambda: sk.fisher_kernel([[0, 1]], [[0, 3]], theta=[0.0, 1.0]), ValueError, "Y"),
    (lambda: sk.fisher_kernel(np.zeros((0, 2)), theta=[0.0, 1.0]), ValueError, "X"),
    (lambda: sk.exp_family_mle([["a", "b"]]), TypeError, "X"),
    (lambda: sk.exp_family_mle([[0, 1]], eps=0), ValueError, "eps"),
    (lambda: sk.structured_gram("ngram", ["a"]), TypeError, "kernel"),
    (lambda: sk.structured_gram(sk.ngram_kernel, "abc", n=1), TypeError, "items"),
    (lambda: sk.structured_gram(sk.ngram_kernel, [], n=1), ValueError, "items"),
    (lambda: sk.structured_gram(sk.ngram_kernel, ["a"], 5, n=1), TypeError, "others"),
]


@pytest.mark.parametrize("call,exc,name", BAD_CALLS)
def test_bad_input(call, exc, name):
    with pytest.raises(exc, match=name):
        call()
