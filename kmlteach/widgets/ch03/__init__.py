"""Widgets of chapter 03: kernel PCA with a width slider (:mod:`.kpca`), diffusion on an
editable graph (:mod:`.graphs`), the n-gram kernel between two typed strings
(:mod:`.strings`).

Each builder returns an :class:`~kmlteach.widgets._base.Explorer`; ``explorer.state``
holds what the last redraw computed (tests read it), ``explorer.controls`` the
controls (tests set their ``value``).
"""

from .graphs import DEFAULT_EDGES, make_diffusion_explorer, parse_edges
from .kpca import make_kpca_explorer, threshold_accuracy
from .strings import MAX_CHARS, make_ngram_explorer

__all__ = [
    "make_kpca_explorer",
    "make_diffusion_explorer",
    "make_ngram_explorer",
    "parse_edges",
    "threshold_accuracy",
    "DEFAULT_EDGES",
    "MAX_CHARS",
]
