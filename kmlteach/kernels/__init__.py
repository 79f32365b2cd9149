"""Kernel functions, Gram matrices, positive semi-definiteness, closure rules, RKHS operations.

Sources: UML §16.1–16.2 (embeddings, polynomial and Gaussian kernels, ex. 16.4) and
HSS1 §1.2–1.3 (positive definite kernels, Prop. 4 and 5, B-splines, operations in the
RKHS). Conventions that differ between the sources:

* Gaussian kernel: UML writes ``exp(-||x - x'||^2 / (2 sigma))`` (sigma not squared),
  HSS writes ``exp(-gamma ||x - x'||^2)``. :func:`gram` accepts either ``sigma`` or
  ``gamma`` (never both); they are related by ``gamma = 1 / (2 sigma)``.
* Polynomial kernel: ``(c + <x, x'>)^degree``; UML uses ``c = 1``, HSS allows any
  ``c >= 0`` and calls ``c = 0`` homogeneous.

All Gram matrices are computed by one parallel Numba kernel per family (the only
``parallel=True`` loops of the course): inner-product kernels reuse the BLAS product
``X Y^T`` and transform it entry by entry; ``min`` and ``bspline`` loop over pairs.

Where the code lives: ``gram.py`` (kernel functions, Gram matrices), ``psd.py``,
``features.py`` (explicit maps), ``closure.py`` (closure rules, HSS1 Prop. 5),
``rkhs.py`` (operations in the RKHS through kernel values, HSS1 §1.3.1),
``approximation.py`` (Nyström and random Fourier features: kernel methods at scale).
"""

from kmlteach._exports import public_names
from kmlteach.kernels import approximation as _approximation
from kmlteach.kernels import closure as _closure
from kmlteach.kernels import features as _features
from kmlteach.kernels import gram as _gram
from kmlteach.kernels import psd as _psd
from kmlteach.kernels import rkhs as _rkhs
from kmlteach.kernels.approximation import *
from kmlteach.kernels.closure import *
from kmlteach.kernels.features import *
from kmlteach.kernels.gram import *
from kmlteach.kernels.psd import *
from kmlteach.kernels.rkhs import *

__all__ = public_names(_gram, _psd, _features, _closure, _rkhs, _approximation)


def __dir__():
    return sorted(__all__)
