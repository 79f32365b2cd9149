"""Widgets of chapter 03: kernel PCA with a width slider (:mod:`._ch03.kpca`), diffusion on an
editable graph (:mod:`._ch03.graphs`), the n-gram kernel between two typed strings
(:mod:`._ch03.strings`).

The parts live in :mod:`kmlteach.widgets._ch03`; this module is their public
home. Each builder returns an :class:`~kmlteach.widgets._base.Explorer`; ``explorer.state``
holds what the last redraw computed (tests read it), ``explorer.controls`` the
controls (tests set their ``value``).
"""

from ._base import set_public_home
from ._ch03.graphs import DEFAULT_EDGES, make_diffusion_explorer, parse_edges
from ._ch03.kpca import make_kpca_explorer, threshold_accuracy
from ._ch03.strings import MAX_CHARS, make_ngram_explorer

__all__ = [
    "make_kpca_explorer",
    "make_diffusion_explorer",
    "make_ngram_explorer",
    "parse_edges",
    "threshold_accuracy",
    "DEFAULT_EDGES",
    "MAX_CHARS",
]

set_public_home(__name__, __all__)  # tools listing widgets/ch*.py find the builders here
