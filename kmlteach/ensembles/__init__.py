"""Boosting and ensembles (chapter 08; SL boosting/bagging/forests, UML §10.2 and ch. 18).

* :func:`decision_stump` — exact weighted ERM over stumps (:mod:`.stumps`);
* :func:`adaboost` — AdaBoost with its full history and training-error bounds (:mod:`.adaboost`);
* :func:`boost_confidence`, :func:`runs_needed` — boosting the confidence (:mod:`.confidence`);
* :func:`decision_tree`, :func:`prune` — greedy trees with three gains, reduced-error
  pruning (:mod:`.trees`, :mod:`.pruning`);
* :func:`bagging`, :func:`random_forest` — bootstrap ensembles with the out-of-bag error
  (:mod:`.bagging`, :mod:`.forests`);
* :func:`toy_example`, :func:`papaya` — the slides' toy example and UML's papayas (:mod:`.examples`).
"""

from kmlteach.ensembles.adaboost import ALPHA_CAP, EPSILON_FLOOR, AdaBoostResult, adaboost
from kmlteach.ensembles.bagging import BaggingResult, bagging
from kmlteach.ensembles.confidence import ConfidenceBoosting, boost_confidence, runs_needed
from kmlteach.ensembles.examples import PAPAYA_BOX, papaya, toy_example
from kmlteach.ensembles.forests import RandomForestResult, random_forest
from kmlteach.ensembles.pruning import prune
from kmlteach.ensembles.stumps import Stump, decision_stump, presort
from kmlteach.ensembles.trees import CRITERIA, DecisionTree, decision_tree, resolve_max_features

__all__ = [
    "Stump",
    "decision_stump",
    "presort",
    "AdaBoostResult",
    "adaboost",
    "ALPHA_CAP",
    "EPSILON_FLOOR",
    "ConfidenceBoosting",
    "boost_confidence",
    "runs_needed",
    "DecisionTree",
    "decision_tree",
    "prune",
    "resolve_max_features",
    "CRITERIA",
    "BaggingResult",
    "bagging",
    "RandomForestResult",
    "random_forest",
    "toy_example",
    "papaya",
    "PAPAYA_BOX",
]
