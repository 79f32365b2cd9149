"""Prediction mode for an :class:`~kmlteach.widgets._base.Explorer`: guess, then see.

:func:`predict_mode` adds a *guess* control and a *Reveal* button to a built explorer.
Until the button is pressed the result artists are hidden (``set_visible(False)``: the
blitter repaints them like any changed artist) and the readout asks for a guess; pressing
it shows them, scores the guess against the answer the widget computed, and keeps a
running score in ``ex.state["predictions"]`` (``{"right": r, "total": t}``). Changing the
scenario (any control in ``watch``) hides the result again and asks for a new guess; a
scenario is scored once (the guess is locked after the reveal).

Without ``predict_mode`` nothing of this exists: the widgets' default rendering is
untouched.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as W

__all__ = ["Prediction", "predict_mode", "exact", "within", "same_set", "choice_buttons"]

Score = Callable[[Any, Any], "tuple[bool, str]"]


def same_set(guess, answer) -> tuple[bool, str]:
    """Right when the guessed set of indices is the answer's; names the missed and extra ones."""
    g = {int(i) for i in guess}
    a = {int(i) for i in answer}

    def names(s):
        return ", ".join(str(i) for i in sorted(s)) or "none"

    text = f"you picked {names(g)}; the answer is {names(a)}"
    if g != a:
        text += f" (missed: {names(a - g)}; not in it: {names(g - a)})"
    return g == a, text


def exact(label: Callable[[Any], str] = str) -> Score:
    """Right when the guess equals the answer."""

    def score(guess, answer):
        if guess == answer:
            return True, f"you said {label(guess)}, and it is {label(answer)}"
        return False, f"you said {label(guess)}, but it is {label(answer)}"

    return score


def within(tol: float, fmt: str = ".2f") -> Score:
    """Right when a numeric guess is at most ``tol`` from the answer; says by how much."""
    if not tol >= 0:
        raise ValueError(f"tol must be >= 0, got {tol!r}")

    def score(guess, answer):
        off = abs(float(guess) - float(answer))
        where = f"you said {guess:{fmt}}, the answer is {answer:{fmt}} (off by {off:{fmt}})"
        return off <= tol, where

    return score


def choice_buttons(options, value, description: str, button_width: str) -> W.ToggleButtons:
    """A guess among ``options`` (toggle buttons ``button_width`` wide), starting at ``value``."""
    return W.ToggleButtons(
        options=list(options), value=value, description=description, style={"button_width": button_width}
    )


@dataclass(eq=False, repr=False)
class Prediction:
    """The prediction state of one explorer (``ex.predict``); see :func:`predict_mode`."""

    ex: Any
    guess: W.Widget
    answer: Callable
    hide: Callable | Sequence
    score: Score
    watch: Sequence[str]
    question: str
    revealed_key: Any = None
    verdict: str = ""
    right: int = 0
    total: int = 0

    def __post_init__(self) -> None:
        ex, guess = self.ex, self.guess
        self.reveal_button = W.Button(
            description="Reveal", button_style="info", tooltip="draw the result and score your guess"
        )
        self.reveal_button.on_click(lambda _b: self.reveal())
        self.box = W.HBox([guess, self.reveal_button])
        self.box.add_class("kml-predict")
        self._inner = ex._update
        ex._update = self._update

    # -- the scenario ----------------------------------------------------------------------
    def key(self):
        if callable(self.watch):
            return self.watch(self.ex)
        return tuple(self.ex.controls[n].value for n in self.watch)

    @property
    def shown(self) -> bool:
        return self.revealed_key is not None and self.revealed_key == self.key()

    def artists(self) -> list:
        return list(self.hide(self.ex) if callable(self.hide) else self.hide)

    def _update(self, ex) -> None:
        self._inner(ex)
        shown = self.shown
        for a in self.artists():
            if a.get_visible() != shown:
                a.set_visible(shown)
        self.guess.disabled = shown
        self.reveal_button.disabled = shown
        ex.state["predictions"] = {"right": self.right, "total": self.total}
        if shown:
            ex.set_readout(f"{self.verdict}<br>{ex.state.get('readout', '')}")
        else:
            ex.state["result_readout"] = ex.state.get("readout", "")
            ex.set_readout(
                f"<b>Predict first:</b> {html.escape(self.question)} Set your guess, "
                f"then press <i>Reveal</i>. &nbsp; Score so far: "
                f"{self.right}/{self.total}"
            )

    # -- the button ------------------------------------------------------------------------
    def reveal(self) -> None:
        """Score the current guess (once per scenario) and draw the result."""
        if self.shown:
            return
        answer = self.answer(self.ex)
        right, text = self.score(self.guess.value, answer)
        self.right += int(right)
        self.total += 1
        mark = "✔ right" if right else "✘ not quite"
        self.verdict = f"<b>{mark}</b>: {html.escape(text)}. &nbsp; Score: {self.right}/{self.total}"
        self.ex.state["prediction"] = {"guess": self.guess.value, "answer": answer, "right": right}
        self.revealed_key = self.key()
        self.ex.refresh()


def predict_mode(
    ex,
    guess: W.Widget,
    answer: Callable,
    hide: Callable | Sequence,
    question: str,
    score: Score | None = None,
    watch: Sequence[str] | None = None,
):
    """Turn a built explorer into a guess-then-see exercise; returns ``ex``.

    Parameters
    ----------
    guess : ipywidgets control with a ``value`` (Dropdown, ToggleButtons, slider)
        Where the student sets the guess; shown with the *Reveal* button under the controls.
    answer : callable(explorer) -> value
        The right answer for the current scenario (read from ``ex.state`` after an update).
    hide : artists, or callable(explorer) -> artists
        What stays hidden until the reveal (the drawn result).
    question : str
        The question the readout asks while the result is hidden.
    score : callable(guess, answer) -> (right, text), optional
        :func:`exact` (the default) or :func:`within`.
    watch : control names, or callable(explorer) -> hashable, optional
        The controls that make a new scenario (default: all those with a value), or a
        function of the explorer whose value names the scenario (e.g. the data's bytes).
    """
    if not isinstance(guess, W.ValueWidget):
        raise ValueError("guess must be an ipywidgets control with a value")
    if not callable(answer):
        raise ValueError("answer must be callable(explorer)")
    if watch is None:
        watch = [n for n, c in ex.controls.items() if isinstance(c, W.ValueWidget)]
    if not callable(watch):
        watch = list(watch)
        unknown = [n for n in watch if n not in ex.controls]
        if unknown:
            raise ValueError(f"watch names unknown controls: {unknown}")
    p = Prediction(ex, guess, answer, hide, score or exact(), watch, question)
    ex.predict = p
    kids = list(ex.children)
    kids.insert(kids.index(ex.readout), p.box)
    ex.children = tuple(kids)
    # one frame with the result drawn before the first real one: the blitter learns which
    # background artists the result overlaps while the widget is built, not on the first
    # Reveal (chapter 05's first Reveal was a full redraw: 85 ms in the kernel, 146 ms to
    # the browser's image; later ones 6-11 ms). Nothing is shown: the cell has not returned.
    p.revealed_key = p.key()
    ex.refresh()
    p.revealed_key = None
    ex.refresh()
    return ex
