"""Widgets of chapter 02: kernel embedding in 3-D (:mod:`.embedding`, drawn by
:mod:`.box3d`), kernel-SVM boundaries (:mod:`.boundary`), the PSD lab (:mod:`.psd`).

Each builder returns an :class:`~kmlteach.widgets._base.Explorer`; ``explorer.state``
holds what the last redraw computed (tests read it), ``explorer.controls`` the
controls (tests set their ``value``).
"""

from .boundary import boundary_data, grid_scores, make_boundary_explorer
from .embedding import embedding_data, make_embedding_explorer, xor_points
from .psd import PSD_CANDIDATES, candidate_gram, make_psd_lab, psd_points

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
