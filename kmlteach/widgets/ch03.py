"""Widgets of chapter 03: kernel PCA with a width slider (:mod:`._ch03.kpca`), diffusion on an
editable graph (:mod:`._ch03.graphs`), the n-gram kernel between two typed strings
(:mod:`._ch03.strings`).

The parts live in :mod:`kmlteach.widgets._ch03`; this module is their public
home. Each builder returns an :class:`~kmlteach.widgets._base.Explorer`; ``explorer.state``
holds what the last redraw computed (tests read it), ``explorer.controls`` the
controls (tests set their ``value``).
"""

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

# The builders' public home is this module (as NumPy's ``set_module`` does for its public
# functions): tools that list a chapter's widgets by module, such as the course's widget
# latency check, find them here rather than in the implementation modules of ``_ch03``.
for _name in __all__:
    if _name.startswith("make_"):
        globals()[_name].__module__ = __name__
del _name
