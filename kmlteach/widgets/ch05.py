"""Widgets of chapter 05: the Viterbi trace over a word image, and independent letters
vs the chain model as the pixel noise grows.

Each builder returns an :class:`~kmlteach.widgets._base.Explorer`; ``explorer.state``
holds what the last redraw computed, ``explorer.controls`` the controls.
"""

from __future__ import annotations

import threading

import numpy as np

from ..datasets import ocr_words
from ..plots import OKABE_ITO, figure
from ..plots.ch05 import (LETTERS, plot_transitions, plot_viterbi_table, plot_word, set_word_labels,
                          viterbi_overlay)
from ..structured import letter_error, predict, structured_sgd, unary_scores, viterbi
from ._base import Explorer, int_slider, slider

__all__ = ["make_viterbi_trace", "make_noise_compare", "make_transition_growth", "train_pair",
           "top_bigrams"]


def _frozen(ex: Explorer) -> Explorer:
    """Keep the layout of the first render; later redraws skip constrained layout."""
    ex.fig.set_layout_engine("none")
    return ex


def _word(labels) -> str:
    return "".join(LETTERS[k] for k in labels)


def _redraw_word(ax, x, shape, labels, truth):
    ax.clear()
    plot_word(x, shape, labels=labels, truth=truth, ax=ax, aligned=True)


def make_viterbi_trace(model=None, data=None, n_words: int = 10, noise: float = 0.4, seed: int = 0):
    """Step τ through the table M of UML §17.3 for one word image.

    ``model``: a :class:`~kmlteach.structured.ChainModel` (default: structured SGD on
    200 words at this noise, a second or so); ``data``: the words to decode (default:
    ``ocr_words(n_words, noise, seed + 1)``). Controls: ``word`` (which word) and
    ``tau`` (1..r fill the columns, r + 1 backtracks the path).
    """
    if model is None:
        train = ocr_words(200, noise=noise, seed=seed)
        model = structured_sgd(train.X, train.y, eta=0.5, T=2000, seed=seed)
    if data is None:
        data = ocr_words(n_words, noise=noise, seed=seed + 1)
    shape = data.letter_shape
    fig, (ax_img, ax_tab) = figure(6.4, 8.2, nrows=2, height_ratios=[1.7, 5])  # word image close to its true aspect
    controls = {"word": int_slider("word", 0, 0, len(data.X) - 1),
                "tau": int_slider("step τ", 1, 1, len(data.X[0]) + 1)}

    cur: dict = {}

    def update(ex):
        i = ex.controls["word"].value
        x, truth = data.X[i], data.y[i]
        r = x.shape[0]
        tau_ctl = ex.controls["tau"]
        if tau_ctl.max != r + 1:
            ex._busy = True
            tau_ctl.max = r + 1
            if tau_ctl.value > r + 1:
                tau_ctl.value = r + 1
            ex._busy = False
        tau = tau_ctl.value
        if cur.get("word") != i:
            cur["word"] = i
            cur["res"] = viterbi(unary_scores(x, model.W_unary), model.W_pair)
        res = cur["res"]
        done = tau == r + 1
        col = min(tau, r) - 1
        prefix_best = [LETTERS[int(np.argmax(res.M[:, c]))] for c in range(col + 1)]
        shown = res.labels if done else prefix_best + [""] * (r - col - 1)
        if cur.get("drawn") != i:
            # a new word: draw both panels from scratch (new image, ticks, limits)
            cur["drawn"] = i
            _redraw_word(ax_img, x, shape, shown, truth if done else None)
            ax_tab.clear()
            _, cur["im"] = plot_viterbi_table(res.M, res.backpointers, col,
                                              labels=res.labels if done else None, ax=ax_tab)
            cur["overlay"] = list(ax_tab.patches) + list(ax_tab.texts) + list(ax_tab.lines)
            ax_tab.set_title("M[s, τ] − max over s (yellow = best); arrows: I[s, τ] of the 5 best cells",
                             fontsize=9)
        else:
            # same word, new τ: update the artists that move with τ
            rel = res.M - res.M.max(axis=0, keepdims=True)
            cur["im"].set_data(np.where(np.arange(r)[None, :] <= col, rel, np.nan))
            for a in cur["overlay"]:
                a.remove()
            cur["overlay"] = viterbi_overlay(ax_tab, res.M, res.backpointers, col,
                                             res.labels if done else None)
            set_word_labels(ax_img, shown, truth if done else None)
        ax_img.set_title("decoded word (backtracked)" if done else
                         "best last letter of each prefix so far", fontsize=10)
        best = int(np.argmax(res.M[:, col]))
        ex.state.update(word=data.words[i], truth=np.asarray(truth), labels=res.labels,
                        tau=tau, r=r, backtracked=done, column=res.M[:, col].copy(),
                        best_cell=best, best_predecessor=int(res.backpointers[best, col]),
                        decoded=_word(res.labels), score=res.score)
        if done:
            errs = int(np.sum(res.labels != truth))
            ex.set_readout(f"true word <b>{data.words[i]}</b>, decoded <b>{_word(res.labels)}</b> "
                           f"({errs} of {r} letters wrong); best total score {res.score:.2f}")
        else:
            pred = "" if col == 0 else f", coming from <b>{LETTERS[res.backpointers[best, col]]}</b>"
            ex.set_readout(f"τ = {tau}: the best prefix of length {tau} ends in "
                           f"<b>{LETTERS[best]}</b>{pred} (M = {res.M[best, col]:.2f})")

    return _frozen(Explorer(fig, controls, update, title="Viterbi trace (UML §17.3)",
                            css_class="kml-ch05-viterbi"))


