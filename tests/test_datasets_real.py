"""The bundled real data set: Breast Cancer Wisconsin (Diagnostic)."""

import numpy as np
import pytest

from kmlteach.datasets import breast_cancer


def test_shape_labels_and_licence():
    d = breast_cancer()
    assert d.X.shape == (569, 30) and d.X.dtype == np.float64 and np.isfinite(d.X).all()
    assert d.y.dtype == np.int64 and set(d.y.tolist()) == {-1, 1}
    assert int(np.sum(d.y == 1)) == 212 and d.positive == "malignant"
    assert len(d.feature_names) == 30 and d.feature_names[0] == "radius_mean"
    assert "CC BY 4.0" in d.citation and "10.24432/C5DW2B" in d.citation
    d.X[0, 0] = -1.0  # a copy: the next call is unchanged
    assert breast_cancer().X[0, 0] == 17.99


def test_equals_the_copy_scikit_learn_ships():
    datasets = pytest.importorskip("sklearn.datasets")
    s = datasets.load_breast_cancer()
    d = breast_cancer()
    assert np.array_equal(s.data, d.X)
    assert np.array_equal(np.where(s.target == 0, 1, -1), d.y)  # sklearn: 0 = malignant
