"""Widgets of chapter 09 (HSS2 §2.2.2–2.5): the ν-SVM and the one-class SVM (:mod:`.svm`),
NORMA on a stream (:mod:`.norma`), the loss gallery and Rademacher averages (:mod:`.theory`);
each drawn with the module of the same name in :mod:`kmlteach.plots.ch09`."""

from .norma import make_norma_stream, perceptron_bound
from .svm import NU_GRID, make_nu_explorer, make_oneclass_explorer
from .theory import RADEMACHER_NS, make_loss_gallery, make_rademacher_explorer

__all__ = [
    "make_norma_stream",
    "perceptron_bound",
    "NU_GRID",
    "make_nu_explorer",
    "make_oneclass_explorer",
    "RADEMACHER_NS",
    "make_loss_gallery",
    "make_rademacher_explorer",
]
