"""Widgets of chapter 07 (bipartite ranking, UML §17.5).

* :func:`make_pr_explorer` — the precision/recall trade-off: a threshold θ slider
  moves the confusion counts, P, R, F₁ and the point on the PR and ROC curves; a k
  slider gives precision@k and recall@k.
* :func:`make_violating_explorer` — the most violating labelling of (17.14) for a
  chosen measure as the scale of the scores grows.
"""

from __future__ import annotations

from collections.abc import Callable

import ipywidgets as W
import numpy as np

from .. import metrics as M
from ..plots import OKABE_ITO, figure, label_axes, rings
from ..plots.ch07 import draw_labelling, example_scores, scatter_strip, set_labelling
from ..ranking import MEASURES, bipartite_loss, bipartite_most_violating
from ._base import Explorer, data_or_example, int_slider, slider
from ._drag import Drag
from ._predict import NumberGuess, predict_mode

__all__ = [
    "make_pr_explorer",
    "make_violating_explorer",
    "confusion_table_html",
    "pr_question",
    "PR_QUESTIONS",
]


def confusion_table_html(a, b, c, d) -> str:
    """The counts (a, b, c, d) of (17.11) as a small HTML table."""
    cell = "style='padding:1px 8px;text-align:right;border:1px solid #bbb'"
    head = "style='padding:1px 8px;border:1px solid #bbb;background:#f3f3f3'"
    return (
        f"<table style='border-collapse:collapse;font-size:90%'>"
        f"<tr><td {head}></td><td {head}>y = +1</td><td {head}>y = −1</td></tr>"
        f"<tr><td {head}>predicted +1</td><td {cell}>a = <b>{a}</b></td><td {cell}>b = <b>{b}</b></td></tr>"
        f"<tr><td {head}>predicted −1</td><td {cell}>c = <b>{c}</b></td><td {cell}>d = <b>{d}</b></td></tr>"
        f"</table>"
    )


PR_PANELS = ((0.0572, 0.351), (0.4626, 0.234), (0.7567, 0.234))  # (left, width), figure fraction


