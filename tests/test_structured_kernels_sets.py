"""Oracle and bad-input tests for kmlteach.structured_kernels (HSS1 §1.4, UML §16.2.1). — ``kmlteach.structured_kernels.sets``."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import delta
from hypothesis import given, settings
from hypothesis import strategies as st

from kmlteach import structured_kernels as sk

short_text = st.text(alphabet="abc", max_size=9)


def brute_convolution(x, y, relation, kernels):
    return sum(
        np.prod([k(a, b) for k, a, b in zip(kernels, zx, zy)]) for zx in relation(x) for zy in relation(y)
    )


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


@settings(max_examples=40, deadline=None)
@given(short_text, short_text)
def test_convolution_kernel_matches_double_sum(x, y):
    k_len = lambda a, b: 1.0 / (1.0 + abs(len(a) - len(b)))
    k_sub = lambda a, b: float(sk.substring_kernel(a, b))
    for kernels in ([delta, delta], [k_sub, k_len]):
        got = sk.convolution_kernel(x, y, sk.prefix_suffix_splits, kernels)
        assert got == pytest.approx(brute_convolution(x, y, sk.prefix_suffix_splits, kernels))
    # with delta part kernels two splits match only if x == y: |x| + 1 matching pairs
    assert sk.convolution_kernel(x, y, sk.prefix_suffix_splits, delta) == (len(x) + 1 if x == y else 0)


def test_convolution_kernel_gram_psd():
    words = ["ab", "ba", "aab", "b", "", "abba"]
    K = sk.structured_gram(
        sk.convolution_kernel,
        words,
        relation=sk.prefix_suffix_splits,
        part_kernels=lambda a, b: float(sk.ngram_kernel(a, b, 1)),
    )
    assert np.linalg.eigvalsh(K).min() > -1e-9
    assert sk.prefix_suffix_splits("ab") == [("", "ab"), ("a", "b"), ("ab", "")]
