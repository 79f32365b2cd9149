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

from kmlteach._exports import public_names
from kmlteach.ranking import assignment as _assignment
from kmlteach.ranking import bipartite as _bipartite
from kmlteach.ranking import losses as _losses
from kmlteach.ranking import sgd as _sgd
from kmlteach.ranking import surrogates as _surrogates
from kmlteach.ranking.assignment import *
from kmlteach.ranking.bipartite import *
from kmlteach.ranking.losses import *
from kmlteach.ranking.sgd import *
from kmlteach.ranking.surrogates import *

__all__ = public_names(_losses, _surrogates, _sgd, _assignment, _bipartite)


def __dir__():
    return sorted(__all__)
