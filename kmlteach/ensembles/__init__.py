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

from kmlteach._exports import public_names
from kmlteach.ensembles import adaboost as _adaboost
from kmlteach.ensembles import bagging as _bagging
from kmlteach.ensembles import confidence as _confidence
from kmlteach.ensembles import examples as _examples
from kmlteach.ensembles import forests as _forests
from kmlteach.ensembles import pruning as _pruning
from kmlteach.ensembles import stumps as _stumps
from kmlteach.ensembles import trees as _trees
from kmlteach.ensembles.adaboost import *
from kmlteach.ensembles.bagging import *
from kmlteach.ensembles.confidence import *
from kmlteach.ensembles.examples import *
from kmlteach.ensembles.forests import *
from kmlteach.ensembles.pruning import *
from kmlteach.ensembles.stumps import *
from kmlteach.ensembles.trees import *

__all__ = public_names(_stumps, _adaboost, _confidence, _trees, _pruning, _bagging, _forests, _examples)


def __dir__():
    return sorted(__all__)
