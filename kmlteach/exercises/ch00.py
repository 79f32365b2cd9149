"""The warm-up exercise of the welcome notebook.

Only the code of each exercise's record in ``records/ch00.toml`` (see :mod:`.record`): the
reference implementation, the visible cases and any catalogued mistake's wrong implementation.
"""

from __future__ import annotations

import numpy as np

from .model import Case


def margins(X, y, w):
    """Functional margins y_i <w, x_i> of every row of X (positive = correctly classified)."""
    return np.asarray(y, dtype=float) * (np.asarray(X, dtype=float) @ np.asarray(w, dtype=float))


def _cases():
    r = np.random.default_rng(0)
    cases = [
        Case(
            (np.array([[1.0, 2.0], [-1.0, 0.5]]), np.array([1.0, -1.0]), np.array([0.5, -1.0])),
            label="two points in the plane",
        )
    ]
    for m, d in ((5, 3), (8, 2)):
        cases.append(
            Case(
                (r.normal(size=(m, d)), r.choice([-1.0, 1.0], size=m), r.normal(size=d)),
                label=f"{m} random points in {d} dimensions",
            )
        )
    return cases


# Catalogued mistakes of 00.margins (the record's ``mistakes`` name these) ----------------


def _wrong_no_label(X, y, w):
    return np.asarray(X, dtype=float) @ np.asarray(w, dtype=float)


def _wrong_geometric(X, y, w):
    return margins(X, y, w) / np.linalg.norm(np.asarray(w, dtype=float))


def _wrong_abs(X, y, w):
    return np.abs(margins(X, y, w))
