"""Chapter 04: multiclass reductions, linear multiclass predictors, perceptrons, Kesler. — ``kmlteach.multiclass.ecoc``."""

from __future__ import annotations

import numpy as np
from helpers import random_problem

from kmlteach import multiclass as M


def test_ecoc_exhaustive_code_and_hamming_decoding():
    Mx = M.ecoc_code(4, "exhaustive")
    assert Mx.shape == (4, 7)
    dist = (Mx[:, None, :] != Mx[None, :, :]).sum(axis=2)
    assert np.all(dist[~np.eye(4, dtype=bool)] == 4)  # 2^{k-2}
    X, y = random_problem(3, m=40, d=2, k=4)
    flip_col = 2

    def memorising_learner(Xtr, t):
        # returns the training bit of the nearest training point; column 2 is corrupted
        corrupt = np.array_equal(t, Mx[y, flip_col])

        def score(Z):
            nn = np.argmin(((Z[:, None, :] - Xtr[None, :, :]) ** 2).sum(axis=2), axis=1)
            return -t[nn] if corrupt else t[nn]

        return score

    model = M.ecoc(X, y, memorising_learner, code=Mx)
    # one wrong bit out of 7 with codewords 4 apart: corrected
    assert np.all(model.predict(X) == y)
    # brute-force Hamming decoding
    B = model.bits(X)
    brute = [min(range(4), key=lambda c: (np.sum(B[i] != Mx[c]), c)) for i in range(40)]
    np.testing.assert_array_equal(model.decide(X).index, brute)
    rnd = M.ecoc_code(5, "random", n_bits=12, seed=0)
    assert rnd.shape == (5, 12) and np.all(np.abs(rnd) == 1)
    assert np.array_equal(rnd, M.ecoc_code(5, "random", n_bits=12, seed=0))
    assert np.array_equal(M.ecoc_code(3, "ova"), 2 * np.eye(3) - 1)
