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
from .._base import Explorer, int_slider, slider
from .._predict import ChoiceSet, predict_mode

__all__ = ["make_viterbi_trace"]


def _word(labels) -> str:
    return "".join(LETTERS[k] for k in labels)


def _snap(v: float, lo: float, step: float) -> float:
    """``v`` on the slider's grid (the browser's slider snaps it; Python callers may not)."""
    return round(lo + round((float(v) - lo) / step) * step, 10)


def _trace_figure(q: int, r_max: int, shape, vmin: float, key_text: str):
    """The Viterbi widget's figure: the word image top left, the table M at full height on
    the right with its colour bar, the key to the marks below the word (its legend is added
    by :func:`_key_legend`).

    Wide and short (8.2 × 4.75 in; at 1.5× its reading size it fits a 1280×720 slide), at
    fixed positions (figure fractions): no layout engine to run when the widget is built."""
    fig, ax_img = figure(8.2, 4.75)
    fig.set_layout_engine("none")
    ax_img.set_position([0.073, 0.573, 0.262, 0.369])
    ax_tab = fig.add_axes([0.40, 0.087, 0.49, 0.905])
    ax_key = fig.add_axes([0.073, 0.009, 0.262, 0.547])
    word = draw_word(ax_img, r_max, shape)
    cax = fig.add_axes([0.90, 0.155, 0.022, 0.768])
    table = draw_viterbi_table(ax_tab, q, r_max, vmin, cax=cax)
    ax_key.set_axis_off()
    ax_key.text(0.0, 0.66, key_text, fontsize=9, va="top", transform=ax_key.transAxes)
    return fig, ax_img, ax_tab, ax_key, word, table


def _key_legend(ax_key, handles) -> None:
    ax_key.legend(
        handles=handles, loc="upper left", fontsize=9, frameon=False, borderaxespad=0.0, numpoints=1
    )


