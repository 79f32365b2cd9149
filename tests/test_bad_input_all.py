"""A safety net over the whole public API: garbage in never gives a Numba traceback.

Every public function of every algorithm module is called with several kinds of bad
arguments (None, a string, NaN, an empty array, a negative number, a ragged list).
Whatever it does, it may only raise ``ValueError`` or ``TypeError`` — never a Numba
``TypingError``, an ``IndexError``, a ``ZeroDivisionError`` or a ``LinAlgError`` that
would confuse a student. Module-specific tests check the messages name the argument.
"""

import importlib
import inspect
import warnings

import numpy as np
import pytest

from kmlteach._jit import ALGORITHM_MODULES

BAD_VALUES = {
    "none": None,
    "string": "abc",
    "nan_matrix": np.array([[np.nan, 1.0], [0.0, 1.0]]),
    "empty": np.empty((0, 0)),
    "negative": -1,
    "ragged": [[1.0, 2.0], [3.0]],
    "bool": True,
}


def _public_functions():
    out, seen = [], set()
    for name in ALGORITHM_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        for fname, fn in inspect.getmembers(mod, inspect.isfunction):
            # public names, including those re-exported from private modules (kmlteach._*)
            if fname.startswith("_") or not fn.__module__.startswith("kmlteach") or id(fn) in seen:
                continue
            seen.add(id(fn))
            try:
                sig = inspect.signature(fn)
            except (TypeError, ValueError):
                continue
            required = [
                p
                for p in sig.parameters.values()
                if p.default is inspect.Parameter.empty
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            ]
            if not required:
                continue
            out.append(pytest.param(fn, len(required), id=f"{name.split('.')[-1]}.{fname}"))
    return out


@pytest.mark.parametrize("fn,n_required", _public_functions())
@pytest.mark.parametrize("kind", list(BAD_VALUES))
def test_bad_input_raises_only_value_or_type_error(fn, n_required, kind):
    _call_expecting_clean_errors(fn, [BAD_VALUES[kind]] * n_required)


