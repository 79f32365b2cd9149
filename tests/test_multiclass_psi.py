"""Chapter 04: multiclass reductions, linear multiclass predictors, perceptrons, Kesler. — ``kmlteach.multiclass.psi``."""

from __future__ import annotations

import numpy as np
import pytest

from kmlteach import multiclass as M


def test_tfidf_psi_by_hand():
    TF = np.array([[2, 0, 1], [0, 3, 1], [1, 1, 0]], dtype=float)
    y = ["a", "b", "b"]
    psi = M.TfidfPsi(TF, y, smooth=0.0 + 1.0)
    # DF(j, 'a') = occurrences outside topic a = rows 1, 2; DF(j, 'b') = row 0
    DFa = np.array([1, 4, 1.0])
    DFb = np.array([2, 0, 1.0])
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(psi(x, 0), x * np.log(3 / (DFa + 1)))
    np.testing.assert_allclose(psi(x, 1), x * np.log(3 / (DFb + 1)))
    assert psi.dim == 3
    with pytest.raises(ValueError, match="DF"):
        M.TfidfPsi(TF, y, smooth=0.0)  # word 1 never occurs outside topic b
    # SGD with the TF-IDF map runs and predicts labels
    res = M.multiclass_svm_sgd(TF, y, eta=0.1, T=50, seed=0, psi=psi)
    assert res.W is None and set(res.predict(TF)) <= {"a", "b"}
