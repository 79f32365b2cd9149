"""Widgets of chapter 05: the Viterbi trace over a word image (:mod:`.viterbi`, drawn with
:mod:`kmlteach.plots.ch05.viterbi`), independent letters vs the chain model as the pixel noise
grows and the bigram weights as SGD runs longer (:mod:`.noise`).

The figures keep their artists (fixed word length, fixed colour scales) and only change their
data, so a step repaints what moved; what costs seconds (training) is done once per setting."""

from .noise import make_noise_compare, make_transition_growth, top_bigrams, train_pair
from .viterbi import make_viterbi_trace

__all__ = [
    "make_noise_compare",
    "make_transition_growth",
    "top_bigrams",
    "train_pair",
    "make_viterbi_trace",
]
