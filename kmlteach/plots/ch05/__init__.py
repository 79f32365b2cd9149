"""Figures of chapter 05: word images (:mod:`.words`), the Viterbi table M (:mod:`.viterbi`),
the learned bigram weights and the noise sweep (:mod:`.training`).

Pure helpers: ``ax=None`` in, Axes out; no ``plt.show()``. A picture that a widget updates is
drawn once by ``draw_<name>(ax, ...)``, which returns its artists, and moved by
``set_<name>(artists, ...)``; the static ``plot_<name>`` is the two in a row.
"""

from .training import plot_noise_sweep, plot_transitions
from .viterbi import draw_viterbi_table, plot_viterbi_table, set_viterbi_table, viterbi_colorbar
from .words import LETTERS, draw_word, plot_samples, plot_word, set_word, word_strip

__all__ = [
    "LETTERS",
    "word_strip",
    "draw_word",
    "set_word",
    "plot_word",
    "plot_samples",
    "draw_viterbi_table",
    "set_viterbi_table",
    "viterbi_colorbar",
    "plot_viterbi_table",
    "plot_transitions",
    "plot_noise_sweep",
]
