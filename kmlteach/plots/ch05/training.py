"""What training learns in chapter 05: the bigram weights of the chain model and the test
letter error of both models as the pixel noise grows."""

from __future__ import annotations

import numpy as np

from .._style import OKABE_ITO, get_ax, label_axes
from .words import LETTERS

__all__ = ["plot_transitions", "plot_noise_sweep"]


def plot_transitions(W_pair, ax=None, letters: str = LETTERS):
    """Learned bigram weights W_pair[a, b] (b right after a) as a diverging heat map."""
    P = np.asarray(W_pair, dtype=float)
    ax = get_ax(ax, 6.5, 5.8)
    lim = float(np.max(np.abs(P))) or 1.0
    im = ax.imshow(P, cmap="RdBu_r", vmin=-lim, vmax=lim, interpolation="nearest")
    q = P.shape[0]
    ax.set_xticks(np.arange(q))
    ax.set_xticklabels(list(letters[:q]), fontsize=8)
    ax.set_yticks(np.arange(q))
    ax.set_yticklabels(list(letters[:q]), fontsize=8)
    ax.figure.colorbar(im, ax=ax, shrink=0.8, label="weight of the bigram").dividers.set_visible(False)
    label_axes(ax, "next letter b", "previous letter a")
    return ax


def plot_noise_sweep(noise, err_chain, err_letter, ax=None):
    """Test letter error of the chain model and of independent letters against noise."""
    ax = get_ax(ax, 5.5, 3.6)
    ax.plot(noise, err_letter, marker="o", color=OKABE_ITO["blue"], label="independent letters")
    ax.plot(noise, err_chain, marker="^", color=OKABE_ITO["vermillion"], label="chain (with bigrams)")
    ax.set_ylim(0, max(max(err_letter), max(err_chain)) * 1.15 + 0.01)
    ax.grid(alpha=0.3)
    ax.legend()
    label_axes(ax, "pixel noise (std)", "test letter error")
    return ax
