"""Tests of kmlteach.svm against oracles. — ``kmlteach.svm.conventions``."""

import pytest


def test_lam_C_conversion_is_one_helper_for_every_estimator():
    from kmlteach.multiclass import crammer_singer_C
    from kmlteach.svm import C_to_lam, lam_to_C

    assert lam_to_C(0.1, 50) == pytest.approx(0.2)
    assert C_to_lam(lam_to_C(0.37, 13), 13) == pytest.approx(0.37)
    assert crammer_singer_C(0.1, 50) == lam_to_C(0.1, 50)
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="lam"):
            lam_to_C(bad, 10)
        with pytest.raises(ValueError, match="C"):
            C_to_lam(bad, 10)
    with pytest.raises((ValueError, TypeError), match="m"):
        lam_to_C(0.1, 2.5)