def train_pair(noise: float, n_train: int = 200, T: int = 2000, seed: int = 0):
    """Chain model and independent-letter model trained on the same words."""
    train = ocr_words(n_train, noise=noise, seed=seed)
    chain = structured_sgd(train.X, train.y, eta=0.5, T=T, seed=seed)
    alone = structured_sgd(train.X, train.y, eta=0.5, T=T, seed=seed, transitions=False)
    return chain, alone


def make_noise_compare(noise: float = 0.4, seed: int = 0, n_test: int = 100):
    """Independent letters vs the chain model: both trained at the slider's noise;
    one test word decoded by each, letter errors over ``n_test`` test words.

    The fits for every noise level of the slider are computed once, in a background
    thread started here; moving the slider to a level not reached yet trains it at once
    and says so in the readout."""
    fig, (ax1, ax2) = figure(6.0, 3.4, nrows=2)
    controls = {"noise": slider("pixel noise", noise, 0.0, 0.8, 0.1, readout_format=".1f"),
                "word": int_slider("word", 0, 0, 9)}
    cache: dict = {}
    lock = threading.Lock()

    def fill(nz: float) -> None:
        with lock:      # one fit at a time, whoever asks
            if nz not in cache:
                chain, alone = train_pair(nz, seed=seed)
                test = ocr_words(n_test, noise=nz, seed=seed + 1)
                cache[nz] = (chain, alone, test, letter_error(chain, test.X, test.y),
                             letter_error(alone, test.X, test.y))

    def update(ex):
        nz = round(float(ex.controls["noise"].value), 3)
        if nz not in cache:
            # the heavy part (two structured-SGD fits) runs once per noise level, mostly in
            # the background thread below; when the slider gets there first, say so on
            # screen while it runs (the readout reaches the browser before training starts)
            ex.set_readout(f"<i>training both models at noise {nz:.1f} (once per noise level, "
                           f"a second or two)…</i>")
            fill(nz)
        chain, alone, test, e_chain, e_alone = cache[nz]
        i = ex.controls["word"].value
        x, truth = test.X[i], test.y[i]
        p_chain, p_alone = predict(chain, [x])[0], predict(alone, [x])[0]
        for ax, p, name in ((ax1, p_alone, "independent letters"), (ax2, p_chain, "chain model")):
            _redraw_word(ax, x, test.letter_shape, p, truth)
            ax.set_ylabel(name, rotation=0, ha="right", va="center", fontsize=10)
        ex.state.update(noise=nz, error_chain=e_chain, error_letters=e_alone,
                        pred_chain=_word(p_chain), pred_letters=_word(p_alone), word=test.words[i])
        ex.set_readout(f"noise {nz:.1f}: test letter error <b>{e_alone:.3f}</b> for independent "
                       f"letters, <b>{e_chain:.3f}</b> for the chain model "
                       f"(word \"{test.words[i]}\"; wrong letters in "
                       f"<span style='color:{OKABE_ITO['vermillion']}'>vermillion</span>)")

    ex = Explorer(fig, controls, update, title="Independent letters vs chain model",
                  css_class="kml-ch05-noise")
    # precompute the other noise levels off the interactive path (deterministic: each
    # level has its own seeds, whichever thread trains it)
    s_ = controls["noise"]
    levels = [round(float(v), 3) for v in np.arange(s_.min, s_.max + s_.step / 2, s_.step)]
    threading.Thread(target=lambda: [fill(v) for v in levels], daemon=True,
                     name="kml-noise-precompute").start()
    return ex


def top_bigrams(W_pair, k: int = 10) -> list[str]:
    """The ``k`` bigrams with the largest learned weight, strongest first."""
    order = np.argsort(-np.asarray(W_pair), axis=None, kind="stable")[:k]
    return [LETTERS[i // 26] + LETTERS[i % 26] for i in order]


def make_transition_growth(train=None, test=None, noise: float = 0.3, seed: int = 0):
    """The learned bigram weights W_pair as structured SGD runs longer (slider: T)."""
    from collections import Counter

    if train is None:
        train = ocr_words(400, noise=noise, seed=seed)
    if test is None:
        test = ocr_words(100, noise=noise, seed=seed + 1)
    counts = Counter(w[i:i + 2] for w in train.words for i in range(len(w) - 1))
    frequent = {b for b, _ in counts.most_common(60)}
    fig, ax = figure(6.2, 5.6)
    plot_transitions(np.zeros((26, 26)), ax=ax)
    img = ax.images[0]
    controls = {"T": slider("SGD steps T", 1000, 2, 4, 0.25, log=True, readout_format=".0f")}

    def update(ex):
        T = int(round(ex.controls["T"].value))
        model = structured_sgd(train.X, train.y, eta=0.5, T=T, seed=seed)
        P = model.W_pair
        lim = float(np.max(np.abs(P))) or 1.0
        img.set_data(P)
        img.set_clim(-lim, lim)
        top = top_bigrams(P, 10)
        err = letter_error(model, test.X, test.y)
        overlap = len(set(top) & frequent)
        ax.set_title(f"W_pair after T = {T} steps", fontsize=11)
        ex.state.update(T=T, W_pair=P, top=top, overlap=overlap, error=err)
        ex.set_readout(f"T = {T}: strongest bigrams <b>{' '.join(top)}</b> "
                       f"({overlap} of 10 among the 60 most frequent); test letter error {err:.3f}")

    return Explorer(fig, controls, update, title="How the transition weights emerge",
                    css_class="kml-ch05-transitions")
