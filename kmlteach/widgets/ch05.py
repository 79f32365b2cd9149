"""Widgets of chapter 05: the Viterbi trace over a word image, independent letters vs the
chain model as the pixel noise grows, and the bigram weights as SGD runs longer.

The parts live in :mod:`kmlteach.widgets._ch05`; this module is their public
home. Each builder returns an :class:`~kmlteach.widgets._base.Explorer`; ``explorer.state``
holds what the last redraw computed, ``explorer.controls`` the controls. The figures keep
their artists (fixed word length, fixed colour scales) and only change their data, so a
step repaints what moved; what costs seconds (training) is done once per setting.
"""

from ._base import set_public_home
from ._ch05.noise import make_noise_compare, make_transition_growth, top_bigrams, train_pair
from ._ch05.viterbi import make_viterbi_trace

__all__ = ["make_viterbi_trace", "make_noise_compare", "make_transition_growth", "train_pair", "top_bigrams"]

set_public_home(__name__, __all__)  # tools listing widgets/ch*.py find the builders here