def make_pr_explorer(
    y_score=None, y_true=None, theta: float = 0.0, k: int = 5, predict: bool = False
) -> Explorer:
    """Slide the threshold θ and the cut-off k; watch (a, b, c, d), P, R, F₁ and the curves.

    Click a point of the PR or ROC curve to set θ to its threshold, or click/drag on
    the score strip to put θ there; the θ slider does the same from the keyboard.

    Controls: ``theta`` (predict +1 iff score ≥ θ), ``k``.
    State: ``theta``, ``counts`` (a, b, c, d), ``precision``, ``recall``, ``f1``,
    ``specificity``, ``zero_one``, ``k``, ``precision_at_k``, ``recall_at_k``.

    ``predict=True``: threshold questions (:data:`PR_QUESTIONS`: where F₁ peaks, the largest θ
    with recall ≥ 0.8, ...): the student puts a "guess θ" slider there; the readout and a line
    at the answer stay hidden until *Reveal*, which scores the guess (right when its θ is as
    good as the answer's, :func:`pr_question`); *next question ▶* then asks the next one
    (:mod:`kmlteach.widgets._predict`).
    """
    y_score, y_true = data_or_example(y_score, y_true, example_scores)
    n = len(y_true)

    fig, (ax_s, ax_pr, ax_roc) = figure(11.0, 3.5, ncols=3, width_ratios=[1.5, 1, 1])
    ys = scatter_strip(ax_s, y_score, y_true, s=34)
    lo, hi = y_score.min() - 0.3, y_score.max() + 0.3
    from matplotlib.patches import Rectangle

    # shade and θ line stop below the legend, so that moving them never repaints it
    shade = Rectangle(
        (0, -0.5), 0, 1.75, color=OKABE_ITO["orange"], alpha=0.18, lw=0, label="predicted +1 (score ≥ θ)"
    )
    ax_s.add_patch(shade)
    theta_line = ax_s.axvline(0.0, ymax=0.78, color=OKABE_ITO["black"], lw=2)
    topk = rings(ax_s, [], [], OKABE_ITO["green"], 1.6, s=150, label="top k", zorder=4)
    ax_s.set_xlim(lo, hi)
    ax_s.set_ylim(-0.5, 1.75)
    ax_s.set_yticks([0, 1], ["y = −1", "y = +1"])
    ax_s.legend(fontsize=7.5, loc="upper left", ncol=2)
    label_axes(ax_s, "score y'", "", "scores and threshold θ")

    _pr = M.precision_recall_curve(y_score, y_true)
    p, r = _pr[0], _pr[1]
    ax_pr.step(r, p, where="post", color=OKABE_ITO["blue"], lw=2)
    ax_pr.axhline(np.mean(y_true > 0), color=OKABE_ITO["grey"], ls=":", lw=1.2)
    (pr_pt,) = ax_pr.plot([], [], "o", ms=10, color=OKABE_ITO["vermillion"], label="θ")
    (pr_k,) = ax_pr.plot([], [], "D", ms=8, mfc="none", mew=2, color=OKABE_ITO["green"], label="precision@k")
    ax_pr.set_xlim(-0.02, 1.02)
    ax_pr.set_ylim(0, 1.05)
    ax_pr.legend(fontsize=7.5, loc="lower left")
    label_axes(ax_pr, "recall", "precision", "PR curve")

    _roc = M.roc_curve(y_score, y_true)
    fpr, tpr = _roc[0], _roc[1]
    ax_roc.plot(fpr, tpr, color=OKABE_ITO["blue"], lw=2)
    ax_roc.plot([0, 1], [0, 1], ":", color=OKABE_ITO["grey"], lw=1.2)
    (roc_pt,) = ax_roc.plot([], [], "o", ms=10, color=OKABE_ITO["vermillion"])
    ax_roc.set_xlim(-0.02, 1.02)
    ax_roc.set_ylim(-0.02, 1.02)
    label_axes(
        ax_roc,
        "false-positive rate",
        "recall (true-positive rate)",
        f"ROC curve (AUC {M.auc(y_score, y_true):.2f})",
    )

    # the panels where constrained layout puts them, fixed: the layout pass measured every
    # tick label of the figure and was a third of the time to the first picture
    fig.set_layout_engine("none")
    for ax, (left, width) in zip((ax_s, ax_pr, ax_roc), PR_PANELS):
        ax.set_position((left, 0.1362, width, 0.7909))

    step = 0.01 if np.allclose(y_score, np.round(y_score, 2)) else (hi - lo) / 200
    controls = {
        "theta": slider(
            "threshold θ",
            float(np.clip(theta, lo, hi)),
            float(np.floor(lo * 100) / 100),
            float(np.ceil(hi * 100) / 100),
            step,
            readout_format=".2f",
            width="380px",
        ),
        "k": int_slider("k", int(min(k, n)), 1, n, width="300px"),
    }

    def update(ex: Explorer) -> None:
        th = float(ex.controls["theta"].value)
        kk = int(ex.controls["k"].value)
        a, b, c, d = M.confusion_counts(y_score, y_true, th)
        st = ex.state
        st.update(
            theta=th,
            k=kk,
            counts=(a, b, c, d),
            precision=M.precision(y_score, y_true, th),
            recall=M.recall(y_score, y_true, th),
            f1=M.f1(y_score, y_true, th),
            specificity=M.specificity(y_score, y_true, th),
            zero_one=M.zero_one_loss(y_score, y_true, th),
            precision_at_k=M.precision_at_k(y_score, y_true, kk),
            recall_at_k=M.recall_at_k(y_score, y_true, kk),
        )
        theta_line.set_xdata([th, th])
        shade.set_x(th)
        shade.set_width(max(hi - th, 0.0))
        kth = np.sort(y_score)[::-1][kk - 1]
        sel = y_score >= kth
        topk.set_offsets(np.c_[y_score[sel], ys[sel]])
        pr_pt.set_data([st["recall"]], [st["precision"]])
        pr_k.set_data([M.recall(y_score, y_true, kth)], [st["precision_at_k"]])
        roc_pt.set_data([1 - st["specificity"]], [st["recall"]])
        ex.set_readout(
            "<div style='display:flex;gap:18px;align-items:center'>"
            + confusion_table_html(a, b, c, d)
            + f"<div>precision = <b>{st['precision']:.3f}</b> &nbsp; recall = <b>{st['recall']:.3f}</b>"
            f" &nbsp; F₁ = <b>{st['f1']:.3f}</b><br>specificity = {st['specificity']:.3f} &nbsp; "
            f"zero-one loss = {st['zero_one']:.3f}<br>"
            f"top k = {kk}: precision@k = <b>{st['precision_at_k']:.3f}</b> &nbsp; "
            f"recall@k = <b>{st['recall_at_k']:.3f}</b></div></div>"
        )

    ex = Explorer(
        fig,
        controls,
        update,
        title="Precision/recall trade-off",
        css_class="kml-pr-explorer",
    )
    # curve points and the threshold that produces each (θ = that score: predict +1 iff ≥ θ)
    pr_thr = np.r_[_pr[2], np.inf]
    roc_thr = _roc[2]

    def set_theta(th):
        s_ = controls["theta"]
        s_.value = float(np.clip(th, s_.min, s_.max))

    def press(ev):
        for ax, xs, ys_, thr in ((ax_pr, _pr[1], _pr[0], pr_thr), (ax_roc, _roc[0], _roc[1], roc_thr)):
            if ex.drag.inside(ax, ev):
                j = ex.drag.nearest(ax, np.c_[xs, ys_], ev, radius=25)
                if j is not None:
                    set_theta(thr[j] if np.isfinite(thr[j]) else controls["theta"].max)
                return None
        if ex.drag.inside(ax_s, ev):
            set_theta(round(float(ex.drag.xy(ax_s, ev)[0]), 2))
            return "strip"
        return None

    def move(_token, ev):
        set_theta(round(float(ex.drag.xy(ax_s, ev)[0]), 2))

    Drag(ex, press, move)
    if predict:
        _predict_threshold(ex, ax_s, y_score, y_true)
    return ex


