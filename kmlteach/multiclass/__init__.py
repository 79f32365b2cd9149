"""Multiclass classification (UML §17.1–17.2; lecture slides on multiclass and Kesler).

Three families, in the order of the chapter:

* **Reductions to binary problems** (UML §17.1, slides): :func:`one_vs_all`,
  :func:`all_pairs` (majority vote or tournament), :func:`ecoc` (error-correcting
  output codes, from Dietterich & Bakiri 1995, *not* in the course sources), and the
  exact 2-D halfspace ERM :func:`erm_halfspace_2d` used to replay Example 17.1.
  Code: ``reductions.py``, ``ecoc.py`` and (demonstration binary learners)
  ``learners.py``.
* **Linear multiclass predictors** h_w(x) = argmax_y ⟨w, Ψ(x, y)⟩ (UML §17.2; ``psi.py``,
  ``hinge.py``, ``sgd.py``): feature maps Ψ (multivector (17.2), TF-IDF), cost matrices Δ, the
  generalized hinge loss (17.3) and its subgradient, "SGD for Multiclass Learning"
  (§17.2.5) and the RLM multiclass SVM.
* **Multiclass perceptrons** (UML ex. 17.2, slides, HSS2 §2.2.1): batch, Kesler,
  conservative and Collins' perceptrons and the Kesler embedding. Code: ``perceptrons.py``.

Labels may be any sortable hashable values; internally classes are numbered 0..k-1
in the order of ``np.unique(y)``, and every argmax breaks ties towards the smallest
index (UML §17.1's rule).

The scikit-learn style :class:`MulticlassSVM` is in ``estimators.py``.
"""

from kmlteach.multiclass.ecoc import ECOC, ecoc, ecoc_code
from kmlteach.multiclass.hinge import (
    crammer_singer_C,
    generalized_hinge,
    generalized_hinge_subgradient,
    multiclass_svm_objective,
)
from kmlteach.multiclass.kesler import KeslerEmbedding, kesler_embed
from kmlteach.multiclass.learners import (
    HalfspaceERM,
    LinearScorer,
    Stump,
    erm_halfspace_2d,
    least_squares_learner,
    stump_learner,
)
from kmlteach.multiclass.perceptrons import (
    MulticlassPerceptronResult,
    collins_perceptron,
    conservative_perceptron,
    kesler_perceptron,
    multiclass_perceptron,
)
from kmlteach.multiclass.psi import (
    LinearMulticlass,
    MultivectorPsi,
    TfidfPsi,
    multivector_psi,
    zero_one_delta,
)
from kmlteach.multiclass.reductions import (
    AllPairs,
    Decision,
    OneVsAll,
    all_pairs,
    one_vs_all,
)
from kmlteach.multiclass.sgd import (
    MulticlassSGDResult,
    MulticlassSVMResult,
    multiclass_svm,
    multiclass_svm_sgd,
)

__all__ = [
    # §17.2 linear predictors
    "MultivectorPsi",
    "TfidfPsi",
    "multivector_psi",
    "zero_one_delta",
    "LinearMulticlass",
    "generalized_hinge",
    "generalized_hinge_subgradient",
    "multiclass_svm_objective",
    "multiclass_svm_sgd",
    "multiclass_svm",
    "crammer_singer_C",
    "MulticlassSGDResult",
    "MulticlassSVMResult",
    "MulticlassSVM",
    # §17.1 reductions
    "one_vs_all",
    "all_pairs",
    "ecoc",
    "ecoc_code",
    "erm_halfspace_2d",
    "Decision",
    "OneVsAll",
    "AllPairs",
    "ECOC",
    "least_squares_learner",
    "LinearScorer",
    "stump_learner",
    "Stump",
    "HalfspaceERM",
    # perceptrons
    "multiclass_perceptron",
    "kesler_embed",
    "kesler_perceptron",
    "conservative_perceptron",
    "collins_perceptron",
    "MulticlassPerceptronResult",
    "KeslerEmbedding",
]


def __getattr__(name):
    # MulticlassSVM is built on scikit-learn's base classes (an optional dependency that
    # takes seconds to import), so ``multiclass.estimators`` loads on first use.
    if name == "MulticlassSVM":
        from kmlteach.multiclass import estimators

        return estimators.MulticlassSVM
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(__all__)
