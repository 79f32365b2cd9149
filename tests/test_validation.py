"""Every helper of kmlteach._validation on good and bad input.

Errors must be ValueError/TypeError and name the argument (we pass unusual names
such as "Xtrain" or "lam_value" so that a hard-coded name would not pass).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from test_validation_more import TESTED as MORE_TESTED

from kmlteach import _validation as V

NAN, INF = float("nan"), float("inf")


def _raises(exc, name, fn, *args, **kw):
    with pytest.raises(exc) as info:
        fn(*args, **kw)
    assert name in str(info.value), f"message does not name {name!r}: {info.value}"
    return str(info.value)


def test_every_public_helper_is_tested_here():
    tested = {
        "as_matrix",
        "as_vector",
        "check_X",
        "check_Xy",
        "check_binary_labels",
        "check_multiclass_labels",
        "check_positive",
        "check_nonnegative",
        "check_int",
        "check_probability",
        "check_choice",
        "check_square",
        "check_rng",
        "check_same_length",
        "check_string",
    } | MORE_TESTED  # the others: test_validation_more.py
    assert set(V.__all__) == tested, f"new helpers need tests: {sorted(set(V.__all__) - tested)}"


# ---------------------------------------------------------------- matrices
@pytest.mark.parametrize(
    "good, shape",
    [
        ([[1, 2], [3, 4]], (2, 2)),
        (np.arange(6, dtype=np.int32).reshape(3, 2), (3, 2)),
        (np.ones((2, 3), dtype=np.float32), (2, 3)),
        (np.array([[True, False]]), (1, 2)),
        (np.asfortranarray(np.arange(6.0).reshape(2, 3)), (2, 3)),
        (np.arange(16.0).reshape(4, 4)[:, ::2], (4, 2)),
        (((1.5, 2.5),), (1, 2)),
        (np.array([[1, 2.5]], dtype=object), (1, 2)),
    ],
)
def test_as_matrix_good(good, shape):
    out = V.as_matrix(good, "Xtrain")
    assert out.dtype == np.float64 and out.flags.c_contiguous and out.shape == shape
    np.testing.assert_array_equal(out, np.asarray(good, dtype=np.float64))


def test_as_matrix_keeps_a_ready_array_without_copy():
    X = np.arange(6.0).reshape(3, 2)
    assert V.as_matrix(X) is X
    assert V.check_X(X) is X


@pytest.mark.parametrize(
    "bad, exc, words",
    [
        (None, TypeError, "None"),
        ("abc", TypeError, "str"),
        (b"abc", TypeError, "bytes"),
        ([["a", "b"]], TypeError, "numbers"),
        (np.array([["1", "2"]], dtype=object), TypeError, "strings"),
        ([[1 + 2j, 0]], TypeError, "complex"),
        (np.ones((2, 2), dtype=complex), TypeError, "complex"),
        ([[1, 2], [3]], ValueError, "numeric array"),
        ({"a": 1}, ValueError, "rectangular"),
        ([[object(), 1.0]], ValueError, "rectangular"),
        (np.array(["2020-01-01"], dtype="datetime64[D]").reshape(1, 1), TypeError, "numbers"),
        (5, ValueError, "2-D"),
        (3.0, ValueError, "0-D"),
        ([1.0, 2.0], ValueError, "reshape(-1, 1)"),
        (np.zeros((2, 2, 2)), ValueError, "3-D"),
        (np.zeros((0, 3)), ValueError, "at least 1 row"),
        ([[]], ValueError, "at least 1 column"),
        ([[1.0, NAN]], ValueError, "NaN"),
        ([[1.0, INF]], ValueError, "infinite"),
        ([[1.0, -INF], [NAN, 2.0]], ValueError, "2 NaN"),
        ([[1.0, None]], ValueError, "NaN"),
    ],
)
def test_as_matrix_bad(bad, exc, words):
    msg = _raises(exc, "Xtrain", V.as_matrix, bad, "Xtrain")
    assert words in msg, msg
    # check_X is the same gate with X as the default name
    _raises(exc, "X", V.check_X, bad)


def test_as_matrix_options():
    A = np.ones((2, 3))
    _raises(ValueError, "Z", V.as_matrix, A, "Z", min_rows=3)
    _raises(ValueError, "Z", V.as_matrix, A, "Z", min_cols=4)
    msg = _raises(ValueError, "X_test", V.check_X, A, "X_test", n_cols=2)
    assert "2 columns" in msg and "(2, 3)" in msg
    assert V.check_X(A, n_cols=3).shape == (2, 3)
    out = V.as_matrix([[NAN, INF]], "Z", finite=False)
    assert np.isnan(out[0, 0]) and np.isinf(out[0, 1])


# ---------------------------------------------------------------- vectors
@pytest.mark.parametrize(
    "good, expected",
    [
        ([1, 2, 3], [1.0, 2.0, 3.0]),
        ((0.5,), [0.5]),
        (np.arange(3, dtype=np.int64), [0.0, 1.0, 2.0]),
        (np.arange(6.0)[::2], [0.0, 2.0, 4.0]),
        (7, [7.0]),
        (2.5, [2.5]),
        (np.float64(1.5), [1.5]),
        (np.int32(4), [4.0]),
        (np.array([True, False]), [1.0, 0.0]),
    ],
)
def test_as_vector_good(good, expected):
    out = V.as_vector(good, "w0")
    assert out.dtype == np.float64 and out.flags.c_contiguous and out.ndim == 1
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize(
    "bad, exc, words",
    [
        (None, TypeError, "None"),
        ("1,2", TypeError, "str"),
        (True, ValueError, "1-D"),  # a bool is not a number here
        ([1 + 1j], TypeError, "complex"),
        (["a", "b"], TypeError, "numbers"),
        ([[1, 2], [3]], ValueError, "numeric array"),
        ([[1.0], [2.0]], ValueError, "1-D"),
        (np.array(2.0), ValueError, "1-D"),
        ([], ValueError, "at least 1 entry"),
        ([1.0, NAN], ValueError, "NaN"),
        ([INF], ValueError, "infinite"),
    ],
)
def test_as_vector_bad(bad, exc, words):
    msg = _raises(exc, "w0", V.as_vector, bad, "w0")
    assert words in msg, msg


def test_as_vector_options():
    assert V.as_vector([1, 2], "v", length=2).shape == (2,)
    msg = _raises(ValueError, "v", V.as_vector, [1, 2, 3], "v", length=2)
    assert "length 2" in msg and "3" in msg
    assert "at least 2 entries" in _raises(ValueError, "v", V.as_vector, [1.0], "v", min_length=2)
    assert V.as_vector([], "v", min_length=0).shape == (0,)
    assert np.isnan(V.as_vector([NAN], "v", finite=False)[0])


# ---------------------------------------------------------------- binary labels
@pytest.mark.parametrize(
    "good",
    [
        [1, -1, 1],
        np.array([1, -1], dtype=np.int8),
        np.array([1.0, -1.0]),
        (-1, 1, -1),
    ],
)
def test_binary_labels_good(good):
    out = V.check_binary_labels(good, "y_train")
    assert out.dtype == np.float64 and out.flags.c_contiguous
    np.testing.assert_array_equal(out, np.asarray(good, dtype=float))


def test_binary_labels_bad():
    msg = _raises(ValueError, "y_train", V.check_binary_labels, [0, 1, 1, 0], "y_train")
    assert "y = 2*y - 1" in msg, "0/1 labels should come with the conversion hint"
    msg = _raises(ValueError, "y_train", V.check_binary_labels, [1, 2, 3], "y_train")
    assert "-1 and +1" in msg and "2*y" not in msg
    msg = _raises(ValueError, "y_train", V.check_binary_labels, np.array([True, False]), "y_train")
    assert "2*y - 1" in msg
    _raises(ValueError, "y_train", V.check_binary_labels, [1.0, -1.0, 0.5], "y_train")
    msg = _raises(ValueError, "y_train", V.check_binary_labels, [1, 1, 1], "y_train")
    assert "both classes" in msg
    _raises(ValueError, "y_train", V.check_binary_labels, [-1.0], "y_train")
    _raises(ValueError, "y_train", V.check_binary_labels, [1, NAN], "y_train")
    _raises(ValueError, "y_train", V.check_binary_labels, [], "y_train")
    _raises(TypeError, "y_train", V.check_binary_labels, ["+1", "-1"], "y_train")
    _raises(TypeError, "y_train", V.check_binary_labels, None, "y_train")
    _raises(ValueError, "y_train", V.check_binary_labels, [[1, -1]], "y_train")
    msg = _raises(ValueError, "y_train", V.check_binary_labels, [1, -1, 1], "y_train", n=2)
    assert "length 2" in msg


def test_binary_labels_single_class_allowed_when_asked():
    np.testing.assert_array_equal(V.check_binary_labels([1, 1], require_both=False), [1.0, 1.0])
    _raises(ValueError, "y", V.check_binary_labels, [0, 0], require_both=False)


# ---------------------------------------------------------------- multiclass labels
@pytest.mark.parametrize(
    "labels, classes, idx",
    [
        ([2, 0, 1, 2], [0, 1, 2], [2, 0, 1, 2]),
        (["cat", "dog", "cat"], ["cat", "dog"], [0, 1, 0]),
        (np.array([5.0, -1.0]), [-1.0, 5.0], [1, 0]),
        ((7, 3, 7, 9), [3, 7, 9], [1, 0, 1, 2]),
    ],
)
def test_multiclass_labels_good(labels, classes, idx):
    cls, ind = V.check_multiclass_labels(labels, "labels")
    assert list(cls) == classes
    assert ind.dtype == np.int64 and ind.flags.c_contiguous
    np.testing.assert_array_equal(ind, idx)
    np.testing.assert_array_equal(cls[ind], np.asarray(labels))


@pytest.mark.parametrize(
    "bad, kw, exc, words",
    [
        (None, {}, TypeError, "None"),
        ("abc", {}, TypeError, "str"),
        ([[0, 1], [1, 0]], {}, ValueError, "1-D"),
        ([], {}, ValueError, "empty"),
        ([3, 3, 3], {}, ValueError, "at least 2 classes"),
        ([0, 1, 2], {"min_classes": 4}, ValueError, "at least 4 classes"),
        ([0.0, NAN, 1.0], {}, ValueError, "NaN"),
        ([0.0, INF], {}, ValueError, "infinite"),
        (np.array([1, "a"], dtype=object), {}, TypeError, "comparable"),
        ([0, 1, 2], {"n": 4}, ValueError, "length 4"),
    ],
)
def test_multiclass_labels_bad(bad, kw, exc, words):
    msg = _raises(exc, "labels", V.check_multiclass_labels, bad, "labels", **kw)
    assert words in msg, msg


def test_check_Xy():
    X, y = V.check_Xy([[0.0, 1.0], [1.0, 0.0]], [1, -1])
    assert X.shape == (2, 2) and list(y) == [1.0, -1.0]
    X, (classes, idx) = V.check_Xy([[0.0], [1.0], [2.0]], ["a", "b", "c"], binary=False)
    assert list(classes) == ["a", "b", "c"] and list(idx) == [0, 1, 2]
    msg = _raises(ValueError, "ytr", V.check_Xy, [[0.0], [1.0]], [1, -1, 1], y_name="ytr")
    assert "length 2" in msg
    _raises(ValueError, "ytr", V.check_Xy, [[0.0], [1.0]], ["a", "b", "c"], binary=False, y_name="ytr")
    _raises(ValueError, "Xtr", V.check_Xy, [[NAN], [1.0]], [1, -1], X_name="Xtr")
    _raises(ValueError, "ytr", V.check_Xy, [[0.0], [1.0]], [0, 1], y_name="ytr")
    _raises(TypeError, "Xtr", V.check_Xy, "data", [1, -1], X_name="Xtr")


# ---------------------------------------------------------------- scalars
@pytest.mark.parametrize("value", [1, 0.5, 1e-12, np.float32(2.0), np.int64(3), Fraction(1, 3), 1e300])
def test_positive_good(value):
    out = V.check_positive(value, "lam_value")
    assert isinstance(out, float) and out == float(value)


@pytest.mark.parametrize(
    "value, exc, words",
    [
        (0, ValueError, "positive"),
        (0.0, ValueError, "positive"),
        (-1e-9, ValueError, "positive"),
        (NAN, ValueError, "finite"),
        (INF, ValueError, "finite"),
        (-INF, ValueError, "finite"),
        (10**400, ValueError, "finite"),
        (True, TypeError, "real number"),
        ("1", TypeError, "real number"),
        (None, TypeError, "real number"),
        (1 + 0j, TypeError, "real number"),
        ([1.0], TypeError, "real number"),
        (np.array([1.0]), TypeError, "real number"),
    ],
)
def test_positive_bad(value, exc, words):
    msg = _raises(exc, "lam_value", V.check_positive, value, "lam_value")
    assert words in msg, msg


def test_nonnegative():
    assert V.check_nonnegative(0, "eta") == 0.0
    assert V.check_nonnegative(np.float64(2.5), "eta") == 2.5
    assert "non-negative" in _raises(ValueError, "eta", V.check_nonnegative, -0.1, "eta")
    _raises(ValueError, "eta", V.check_nonnegative, NAN, "eta")
    _raises(ValueError, "eta", V.check_nonnegative, INF, "eta")
    _raises(TypeError, "eta", V.check_nonnegative, False, "eta")
    _raises(TypeError, "eta", V.check_nonnegative, "0", "eta")


@pytest.mark.parametrize(
    "value, expected", [(1, 1), (10, 10), (np.int64(7), 7), (np.uint8(3), 3), (5.0, 5), (np.float64(2.0), 2)]
)
def test_int_good(value, expected):
    out = V.check_int(value, "n_iter")
    assert type(out) is int and out == expected


@pytest.mark.parametrize(
    "value, kw, exc, words",
    [
        (0, {}, ValueError, "at least 1"),
        (-3, {"minimum": 0}, ValueError, "at least 0"),
        (11, {"maximum": 10}, ValueError, "at most 10"),
        (2.5, {}, TypeError, "integer"),
        (NAN, {}, TypeError, "integer"),
        (INF, {}, TypeError, "integer"),
        (True, {}, TypeError, "integer"),
        ("3", {}, TypeError, "integer"),
        (None, {}, TypeError, "integer"),
        (np.array([3]), {}, TypeError, "integer"),
    ],
)
def test_int_bad(value, kw, exc, words):
    msg = _raises(exc, "n_iter", V.check_int, value, "n_iter", **kw)
    assert words in msg, msg


def test_int_without_bounds():
    assert V.check_int(-5, "shift", minimum=None) == -5
    assert V.check_int(0, "k", minimum=0, maximum=0) == 0


def test_probability():
    assert V.check_probability(0, "nu") == 0.0
    assert V.check_probability(1, "nu") == 1.0
    assert V.check_probability(0.25, "nu", open_left=True, open_right=True) == 0.25
    assert "(0, 1]" in _raises(ValueError, "nu", V.check_probability, 0.0, "nu", open_left=True)
    assert "[0, 1)" in _raises(ValueError, "nu", V.check_probability, 1.0, "nu", open_right=True)
    _raises(ValueError, "nu", V.check_probability, 1.5, "nu")
    _raises(ValueError, "nu", V.check_probability, -0.1, "nu")
    _raises(ValueError, "nu", V.check_probability, NAN, "nu")
    _raises(TypeError, "nu", V.check_probability, "0.5", "nu")
    _raises(TypeError, "nu", V.check_probability, True, "nu")


def test_choice():
    assert V.check_choice("ova", "strategy", ("ova", "allpairs")) == "ova"
    assert V.check_choice("b", "strategy", iter(["a", "b"])) == "b"
    msg = _raises(ValueError, "strategy", V.check_choice, "OVA", "strategy", ["ova", "allpairs"])
    assert "'ova'" in msg and "'allpairs'" in msg and "'OVA'" in msg
    _raises(ValueError, "strategy", V.check_choice, 1, "strategy", ["ova"])
    _raises(ValueError, "strategy", V.check_choice, None, "strategy", ["ova"])
    _raises(ValueError, "strategy", V.check_choice, ["ova"], "strategy", ["ova"])


def test_string():
    assert V.check_string("abc", "seq") == "abc"
    assert V.check_string("", "seq") == ""
    assert "non-empty" in _raises(ValueError, "seq", V.check_string, "", "seq", allow_empty=False)
    for bad in (b"abc", 3, None, ["a"], np.str_("x").encode()):
        _raises(TypeError, "seq", V.check_string, bad, "seq")


# ---------------------------------------------------------------- square / Gram matrices
def test_square():
    K = [[2.0, 1.0], [1.0, 2.0]]
    out = V.check_square(K, "Kmat", symmetric=True)
    assert out.dtype == np.float64 and out.shape == (2, 2)
    assert V.check_square([[1.0, 2.0], [3.0, 4.0]], "Kmat").shape == (2, 2)  # symmetry not asked
    assert "square" in _raises(ValueError, "Kmat", V.check_square, np.ones((2, 3)), "Kmat")
    assert "symmetric" in _raises(
        ValueError, "Kmat", V.check_square, [[1.0, 2.0], [3.0, 4.0]], "Kmat", symmetric=True
    )
    # tolerance is relative to the largest entry
    big = np.array([[1e6, 1.0], [1.0 + 1e-6, 1e6]])
    assert V.check_square(big, "Kmat", symmetric=True).shape == (2, 2)
    _raises(ValueError, "Kmat", V.check_square, big, "Kmat", symmetric=True, tol=1e-15)
    _raises(ValueError, "Kmat", V.check_square, [[1.0, NAN], [NAN, 1.0]], "Kmat")
    _raises(ValueError, "Kmat", V.check_square, [1.0, 2.0], "Kmat")
    _raises(ValueError, "Kmat", V.check_square, np.zeros((0, 0)), "Kmat")
    _raises(TypeError, "Kmat", V.check_square, "K", "Kmat")


# ---------------------------------------------------------------- seeds
def test_rng_good_and_reproducible():
    a = V.check_rng(3).integers(0, 1 << 30, size=5)
    b = V.check_rng(np.int64(3)).integers(0, 1 << 30, size=5)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, np.random.default_rng(3).integers(0, 1 << 30, size=5))
    g = np.random.default_rng(1)
    assert V.check_rng(g) is g, "a Generator is used as is (its state is shared)"
    assert isinstance(V.check_rng(None), np.random.Generator)
    assert isinstance(V.check_rng(0), np.random.Generator)
    assert isinstance(V.check_rng(2**70), np.random.Generator)


@pytest.mark.parametrize(
    "bad, exc",
    [
        (-1, ValueError),
        (np.int32(-5), ValueError),
        (1.5, TypeError),
        (2.0, TypeError),
        (True, TypeError),
        ("0", TypeError),
        ([0], TypeError),
        (np.random.RandomState(0), TypeError),
    ],
)
def test_rng_bad(bad, exc):
    _raises(exc, "random_state", V.check_rng, bad, "random_state")
    _raises(exc, "seed", V.check_rng, bad)


# ---------------------------------------------------------------- lengths
def test_same_length():
    assert V.check_same_length(X=np.zeros((3, 2)), y=[1, 2, 3]) == 3
    assert V.check_same_length(a="abc") == 3
    msg = _raises(ValueError, "X has 3", V.check_same_length, X=np.zeros((3, 2)), y=[1, 2])
    assert "y has 2" in msg
    _raises(TypeError, "weights", V.check_same_length, X=[1, 2], weights=3)
    with pytest.raises(TypeError):
        V.check_same_length()
