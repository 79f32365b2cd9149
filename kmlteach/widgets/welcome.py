"""The demonstration widget of the welcome notebook: a hyperplane through the origin."""

from __future__ import annotations

import numpy as np

from ..plots import figure, label_axes, rings
from ..plots.ch01 import hyperplane_segment
from ._base import Explorer, class_scatters, slider
from ._predict import NumberGuess, exact, predict_mode

__all__ = ["make_angle_demo"]


def make_angle_demo(
    X, y, angle: float = 30.0, lim: float = 3.5, predict: bool = False, seed: int = 0
) -> Explorer:
    """Rotate w = (cos a, sin a) and count the points on the wrong side of <w, x> = 0.

    State: ``angle`` (degrees), ``w``, ``mistakes`` (count of y<w,x> <= 0).

    ``predict=True``: w is drawn as an arrow only; the student first guesses how many points
    lie on the wrong side of the line through the origin perpendicular to it; the line, the
    rings and the count stay hidden until *Reveal*, and *next question ▶* turns w to another
    angle (:mod:`kmlteach.widgets._predict`).
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    fig, ax = figure(4.8, 4.2)
    class_scatters(ax, X, y, s=36)
    (line,) = ax.plot([], [], color="black", lw=2, label=r"$\langle w, x\rangle = 0$")
    wrong = rings(ax, [], [], "#D55E00", 1.5, s=150, label="wrong side")
    arrow = ax.annotate("", xy=(1, 0), xytext=(0, 0), arrowprops=dict(arrowstyle="->", lw=2, color="#009E73"))
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")
    # above the axes, not inside: the line sweeps through every part of the axes, and a
    # legend it crosses is painted again on every update (18 of the 20 ms of an update)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize=8, frameon=False)
    label_axes(ax, "$x_1$", "$x_2$")
    controls = {
        "angle": slider("angle of w (degrees)", angle, 0.0, 360.0, 5.0, readout_format=".0f", width="380px")
    }

    def update(ex: Explorer) -> None:
        a = float(ex.controls["angle"].value)
        w = np.array([np.cos(np.deg2rad(a)), np.sin(np.deg2rad(a))])
        bad = y * (X @ w) <= 0
        line.set_data(*hyperplane_segment(w, 0.0, (-lim, lim), (-lim, lim)))
        wrong.set_offsets(X[bad] if bad.any() else np.zeros((0, 2)))
        arrow.xy = tuple(1.5 * w)
        arrow.stale = True  # attribute assignment: tell the renderer it moved
        ex.state.update(angle=a, w=w, mistakes=int(bad.sum()))
        ex.set_readout(
            f"w = ({w[0]:+.2f}, {w[1]:+.2f}) &nbsp; points on the wrong side: "
            f"<b>{int(bad.sum())}</b> of {len(y)}"
        )

    ex = Explorer(fig, controls, update, title="Rotate the hyperplane", css_class="kml-angle-demo")
    if predict:
        rng = np.random.default_rng(seed)

        def next_angle(ex_):
            a = ex_.controls["angle"]
            choices = [v for v in range(0, 360, 15) if v != int(round(a.value))]
            a.value = float(rng.choice(choices))

        predict_mode(
            ex,
            NumberGuess("wrong side:", 0, len(y), integer=True),
            lambda ex_: ex_.state["mistakes"],
            [line, wrong],
            "w is the green arrow. How many points lie on the wrong side of ⟨w, x⟩ = 0 (y⟨w, x⟩ ≤ 0)?",
            score=exact(),
            watch=["angle"],
            item_id="00.p_wrong_side",
            next_scenario=next_angle,
        )
    return ex
