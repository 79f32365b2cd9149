"""The checks that moved into kmlteach._validation from the topic packages (issue 23):
each accepts its good input, refuses bad input with ValueError/TypeError naming the
argument, and the estimators' ``fit`` validates its data exactly once."""

from __future__ import annotations

import numpy as np
import pytest

from kmlteach import _validation as V

TESTED = {
    "check_bool",
    "check_real",
    "check_instance",
    "check_learner",
    "check_cutoff",
    "check_bounded",
    "check_finite_result",
    "check_finite_output",
    "check_overflow",
    "check_w_X",
    "check_scores",
    "check_labelling",
    "check_int_labels",
    "check_label_range",
    "check_gram",
    "check_kernel_test",
    "check_distribution",
    "check_code",
    "check_graph",
    "check_node_labels",
    "check_stochastic",
    "check_strings",
    "check_exp_family",
    "check_chain_scores",
    "check_chain_weights",
    "check_sequences",
    "check_bootstraps",
    "check_measure",
    "check_relevance",
    "validate_data",
    "as_array",
    "check_predictor",
    "check_pm1_predictions",
}


def _raises(exc, name, fn, *args, **kw):
    with pytest.raises(exc) as info:
        fn(*args, **kw)
    assert name in str(info.value), f"message does not name {name!r}: {info.value}"


def test_check_bool():
    assert V.check_bool(True, "flag") is True and V.check_bool(np.bool_(False), "flag") is False
    for bad in (1, 0, "yes", None, 1.0):
        _raises(TypeError, "flag", V.check_bool, bad, "flag")


def test_check_real_instance_learner_cutoff():
    assert V.check_real(np.float32(2.5), "b") == 2.5 and V.check_real(3, "b") == 3.0
    _raises(TypeError, "b", V.check_real, True, "b")
    _raises(ValueError, "b", V.check_real, float("inf"), "b")
    assert V.check_instance(3, "n", int, "an int") == 3
    _raises(TypeError, "k1", V.check_instance, "x", "k1", int, "an int")
    assert V.check_learner(len) is len
    _raises(TypeError, "learner", V.check_learner, None)
    _raises(TypeError, "learner", V.check_learner, 3)
    _raises(TypeError, "weak_learner", V.check_predictor, 3, "weak_learner")
    assert V.check_pm1_predictions(np.array([1.0, -1.0]), 2, "weak_learner").shape == (2,)
    _raises(ValueError, "weak_learner", V.check_pm1_predictions, np.array([1.0, 0.0]), 2, "weak_learner")
    _raises(ValueError, "weak_learner", V.check_pm1_predictions, np.array([1.0]), 2, "weak_learner")
    assert V.check_cutoff(None, 5) == 5 and V.check_cutoff(9, 5) == 5 and V.check_cutoff(2, 5) == 2
    _raises(ValueError, "k", V.check_cutoff, 0, 5)


def test_array_results_and_bounds():
    assert V.as_array(2, "t").shape == () and V.as_array([[1, 2]], "t").dtype == np.float64
    _raises(TypeError, "t", V.as_array, True, "t")
    _raises(ValueError, "t", V.as_array, [np.nan], "t")
    X = np.ones((2, 2))
    assert V.check_bounded(X, "X") is X
    _raises(ValueError, "X", V.check_bounded, X * 1e200, "X")
    V.check_finite_result("eta", np.ones(2))
    _raises(ValueError, "eta", V.check_finite_result, "eta", np.array([1.0, np.inf]))
    V.check_finite_output("w or b", np.ones(2))
    _raises(ValueError, "w or b", V.check_finite_output, "w or b", np.array([np.nan]))
    V.check_overflow(1.0, "beta too large")
    _raises(ValueError, "beta", V.check_overflow, np.inf, "beta too large")
    w, Xa = V.check_w_X([1, 2], [[1, 2], [3, 4]])
    assert w.shape == (2,) and Xa.shape == (2, 2)
    _raises(ValueError, "w", V.check_w_X, [1, 2, 3], [[1, 2]])


