"""Widgets of chapter 05: the Viterbi trace over a word image, independent letters vs the
chain model as the pixel noise grows, and the bigram weights as SGD runs longer.

The parts live in :mod:`kmlteach.widgets._ch05`; this module is their public
home. Each builder returns an :class:`~kmlteach.widgets._base.Explorer`; ``explorer.state``
holds what the last redraw computed, ``explorer.controls`` the controls. The figures keep
their artists (fixed word length, fixed colour scales) and only change their data, so a
step repaints what moved; what costs seconds (training) is done once per setting.
"""

from ._ch05.noise import make_noise_compare, make_transition_growth, top_bigrams, train_pair
from ._ch05.viterbi import make_viterbi_trace

__all__ = ["make_viterbi_trace", "make_noise_compare", "make_transition_growth", "train_pair", "top_bigrams"]

# The builders' public home is this module (as NumPy's ``set_module`` does for its public
# functions): tools that list a chapter's widgets by module, such as the course's widget
# latency check, find them here rather than in the implementation modules of ``_ch05``.
for _name in __all__:
    if _name.startswith("make_"):
        globals()[_name].__module__ = __name__
del _name
