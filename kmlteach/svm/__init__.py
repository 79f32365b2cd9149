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

from kmlteach._exports import lazy_exports, public_names
from kmlteach.svm import conventions as _conventions
from kmlteach.svm import hard as _hard
from kmlteach.svm import margins as _margins
from kmlteach.svm import nu as _nu
from kmlteach.svm import perceptron as _perceptron
from kmlteach.svm import sgd as _sgd
from kmlteach.svm import soft as _soft
from kmlteach.svm.conventions import *
from kmlteach.svm.hard import *
from kmlteach.svm.margins import *
from kmlteach.svm.nu import *
from kmlteach.svm.perceptron import *
from kmlteach.svm.sgd import *
from kmlteach.svm.soft import *

__all__ = public_names(
    _margins, _perceptron, _hard, _soft, _sgd, _conventions, _nu, lazy=("HardSVM", "SoftSVM")
)


def _estimators():
    # the scikit-learn based estimators load on first use (kmlteach._exports)
    from kmlteach.svm import estimators

    return estimators


__getattr__, __dir__ = lazy_exports(__name__, __all__, _estimators)
