"""Oracle and bad-input tests for kmlteach.structured_kernels (HSS1 §1.4, UML §16.2.1). — ``kmlteach.structured_kernels.graphs``."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse.csgraph
from helpers import path_graph

from kmlteach import structured_kernels as sk


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


def brute_shortest_path_kernel(A1, A2, l1, l2, kind, c=1.0):
    D1 = scipy.sparse.csgraph.shortest_path(A1, directed=True)
    D2 = scipy.sparse.csgraph.shortest_path(A2, directed=True)
    w1 = [
        (l1[i], l1[j], D1[i, j])
        for i in range(len(l1))
        for j in range(len(l1))
        if i != j and np.isfinite(D1[i, j])
    ]
    w2 = [
        (l2[i], l2[j], D2[i, j])
        for i in range(len(l2))
        for j in range(len(l2))
        if i != j and np.isfinite(D2[i, j])
    ]
    klen = (
        (lambda d, e: float(np.isclose(d, e))) if kind == "delta" else (lambda d, e: max(0.0, c - abs(d - e)))
    )
    return sum(float(a == p) * float(b == q) * klen(d, e) for a, b, d in w1 for p, q, e in w2)


def brute_random_walk(A1, A2, l1, l2, decay, max_len):
    total = 0.0
    for ell, (W1, W2) in enumerate(zip(walks(A1, max_len), walks(A2, max_len))):
        seq1 = Counter(tuple(l1[v] for v in w) for w in W1)
        seq2 = Counter(tuple(l2[v] for v in w) for w in W2)
        total += decay**ell * sum(c * seq2[s] for s, c in seq1.items())
    return total


def test_adjacency_matrix():
    np.testing.assert_array_equal(sk.adjacency_matrix([(i, i + 1) for i in range(4)], 5), path_graph(5))
    A = sk.adjacency_matrix([(0, 1), (2, 1)], 3, directed=True)
    np.testing.assert_array_equal(A, [[0, 1, 0], [0, 0, 0], [0, 1, 0]])


def test_diffusion_kernel_path_graph_rows_of_inventory():
    A = path_graph(5)
    heat = sk.diffusion_kernel(A, 0.5)
    printed = sk.diffusion_kernel(A, 0.5, sign="printed")
    np.testing.assert_allclose(heat[0], [0.674, 0.258, 0.058, 0.009, 0.001], atol=6e-4)
    np.testing.assert_allclose(printed[0], [1.905, -1.167, 0.309, -0.053, 0.006], atol=6e-4)
    limit = sk.diffusion_kernel_limit(A, 0.5, n=10_000, sign="printed")
    np.testing.assert_allclose(limit, printed, atol=1e-3)
    # the default sign is the heat sign, as for diffusion_kernel
    np.testing.assert_allclose(sk.diffusion_kernel_limit(A, 0.5, n=10_000), heat, atol=1e-4)
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
        np.testing.assert_allclose(
            sk.diffusion_kernel(A, beta, sign="printed"), scipy.linalg.expm(-beta * L), atol=1e-10, rtol=1e-10
        )
        assert np.linalg.eigvalsh(heat).min() > 0
        np.testing.assert_allclose(heat.sum(1), 1.0)  # heat is conserved: L 1 = 0


@pytest.mark.parametrize("seed", range(5))
def test_floyd_warshall_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    W = random_graph(rng, 8, 0.3, symmetric=False) * rng.integers(1, 5, (8, 8))
    np.testing.assert_array_equal(sk.shortest_paths(W), scipy.sparse.csgraph.shortest_path(W, directed=True))


@pytest.mark.parametrize("seed", range(5))
def test_shortest_path_kernel_brute_force(seed):
    rng = np.random.default_rng(seed)
    A1, A2 = random_graph(rng, 6, 0.4), random_graph(rng, 5, 0.5)
    l1, l2 = list(rng.choice(["C", "O"], 6)), list(rng.choice(["C", "O"], 5))
    assert sk.shortest_path_kernel(A1, A2, l1, l2) == brute_shortest_path_kernel(A1, A2, l1, l2, "delta")
    got = sk.shortest_path_kernel(A1, A2, l1, l2, length_kernel="bridge", c=1.5)
    assert got == pytest.approx(brute_shortest_path_kernel(A1, A2, l1, l2, "bridge", 1.5))
    assert sk.shortest_path_kernel(path_graph(5), path_graph(5)) == 8**2 + 6**2 + 4**2 + 2**2
    graphs = [random_graph(rng, n, 0.5) for n in (3, 4, 5, 6)]
    K = sk.structured_gram(sk.shortest_path_kernel, graphs)
    assert np.linalg.eigvalsh(K).min() > -1e-8


@pytest.mark.parametrize("seed", range(4))
def test_random_walk_kernel_matches_walk_enumeration(seed):
    rng = np.random.default_rng(seed)
    A1 = random_graph(rng, 4, 0.6, symmetric=bool(seed % 2))
    A2 = random_graph(rng, 4, 0.6)
    l1, l2 = list(rng.integers(0, 2, 4)), list(rng.integers(0, 2, 4))
    for L in (0, 1, 3, 5):
        assert sk.random_walk_kernel(A1, A2, 0.3, l1, l2, max_length=L) == pytest.approx(
            brute_random_walk(A1, A2, l1, l2, 0.3, L)
        )
    decay = 0.05  # tail after 6 edges is below decay^7 * 16 * 3^7: tiny
    closed = sk.random_walk_kernel(A1, A2, decay, l1, l2)
    assert closed == pytest.approx(brute_random_walk(A1, A2, l1, l2, decay, 6), rel=1e-6)


def test_random_walk_kernel_divergence_is_reported():
    A = path_graph(3) + np.eye(3) * 0
    with pytest.raises(ValueError, match="decay"):
        sk.random_walk_kernel(A, A, 0.9)
    assert np.isfinite(sk.random_walk_kernel(A, A, 0.9, max_length=4))
