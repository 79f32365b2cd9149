"""Margins and support vector machines (UML ch. 15, UML §9.1.2 and §14 ex. 3, HSS2 §2.2.1, §2.3.1).

Functions first, each named as the book names it:

* geometry — :func:`signed_distance`, :func:`distance_to_hyperplane` (Claim 15.1),
  :func:`functional_margins`, :func:`geometric_margins`, :func:`geometric_margin`,
  :func:`support_vectors`;
* :func:`perceptron` — the Batch Perceptron (UML §9.1.2), and
  :func:`subgradient_perceptron` — subgradient descent on max_i(1 - y_i<w,x_i>)
  (UML §14 ex. 3);
* :func:`hard_svm` — the exact solution of (15.2) / (15.3), with its dual α (15.11);
* :func:`soft_svm` — the exact minimiser of (λ/2)||w||² + mean hinge (15.12);
* :func:`sgd_soft_svm` — "SGD for Solving Soft-SVM" (UML §15.5), with the index
  convention :func:`sgd_indices` shared with ``kernel_methods.kernel_sgd_svm``;
* estimators :class:`HardSVM` and :class:`SoftSVM` (scikit-learn style).

Labels are -1/+1 for the functions (the estimators accept any two labels). Where the code lives: ``margins.py``, ``perceptron.py``, ``hard.py`` (+ ``smo.py``),
``soft.py`` (+ ``dcd.py``), ``sgd.py``, ``estimators.py``.
"""

from kmlteach.svm.conventions import C_to_lam, lam_to_C
from kmlteach.svm.hard import HardSVMResult, hard_svm
from kmlteach.svm.margins import (
    distance_to_hyperplane,
    functional_margins,
    geometric_margin,
    geometric_margins,
    hinge_objective,
    signed_distance,
    soft_svm_objective,
    support_vectors,
)
from kmlteach.svm.nu import NuSVMResult, OneClassSVMResult, nu_svm, one_class_svm
from kmlteach.svm.perceptron import (
    PerceptronResult,
    SubgradientPerceptronResult,
    perceptron,
    subgradient_perceptron,
)
from kmlteach.svm.sgd import SGDSoftSVMResult, sgd_indices, sgd_soft_svm
from kmlteach.svm.soft import SoftSVMResult, soft_svm

__all__ = [
    "signed_distance",
    "distance_to_hyperplane",
    "functional_margins",
    "geometric_margins",
    "geometric_margin",
    "support_vectors",
    "soft_svm_objective",
    "hinge_objective",
    "perceptron",
    "subgradient_perceptron",
    "hard_svm",
    "soft_svm",
    "sgd_soft_svm",
    "sgd_indices",
    "PerceptronResult",
    "SubgradientPerceptronResult",
    "HardSVMResult",
    "SoftSVMResult",
    "SGDSoftSVMResult",
    "HardSVM",
    "SoftSVM",
    "lam_to_C",
    "C_to_lam",
    "nu_svm",
    "one_class_svm",
    "NuSVMResult",
    "OneClassSVMResult",
]

_ESTIMATORS = {"HardSVM", "SoftSVM"}


def __getattr__(name):
    # The estimators are built on scikit-learn's base classes (an optional dependency
    # that takes seconds to import), so ``kmlteach.svm.estimators`` loads on first use.
    if name in _ESTIMATORS:
        from kmlteach.svm import estimators

        return getattr(estimators, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(__all__)
