"""Widget logic of chapter 02: set control values, assert on the state they produce."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from kmlteach import kernels as kk
from kmlteach.kernel_methods import kernel_sgd_svm
from kmlteach.svm import soft_svm
from kmlteach.widgets.ch02 import (boundary_data, embedding_data, make_boundary_explorer,
                                   make_embedding_explorer, make_psd_lab, psd_points)


def test_embedding_explorer_fits_a_plane_that_separates_the_lifted_data():
    ex = make_embedding_explorer(dataset="rings")
    st = ex.state
    X, y = embedding_data("rings")
    Psi = np.c_[X, np.sum(X ** 2, 1)]
    np.testing.assert_allclose(st["Psi"], Psi)
    ref = soft_svm(Psi, y, ex.controls["lam"].value, homogeneous=False)
    np.testing.assert_allclose(st["w"], ref.w, rtol=1e-9, atol=1e-12)
    assert st["accuracy"] == 1.0
    assert "kml-embedding-explorer" in ex._dom_classes


def test_embedding_rotation_moves_the_view_without_refitting():
    ex = make_embedding_explorer(dataset="xor")
    refits, w = ex.state["refits"], ex.state["w"].copy()
    png = ex.image.value
    ex.controls["azim"].value = 40.0
    ex.controls["elev"].value = 60.0
    assert (ex.state["azim"], ex.state["elev"]) == (40.0, 60.0)
    assert ex.state["refits"] == refits
    np.testing.assert_array_equal(ex.state["w"], w)
    assert ex.image.value != png


def test_embedding_line_example_thresholds_are_the_preimage():
    ex = make_embedding_explorer(dataset="rings")
    ex.controls["dataset"].value = "line"
    st = ex.state
    assert st["dataset"] == "line" and st["accuracy"] == 1.0
    th = st["thresholds"]
    assert len(th) == 2 and th[0] < -2 and th[1] > 2 and th[0] > -3 and th[1] < 3
    w, b = st["w"], st["b"]
    for t in th:  # each threshold x solves w1 x + w2 x^2 + b = 0
        assert abs(w[0] * t + w[1] * t * t + b) < 1e-9
    x = embedding_data("line")[0][:, 0]
    inside = (x > th[0]) & (x < th[1])
    np.testing.assert_array_equal(inside, np.abs(x) <= 2)  # UML §16.1: +1 iff |x| > 2


def test_boundary_explorer_matches_kernel_sgd_and_reacts_to_sigma():
    ex = make_boundary_explorer(kernel="gaussian", sigma=0.1, lam=0.001)
    X, y, Xt, yt = boundary_data()
    ref = kernel_sgd_svm(kk.gram("gaussian", X, sigma=0.1), y, 0.001, 6000, 0)
    np.testing.assert_allclose(ex.state["alpha"], ref.alpha)
    assert ex.state["test_accuracy"] > 0.9
    png = ex.image.value
    ex.controls["sigma"].value = 10.0  # very wide: a nearly linear boundary
    assert ex.state["params"]["sigma"] == pytest.approx(ex.controls["sigma"].value)
    assert ex.image.value != png
    ex.controls["kernel"].value = "polynomial"
    ex.controls["degree"].value = 3
    assert ex.state["kernel"] == "polynomial" and ex.state["params"]["degree"] == 3
    K = kk.gram("polynomial", X, degree=3)
    ref = kernel_sgd_svm(K, y, 0.001, 6000, 0)
    np.testing.assert_allclose(ex.state["alpha"], ref.alpha)
    assert ex.state["train_accuracy"] == pytest.approx(np.mean(np.sign(K @ ref.alpha + 0.0) == y), abs=0.01)


def test_psd_lab_flags_non_kernels():
    ex = make_psd_lab(candidate="exponential", n=16)
    assert ex.state["param"] == -1.0 and not ex.state["psd"] and ex.state["n_negative"] >= 1
    ex.controls["param"].value = 1.0
    assert ex.state["psd"] and ex.state["smallest"] > -1e-10
    ex.controls["candidate"].value = "bspline"
    assert ex.state["param"] == 2 and not ex.state["psd"]  # even order: not a kernel
    ex.controls["param"].value = 3
    assert ex.state["psd"]
    ex.controls["candidate"].value = "negative_distance"
    assert not ex.state["psd"] and ex.state["param"] is None
    assert ex.controls["param"].disabled
    ex.controls["candidate"].value = "min"
    assert ex.state["psd"]
    np.testing.assert_allclose(ex.state["K"], np.minimum.outer(psd_points(16, "min")[:, 0],
                                                               psd_points(16, "min")[:, 0]))
    ex.controls["candidate"].value = "gaussian"
    assert ex.state["psd"] and ex.state["cauchy_schwarz"] <= 1 + 1e-12
    png = ex.image.value
    ex.controls["n"].value = 25
    assert ex.state["K"].shape == (25, 25) and len(ex.state["eigenvalues"]) == 25
    assert ex.image.value != png
    lam = ex.state["eigenvalues"]
    assert np.all(np.diff(lam) <= 1e-12)
    assert ex.state["smallest"] == pytest.approx(lam[-1], abs=1e-12)
