"""Widgets of chapter 02: the kernel embedding in 3-D (:mod:`.embedding`, drawn by
:mod:`.box3d`), kernel-SVM boundaries (:mod:`.boundary`), the PSD lab (:mod:`.psd`), kernel
methods at scale (:mod:`.scale`)."""

from .boundary import boundary_data, grid_scores, make_boundary_explorer
from .embedding import embedding_data, make_embedding_explorer, xor_points
from .psd import PSD_CANDIDATES, candidate_gram, make_psd_lab, psd_points
from .scale import make_scale_explorer, plot_scale, scale_data, scale_table

__all__ = [
    "boundary_data",
    "grid_scores",
    "make_boundary_explorer",
    "embedding_data",
    "make_embedding_explorer",
    "xor_points",
    "PSD_CANDIDATES",
    "candidate_gram",
    "make_psd_lab",
    "psd_points",
    "make_scale_explorer",
    "plot_scale",
    "scale_data",
    "scale_table",
]