def _call_expecting_clean_errors(fn, args):
    """Call fn(*args); any error must be a ValueError/TypeError with a message, not Numba's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(*args)
        except (ValueError, TypeError) as exc:
            assert "numba" not in type(exc).__module__, (
                f"a Numba {type(exc).__name__} reached the user: {exc}"
            )
            assert str(exc), "an error without a message"
        except NotImplementedError:
            pass


GOOD_X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [1.0, 2.0]])


@pytest.mark.parametrize("fn,n_required", [p for p in _public_functions() if p.values[1] >= 2])
@pytest.mark.parametrize("kind", ["none", "string", "nan_matrix", "negative", "empty"])
def test_valid_first_argument_bad_rest(fn, n_required, kind):
    _call_expecting_clean_errors(fn, [GOOD_X] + [BAD_VALUES[kind]] * (n_required - 1))


# ---------------------------------------------------------------------------------------
# the census of the second edition: huge finite values, float and huge counts, names
# ---------------------------------------------------------------------------------------


def test_huge_counts_are_refused_naming_the_count():
    from kmlteach import datasets, multiclass, svm

    X = np.random.default_rng(0).normal(size=(20, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    for call, name in [
        (lambda: svm.sgd_soft_svm(X, y, 0.1, 1e308, 0), "T"),
        (lambda: svm.perceptron(X, y, max_updates=1e308), "max_updates"),
        (lambda: multiclass.multiclass_svm_sgd(X, (y > 0).astype(int), 0.1, 1e308, 0), "T"),
        (lambda: datasets.ranking_queries(n_queries=1e308), "n_queries"),
        (lambda: datasets.three_balls(1e308, 0), "n"),
    ]:
        with pytest.raises(ValueError, match=name):
            call()


def test_huge_feature_values_are_refused_naming_X_not_hanging():
    from kmlteach import multiclass, svm

    X = np.random.default_rng(0).normal(size=(20, 2)) * 1e307
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    for call in (
        lambda: svm.soft_svm(X, y, 0.1),
        lambda: svm.hard_svm(X, y),
        lambda: multiclass.least_squares_learner(X, y),
        lambda: multiclass.one_vs_all(X, (y > 0).astype(int), multiclass.least_squares_learner),
    ):
        with pytest.raises(ValueError, match="X"):
            call()


def test_overflowing_steps_raise_instead_of_predicting_with_inf():
    from kmlteach import multiclass

    X = np.random.default_rng(0).normal(size=(30, 2))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="eta"):
        multiclass.multiclass_svm_sgd(X, y, 1e308, 100, 0)


def test_f_beta_with_huge_beta_is_the_recall():
    from kmlteach import metrics

    s = np.array([0.3, -0.2, 0.5, 0.1, -0.4])
    y = np.array([1, -1, 1, -1, 1])
    assert metrics.f_beta(s, y, beta=1e200) == pytest.approx(metrics.recall(s, y))
    assert metrics.f_beta(s, y, beta=1e-200) == pytest.approx(metrics.precision(s, y))


@pytest.mark.parametrize("bad", [[np.nan, 1], ["a", "b"], [1j, 1], [0.5, 1]])
def test_structured_losses_reject_non_integer_labels(bad):
    from kmlteach import structured

    with pytest.raises((ValueError, TypeError), match="y_pred"):
        structured.hamming_loss(bad, [0, 1])


def test_a_single_point_of_the_wrong_length_names_X_and_w():
    from kmlteach import svm

    with pytest.raises(ValueError, match="X and w"):
        svm.signed_distance(np.ones(3), np.ones(2))


# --- the census's last 56 (tests/test_bad_input_census.py): values checked, not only names


def test_heat_kernel_at_huge_beta_is_the_projection_on_constants():
    from kmlteach import structured_kernels as sk

    A = np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]], dtype=float)
    np.testing.assert_allclose(sk.diffusion_kernel(A, 1e308), np.full((4, 4), 0.25), atol=1e-12)
    for call in (
        lambda: sk.diffusion_kernel(A, 1e308, sign="printed"),
        lambda: sk.diffusion_kernel_limit(A, 1e308, n=100),
    ):
        with pytest.raises(ValueError, match="beta"):
            call()


def test_rademacher_kernel_is_scale_equivariant_up_to_overflow():
    from kmlteach import theory

    X = np.random.default_rng(0).normal(size=(8, 2))
    r1, r2 = theory.rademacher_kernel(X @ X.T, 50, 0), theory.rademacher_kernel(1e300 * (X @ X.T), 50, 0)
    assert r2.estimate == pytest.approx(1e150 * r1.estimate, rel=1e-12)
    assert r2.bound == pytest.approx(1e150 * r1.bound, rel=1e-12)


def test_overflowing_graph_and_bound_arguments_are_named():
    from kmlteach import structured, theory
    from kmlteach import structured_kernels as sk

    P = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=float)
    with pytest.raises(ValueError, match="decay"):
        sk.random_walk_kernel(P, P, 1e308, max_length=5)
    with pytest.raises(ValueError, match="c = "):
        sk.shortest_path_kernel(P, P, length_kernel="bridge", c=1e308)
    with pytest.raises(ValueError, match="edge_weight"):
        structured.taxonomy_delta(edge_weight=1e308)
    with pytest.raises(ValueError, match="W, R or gamma"):
        theory.margin_bound(100, 1e308, 1.0, 0.5)
    with pytest.raises(ValueError, match="bayes_risk"):
        theory.margin_bound(100, 1.0, 1.0, 0.5, bayes_risk=1.5)
    with pytest.raises(ValueError, match="f_max"):
        theory.calibration("logistic", f_max=1e308)
    with pytest.raises(ValueError, match="eps"):
        sk.exp_family_mle(np.eye(3), eps=0.7)


def test_arguments_unused_by_the_other_choices_are_still_checked():
    from kmlteach import datasets, ranking, theory

    queries = datasets.ranking_queries(3, 5, 3, seed=0)
    for bad in (0, 2.5, "3", np.nan):
        with pytest.raises((ValueError, TypeError), match="k"):
            ranking.mean_loss(np.ones(3), queries, loss="kendall", k=bad)
    F, y = np.eye(3), np.arange(3)
    for bad in (0.0, -1.0, np.nan, None, True):
        with pytest.raises((ValueError, TypeError), match="rho"):
            theory.multiclass_soft_margin(F, y, delta=1.0 - np.eye(3), rho=bad)


def test_multiclass_mismatches_name_the_argument_that_fixes_the_size():
    from kmlteach import multiclass

    X, y = np.random.default_rng(0).normal(size=(6, 2)), np.array([0, 1, 2, 0, 1, 2])
    with pytest.raises(ValueError, match=r"w has one row per class"):
        multiclass.generalized_hinge(np.ones((2, 2)), X, y)
    with pytest.raises(ValueError, match=r"one row and column per class of y"):
        multiclass.multiclass_svm(X, np.r_[0.5, y[1:]], 0.1, T=20, seed=0, delta=1.0 - np.eye(3))
    with pytest.raises(ValueError, match=r"w, lam or delta"):
        multiclass.multiclass_svm_objective(np.full((3, 2), 1e307), X, y, 0.1)
    with pytest.raises(ValueError, match=r"delta or lam"):
        multiclass.multiclass_svm(X, y, 0.1, T=20, seed=0, delta=1e308 * (1.0 - np.eye(3)))
    with pytest.raises(ValueError, match="one label per row of TF"):
        multiclass.TfidfPsi(np.ones((5, 3)), y)
    with pytest.raises(ValueError, match="code must be one of"):
        multiclass.ecoc(X, y, multiclass.least_squares_learner, code="hamming")


def test_length_mismatches_name_the_argument_that_fixes_the_length():
    from kmlteach import online, ranking, structured
    from kmlteach import structured_kernels as sk

    s, r = np.array([0.3, 0.1, -0.2]), np.array([1.0, 0.0, 2.0, 1.0])
    for fn in (ranking.dcg, ranking.ndcg_loss, ranking.kendall_tau_loss, ranking.zero_one_ranking_loss):
        with pytest.raises(ValueError, match="one per entry of y_true"):
            fn(s, r)
    with pytest.raises(ValueError, match="one per entry of y_true"):
        ranking.bipartite_loss(s, np.array([1, -1, 1, -1]))
    with pytest.raises(ValueError, match="one per row of X"):
        ranking.kendall_hinge(np.ones(2), np.ones((3, 2)), r)
    with pytest.raises(ValueError, match="one per entry of f"):
        online.norma_loss("hinge", s, np.array([1.0, -1.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="one label per row of x"):
        structured.psi(np.ones((3, 2)), np.array([0, 1, 0, 1]), n_labels=2)
    with pytest.raises(ValueError, match="one label per row of unary"):
        structured.loss_augmented_viterbi(np.ones((3, 2)), np.ones((2, 2)), np.array([0, 1, 0, 1]))
    with pytest.raises(ValueError, match="per entry of scores"):
        structured.taxonomy_hinge(s[:2], 0, 1.0 - np.eye(3))
    with pytest.raises(TypeError, match=r"relation\(y\)"):
        sk.convolution_kernel("ab", None, sk.prefix_suffix_splits, lambda a, b: float(a == b))


def test_gram_overflow_is_caught_without_a_pass_over_the_matrix():
    """The polynomial/exponential Gram kernels report their row maxima; the overflow check
    reads those (an exp overflows iff the largest exponent does), not the whole matrix."""
    from kmlteach import kernels

    X = np.random.default_rng(0).normal(size=(30, 3))
    with pytest.raises(ValueError, match="degree"):
        kernels.gram("polynomial", X, degree=50, c=1e10)
    with pytest.raises(ValueError, match="gamma"):
        kernels.gram("exponential", X, gamma=1e3)
    G = X @ X.T
    np.testing.assert_allclose(kernels.gram("exponential", X, gamma=0.5), np.exp(0.5 * G), rtol=1e-12)
    np.testing.assert_allclose(kernels.gram("polynomial", X, degree=3, c=1.0), (1.0 + G) ** 3, rtol=1e-12)
    np.testing.assert_allclose(kernels.gram("linear", 1e140 * X), 1e280 * G, rtol=1e-12)