def test_labels_and_scores():
    s, t = V.check_scores([0.1, 0.2], [1, -1])
    assert s.dtype == t.dtype == np.float64
    _raises(ValueError, "y_score", V.check_scores, [0.1], [1, -1])
    _raises(ValueError, "y_true", V.check_scores, [0.1, 0.2], [0, 1])
    assert V.check_scores([0.1, 0.2], [1, -1], require_both=True)[1].tolist() == [1.0, -1.0]
    _raises(ValueError, "y_true", V.check_scores, [0.1], [1], require_both=True)
    _raises(ValueError, "y_true", V.check_scores, [0.1], [2.0], binary=False, min_length=2)
    assert V.check_labelling([0, 2, 1], "y", 3, 3).dtype == np.int64
    _raises(ValueError, "y", V.check_labelling, [0, 3], "y", 2, 3)
    _raises(ValueError, "y", V.check_labelling, [0, 1], "y", 3, 3, rows="x")
    _raises(ValueError, "y", V.check_labelling, [0.5, 1], "y", 2, 3)
    assert V.check_int_labels([1.0, 2.0], "y_true").dtype == np.int64
    _raises(ValueError, "y_pred", V.check_int_labels, [0.5], "y_pred")
    _raises(TypeError, "y_pred", V.check_int_labels, ["a"], "y_pred")
    V.check_label_range(np.array([0, 2]), 3)
    _raises(ValueError, "y", V.check_label_range, np.array([0, 3]), 3, "y", "w has 3 rows")


def test_gram_and_kernel_values():
    K = np.array([[2.0, 1.0], [1.0, 2.0]])
    assert V.check_gram(K) is not None
    _raises(ValueError, "K", V.check_gram, np.array([[1.0, 2.0], [0.0, 1.0]]))
    _raises(ValueError, "K_x", V.check_gram, np.array([[np.nan, 0.0], [0.0, 1.0]]), "K_x")
    _raises(ValueError, "K", V.check_gram, np.ones((2, 3)))
    _raises(ValueError, "K", V.check_gram, K * 1e200)
    assert V.check_kernel_test(np.ones((3, 2)), 2).shape == (3, 2)
    _raises(ValueError, "K_test", V.check_kernel_test, np.ones((3, 2)), 4)
    _raises(ValueError, "K_test", V.check_kernel_test, np.full((1, 2), 1e200), 2)


def test_distribution_code_bootstraps():
    assert np.allclose(V.check_distribution(None, 4), 0.25)
    _raises(ValueError, "D", V.check_distribution, [0.5, -0.5], 2)
    _raises(ValueError, "D", V.check_distribution, [0.0, 0.0], 2)
    M = np.array([[1, 1], [1, -1], [-1, 1]])
    assert V.check_code(M, 3).shape == (3, 2)
    _raises(ValueError, "code", V.check_code, M, 4)
    _raises(ValueError, "code", V.check_code, [[1, 0], [-1, 1]], 2)
    _raises(ValueError, "code", V.check_code, [[1, 1], [-1, 1]], 2)  # constant column
    _raises(ValueError, "code", V.check_code, [[1, -1], [1, -1], [-1, 1]], 3)  # equal rows
    assert V.check_bootstraps(10, "n_trees", 5, 1000) == 10
    _raises(ValueError, "n_trees", V.check_bootstraps, 10, "n_trees", 500, 1000)


def test_graphs_strings_stochastic():
    A = np.array([[0, 1], [1, 0]])
    assert V.check_graph(A, "A").shape == (2, 2)
    _raises(ValueError, "A1", V.check_graph, [[0, 2], [2, 0]], "A1")
    _raises(ValueError, "A1", V.check_graph, [[0, 1], [0, 0]], "A1")
    _raises(ValueError, "W", V.check_graph, [[0, -1], [1, 0]], "W", binary=False)
    codes: dict = {}
    assert V.check_node_labels(["a", "b"], "labels1", 2, codes).tolist() == [0, 1]
    assert V.check_node_labels(["b"], "labels2", 1, codes).tolist() == [1]
    _raises(ValueError, "labels1", V.check_node_labels, ["a"], "labels1", 2, {})
    _raises(TypeError, "labels1", V.check_node_labels, "ab", "labels1", 2, {})
    V.check_stochastic(np.array([[0.5, 0.5]]), "transmat", "along each row")
    _raises(ValueError, "transmat", V.check_stochastic, np.array([[0.5, 0.6]]), "transmat", "along each row")
    _raises(ValueError, "startprob", V.check_stochastic, np.array([1.5, -0.5]), "startprob", "")
    assert V.check_strings(("ab", "c"), "strings") == ["ab", "c"]
    _raises(TypeError, "strings", V.check_strings, "ab", "strings")
    _raises(ValueError, "strings", V.check_strings, [], "strings")
    _raises(TypeError, "strings[1]", V.check_strings, ["a", 3], "strings")


