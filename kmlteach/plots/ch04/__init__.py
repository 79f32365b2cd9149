"""Figures of chapter 04: the reductions' decision regions, halfspaces, ties and code matrices
(:mod:`.reductions`), the Kesler vectors and constraints of one example (:mod:`.kesler`).

Pure helpers: ``ax=None`` in, Axes out. A picture that a widget updates is drawn once by
``draw_<name>(ax, ...)``, which returns its artists, and moved by ``set_<name>(artists, ...)``;
the static ``plot_<name>`` is the two in a row.
"""

from ..._exports import public_names
from . import kesler as _kesler
from . import reductions as _reductions
from .kesler import *
from .reductions import *

__all__ = public_names(_reductions, _kesler)
