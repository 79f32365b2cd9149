"""Widgets of chapter 09 (HSS2 §2.2.2–2.5): the ν-SVM, the one-class SVM and NORMA on a
stream (:mod:`._ch09.svm`); the loss gallery and Rademacher averages (:mod:`._ch09.theory`).

The builders live in :mod:`kmlteach.widgets._ch09`; this module is their public home
(:func:`~kmlteach.widgets._base.republish`).
"""

from ._base import republish
from ._ch09 import svm, theory

__all__ = republish(__name__, svm, theory)
