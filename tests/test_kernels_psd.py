"""Tests for kmlteach.kernels: Gram matrices (oracles: scikit-learn, SciPy, closed forms), — ``kmlteach.kernels.psd``."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from kmlteach import kernels as kk

# rounded to 6 decimals: values like 1e-200 only test floating-point underflow, not kernels
finite = st.floats(-3, 3, allow_nan=False, allow_infinity=False).map(lambda v: round(v, 6))


points = arrays(np.float64, st.tuples(st.integers(1, 8), st.integers(1, 3)), elements=finite)


specs = st.sampled_from(
    [
        ("linear", {}),
        ("polynomial", {"degree": 2, "c": 1.0}),
        ("polynomial", {"degree": 3, "c": 0.0}),
        ("gaussian", {"sigma": 0.5}),
        ("gaussian", {"gamma": 2.0}),
        ("exponential", {"gamma": 0.5}),
        ("bspline", {"order": 1}),
        ("bspline", {"order": 3}),
        ("min", {}),
    ]
)


@settings(max_examples=50, deadline=None)
@given(points, specs)
def test_every_kernel_gives_symmetric_psd_gram(P, spec):
    name, params = spec
    if name == "min":
        P = np.abs(P)
    K = kk.gram(name, P, **params)
    assert K.shape == (P.shape[0], P.shape[0])
    assert np.array_equal(K, K.T)
    psd, lmin = kk.is_psd(K, tol=1e-9)
    assert psd, (name, params, lmin)
    assert kk.cauchy_schwarz_ratio(K) <= 1 + 1e-9  # HSS1 Prop. 4, (1.10)
    d = np.diag(K)
    assert np.all(K**2 <= np.outer(d, d) * (1 + 1e-9) + 1e-12)  # every pair, (1.10)


def test_is_psd_basic_and_asymmetric():
    assert kk.is_psd(np.eye(3)) == (True, 1.0)
    psd, lmin = kk.is_psd([[1.0, 2.0], [0.0, 1.0]])
    assert not psd
    assert kk.cauchy_schwarz_ratio([[1.0, 2.0], [2.0, 1.0]]) == pytest.approx(2.0)
