"""The warm-up exercise of the welcome notebook."""

from __future__ import annotations

import numpy as np

from .core import Case, Exercise, register


def margins(X, y, w):
    """Functional margins y_i <w, x_i> of every row of X (positive = correctly classified)."""
    return np.asarray(y, dtype=float) * (np.asarray(X, dtype=float) @ np.asarray(w, dtype=float))


def _cases():
    r = np.random.default_rng(0)
    cases = [Case((np.array([[1.0, 2.0], [-1.0, 0.5]]), np.array([1.0, -1.0]), np.array([0.5, -1.0])),
                  label="two points in the plane")]
    for m, d in ((5, 3), (8, 2)):
        cases.append(Case((r.normal(size=(m, d)), r.choice([-1.0, 1.0], size=m), r.normal(size=d))))
    return cases


register(Exercise(
    id="00.margins", title="functional margins y<w, x>",
    reference=margins, cases=_cases,
    hint=(
        'The functional margin of point i is y_i times its score <w, x_i>; positive means correctly classified.',
        'All m scores at once are one matrix-vector product.',
        'X @ w gives every score <w, x_i>; multiply element-wise by y: y * (X @ w).',
    ),
    minutes=5,
    solution="def margins(X, y, w):\n    return y * (X @ w)\n",
))
