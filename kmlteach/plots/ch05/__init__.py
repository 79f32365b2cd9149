"""Figures of chapter 05: word images (:mod:`.words`), the Viterbi table M (:mod:`.viterbi`),
the learned bigram weights and the noise sweep (:mod:`.training`).

Pure helpers: ``ax=None`` in, Axes out; no ``plt.show()``. A picture that a widget updates is
drawn once by ``draw_<name>(ax, ...)``, which returns its artists, and moved by
``set_<name>(artists, ...)``; the static ``plot_<name>`` is the two in a row.
"""

from ..._exports import public_names
from . import training as _training
from . import viterbi as _viterbi
from . import words as _words
from .training import *
from .viterbi import *
from .words import *

__all__ = public_names(_words, _viterbi, _training)
