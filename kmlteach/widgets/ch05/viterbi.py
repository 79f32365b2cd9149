"""Chapter 05: the Viterbi trace over a word image.

The widget wires the controls; the picture is drawn by :mod:`kmlteach.plots.ch05.viterbi`
(the table M, its colour bar, arrows and path: ``draw_viterbi_table`` once,
``set_viterbi_table`` per step) and :mod:`kmlteach.plots.ch05.words` (the word image), the
same code as the static figures ``plot_viterbi_table`` and ``plot_word``.
"""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from ..._render import title_row
from ...datasets import ocr_words
from ...plots import figure
from ...plots.ch05.viterbi import draw_viterbi_table, set_viterbi_table
from ...plots.ch05.words import LETTERS, draw_word, set_word
from ...structured import structured_sgd, unary_scores, viterbi
from .._base import Explorer, int_slider
from .._predict import predict_mode

__all__ = ["make_viterbi_trace"]


def _word(labels) -> str:
    return "".join(LETTERS[k] for k in labels)


def _snap(v: float, lo: float, step: float) -> float:
    """``v`` on the slider's grid (the browser's slider snaps it; Python callers may not)."""
    return round(lo + round((float(v) - lo) / step) * step, 10)


def make_viterbi_trace(
    model=None, data=None, n_words: int = 10, noise: float = 0.4, seed: int = 0, predict: bool = False
):
    """Step τ through the table M of UML §17.3 for one word image.

    ``model``: a :class:`~kmlteach.structured.ChainModel` (default: structured SGD on
    200 words at this noise, a second or so); ``data``: the words to decode (default:
    ``ocr_words(n_words, noise, seed + 1)``). Controls: ``word`` (which word) and
    ``tau`` (1..r fill the columns, r + 1 backtracks the path). Every word is decoded once
    when the widget is built; the arrows are the back-pointers I[s, τ] of the five best
    cells of column τ, each pointing back to that cell's best predecessor in column τ − 1.
    """
    if model is None:
        train = ocr_words(200, noise=noise, seed=seed)
        model = structured_sgd(train.X, train.y, eta=0.5, T=2000, seed=seed)
    if data is None:
        data = ocr_words(n_words, noise=noise, seed=seed + 1)
    shape = data.letter_shape
    results = [viterbi(unary_scores(x, model.W_unary), model.W_pair) for x in data.X]
    r_max = max(len(x) for x in data.X)
    vmin = min(float((res.M - res.M.max(axis=0, keepdims=True)).min()) for res in results)
    # wide and short (8.2 × 4.75 in; at 1.5× its reading size it fits a 1280×720 slide):
    # the table M at full height on the right, the word and the key to the marks on the left.
    # Fixed positions (figure fractions): no layout engine to run when the widget is built
    fig, ax_img = figure(8.2, 4.75)
    fig.set_layout_engine("none")
    ax_img.set_position([0.073, 0.573, 0.262, 0.369])
    ax_tab = fig.add_axes([0.40, 0.087, 0.49, 0.905])
    ax_key = fig.add_axes([0.073, 0.009, 0.262, 0.547])
    word = draw_word(ax_img, r_max, shape)
    cax = fig.add_axes([0.90, 0.155, 0.022, 0.768])
    table = draw_viterbi_table(ax_tab, model.W_pair.shape[0], r_max, vmin, cax=cax)
    ax_key.set_axis_off()
    ax_key.legend(
        handles=[table["best"], table["path"]],
        loc="upper left",
        fontsize=9,
        frameon=False,
        borderaxespad=0.0,
        numpoints=1,
    )
    ax_key.text(
        0.0,
        0.66,
        "arrows: the back-pointers I[s, τ]\nof the 5 best cells of column τ,\n"
        "each pointing back to the cell's\nbest predecessor in column τ − 1;\n"
        "decoded letters that are wrong:\nvermillion and underlined",
        fontsize=9,
        va="top",
        transform=ax_key.transAxes,
    )
    heading = title_row(ax_img, "left", 9)
    controls = {
        "word": int_slider("word", 0, 0, len(data.X) - 1),
        "tau": int_slider("step τ", 1, 1, len(data.X[0]) + 1),
    }

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
        res = results[i]
        done = tau == r + 1
        col = min(tau, r) - 1
        prefix_best = [LETTERS[int(np.argmax(res.M[:, c]))] for c in range(col + 1)]
        shown = res.labels if done else prefix_best + [""] * (r - col - 1)
        set_word(word, x, shown, truth, key=i, mark=done)
        set_viterbi_table(table, res.M, res.backpointers, col, res.labels if done else None)
        heading.set_texts(
            [
                (
                    "decoded word (backtracked)" if done else f"best last letter per prefix, τ ≤ {col + 1}",
                    "black",
                )
            ]
        )
        best = int(np.argmax(res.M[:, col]))
        ex.state.update(
            word=data.words[i],
            truth=np.asarray(truth),
            labels=res.labels,
            tau=tau,
            r=r,
            backtracked=done,
            column=res.M[:, col].copy(),
            best_cell=best,
            best_predecessor=int(res.backpointers[best, col]),
            decoded=_word(res.labels),
            score=res.score,
        )
        if done:
            errs = int(np.sum(res.labels != truth))
            ex.set_readout(
                f"true word <b>{data.words[i]}</b>, decoded <b>{_word(res.labels)}</b> "
                f"({errs} of {r} letters wrong); best total score {res.score:.2f}"
            )
        else:
            pred = (
                ""
                if col == 0
                else f", whose back-pointer leads to <b>{LETTERS[res.backpointers[best, col]]}</b>"
            )
            ex.set_readout(
                f"τ = {tau}: the best prefix of length {tau} ends in "
                f"<b>{LETTERS[best]}</b>{pred} (M = {res.M[best, col]:.2f})"
            )

    ex = Explorer(fig, controls, update, title="Viterbi trace (UML §17.3)", css_class="kml-ch05-viterbi")
    if predict:
        q = model.W_pair.shape[0]
        predict_mode(
            ex,
            W.Dropdown(
                options=list(LETTERS[:q]),
                value=LETTERS[0],
                description="letter:",
                layout=W.Layout(width="140px"),
            ),
            lambda ex_: LETTERS[ex_.state["best_cell"]],
            # the true word too: copying its letter is right whenever Viterbi is (review of #25)
            [table[k] for k in ("layer", "best", "arrows", "path")]
            + [word["decoded"], word["underline"], word["true"], word["rows"]["true"]],
            "which letter does Viterbi pick at step τ (the last letter of the best prefix of length τ)?",
        )
    return ex