#: the questions of :func:`make_pr_explorer`'s prediction mode, in the order *next question ▶*
#: offers them (then again from the first): (kind, target)
PR_QUESTIONS = (
    ("f1", None),
    ("recall", 0.8),
    ("zero_one", None),
    ("precision", 0.75),
    ("recall", 0.5),
    ("precision", 0.9),
)


def pr_question(kind: str, target, y_score, y_true) -> tuple[str, float, Callable]:
    """One threshold question on a scored sample: its text, the answer θ (a score of the
    sample: predict +1 iff score ≥ θ) and the rule that says whether a guessed θ is right
    (gives the best value, or predicts exactly what the answer's θ predicts)."""
    cands = np.unique(y_score)
    same = lambda g, th: bool(np.array_equal(y_score >= g, y_score >= th))  # noqa: E731
    if kind in ("f1", "zero_one"):
        fn = M.f1 if kind == "f1" else M.zero_one_loss
        vals = np.array([fn(y_score, y_true, t) for t in cands])
        best = vals.max() if kind == "f1" else vals.min()
        th = float(cands[int(np.flatnonzero(np.isclose(vals, best, rtol=0, atol=1e-12))[0])])
        good = (
            (lambda g: fn(y_score, y_true, g) >= best - 1e-12)
            if kind == "f1"
            else (lambda g: fn(y_score, y_true, g) <= best + 1e-12)
        )
        name = "F₁ largest" if kind == "f1" else "the zero-one loss smallest"
        return f"at which threshold θ is {name}?", th, good
    fn = M.recall if kind == "recall" else M.precision
    ok = [float(t) for t in cands if fn(y_score, y_true, t) >= target - 1e-12]
    # recall falls as θ rises: its question asks for the largest θ; precision's the smallest
    th = max(ok) if kind == "recall" else min(ok)
    word = "largest" if kind == "recall" else "smallest"
    return f"what is the {word} threshold θ with {kind} ≥ {target:g}?", th, lambda g: same(g, th)