def _decoded(model, data):
    """Every word of ``data`` decoded by ``model``, and the colour scale's lower end."""
    results = [viterbi(unary_scores(x, model.W_unary), model.W_pair) for x in data.X]
    vmin = min(float((res.M - res.M.max(axis=0, keepdims=True)).min()) for res in results)
    return results, vmin


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

    ``predict=True``: a question about the *path* (:func:`_path_prediction`): the score of
    one pair of letters a → b moves by δ; at which positions does the best path change?
    """
    if model is None:
        train = ocr_words(200, noise=noise, seed=seed)
        model = structured_sgd(train.X, train.y, eta=0.5, T=2000, seed=seed)
    if data is None:
        data = ocr_words(n_words, noise=noise, seed=seed + 1)
    if predict:
        return _path_prediction(model, data, seed)
    results, vmin = _decoded(model, data)
    r_max = max(len(x) for x in data.X)
    fig, ax_img, _ax_tab, ax_key, word, table = _trace_figure(
        model.W_pair.shape[0],
        r_max,
        data.letter_shape,
        vmin,
        "arrows: the back-pointers I[s, τ]\nof the 5 best cells of column τ,\n"
        "each pointing back to the cell's\nbest predecessor in column τ − 1;\n"
        "decoded letters that are wrong:\nvermillion and underlined",
    )
    _key_legend(ax_key, [table["best"], table["path"]])
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

    return Explorer(fig, controls, update, title="Viterbi trace (UML §17.3)", css_class="kml-ch05-viterbi")


# ---------------------------------------------------------------------------------------
# prediction: where does the best path change when a pair score moves?
# ---------------------------------------------------------------------------------------

DELTA = (-3.0, 3.0, 0.1)  # the δ slider: min, max, step


def max_marginals(res, U, P) -> np.ndarray:
    """mm[s, t]: the best score of a labelling with label s at position t (forward table M
    plus the best suffix after t, UML §17.3's recursion run backwards too)."""
    r, q = U.shape
    B = np.zeros((q, r))
    for t in range(r - 2, -1, -1):
        B[:, t] = np.max(P + (U[t + 1] + B[:, t + 1])[None, :], axis=1)
    return np.asarray(res.M) + B


def pair_candidates(res, U, P, top: int = 8) -> list[tuple[str, tuple[int, int]]]:
    """Pairs a → b worth a question for one word: the runner-up letter c at a position t
    (by max-marginal) after the decoded letter at t − 1, or before the one at t + 1 — the
    pairs whose score, raised enough, pull the best path through c. Closest calls first."""
    mm = max_marginals(res, U, P)
    y = np.asarray(res.labels)
    r = len(y)
    found: dict = {}
    for t in range(r):
        order = np.argsort(-mm[:, t], kind="stable")
        c = int(order[1])
        gap = float(mm[order[0], t] - mm[c, t])
        for pair in ([(int(y[t - 1]), c)] if t > 0 else []) + ([(c, int(y[t + 1]))] if t < r - 1 else []):
            found[pair] = min(gap, found.get(pair, np.inf))
    ranked = sorted(found.items(), key=lambda kv: (kv[1], kv[0]))[:top]
    return [(f"{LETTERS[a]} → {LETTERS[b]}", (a, b)) for (a, b), _gap in ranked]


def pair_gap(res, U, P, a: int, b: int) -> float:
    """How much the score of the pair a → b must rise for a labelling that uses it once to
    catch up with the best path: best score − max over t of the best labelling with a at t
    and b at t + 1 (0 when the best path already uses it)."""
    r, q = U.shape
    if r < 2:
        return np.inf
    B = np.zeros((q, r))
    for t in range(r - 2, -1, -1):
        B[:, t] = np.max(P + (U[t + 1] + B[:, t + 1])[None, :], axis=1)
    M = np.asarray(res.M)
    through = max(M[a, t] + P[a, b] + U[t + 1, b] + B[b, t + 1] for t in range(r - 1))
    return float(res.score - through)


def changed_positions(before, after) -> tuple:
    """The 1-based positions where two labellings differ, or ``("none",)``."""
    diff = tuple(int(t) + 1 for t in np.flatnonzero(np.asarray(before) != np.asarray(after)))
    return diff or ("none",)


def _positions(v) -> str:
    v = tuple(v)
    if v == ("none",):
        return "no change"
    return ("position " if len(v) == 1 else "positions ") + ", ".join(str(t) for t in v)


def score_positions(guess, answer) -> tuple[bool, str]:
    """Right when the guessed positions (or "no change") are exactly those that change."""
    g, a = set(guess), set(answer)
    text = f"you said {_positions(guess)}; the path changes at {_positions(answer)}"
    if a == {"none"}:
        text = f"you said {_positions(guess)}; the best path stays the same"
    return g == a, text


def _path_prediction(model, data, seed: int):
    """The prediction mode of :func:`make_viterbi_trace`: the score of the pair a → b
    (``W_pair[a, b]``) moves by δ; the student ticks the positions where the best path (the
    decoded word) changes, or "no change". The table M and the path before the change are on
    screen; the new path (orange), the new decoded word and the readout are revealed.

    Controls: ``word``, ``pair`` (pairs near the decision: :func:`pair_candidates`),
    ``delta``; *next question ▶* draws a new setting. State: ``before``, ``after`` (the
    decoded labels), ``changed`` (:func:`changed_positions`), ``pair``, ``delta``, ``unary``
    and ``pairwise`` (the scores decoded after the change)."""
    P0 = np.asarray(model.W_pair, dtype=float)
    q = P0.shape[0]
    U_all = [unary_scores(x, model.W_unary) for x in data.X]
    results, vmin = _decoded(model, data)
    r_max = max(len(x) for x in data.X)
    fig, ax_img, ax_tab, ax_key, word, table = _trace_figure(
        q,
        r_max,
        data.letter_shape,
        vmin,
        "dashed: the best path before the\n"
        "change, on the table M before it;\n"
        "on Reveal: the path after it\n"
        "(orange) and, in the top row, the\n"
        "word decoded after it, its changed\n"
        "letters vermillion and underlined",
    )
    (before_line,) = ax_tab.plot(
        [],
        [],
        color="0.25",
        lw=1.6,
        ls="--",
        marker="o",
        ms=4,
        zorder=4.2,
        label="best path before the change",
    )
    table["path"].set_label("best path after the change")
    table["best"].set_visible(False)  # the best cell of the last column: not part of this question
    table["frame"].set_visible(False)
    _key_legend(ax_key, [before_line, table["path"]])
    word["rows"]["decoded"].set_text("after")
    word["rows"]["true"].set_text("before")
    lo, hi, step = DELTA
    candidates = [pair_candidates(res, U, P0) for res, U in zip(results, U_all)]
    controls = {
        "word": int_slider("word", 0, 0, len(data.X) - 1),
        "pair": W.Dropdown(options=candidates[0], value=candidates[0][0][1], description="pair a → b"),
        "delta": slider(
            "δ (change of the pair's score)", 1.0, lo, hi, step, readout_format="+.1f", width="380px"
        ),
    }
    guess = ChoiceSet(
        [(str(t), t) for t in range(1, len(data.X[0]) + 1)] + [("no change", "none")],
        description="changes at:",
        exclusive=("none",),
        slots=r_max,  # as wide for a short word as for the longest: the figure never moves
    )
    shown = {"word": 0}

    def update(ex):
        c = ex.controls
        i = int(c["word"].value)
        if shown["word"] != i:  # a new word: its pairs and its positions
            shown["word"] = i
            ex._busy = True
            c["pair"].options = candidates[i]
            c["pair"].value = candidates[i][0][1]
            ex._busy = False
            guess.set_options([(str(t), t) for t in range(1, len(data.X[i]) + 1)] + [("no change", "none")])
        a, b = c["pair"].value
        delta = _snap(c["delta"].value, lo, step)
        P = P0.copy()
        P[a, b] += delta
        res0, U = results[i], U_all[i]
        res = viterbi(U, P)
        before, after = np.asarray(res0.labels), np.asarray(res.labels)
        r = len(before)
        set_word(word, data.X[i], after, before, key=i, mark=True)
        set_viterbi_table(table, res0.M, res0.backpointers, r - 1, after, top=0)
        before_line.set_data(np.arange(r), before)
        changed = changed_positions(before, after)
        ex.state.update(
            word=data.words[i],
            before=before,
            after=after,
            changed=changed,
            pair=(a, b),
            delta=delta,
            unary=U,
            pairwise=P,
        )
        ex.set_readout(
            f"pair <b>{LETTERS[a]} → {LETTERS[b]}</b>, score {P0[a, b]:+.2f} → {P[a, b]:+.2f}: "
            f"decoded <b>{_word(before)}</b> before, <b>{_word(after)}</b> after — "
            f"{_positions(changed)}"
            + ("" if changed == ("none",) else " changed")
            + f"<br>best total score {res0.score:.2f} before, {res.score:.2f} after"
        )

    ex = Explorer(
        fig,
        controls,
        update,
        layout_rows=[["word", "pair"], ["delta"]],
        title="Viterbi: where does the best path change? (UML §17.3)",
        css_class="kml-ch05-viterbi",
    )
    rng = np.random.default_rng(seed)

    def next_setting(ex_):
        """Another word, one of its pairs and a δ around what it takes to move the path
        (below it about half of the time: "no change" is a real answer)."""
        i = int(rng.integers(len(data.X)))
        ex_.controls["word"].value = i  # its pairs first (a redraw)
        a, b = candidates[i][int(rng.integers(len(candidates[i])))][1]
        need = pair_gap(results[i], U_all[i], P0, a, b)
        d = float(np.clip(_snap(max(need, 0.2) * rng.uniform(0.4, 1.8), lo, step), lo, hi))
        with ex_.hold():
            ex_.controls["pair"].value = (a, b)
            ex_.controls["delta"].value = d

    predict_mode(
        ex,
        guess,
        lambda ex_: ex_.state["changed"],
        # the underline only where letters change (set_word hides an empty one)
        lambda ex_: (
            [table["path"], word["decoded"]]
            + ([word["underline"]] if ex_.state["changed"] != ("none",) else [])
        ),
        lambda ex_: (
            f"the score of the pair {LETTERS[ex_.state['pair'][0]]} → {LETTERS[ex_.state['pair'][1]]} "
            f"changes by δ = {ex_.state['delta']:+.1f}. At which positions will the best path "
            f"(the decoded word) change?"
        ),
        score=score_positions,
        watch=["word", "pair", "delta"],
        item_id="05.p_path",
        next_scenario=next_setting,
    )
    return ex
