"""Widgets of chapter 03: kernel PCA with a width slider (:mod:`.kpca`), diffusion on an
editable graph (:mod:`.graphs`, its heat-map artist in :mod:`.graph_parts`), the n-gram kernel
between two typed strings (:mod:`.strings`)."""

from .graphs import DEFAULT_EDGES, make_diffusion_explorer, parse_edges
from .kpca import make_kpca_explorer, threshold_accuracy
from .strings import MAX_CHARS, make_ngram_explorer

__all__ = [
    "DEFAULT_EDGES",
    "make_diffusion_explorer",
    "parse_edges",
    "make_kpca_explorer",
    "threshold_accuracy",
    "MAX_CHARS",
    "make_ngram_explorer",
]
