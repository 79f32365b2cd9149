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
``rkhs.py`` (operations in the RKHS through kernel values, HSS1 §1.3.1).
"""

from kmlteach.kernels.closure import (
    Kernel,
    direct_sum,
    exponential_taylor_gram,
    feature_product,
    kernel_product,
    kernel_sum,
    make_kernel,
    tensor_product,
)
from kmlteach.kernels.features import (
    line_embedding,
    min_features,
    polynomial_feature_names,
    polynomial_features,
)
from kmlteach.kernels.gram import (
    KERNELS,
    SIMILARITIES,
    bspline,
    gram,
    kernel_params,
    similarity,
)
from kmlteach.kernels.psd import PSDCheck, cauchy_schwarz_ratio, is_psd
from kmlteach.kernels.rkhs import (
    center,
    deflate,
    gram_schmidt,
    project,
    rkhs_distances,
    rkhs_inner,
    rkhs_norm,
    translate,
)

__all__ = [
    "KERNELS",
    "SIMILARITIES",
    "gram",
    "similarity",
    "kernel_params",
    "bspline",
    "is_psd",
    "PSDCheck",
    "cauchy_schwarz_ratio",
    "polynomial_features",
    "polynomial_feature_names",
    "min_features",
    "line_embedding",
    "Kernel",
    "make_kernel",
    "kernel_sum",
    "kernel_product",
    "tensor_product",
    "direct_sum",
    "feature_product",
    "exponential_taylor_gram",
    "translate",
    "center",
    "rkhs_distances",
    "rkhs_inner",
    "rkhs_norm",
    "project",
    "deflate",
    "gram_schmidt",
]


def __dir__():
    return sorted(__all__)
