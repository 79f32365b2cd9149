"""Prediction mode for an :class:`~kmlteach.widgets._base.Explorer`: guess, then see.

:func:`predict_mode` adds a *guess* control and a *Reveal* button to a built explorer.
Until the button is pressed the result artists are hidden (``set_visible(False)``: the
blitter repaints them like any changed artist) and the readout asks for a guess; pressing
it shows them, scores the guess against the answer the widget computed, and keeps a
running score in ``ex.state["predictions"]`` (``{"right": r, "total": t}``).

The rules that make the score mean something:

* **A guess is something the student entered.** Every guess control starts empty: no
  button pressed, no box ticked, no number typed (:class:`NumberGuess`, a text box with a
  placeholder; a slider is refused, because the value it starts at could never be entered
  as a guess: "0" typed into a box that already held 0 changed nothing).
* **A guess belongs to one setting (scenario).** Changing the setting — any watched
  control, a drag, *next ▶* — empties the guess control, so *Reveal* never scores an old
  guess against a new question, and an answer that stayed the same after a change is not a
  free point. (What makes a new setting is ``watch``: a change that leaves the question
  itself unchanged, such as a score moved without changing the order it gives, keeps the
  revealed result on screen.)
* **A guess is scored once.** After *Reveal* the guess is locked until the setting changes.
* **Reveal works at any moment.** It first brings the widget up to date with its controls
  (a value the browser sent back a moment later changes nothing: floats are compared
  rounded), then scores; without a guess for the current setting it says so and scores
  nothing.
* **The readout has a fixed height** (``readout_lines``), so the figure under it never moves
  when the text changes between the question and the verdict.

The first scored answer of each prediction (its ``item_id``, e.g. ``"01.p_support"``) goes
to the student's progress log (:func:`kmlteach.exercises.progress.record_first_attempt`).
Without ``predict_mode`` nothing of this exists: the widgets' default rendering is
untouched.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as W
import traitlets

from ..poll.answers import first_answer

__all__ = [
    "Prediction",
    "predict_mode",
    "exact",
    "within",
    "same_set",
    "choice_buttons",
    "ChoiceSet",
    "NumberGuess",
    "record_prediction",
]

Score = Callable[[Any, Any], "tuple[bool, str]"]
_CHOICES = (W.Dropdown, W.ToggleButtons, W.RadioButtons, W.Select)


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
    """A guess among ``options`` (toggle buttons ``button_width`` wide), starting at ``value``
    (``None``: no button pressed, the student picks one)."""
    return W.ToggleButtons(
        options=list(options),
        value=value,
        description=description,
        style={"button_width": button_width, "description_width": "initial"},
    )


class ChoiceSet(W.HBox, W.ValueWidget):
    """A set of choices as checkboxes: ``value`` is the tuple of the ticked options' values
    (in option order). ``options`` are values or ``(label, value)`` pairs; ``exclusive``
    names the values that stand alone (ticking one unticks the rest, e.g. "no change").

    ``slots``: room kept for this many options before the exclusive ones that end the list.
    With fewer (:meth:`set_options`), blank slots as wide as a box fill the gap, so the
    control keeps its width whatever the number of options: the exclusive options stay
    where they are, and the rows the control and its neighbours wrap onto — hence the
    figure under them — do not change. The checkboxes are reused by :meth:`set_options`
    (new labels, nothing ticked), not created again."""

    value = traitlets.Tuple()
    disabled = traitlets.Bool(False)

    def __init__(
        self,
        options,
        description: str = "",
        exclusive=(),
        box_width: str = "46px",
        slots: int | None = None,
    ):
        if slots is not None and not (isinstance(slots, int) and slots >= 0):
            raise ValueError(f"slots must be a whole number >= 0 or None, got {slots!r}")
        self._exclusive = set(exclusive)
        self._box_width = box_width
        self._slots = slots
        self._head = [W.Label(description, layout=W.Layout(margin="0 8px 0 0"))] if description else []
        self._syncing = False
        self._pool: list[W.Checkbox] = []
        self._blanks: list[W.Box] = []
        self.boxes: list[W.Checkbox] = []
        super().__init__(layout=W.Layout(flex_flow="row wrap", align_items="center"))
        self.set_options(options)
        self.observe(self._on_value, names="value")
        self.observe(self._on_disabled, names="disabled")

    def set_options(self, options) -> None:
        """New choices (the ticked ones that remain stay ticked)."""
        pairs = [o if isinstance(o, tuple) else (str(o), o) for o in options]
        self._values = [v for _label, v in pairs]
        while len(self._pool) < len(pairs):
            box = W.Checkbox(value=False, indent=False, layout=W.Layout(margin="0 6px 0 0"))
            box.observe(self._on_box, names="value")
            self._pool.append(box)
        kept = tuple(v for v in self.value if v in self._values)
        self._syncing = True
        try:
            for box, (label, v) in zip(self._pool, pairs):
                box.value = v in kept
                box.description = str(label)
                box.disabled = self.disabled
                box.layout.width = "auto" if v in self._exclusive else self._box_width
        finally:
            self._syncing = False
        self.boxes = self._pool[: len(pairs)]
        tail = len(pairs)  # where the exclusive options that end the list begin
        while tail and self._values[tail - 1] in self._exclusive:
            tail -= 1
        blanks = max(0, (self._slots or 0) - tail)
        while len(self._blanks) < blanks:
            # a box's width (the checkbox's layout) and margin, and nothing in it
            self._blanks.append(W.Box(layout=W.Layout(width=self._box_width, margin="0 6px 0 0")))
        self.children = tuple(self._head + self.boxes[:tail] + self._blanks[:blanks] + self.boxes[tail:])
        if kept != self.value:
            self.value = kept

    def _on_box(self, change) -> None:
        if self._syncing:
            return
        ticked = {v for v, b in zip(self._values, self.boxes) if b.value}
        just = self._values[self.boxes.index(change["owner"])]
        if change["new"]:
            if just in self._exclusive:
                ticked = {just}
            else:
                ticked -= self._exclusive
        self.value = tuple(v for v in self._values if v in ticked)

    def _on_value(self, change) -> None:
        chosen = set(change["new"])
        unknown = chosen - set(self._values)
        if unknown:
            raise ValueError(f"value names unknown options: {sorted(unknown, key=str)}")
        self._syncing = True
        try:
            for v, b in zip(self._values, self.boxes):
                if b.value != (v in chosen):
                    b.value = v in chosen
        finally:
            self._syncing = False

    def _on_disabled(self, change) -> None:
        for b in self.boxes:
            b.disabled = change["new"]


class NumberGuess(W.HBox, W.ValueWidget):
    """A number the student types: ``value`` is ``None`` until a number from ``min`` to
    ``max`` is entered (the box shows the range as a placeholder), then that number (an
    ``int`` when ``integer``). The text is read when the student presses Enter or leaves
    the box (a click on *Reveal* does). Anything else typed leaves no guess and says why in
    ``problem`` ("“abc” is not a number from 0 to 1"); ``","`` is read as a decimal point
    and a trailing ``"%"`` is allowed.

    Setting ``value`` (``None`` empties the box) shows it in the box."""

    value = traitlets.Any(None, allow_none=True)
    disabled = traitlets.Bool(False)
    problem = traitlets.Unicode("")

    def __init__(
        self,
        description: str,
        min: float,
        max: float,
        integer: bool = False,
        width: str = "90px",
    ):
        if not (math.isfinite(min) and math.isfinite(max) and min < max):
            raise ValueError(f"min and max must be finite with min < max, got {min!r}, {max!r}")
        self.min, self.max = (int(min), int(max)) if integer else (float(min), float(max))
        self.integer = integer
        self.range_text = f"{self.min:g} to {self.max:g}"
        self.text = W.Text(
            value="",
            placeholder=self.range_text,
            continuous_update=False,
            layout=W.Layout(width=width),
        )
        self.text.add_class("kml-guess-number")
        label = W.Label(description, layout=W.Layout(margin="0 6px 0 0"))
        super().__init__([label, self.text], layout=W.Layout(align_items="center", margin="0 8px 0 0"))
        self._syncing = False
        self.text.observe(self._on_text, names="value")
        self.observe(self._on_value, names="value")
        self.observe(self._on_disabled, names="disabled")

    def parse(self, text: str):
        """The number ``text`` names, or ``None`` and sets ``problem`` (empty text: no problem)."""
        t = text.strip().replace(",", ".").removesuffix("%").strip()
        self.problem = ""
        if not t:
            return None
        kind = "a whole number" if self.integer else "a number"
        try:
            v = float(t)
        except ValueError:
            v = math.nan
        if not math.isfinite(v) or (self.integer and v != round(v)) or not self.min <= v <= self.max:
            self.problem = f"“{text.strip()[:20]}” is not {kind} from {self.range_text}"
            return None
        return int(round(v)) if self.integer else v

    def _on_text(self, change) -> None:
        if self._syncing:
            return
        v = self.parse(change["new"])
        self._syncing = True
        try:
            self.value = v
        finally:
            self._syncing = False

    def _on_value(self, change) -> None:
        if self._syncing:
            return
        v = change["new"]
        if v is not None:
            if not (isinstance(v, (int, float)) and math.isfinite(v) and self.min <= v <= self.max):
                raise ValueError(f"value must be a number from {self.range_text} or None, got {v!r}")
            v = int(round(v)) if self.integer else float(v)
        self._syncing = True
        try:
            self.value = v
            self.problem = ""
            self.text.value = "" if v is None else f"{v:g}"
        finally:
            self._syncing = False

    def _on_disabled(self, change) -> None:
        self.text.disabled = change["new"]


def record_prediction(item_id: str, right: bool) -> None:
    """Put the first answer to prediction ``item_id`` in the student's progress log (only the
    first one per item is kept there). Never raises into a widget: without the exercises'
    progress module, or with a log that cannot be written, nothing is recorded."""
    try:
        from ..exercises import progress
    except ImportError:  # pragma: no cover - the widgets still work without it
        return
    try:
        progress.record_first_attempt("prediction", item_id, bool(right))
    except (OSError, ValueError):  # pragma: no cover - a log problem must not break the widget
        pass


def _canonical(v):
    """A control's value as a scenario key: floats rounded (a slider's value sent back by the
    browser, 0.6499999999999999 for 0.65, is the same setting)."""
    if isinstance(v, float) and math.isfinite(v):
        return round(v, 9)
    if isinstance(v, (tuple, list)):
        return tuple(_canonical(x) for x in v)
    return v


@dataclass(eq=False, repr=False)
class Prediction:
    """The prediction state of one explorer (``ex.predict``); see :func:`predict_mode`."""

    ex: Any
    guess: W.Widget
    answer: Callable
    hide: Callable | Sequence
    score: Score
    watch: Sequence[str] | Callable
    question: str | Callable
    item_id: str | None = None
    next_scenario: Callable | None = None
    revealed_key: Any = None
    guess_key: Any = None
    verdict: str = ""
    notice: str = ""
    right: int = 0
    total: int = 0

    def __post_init__(self) -> None:
        ex, guess = self.ex, self.guess
        self.reveal_button = W.Button(
            description="Reveal", button_style="info", tooltip="draw the result and score your guess"
        )
        self.reveal_button.on_click(lambda _b: self.reveal())
        parts = [guess, self.reveal_button]
        self.next_button = None
        if self.next_scenario is not None:
            self.next_button = W.Button(
                description="next question ▶", tooltip="a new setting to predict", disabled=True
            )
            self.next_button.on_click(lambda _b: self.next())
            parts.append(self.next_button)
        self.box = W.HBox(parts, layout=W.Layout(flex_flow="row wrap", align_items="center"))
        self.box.add_class("kml-predict")
        self._inner = ex._update
        ex._update = self._update
        self._clearing = False
        self.scenario = None
        guess.observe(self._on_guess, names="value")
        if isinstance(guess, NumberGuess):
            guess.observe(self._on_problem, names="problem")

    # -- the scenario ----------------------------------------------------------------------
    def key(self):
        if callable(self.watch):
            return _canonical(self.watch(self.ex))
        return tuple(_canonical(self.ex.controls[n].value) for n in self.watch)

    @property
    def shown(self) -> bool:
        return self.revealed_key is not None and self.revealed_key == self.key()

    @property
    def has_guess(self) -> bool:
        """Whether the student set a guess for the current setting."""
        return self.guess_key is not None and self.guess_key == self.scenario

    def artists(self) -> list:
        return list(self.hide(self.ex) if callable(self.hide) else self.hide)

    def _clear_guess(self) -> None:
        """Empty the guess control (no box ticked, no button pressed, no number typed): a
        guess is an answer to one setting only."""
        g = self.guess
        self._clearing = True
        try:
            g.value = () if isinstance(g.value, tuple) else None
        finally:
            self._clearing = False
        self.guess_key = None

    def _on_guess(self, change) -> None:
        if self._clearing:
            return
        empty = change["new"] is None or (isinstance(change["new"], tuple) and not change["new"])
        self.guess_key = None if empty else self.scenario
        if self.notice and not empty:  # "no guess yet" is no longer true: say so at once
            self.notice = ""
            self.ex.refresh()

    def _on_problem(self, change) -> None:
        """A number guess that could not be read: the readout says why (no guess is set)."""
        if self._clearing or change["new"] == self.notice:
            return
        self.notice = change["new"] + ": no guess yet." if change["new"] else ""
        self.ex.refresh()

    def _question(self) -> str:
        q = self.question(self.ex) if callable(self.question) else self.question
        return html.escape(q)

    def _how(self) -> str:
        """How to answer with this guess control."""
        if isinstance(self.guess, ChoiceSet):
            return "Tick every box that applies"
        if isinstance(self.guess, NumberGuess):
            return f"Type a number from {self.guess.range_text}"
        return "Pick your answer"

    def _update(self, ex) -> None:
        self._inner(ex)
        key = self.key()
        if key != self.scenario:  # a new setting: the old guess is not an answer to it
            self.scenario = key
            self.notice = ""
            self._clear_guess()
        shown = self.shown
        for a in self.artists():
            if a.get_visible() != shown:
                a.set_visible(shown)
        self.guess.disabled = shown
        self.reveal_button.disabled = shown
        if self.next_button is not None:
            self.next_button.disabled = not shown
        ex.state["predictions"] = {"right": self.right, "total": self.total}
        if shown:
            ex.set_readout(f"{self.verdict}<br>{ex.state.get('readout', '')}")
        else:
            ex.state["result_readout"] = ex.state.get("readout", "")
            ask = f"<b>Predict first:</b> {self._question()} {self._how()}, then press <i>Reveal</i>."
            if self.notice:
                ask = f"<b>{self.notice}</b> {ask}"
            ex.set_readout(f"{ask}<br>Score so far: {self.right}/{self.total}")

    # -- the buttons -----------------------------------------------------------------------
    def reveal(self) -> None:
        """Score the current guess (once, and only for the current setting) and draw the result."""
        self.ex.refresh()  # up to date with the controls: the setting is what they show now
        if self.shown:
            return
        if not self.has_guess:
            problem = getattr(self.guess, "problem", "")  # a number typed that cannot be read
            self.notice = (
                problem + ": no guess yet."
                if problem
                else "No guess for this setting yet (one set before it changed does not count)."
            )
            self.ex.refresh()
            return
        answer = self.answer(self.ex)
        right, text = self.score(self.guess.value, answer)
        first = self.total == 0
        self.right += int(right)
        self.total += 1
        mark = "✔ right" if right else "✘ not quite"
        self.verdict = f"<b>{mark}</b>: {html.escape(text)}. &nbsp; Score: {self.right}/{self.total}"
        self.ex.state["prediction"] = {"guess": self.guess.value, "answer": answer, "right": right}
        self.revealed_key = self.key()
        self.notice = ""
        if first and self.item_id:
            record_prediction(self.item_id, right)
            first_answer(self.item_id, self.guess.value, right)  # the class poll, on the hub only
        self.ex.refresh()

    def next(self) -> None:
        """A new setting to predict (offered after a Reveal)."""
        if self.next_scenario is not None:
            self.next_scenario(self.ex)


def predict_mode(
    ex,
    guess: W.Widget,
    answer: Callable,
    hide: Callable | Sequence,
    question: str | Callable,
    score: Score | None = None,
    watch: Sequence[str] | Callable | None = None,
    item_id: str | None = None,
    next_scenario: Callable | None = None,
    readout_lines: int = 4,
):
    """Turn a built explorer into a guess-then-see exercise; returns ``ex``.

    Parameters
    ----------
    guess : :class:`NumberGuess`, :class:`ChoiceSet`, or a Dropdown, ToggleButtons, RadioButtons or Select
        Where the student sets the guess; shown with the *Reveal* button under the controls.
        It must start empty (``value=None`` for buttons and lists, ``()`` for a
        :class:`ChoiceSet`): a guess is always something the student entered. A slider is
        refused: it always shows a value, and its starting value could not be entered.
    answer : callable(explorer) -> value
        The right answer for the current scenario (read from ``ex.state`` after an update).
    hide : artists, or callable(explorer) -> artists
        What stays hidden until the reveal (the drawn result).
    question : str, or callable(explorer) -> str
        The question the readout asks while the result is hidden.
    score : callable(guess, answer) -> (right, text), optional
        :func:`exact` (the default) or :func:`within`.
    watch : control names, or callable(explorer) -> hashable, optional
        The controls that make a new scenario (default: all those with a value), or a
        function of the explorer whose value names the scenario (e.g. the data's bytes).
    item_id : str, optional
        The prediction's id in the progress log (``"NN.p_name"``); its first answer is recorded.
    next_scenario : callable(explorer), optional
        Sets up a new scenario; offered as a *next question ▶* button after each Reveal.
    readout_lines : int
        The readout's fixed height in lines (the question, or the verdict over the widget's
        own readout), so the figure below it never moves.
    """
    if not isinstance(guess, (NumberGuess, ChoiceSet, *_CHOICES)):
        raise ValueError(
            "guess must be a NumberGuess, a ChoiceSet, or a Dropdown, ToggleButtons, RadioButtons "
            f"or Select (a guess the student enters; a slider's start could not be), got {type(guess).__name__}"
        )
    if guess.value not in (None, ()):
        raise ValueError(f"guess must start empty (nothing preselected), got {guess.value!r}")
    if not callable(answer):
        raise ValueError("answer must be callable(explorer)")
    if item_id is not None and not (
        isinstance(item_id, str) and item_id[:2].isdigit() and item_id[2:3] == "."
    ):
        raise ValueError(f"item_id must look like 'NN.p_name', got {item_id!r}")
    if watch is None:
        watch = [n for n, c in ex.controls.items() if isinstance(c, W.ValueWidget)]
    if not callable(watch):
        watch = list(watch)
        unknown = [n for n in watch if n not in ex.controls]
        if unknown:
            raise ValueError(f"watch names unknown controls: {unknown}")
    p = Prediction(ex, guess, answer, hide, score or exact(), watch, question, item_id, next_scenario)
    ex.predict = p
    ex.fix_readout_height(readout_lines)
    kids = list(ex.children)
    kids.insert(kids.index(ex.readout), p.box)
    ex.children = tuple(kids)
    # one frame with the result drawn before the first real one: the blitter learns which
    # background artists the result overlaps while the widget is built, not on the first
    # Reveal (chapter 05's first Reveal was a full redraw: 85 ms in the kernel, 146 ms to
    # the browser's image; later ones 6-11 ms). Nothing is shown: the cell has not returned.
    p.scenario = p.key()
    p.revealed_key = p.scenario
    ex.refresh()
    p.revealed_key = None
    ex.refresh()
    return ex
