"""AdaBoost with its full history (SL, Freund & Schapire 1995; UML §10.2).

D_1 = uniform; for t = 1, …, T: h_t = weak learner on (S, D_t),
ε_t = Σ_i D_t(i) 1[h_t(x_i) ≠ y_i], α_t = ½ ln((1 − ε_t)/ε_t),
D_{t+1}(i) = D_t(i) exp(−α_t y_i h_t(x_i)) / Z_t with Z_t the normaliser;
output H(x) = sign(Σ_t α_t h_t(x)).

Training-error bound (SL; UML Theorem 10.2): with γ_t = ½ − ε_t,
training error(H_T) ≤ Π_t Z_t = Π_t 2√(ε_t(1 − ε_t)) ≤ exp(−2 Σ_t γ_t²).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from kmlteach._validation import (
    _describe,
    check_binary_labels,
    check_int,
    check_pm1_predictions,
    check_predictor,
    check_X,
)
from kmlteach.ensembles.stumps import Stump, _stump_from_order, decision_stump, presort, sorted_values

__all__ = ["AdaBoostResult", "adaboost", "EPSILON_FLOOR", "ALPHA_CAP"]

#: ε_t is floored here when a weak hypothesis makes no weighted mistake, so that α_t stays
#: finite: α_t is then capped at ALPHA_CAP = ½ ln((1 − 1e-10)/1e-10) ≈ 11.51.
EPSILON_FLOOR = 1e-10
ALPHA_CAP = 0.5 * np.log((1 - EPSILON_FLOOR) / EPSILON_FLOOR)
_HALF_TOL = 1e-12
_MAX_HISTORY = 200_000_000  # entries of the (rounds, m) history of D


@dataclass(frozen=True)
class AdaBoostResult:
    """The whole run of :func:`adaboost`; arrays have one entry per kept round R ≤ T.

    Attributes
    ----------
    alphas, epsilons, Z : arrays (R,)
        α_t, ε_t and the normaliser Z_t = Σ_i D_t(i) exp(−α_t y_i h_t(x_i)).
    D : array (R, m)
        Row t−1 is the distribution D_t that round t used (row 0 is uniform).
    stumps : tuple of R weak hypotheses (``Stump`` objects for the default learner).
    training_error : array (R,)
        0–1 training error of H_t = sign(Σ_{s≤t} α_s h_s) after each round.
    bound : array (R,)
        Π_{s≤t} Z_s, the bound on ``training_error[t−1]``.
    gamma_bound : array (R,)
        exp(−2 Σ_{s≤t} γ_s²), γ_s = ½ − ε_s, the looser bound.
    stopped : str
        "T rounds", "epsilon = 0 at round t (alpha capped at …)" or
        "epsilon >= 1/2 at round t (round discarded)".

    Source: SL boosting, UML §10.2.
    """

    alphas: np.ndarray
    epsilons: np.ndarray
    Z: np.ndarray
    D: np.ndarray
    stumps: tuple
    training_error: np.ndarray
    bound: np.ndarray
    gamma_bound: np.ndarray
    stopped: str
    n_features: int

    @property
    def n_rounds(self) -> int:
        """R, the number of kept rounds."""
        return len(self.alphas)

    def decision_function(self, X, rounds: int | None = None) -> np.ndarray:
        """f(x) = Σ_{t ≤ rounds} α_t h_t(x) (all rounds by default)."""
        X = check_X(X, "X", n_cols=self.n_features, bounded=False)
        R = self.n_rounds if rounds is None else check_int(rounds, "rounds", minimum=0, maximum=self.n_rounds)
        f = np.zeros(X.shape[0])
        for a, h in zip(self.alphas[:R], self.stumps[:R]):
            f += a * _predict_pm1(h, X)
        return f

    def predict(self, X, rounds: int | None = None) -> np.ndarray:
        """H(x) = sign(f(x)) in {−1, +1}; f(x) = 0 is mapped to +1."""
        return np.where(self.decision_function(X, rounds) >= 0, 1.0, -1.0)


def _predict_pm1(h, X: np.ndarray) -> np.ndarray:
    if isinstance(h, Stump):
        return np.where(X[:, h.feature] <= h.threshold, h.sign, -h.sign)
    return np.asarray(h.predict(X), dtype=float).reshape(-1)


def adaboost(X, y, T, weak_learner: Callable = decision_stump) -> AdaBoostResult:
    """AdaBoost (SL; UML §10.2) with its full history.

    Parameters
    ----------
    X : array (m, d)
    y : array (m,) of labels in {−1, +1}, both present
    T : int ≥ 1
        Number of rounds (fewer if boosting stops early).
    weak_learner : callable, default :func:`decision_stump`
        ``weak_learner(X, y, D)`` returning an object with ``.predict(X)`` in {−1, +1}.
        The default stump search presorts X once and reuses the order in every round.

    Returns
    -------
    AdaBoostResult
        ``.alphas``, ``.epsilons``, ``.Z``, ``.D``, ``.stumps``, ``.training_error``,
        ``.bound`` (Π Z_t), ``.gamma_bound`` (exp(−2Σγ_t²)), ``.stopped``,
        ``.decision_function(X)``, ``.predict(X)``.

    Notes
    -----
    Early stops (the arrays are then shorter than T):

    * ε_t = 0 (up to 1e-10): the round is kept with α_t capped at
      ``ALPHA_CAP`` = ½ ln((1 − 10⁻¹⁰)/10⁻¹⁰) ≈ 11.51, and boosting stops — the
      ensemble already fits the weighted sample and D_{t+1} would put all mass on
      nothing.
    * ε_t ≥ ½: h_t has no edge, α_t would be ≤ 0; the round is discarded and boosting
      stops.

    Compared with ``sklearn.ensemble.AdaBoostClassifier(DecisionTreeClassifier(max_depth=1))``:
    scikit-learn's depth-1 tree picks its split by weighted *impurity* (Gini), the book's
    stump by weighted *error*, so the two weak hypotheses can differ in a round; and
    SAMME's weight is ln((1 − ε)/ε) (+ ln(K − 1) = 0 for two classes), twice the α_t
    here, which rescales f but changes neither sign(f) nor the distributions D_t.
    """
    X = check_X(X, bounded=False)
    m = X.shape[0]
    y = check_binary_labels(y, "y", n=m, of="one per row of X")
    T = check_int(T, "T", minimum=1, maximum=10_000_000)
    if T * m > _MAX_HISTORY:
        raise ValueError(
            f"T = {T} rounds on m = {m} points would store a {T} x {m} history of D "
            f"(more than {_MAX_HISTORY:.0e} numbers); choose a smaller T"
        )
    if not callable(weak_learner):
        raise TypeError(
            f"weak_learner must be a callable weak_learner(X, y, D), got {_describe(weak_learner)}"
        )
    fast = weak_learner is decision_stump
    order = presort(X) if fast else None
    Xs = sorted_values(X, order) if fast else None

    Ds = np.empty((T, m))
    alphas, eps_list, Zs, hs, errs = [], [], [], [], []
    D = np.full(m, 1.0 / m)
    F = np.zeros(m)
    stopped = "T rounds"
    for t in range(1, T + 1):
        if fast:
            h = _stump_from_order(X, order, Xs, y, D)
        else:
            h = weak_learner(X, y, D.copy())
        pred = check_pm1_predictions(_predict_pm1(check_predictor(h, "weak_learner"), X), m, "weak_learner")
        wrong = pred != y
        eps = float(np.sum(D[wrong]))
        if eps >= 0.5 - _HALF_TOL:
            stopped = f"epsilon >= 1/2 at round {t} (round discarded)"
            break
        perfect = eps <= EPSILON_FLOOR
        alpha = ALPHA_CAP if perfect else 0.5 * np.log((1.0 - eps) / eps)
        w = D * np.exp(-alpha * y * pred)
        Z = float(w.sum())
        Ds[t - 1] = D
        F += alpha * pred
        alphas.append(alpha)
        eps_list.append(eps)
        Zs.append(Z)
        hs.append(h)
        errs.append(float(np.mean(np.where(F >= 0, 1.0, -1.0) != y)))
        if perfect:
            stopped = (
                f"epsilon = {'0' if eps == 0 else f'{eps:.1e}'} at round {t} "
                f"(alpha capped at {ALPHA_CAP:.2f})"
            )
            break
        D = w / Z
    R = len(alphas)
    eps_arr = np.array(eps_list, dtype=float)
    Z_arr = np.array(Zs, dtype=float)
    return AdaBoostResult(
        alphas=np.array(alphas, dtype=float),
        epsilons=eps_arr,
        Z=Z_arr,
        D=Ds[:R].copy() if R < T else Ds,
        stumps=tuple(hs),
        training_error=np.array(errs, dtype=float),
        bound=np.cumprod(Z_arr),
        gamma_bound=np.exp(-2.0 * np.cumsum((0.5 - eps_arr) ** 2)),
        stopped=stopped,
        n_features=X.shape[1],
    )
