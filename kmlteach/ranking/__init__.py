"""Ranking (UML §17.4) and bipartite ranking (UML §17.5).

A ranking of r items is encoded by a score vector y ∈ ℝʳ; sorting it gives the
permutation π(y). This package holds

* the ranking losses of §17.4: 0–1 ranking loss, Kendall-tau loss, the discount
  D(i) with top-k truncation and the NDCG loss;
* linear ranking predictors h_w(x̄) = (⟨w, x₁⟩, …, ⟨w, x_r⟩) (Eq. (17.6)) and their
  convex surrogates: the Kendall hinge loss and the NDCG generalized hinge (17.8),
  whose maximiser is an assignment problem (17.9) solved by :func:`assignment`;
* :func:`ranking_sgd`: SGD for multiclass learning (§17.2.5) with either surrogate;
* bipartite ranking: the procedure "Solving Equation
  (17.14)" (:func:`bipartite_most_violating`) and :func:`bipartite_sgd` (§17.5.1).

Conventions
-----------
Positions are 1-based as in the book: π(y)_i = r is the top item (largest y_i).
**Tie rule**: items with equal scores are ordered by index, the smaller index getting
the smaller position (a stable ascending sort), so ``permutation([1, 1])`` is (1, 2).

Where the code lives: ``losses.py``, ``surrogates.py``, ``assignment.py``, ``sgd.py``,
``bipartite.py``.
"""

from kmlteach.ranking.assignment import assignment, assignment_cost
from kmlteach.ranking.bipartite import (
    MEASURES,
    bipartite_hinge,
    bipartite_loss,
    bipartite_most_violating,
    bipartite_sgd,
)
from kmlteach.ranking.losses import (
    dcg,
    discount,
    kendall_tau_loss,
    ndcg_loss,
    permutation,
    zero_one_ranking_loss,
)
from kmlteach.ranking.sgd import SGDResult, mean_loss, ranking_sgd
from kmlteach.ranking.surrogates import (
    SurrogateValue,
    kendall_hinge,
    linear_scores,
    ndcg_hinge,
    ndcg_most_violating,
)

__all__ = [
    "permutation",
    "zero_one_ranking_loss",
    "kendall_tau_loss",
    "discount",
    "dcg",
    "ndcg_loss",
    "linear_scores",
    "kendall_hinge",
    "ndcg_hinge",
    "ndcg_most_violating",
    "ranking_sgd",
    "assignment",
    "assignment_cost",
    "SurrogateValue",
    "SGDResult",
    "bipartite_most_violating",
    "bipartite_loss",
    "bipartite_hinge",
    "bipartite_sgd",
    "MEASURES",
    "mean_loss",
]


def __dir__():
    return sorted(__all__)
