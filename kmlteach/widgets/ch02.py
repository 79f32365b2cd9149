"""Widgets of chapter 02: kernel embedding in 3-D (:mod:`._ch02.embedding`, drawn by
:mod:`._ch02.box3d`), kernel-SVM boundaries (:mod:`._ch02.boundary`), the PSD lab (:mod:`._ch02.psd`).

The builders live in :mod:`kmlteach.widgets._ch02`; this module is their public home
(:func:`~kmlteach.widgets._base.republish`).
"""

from ._base import republish
from ._ch02 import boundary, embedding, psd

__all__ = republish(__name__, embedding, boundary, psd)
