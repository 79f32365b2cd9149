"""Oracle and bad-input tests for kmlteach.structured_kernels (HSS1 §1.4, UML §16.2.1). — ``kmlteach.structured_kernels.strings``."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kmlteach import structured_kernels as sk


def brute_substrings(x, max_len=None):
    top = len(x) if max_len is None else max_len
    return {x[i:j] for i in range(len(x)) for j in range(i + 1, len(x) + 1) if j - i <= top}


short_text = st.text(alphabet="abc", max_size=9)


@settings(max_examples=60, deadline=None)
@given(short_text, short_text, st.one_of(st.none(), st.integers(0, 10)))
def test_substring_kernel_matches_set_intersection(s, t, max_len):
    expected = len(brute_substrings(s, max_len) & brute_substrings(t, max_len))
    assert sk.substring_kernel(s, t, max_len) == expected
    assert sk.substring_kernel(t, s, max_len) == expected


def test_substring_kernel_examples_and_unicode():
    assert sk.substring_kernel("abab", "bab") == 5  # a b ab ba bab
    assert sk.substring_kernel("aaaa", "aa") == 2  # a aa
    assert sk.substring_kernel("", "abc") == 0
    assert sk.substring_kernel("xyz", "abc") == 0
    assert sk.substring_kernel("abc", "abc") == 6
    assert sk.substring_kernel("naïve→", "ïve→x", max_len=2) == 7  # ï v e → ïv ve e→
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


@settings(max_examples=50, deadline=None)
@given(short_text, short_text, st.integers(1, 4))
def test_ngram_kernel_equals_count_vector_product(x, y, n):
    cx = Counter(x[i : i + n] for i in range(len(x) - n + 1))
    cy = Counter(y[i : i + n] for i in range(len(y) - n + 1))
    grams = ["".join(g) for g in itertools.product("abc", repeat=n)]  # all of Σⁿ
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
    np.testing.assert_array_equal(
        sk.structured_gram(sk.ngram_kernel, words, ["ban"], n=2)[:, 0], [3, 2, 0, 0]
    )
