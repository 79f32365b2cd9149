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

from kmlteach._exports import lazy_exports, public_names
from kmlteach.multiclass import ecoc as _ecoc
from kmlteach.multiclass import hinge as _hinge
from kmlteach.multiclass import kesler as _kesler
from kmlteach.multiclass import learners as _learners
from kmlteach.multiclass import perceptrons as _perceptrons
from kmlteach.multiclass import psi as _psi
from kmlteach.multiclass import reductions as _reductions
from kmlteach.multiclass import sgd as _sgd
from kmlteach.multiclass.ecoc import *
from kmlteach.multiclass.hinge import *
from kmlteach.multiclass.kesler import *
from kmlteach.multiclass.learners import *
from kmlteach.multiclass.perceptrons import *
from kmlteach.multiclass.psi import *
from kmlteach.multiclass.reductions import *
from kmlteach.multiclass.sgd import *

__all__ = public_names(
    _psi, _hinge, _sgd, _reductions, _ecoc, _learners, _perceptrons, _kesler, lazy=("MulticlassSVM",)
)


def _estimators():
    # the scikit-learn based estimators load on first use (kmlteach._exports)
    from kmlteach.multiclass import estimators

    return estimators


__getattr__, __dir__ = lazy_exports(__name__, __all__, _estimators)
