"""Plots of chapter 09 (HSS2 §2.2.2-2.5): data (:mod:`.common`), precomputed solution paths
and the pictures of the ν-SVM and one-class SVM (:mod:`.svm`), of NORMA (:mod:`.norma`), of
the margin losses and Rademacher averages (:mod:`.theory`).

Every picture is built by a ``draw_*(ax, ...)`` function that draws once and returns its
artists, and a ``set_*(artists, ...)`` function that moves them to another state (another
ν, σ, step t). A static figure is ``draw_*`` followed by one ``set_*``; a widget calls
``set_*`` on every change, so the two always show the same thing. Level sets
{f = c} are precomputed as line paths (:func:`level_lines`), not contour sets.
"""

from ..._exports import public_names
from .._style import show
from . import common as _common
from . import norma as _norma
from . import svm as _svm
from . import theory as _theory
from .common import *
from .norma import *
from .svm import *
from .theory import *

__all__ = ["show", *public_names(_common, _svm, _norma, _theory)]
