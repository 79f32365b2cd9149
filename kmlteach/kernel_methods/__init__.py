"""Kernel methods: algorithms that touch the data only through a Gram matrix.

* :func:`kernel_sgd_svm` — "SGD for Solving Soft-SVM with Kernels" (UML §16.3), whose
  output equals SGD on explicit features (Lemma 16.3).
* :func:`kernel_perceptron` (UML ex. 16.2), :func:`kernel_ridge` (UML ex. 16.3),
  :func:`class_mean_classifier` (HSS1 §1.2.1, UML ex. 16.6).
* :func:`kernel_expansion`: evaluate ``f(x) = sum_j alpha_j k(x_j, x) + b``, the form the
  representer theorem guarantees (UML Thm 16.1, HSS1 Thm 6).
* :func:`kernel_pca` (HSS1 §1.3.2) and :func:`kernel_dependency_estimation` (HSS1 §1.5).
* :func:`cross_validate_kernel_svm`: choose σ and λ by stratified k-fold
  cross-validation (``model_selection.py``).
* Estimators :class:`KernelSVM` (kernel SGD, any two labels) and :class:`KernelPCA`.

Every function takes an **uncentred** Gram matrix ``K`` (``K[i, j] = k(x_i, x_j)``,
e.g. from :func:`kmlteach.kernels.gram`) and, for new points, the rectangular matrix
``K_test[a, j] = k(z_a, x_j)``.

Where the code lives: ``sgd.py``, ``perceptron.py``, ``ridge.py``, ``class_mean.py``
(with :func:`kernel_expansion`), ``pca.py``, ``kde.py``, ``estimators.py``.
"""

from kmlteach.kernel_methods.class_mean import (
    ClassMeanResult,
    class_mean_classifier,
    kernel_expansion,
)
from kmlteach.kernel_methods.kde import (
    KDEPrediction,
    KDEResult,
    kde_predict,
    kernel_dependency_estimation,
)
from kmlteach.kernel_methods.model_selection import (
    CVResult,
    cross_validate_kernel_svm,
    kfold_indices,
    standardize,
)
from kmlteach.kernel_methods.pca import (
    KernelPCAResult,
    kernel_pca,
    kernel_pca_transform,
)
from kmlteach.kernel_methods.perceptron import KernelPerceptronResult, kernel_perceptron
from kmlteach.kernel_methods.ridge import KernelRidgeResult, kernel_ridge
from kmlteach.kernel_methods.sgd import KernelSGDResult, kernel_sgd_svm

__all__ = [
    "KernelSGDResult",
    "kernel_sgd_svm",
    "KernelPerceptronResult",
    "kernel_perceptron",
    "KernelRidgeResult",
    "kernel_ridge",
    "ClassMeanResult",
    "class_mean_classifier",
    "kernel_expansion",
    "KernelPCAResult",
    "kernel_pca",
    "kernel_pca_transform",
    "KDEResult",
    "KDEPrediction",
    "kernel_dependency_estimation",
    "kde_predict",
    "CVResult",
    "cross_validate_kernel_svm",
    "kfold_indices",
    "standardize",
    "KernelSVM",
    "KernelPCA",
]

_ESTIMATORS = {"KernelSVM", "KernelPCA"}


def __getattr__(name):
    # The estimators are built on scikit-learn's base classes (an optional dependency
    # that takes seconds to import), so ``kernel_methods.estimators`` loads on first use.
    if name in _ESTIMATORS:
        from kmlteach.kernel_methods import estimators

        return getattr(estimators, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(__all__)
