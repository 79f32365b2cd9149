"""Oracle and bad-input tests for kmlteach.structured_kernels (HSS1 §1.4, UML §16.2.1). — ``kmlteach.structured_kernels.fisher``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from helpers import delta, path_graph

from kmlteach import structured_kernels as sk


def neg_loglik(x, theta, family, sigma=1.0):
    if family == "bernoulli":
        p = 1 / (1 + np.exp(-theta))
        return -np.sum(x * np.log(p) + (1 - x) * np.log(1 - p))
    mu = sigma**2 * theta
    return np.sum((x - mu) ** 2) / (2 * sigma**2) + x.size * np.log(sigma * np.sqrt(2 * np.pi))


def numeric_score(x, theta, family, sigma=1.0, h=1e-6):
    return np.array(
        [
            (neg_loglik(x, theta + h * e, family, sigma) - neg_loglik(x, theta - h * e, family, sigma))
            / (2 * h)
            for e in np.eye(theta.size)
        ]
    )


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
    (
        lambda: sk.convolution_kernel("a", "b", lambda x: [(x,)] if x == "a" else [(x, x)], delta),
        ValueError,
        "relation",
    ),
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


@pytest.mark.parametrize("family,sigma", [("bernoulli", 1.0), ("gaussian", 1.0), ("gaussian", 0.7)])
def test_fisher_kernel_identity_1_43(family, sigma):
    rng = np.random.default_rng(3)
    theta = rng.normal(size=3)
    X = rng.integers(0, 2, (6, 3)).astype(float) if family == "bernoulli" else rng.normal(size=(6, 3))
    U = np.array([numeric_score(x, theta, family, sigma) for x in X])
    np.testing.assert_allclose(sk.fisher_score(X, theta, family, sigma), U, atol=1e-6)
    K = sk.fisher_kernel(X, theta=theta, family=family, sigma=sigma)
    np.testing.assert_allclose(K, U @ U.T, atol=1e-5)
    mean_phi = 1 / (1 + np.exp(-theta)) if family == "bernoulli" else sigma**2 * theta
    np.testing.assert_allclose(K, (X - mean_phi) @ (X - mean_phi).T, atol=1e-12)  # (1.43)


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
    np.testing.assert_allclose(
        sk.fisher_kernel(X, theta=theta, normalized=True), U @ np.linalg.inv(info) @ U.T, rtol=1e-5
    )
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


@pytest.mark.parametrize("call,exc,name", BAD_CALLS)
def test_bad_input(call, exc, name):
    with pytest.raises(exc, match=name):
        call()
