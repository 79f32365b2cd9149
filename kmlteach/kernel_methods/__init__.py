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

from kmlteach._exports import lazy_exports, public_names
from kmlteach.kernel_methods import class_mean as _class_mean
from kmlteach.kernel_methods import kde as _kde
from kmlteach.kernel_methods import model_selection as _model_selection
from kmlteach.kernel_methods import pca as _pca
from kmlteach.kernel_methods import perceptron as _perceptron
from kmlteach.kernel_methods import ridge as _ridge
from kmlteach.kernel_methods import sgd as _sgd
from kmlteach.kernel_methods.class_mean import *
from kmlteach.kernel_methods.kde import *
from kmlteach.kernel_methods.model_selection import *
from kmlteach.kernel_methods.pca import *
from kmlteach.kernel_methods.perceptron import *
from kmlteach.kernel_methods.ridge import *
from kmlteach.kernel_methods.sgd import *

__all__ = public_names(
    _sgd, _perceptron, _ridge, _class_mean, _pca, _kde, _model_selection, lazy=("KernelSVM", "KernelPCA")
)


def _estimators():
    # the scikit-learn based estimators load on first use (kmlteach._exports)
    from kmlteach.kernel_methods import estimators

    return estimators


__getattr__, __dir__ = lazy_exports(__name__, __all__, _estimators)