def _predict_threshold(ex, ax_s, y_score, y_true) -> None:
    """The prediction mode of :func:`make_pr_explorer`: a threshold question
    (:data:`PR_QUESTIONS`), a new one after each Reveal."""
    peak = ax_s.axvline(0.0, ymax=0.78, color=OKABE_ITO["vermillion"], lw=2, ls="--")
    th = ex.controls["theta"]
    guess = NumberGuess("guess θ =", th.min, th.max)
    current = {"k": 0}

    def question():
        kind, target = PR_QUESTIONS[current["k"] % len(PR_QUESTIONS)]
        return pr_question(kind, target, y_score, y_true)

    def answer(ex_):
        text, th_, _good = question()
        peak.set_xdata([th_, th_])
        ex_.state["question"] = text
        return th_

    def score(g, answer_th):
        text, th_, good = question()
        right = good(float(g))
        kind = PR_QUESTIONS[current["k"] % len(PR_QUESTIONS)][0]
        value = {"f1": M.f1, "zero_one": M.zero_one_loss, "recall": M.recall, "precision": M.precision}[kind]
        label = {"f1": "F₁", "zero_one": "zero-one loss", "recall": "recall", "precision": "precision"}[kind]
        return right, (
            f"θ = {g:.2f} gives {label} = {value(y_score, y_true, float(g)):.3f}; the answer θ = "
            f"{th_:.2f} gives {label} = {value(y_score, y_true, th_):.3f} (you are {abs(g - th_):.2f} away)"
        )

    def next_question(ex_):
        current["k"] += 1
        ex_.refresh()

    # the dashed line at the answer: placed for the first question now (hidden until Reveal)
    peak.set_xdata([question()[1]] * 2)
    ex.state["question"] = question()[0]
    predict_mode(
        ex,
        guess,
        answer,
        [peak],
        lambda _ex: question()[0],
        score=score,
        watch=lambda _ex: current["k"],
        item_id="07.p_threshold",
        next_scenario=next_question,
        readout_lines=5,
    )


def make_violating_explorer(
    y_score=None, y_true=None, measure: str = "f1", scale: float = 1.0, k: int = 3
) -> Explorer:
    """The maximiser v of Δ(v, y) + Σ_i (v_i − y_i)·scale·μ_i (UML (17.14)).

    With a small scale the loss term Δ dominates and v flips labels to make Δ large;
    with a large scale v follows the sign of the scores. Controls: ``measure``,
    ``scale`` (log slider), ``k`` (for the @k measures). State: ``v``, ``value``,
    ``delta``, ``counts``, ``n_flipped``.
    """
    mu, y = data_or_example(y_score, y_true, lambda: example_scores(n=14, pos_rate=0.35, seed=5))
    r = len(y)
    fig, ax = figure(7.5, 2.8)
    arts = draw_labelling(ax, mu, y)
    controls = {
        "measure": W.Dropdown(
            options=list(MEASURES), value=measure, description="measure", layout=W.Layout(width="230px")
        ),
        "scale": slider("scale of w", scale, -2, 1, 0.05, log=True, width="300px"),
        "k": int_slider("k", k, 1, r, width="220px"),
    }

    def update(ex: Explorer) -> None:
        meas = ex.controls["measure"].value
        sc = float(ex.controls["scale"].value)
        kk = int(ex.controls["k"].value)
        s = sc * mu
        v = bipartite_most_violating(s, y, meas, k=kk if MEASURES[meas][1] else None)
        a = int(np.sum((v > 0) & (y > 0)))
        b = int(np.sum((v > 0) & (y < 0)))
        c = int(np.sum((v < 0) & (y > 0)))
        d = r - a - b - c
        delta = bipartite_loss(v, y, meas, k=kk if MEASURES[meas][1] else None)  # Δ(v, y)
        st = ex.state
        st.update(
            v=v,
            counts=(a, b, c, d),
            delta=delta,
            value=delta + float((v - y) @ s),
            n_flipped=int(np.sum(v != y)),
            measure=meas,
            scale=sc,
            k=kk,
        )
        set_labelling(arts, v)
        ex.set_readout(
            f"Δ(v, y) = <b>{delta:.3f}</b> &nbsp; Σ(v−y)μ = {st['value'] - delta:.3f} "
            f"&nbsp; objective (17.14) = <b>{st['value']:.3f}</b> &nbsp; "
            f"labels flipped: {st['n_flipped']} &nbsp; (a, b, c, d) = {(a, b, c, d)}"
            f" &nbsp; [{MEASURES[meas][2]}]"
        )

    return Explorer(
        fig,
        controls,
        update,
        title="Most violating labelling (17.14)",
        css_class="kml-violating-explorer",
    )
