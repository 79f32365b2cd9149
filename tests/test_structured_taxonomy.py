"""Chapter 05: chain features, Viterbi, loss-augmented decoding, learners, taxonomy Δ. — ``kmlteach.structured.taxonomy``."""

import numpy as np
import pytest

from kmlteach import structured as S


# ---------------------------------------------------------------------------- taxonomy
def test_taxonomy_delta_fig_2_1():
    tax = S.taxonomy_delta()
    D, L = tax.delta, list(tax.labels)
    assert set(L) == {
        "Computers",
        "Hardware",
        "Software",
        "Storage",
        "Cables",
        "HDD",
        "CDROM",
        "Freeware",
        "Shareware",
        "Opensource",
    }
    i = L.index
    assert D[i("CDROM"), i("HDD")] == 2 and D[i("CDROM"), i("Cables")] == 3
    assert D[i("CDROM"), i("HDD")] < D[i("CDROM"), i("Cables")]
    assert D[i("HDD"), i("Opensource")] == 5
    np.testing.assert_array_equal(D, D.T)
    assert np.all(np.diag(D) == 0) and np.all(D[~np.eye(len(L), dtype=bool)] > 0)
    leaves = S.taxonomy_delta(leaves_only=True)
    assert set(leaves.labels) == {"Cables", "HDD", "CDROM", "Freeware", "Shareware", "Opensource"}


def test_taxonomy_two_level_reduces_to_rho():
    rho = 1.7
    tax = S.taxonomy_delta({"root": ["a", "b", "c", "d"]}, edge_weight=rho / 2, leaves_only=True)
    np.testing.assert_allclose(tax.delta, rho * (1 - np.eye(4)))
    f = np.array([0.5, 2.0, 1.0, -1.0])
    # (2.21) with this Δ is the multiclass hinge (2.12) with margin ρ
    assert S.taxonomy_hinge(f, 0, tax.delta) == pytest.approx(max(0, rho + 2.0 - 0.5))
    assert S.taxonomy_hinge(f, 1, tax.delta) == pytest.approx(max(0, rho + 1.0 - 2.0))


def test_bad_input_taxonomy():
    with pytest.raises(TypeError, match="tree"):
        S.taxonomy_delta(tree=[("a", "b")])
    with pytest.raises(ValueError, match="tree"):
        S.taxonomy_delta(tree={"a": ["b"], "c": ["d"]})
    with pytest.raises(ValueError, match="tree"):
        S.taxonomy_delta(tree={"a": ["b", "c"], "b": ["c"]})
    with pytest.raises(ValueError, match="edge_weight"):
        S.taxonomy_delta(edge_weight=-1)
    D = S.taxonomy_delta().delta
    with pytest.raises(ValueError, match="delta"):
        S.taxonomy_hinge(np.zeros(3), 0, D)
    with pytest.raises(ValueError, match="y"):
        S.taxonomy_hinge(np.zeros(10), 10, D)
    with pytest.raises(ValueError, match="scores"):
        S.taxonomy_hinge(np.full(10, np.nan), 0, D)
