"""The warm-up exercise of the welcome notebook."""

from __future__ import annotations

import numpy as np

from .core import Case, Exercise, register
from .quiz import Question, register_question


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


# questions: a concept check to try the mechanism, and the recap quiz --------------------

_Q = [
    Question(id="00.c_sign", kind="concept",
             prompt="A point with label y = −1 gets the score <w, x> = 2. Its functional margin is ...",
             choices=("+2: correctly classified", "−2: on the wrong side", "0: on the hyperplane"),
             answer=1,
             explanation="y<w, x> = (−1)(2) = −2 < 0: the point is on the side of the +1 class."),
    Question(id="00.q1", prompt="UML's Gaussian kernel exp(−‖x − x'‖²/(2σ)) is scikit-learn's "
                                "exp(−γ‖x − x'‖²) with ...",
             choices=("γ = σ", "γ = 1/σ", "γ = 1/(2σ)", "γ = 1/(2σ²)"), answer=2,
             explanation="Match the exponents: γ = 1/(2σ); UML's σ is not squared."),
    Question(id="00.q2", prompt="UML (15.6) writes λ_UML‖w‖²; the course writes (λ/2)‖w‖². The same problem "
                                "has ...",
             choices=("λ = λ_UML", "λ = 2 λ_UML", "λ = λ_UML / 2"), answer=1,
             explanation="(λ/2)‖w‖² = λ_UML‖w‖² when λ = 2 λ_UML: UML's λ is half ours."),
    Question(id="00.q3", prompt="Why does the course count y<w, x> = 0 as a perceptron mistake?",
             choices=("so that the perceptron updates from w = 0", "to avoid rounding errors",
                      "because UML and HSS agree on it"), answer=0,
             explanation="With '≥ 0 is correct', w = 0 classifies everything correctly and never moves."),
    Question(id="00.q4", prompt="What does check(...) do with a function that still raises NotImplementedError?",
             choices=("stops the notebook with a traceback", "prints 'not implemented yet' and returns False",
                      "marks the exercise as passed"), answer=1,
             explanation="check never raises: a notebook of unsolved stubs runs from top to bottom."),
    Question(id="00.q5", prompt="You are stuck on an exercise. The course suggests, in order, ...",
             choices=("solution(id), then hint(id)", "hint(id), then hint(id, level=2), ..., and only then "
                      "solution(id)", "editing the checker"), answer=1,
             explanation="Hints come in levels, the last one close to code; the solution is the last resort."),
]
for _q in _Q:
    register_question(_q)
