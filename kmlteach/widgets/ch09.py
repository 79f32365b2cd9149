"""Widgets of chapter 09 (HSS2 §2.2.2–2.5): the ν-SVM, the one-class SVM and NORMA on a
stream (:mod:`._ch09.svm`); the loss gallery and Rademacher averages (:mod:`._ch09.theory`).

The parts live in :mod:`kmlteach.widgets._ch09`; this module is their public
home. Each builder returns an :class:`~kmlteach.widgets._base.Explorer`; ``explorer.state``
holds what the last redraw computed (tests read it), ``explorer.controls`` the controls
(tests set their ``value``).
"""

from ._base import set_public_home
from ._ch09.svm import NU_GRID, make_norma_stream, make_nu_explorer, make_oneclass_explorer, perceptron_bound
from ._ch09.theory import RADEMACHER_NS, make_loss_gallery, make_rademacher_explorer

__all__ = [
    "make_nu_explorer",
    "make_oneclass_explorer",
    "make_norma_stream",
    "make_loss_gallery",
    "make_rademacher_explorer",
    "NU_GRID",
    "perceptron_bound",
    "RADEMACHER_NS",
]

set_public_home(__name__, __all__)  # tools listing widgets/ch*.py find the builders here
