"""Closure rules: new kernels from old ones (HSS1 §1.2.3, Proposition 5).

Re-exported by :mod:`kmlteach.kernels`; import them from there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from kmlteach._validation import as_matrix, check_finite_output, check_instance, check_int, check_nonnegative
from kmlteach.kernels.gram import gram, kernel_params

_KERNEL = "a Kernel (from make_kernel or a closure rule)"

__all__ = [
    "Kernel",
    "make_kernel",
    "kernel_sum",
    "kernel_product",
    "tensor_product",
    "direct_sum",
    "feature_product",
    "exponential_taylor_gram",
]


@dataclass(frozen=True)
class Kernel:
    """A kernel as a callable: ``k(X, Y=None)`` returns the Gram matrix.

    Built by :func:`make_kernel` from a name in :data:`KERNELS`, or by the closure
    rules (:func:`kernel_sum`, :func:`kernel_product`, :func:`tensor_product`,
    :func:`direct_sum`, :func:`feature_product`) from other kernels.

    Source: HSS1 Prop. 5 (closure rules).
    """

    fn: Callable
    description: str

    def __call__(self, X, Y=None) -> np.ndarray:
        return self.fn(X, Y)

    def __repr__(self) -> str:
        return f"Kernel({self.description})"


def make_kernel(kernel: str, **params) -> Kernel:
    """A named kernel with fixed parameters, as a :class:`Kernel` callable.

    Source: HSS1 Prop. 5 (closure rules).
    """
    kernel_params(kernel, **params)
    desc = kernel + ("(" + ", ".join(f"{k}={v!r}" for k, v in params.items()) + ")" if params else "")
    return Kernel(lambda X, Y=None: gram(kernel, X, Y, **params), desc)


def kernel_sum(k1: Kernel, k2: Kernel, w1: float = 1.0, w2: float = 1.0) -> Kernel:
    """``w1 k1 + w2 k2`` with ``w1, w2 >= 0``: again a kernel (HSS1 Prop. 5(i), a convex cone)."""
    check_instance(k1, "k1", Kernel, _KERNEL), check_instance(k2, "k2", Kernel, _KERNEL)
    w1, w2 = check_nonnegative(w1, "w1"), check_nonnegative(w2, "w2")
    return Kernel(
        lambda X, Y=None: w1 * k1(X, Y) + w2 * k2(X, Y), f"{w1:g}*{k1.description} + {w2:g}*{k2.description}"
    )


def kernel_product(k1: Kernel, k2: Kernel) -> Kernel:
    """Pointwise product ``k1 k2``: a kernel (HSS1 Prop. 5(ii); Gram matrix = Schur product)."""
    check_instance(k1, "k1", Kernel, _KERNEL), check_instance(k2, "k2", Kernel, _KERNEL)
    return Kernel(lambda X, Y=None: k1(X, Y) * k2(X, Y), f"{k1.description} * {k2.description}")


def _split(X, Y, d1, name):
    Xa = as_matrix(X, "X")
    if not 1 <= d1 < Xa.shape[1]:
        raise ValueError(
            f"{name}: d1 must split the {Xa.shape[1]} columns of X into two non-empty parts, got d1={d1}"
        )
    Ya = None if Y is None else as_matrix(Y, "Y", n_cols=Xa.shape[1])
    return (Xa[:, :d1], None if Ya is None else Ya[:, :d1], Xa[:, d1:], None if Ya is None else Ya[:, d1:])


def tensor_product(k1: Kernel, k2: Kernel, d1: int) -> Kernel:
    """Tensor product on a product space (HSS1 Prop. 5(iii)).

    Inputs are rows ``(x1, x2)`` with ``x1`` the first ``d1`` columns;
    ``k((x1, x2), (x1', x2')) = k1(x1, x1') k2(x2, x2')``.
    """
    check_instance(k1, "k1", Kernel, _KERNEL), check_instance(k2, "k2", Kernel, _KERNEL)
    d1 = check_int(d1, "d1", minimum=1)

    def fn(X, Y=None):
        X1, Y1, X2, Y2 = _split(X, Y, d1, "tensor_product")
        return k1(X1, Y1) * k2(X2, Y2)

    return Kernel(fn, f"{k1.description} (x) {k2.description}")


def direct_sum(k1: Kernel, k2: Kernel, d1: int) -> Kernel:
    """Direct sum on a product space (HSS1 Prop. 5(iii)):
    ``k((x1, x2), (x1', x2')) = k1(x1, x1') + k2(x2, x2')``."""
    check_instance(k1, "k1", Kernel, _KERNEL), check_instance(k2, "k2", Kernel, _KERNEL)
    d1 = check_int(d1, "d1", minimum=1)

    def fn(X, Y=None):
        X1, Y1, X2, Y2 = _split(X, Y, d1, "direct_sum")
        return k1(X1, Y1) + k2(X2, Y2)

    return Kernel(fn, f"{k1.description} (+) {k2.description}")


def feature_product(f: Callable) -> Kernel:
    """``k(x, x') = f(x) f(x')`` for any real function f of a row (HSS1 Prop. 5(v))."""
    if not callable(f):
        raise TypeError(f"f must be a function of one input row, got {type(f).__name__}")

    def values(X, name):
        Xa = as_matrix(X, name)
        v = np.array([float(f(row)) for row in Xa])
        if not np.all(np.isfinite(v)):
            raise ValueError(f"f returned a NaN or infinite value on {name}")
        return v

    def fn(X, Y=None):
        fx = values(X, "X")
        fy = fx if Y is None else values(Y, "Y")
        return np.outer(fx, fy)

    return Kernel(fn, f"f(x)f(x') with f={getattr(f, '__name__', 'f')}")


def exponential_taylor_gram(X, Y=None, gamma: float = 1.0, n_terms: int = 10) -> np.ndarray:
    """Partial sum ``sum_{i=0}^{n_terms-1} (gamma <x, x'>)^i / i!`` (HSS1 §1.2.3.2).

    Each term is a homogeneous polynomial kernel with a non-negative weight when
    ``gamma >= 0``, so every partial sum is a kernel (Prop. 5(i)); as ``n_terms`` grows
    they converge to ``exp(gamma <x, x'>)``, which is therefore a kernel (Prop. 5(iv),
    the limit rule). The sum starts at i = 0 (the source prints i = 1).
    """
    gamma = check_nonnegative(gamma, "gamma")
    n_terms = check_int(n_terms, "n_terms", minimum=1, maximum=500)
    G = gram("linear", X, Y)
    K = np.zeros_like(G)
    term = np.ones_like(G)
    for i in range(n_terms):
        K += term
        term = term * (gamma * G) / (i + 1)
    check_finite_output("X, Y or gamma", K)
    return K
