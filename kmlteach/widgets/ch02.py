"""Widgets of chapter 02: kernel embedding in 3-D (:mod:`._ch02.embedding`, drawn by
:mod:`._ch02.box3d`), kernel-SVM boundaries (:mod:`._ch02.boundary`), the PSD lab (:mod:`._ch02.psd`).

The parts live in :mod:`kmlteach.widgets._ch02`; this module is their public
home. Each builder returns an :class:`~kmlteach.widgets._base.Explorer`; ``explorer.state``
holds what the last redraw computed (tests read it), ``explorer.controls`` the
controls (tests set their ``value``).
"""

from ._base import set_public_home
from ._ch02.boundary import boundary_data, grid_scores, make_boundary_explorer
from ._ch02.embedding import embedding_data, make_embedding_explorer, xor_points
from ._ch02.psd import PSD_CANDIDATES, candidate_gram, make_psd_lab, psd_points

__all__ = [
    "embedding_data",
    "xor_points",
    "make_embedding_explorer",
    "boundary_data",
    "make_boundary_explorer",
    "grid_scores",
    "PSD_CANDIDATES",
    "psd_points",
    "candidate_gram",
    "make_psd_lab",
]

set_public_home(__name__, __all__)  # tools listing widgets/ch*.py find the builders here
