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
            required = [p for p in sig.parameters.values()
                        if p.default is inspect.Parameter.empty
                        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
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
            assert "numba" not in type(exc).__module__, f"a Numba {type(exc).__name__} reached the user: {exc}"
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
    for call, name in [(lambda: svm.sgd_soft_svm(X, y, 0.1, 1e308, 0), "T"),
                       (lambda: svm.perceptron(X, y, max_updates=1e308), "max_updates"),
                       (lambda: multiclass.multiclass_svm_sgd(X, (y > 0).astype(int), 0.1, 1e308, 0), "T"),
                       (lambda: datasets.ranking_queries(n_queries=1e308), "n_queries"),
                       (lambda: datasets.three_balls(1e308, 0), "n")]:
        with pytest.raises(ValueError, match=name):
            call()


def test_huge_feature_values_are_refused_naming_X_not_hanging():
    from kmlteach import multiclass, svm

    X = np.random.default_rng(0).normal(size=(20, 2)) * 1e307
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    for call in (lambda: svm.soft_svm(X, y, 0.1), lambda: svm.hard_svm(X, y),
                 lambda: multiclass.least_squares_learner(X, y),
                 lambda: multiclass.one_vs_all(X, (y > 0).astype(int), multiclass.least_squares_learner)):
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
