"""The one validation gate: every public function checks its inputs here.

Jitted kernels accept only C-contiguous ``float64``/``int64`` arrays and plain
scalars; a wrong type reaching them produces a long Numba ``TypingError``, and a NaN
produces a silently wrong answer. So every public function converts and checks its
arguments with these helpers *before* any kernel runs. Errors are ``ValueError``
(wrong value, shape or content) or ``TypeError`` (wrong kind of object) and always
name the argument, what was received and what was expected.

Every check of the package lives here, by kind of argument: ``arrays`` (conversion,
finiteness, shapes), ``scalars`` (numbers, counts, flags, choices, seeds, callables),
``labels``, ``structures`` (Gram matrices, codes, graphs, chains, ... of the later
chapters) and ``estimators`` (the single pass of an estimator's ``fit``). Names imported
as ``X as X`` below are for the package's modules, not part of ``__all__``.
"""

from .arrays import MAX_FEATURE as MAX_FEATURE
from .arrays import _check_finite as _check_finite
from .arrays import _describe as _describe
from .arrays import _to_float_array as _to_float_array
from .arrays import (
    as_array,
    as_matrix,
    as_vector,
    check_bounded,
    check_finite_output,
    check_finite_result,
    check_overflow,
    check_same_length,
    check_square,
    check_w_X,
    check_X,
)
from .estimators import validate_data
from .labels import (
    check_binary_labels,
    check_int_labels,
    check_label_range,
    check_labelling,
    check_multiclass_labels,
    check_pm1_predictions,
    check_scores,
    check_Xy,
)
from .scalars import MAX_COUNT as MAX_COUNT
from .scalars import _check_real_scalar as _check_real_scalar
from .scalars import (
    check_bool,
    check_choice,
    check_cutoff,
    check_instance,
    check_int,
    check_learner,
    check_nonnegative,
    check_positive,
    check_predictor,
    check_probability,
    check_real,
    check_rng,
    check_string,
)
from .structures import MAX_GRAM as MAX_GRAM
from .structures import (
    check_bootstraps,
    check_chain_scores,
    check_chain_weights,
    check_code,
    check_distribution,
    check_exp_family,
    check_gram,
    check_graph,
    check_kernel_test,
    check_measure,
    check_node_labels,
    check_relevance,
    check_sequences,
    check_stochastic,
    check_strings,
)

__all__ = [
    "as_matrix",
    "as_vector",
    "as_array",
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
    "check_bool",
    "check_real",
    "check_cutoff",
    "check_instance",
    "check_learner",
    "check_predictor",
    "check_pm1_predictions",
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
]