def test_fisher_chain_and_ranking_arguments():
    X, th, fam, s = V.check_exp_family([[0, 1]], [0.5, 0.5], "bernoulli", 1.0, ("bernoulli", "gaussian"))
    assert fam == "bernoulli" and s == 1.0
    _raises(
        ValueError,
        "Y",
        V.check_exp_family,
        [[0, 2]],
        [0.5, 0.5],
        "bernoulli",
        1.0,
        ("bernoulli", "gaussian"),
        "Y",
    )
    _raises(
        ValueError,
        "family",
        V.check_exp_family,
        [[0, 1]],
        [0.5, 0.5],
        "poisson",
        1.0,
        ("bernoulli", "gaussian"),
    )
    U, P, init = V.check_chain_scores(np.zeros((4, 3)), np.zeros((3, 3)), None)
    assert init.shape == (3,)
    _raises(ValueError, "pairwise", V.check_chain_scores, np.zeros((4, 3)), np.zeros((2, 2)), None)
    _raises(ValueError, "initial", V.check_chain_scores, np.zeros((4, 3)), np.zeros((3, 3)), [0.0])
    Wu, Wp = V.check_chain_weights(np.zeros((3, 2)), np.zeros((3, 3)), 2)
    _raises(ValueError, "W_pair", V.check_chain_weights, np.zeros((3, 2)), np.zeros((2, 2)))
    Xc, yc, off, q = V.check_sequences([np.zeros((2, 3)), np.ones((1, 3))], [[0, 1], [1]], 2)
    assert Xc.shape == (3, 3) and off.tolist() == [0, 2, 3] and q == 2
    _raises(TypeError, "X", V.check_sequences, np.zeros((2, 3)), [[0, 1]], 2)
    _raises(ValueError, "Y", V.check_sequences, [np.zeros((2, 3))], [], 2)
    _raises(ValueError, "Y[0]", V.check_sequences, [np.zeros((2, 3))], [[0, 5]], 2)
    measures = {"f1": (0, False, "F1"), "precision_at_k": (1, True, "P@k")}
    assert V.check_measure("f1", None, 1.0, 5, measures) == (0, 0, 1.0)
    assert V.check_measure("precision_at_k", 2, 1.0, 5, measures) == (1, 2, 1.0)
    _raises(ValueError, "k", V.check_measure, "precision_at_k", None, 1.0, 5, measures)
    _raises(ValueError, "measure", V.check_measure, "auc", None, 1.0, 5, measures)
    _raises(ValueError, "beta", V.check_measure, "f1", None, 0.0, 5, measures)
    V.check_relevance(np.array([0.0, 2.0]))
    _raises(ValueError, "y_true", V.check_relevance, np.array([-1.0, 2.0]))


# ------------------------------------------------------------------ one pass per fit


def _estimators():
    from kmlteach import kernel_methods as km
    from kmlteach import multiclass, svm

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y2 = np.where(X[:, 0] + 0.2 * X[:, 1] > 0, "b", "a")
    y3 = np.digitize(X[:, 0], [-0.5, 0.5])
    return [
        (svm.SoftSVM(), X, y2),
        (svm.HardSVM(), np.r_[X[:5] + 3, X[:5] - 3], np.r_[[1] * 5, [-1] * 5]),
        (km.KernelSVM(T=100), X, y2),
        (km.KernelPCA(n_components=2), X, None),
        (multiclass.MulticlassSVM(T=200), X, y3),
    ]


@pytest.mark.parametrize("i", range(5), ids=["SoftSVM", "HardSVM", "KernelSVM", "KernelPCA", "MulticlassSVM"])
def test_fit_validates_its_data_exactly_once(i, monkeypatch):
    """One pass: ``fit`` calls the entry point ``validate_data`` once, and nothing else
    converts or checks the data again afterwards (no array goes through the gate's
    conversion, labels are not read again, no Gram matrix is re-checked)."""
    import sklearn.utils.validation as skv

    from kmlteach._validation import arrays, estimators, labels, structures

    est, X, y = _estimators()[i]
    calls = {"validate_data": 0, "sklearn": 0, "after": []}
    entry, sk_entry = estimators.validate_data, skv.validate_data
    inside = [False]

    def counted_entry(*a, **k):
        calls["validate_data"] += 1
        inside[0] = True
        try:
            return entry(*a, **k)
        finally:
            inside[0] = False

    def counted_sklearn(*a, **k):
        calls["sklearn"] += 1
        return sk_entry(*a, **k)

    def spy(module, name):
        original = getattr(module, name)

        def wrapper(*a, **k):
            if not inside[0]:
                calls["after"].append(name)
            return original(*a, **k)

        monkeypatch.setattr(module, name, wrapper)

    spy(arrays, "_to_float_array")  # every array conversion of the gate goes through it
    spy(labels, "check_multiclass_labels")
    spy(structures, "_check_gram_kernel")
    monkeypatch.setattr(skv, "validate_data", counted_sklearn)
    for mod in _modules_binding_validate_data():
        monkeypatch.setattr(mod, "validate_data", counted_entry)
    est.fit(X, y) if y is not None else est.fit(X)
    assert calls["validate_data"] == 1 and calls["sklearn"] == 1, calls
    assert calls["after"] == [], f"data checked again after validate_data: {calls['after']}"


def _modules_binding_validate_data():
    import importlib

    names = [
        "kmlteach.svm.estimators",
        "kmlteach.kernel_methods.estimators",
        "kmlteach.multiclass.estimators",
    ]
    return [importlib.import_module(n) for n in names]


def test_validate_data_sets_and_checks_the_number_of_features():
    from kmlteach import svm

    est = svm.SoftSVM()
    X = np.ones((4, 2))
    Xa = V.validate_data(est, X)
    assert Xa.flags.c_contiguous and est.n_features_in_ == 2
    _raises(ValueError, "X", V.validate_data, est, np.ones((3, 3)), reset=False)
    _raises(ValueError, "X", V.validate_data, est, np.ones((4, 2)) * 1e200)
    _raises(ValueError, "y", V.validate_data, est, X, [0, 0, 0, 0])
    _raises(ValueError, "y", V.validate_data, est, X, [0, 1, 2, 0], max_classes=2)
    _raises(ValueError, "y", V.validate_data, est, X, None)
    Xa, classes, idx = V.validate_data(est, X, ["a", "b", "b", "a"])
    assert classes.tolist() == ["a", "b"] and idx.tolist() == [0, 1, 1, 0]


def test_validate_data_without_scikit_learn(monkeypatch):
    """Binder has no scikit-learn: the course's own gate does the same job, same messages."""
    import kmlteach._estimator as base

    monkeypatch.setattr(base, "HAVE_SKLEARN", False)

    class Est:
        pass

    est = Est()
    Xa, classes, idx = V.validate_data(est, [[1, 2], [3, 4], [5, 6]], ["a", "b", "a"])
    assert Xa.dtype == np.float64 and est.n_features_in_ == 2 and classes.tolist() == ["a", "b"]
    assert V.validate_data(est, [[0, 1]], reset=False).shape == (1, 2)
    _raises(
        ValueError,
        "X has 3 features, but Est is expecting 2",
        V.validate_data,
        est,
        np.ones((1, 3)),
        reset=False,
    )
    _raises(ValueError, "X", V.validate_data, est, [[np.nan, 1.0]])
    _raises(TypeError, "X", V.validate_data, est, "abc")
    _raises(ValueError, "y", V.validate_data, est, np.ones((2, 2)), None)
    _raises(ValueError, "y", V.validate_data, est, np.ones((2, 2)), [0.5, 1.5])


def test_gram_check_kernel_counts_and_maxima_match_numpy():
    # oracle: NumPy on the whole matrix. Sizes around the 128-row tiles (one tile, a
    # partial last band, several bands), entries spoiled on and off the diagonal.
    from kmlteach._validation.structures import _check_gram_kernel, _check_gram_parallel, _check_gram_serial

    rng = np.random.default_rng(5)
    for n in (1, 2, 127, 128, 129, 300):
        A = rng.normal(size=(n, n))
        A = A + A.T
        for trial in range(6):
            B = A.copy()
            for _ in range(trial % 3):
                B[rng.integers(n), rng.integers(n)] = rng.choice([np.nan, np.inf, -np.inf])
            if trial >= 3:
                B[rng.integers(n), rng.integers(n)] += 1e-3
            for kernel in (_check_gram_kernel, _check_gram_serial, _check_gram_parallel):
                n_bad, big, gap = kernel(B)
                assert n_bad == int(np.sum(~np.isfinite(B)))
                if n_bad == 0:
                    assert big == np.max(np.abs(B)) and gap == np.max(np.abs(B - B.T))
