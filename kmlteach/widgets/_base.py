"""Shared machinery for the course's widgets.

The figure of a widget is a ``matplotlib.figure.Figure`` rendered to PNG into an
``ipywidgets.Image``. Callbacks update artists (``set_data``, ``set_offsets``, ...)
and the explorer re-renders; nothing is re-plotted from scratch. This works in
every front end that renders ipywidgets (JupyterLab, Notebook 7, VS Code, Binder)
without a matplotlib widget backend, and the PNG bytes give tests and the browser
test a direct way to see that the figure changed.

Rendering is blitted (:mod:`kmlteach._render`): the layout is frozen after the
first draw, the artists an update touches are found from their ``stale`` flags and
only they are repainted over a stored background. :meth:`Explorer.full_png` draws
the same state from scratch (tests compare the two).

Coalescing: a slider with ``continuous_update=True`` sends values while it is
dragged, but the ipywidgets front end keeps at most one state message per widget in
flight and merges the values that arrive meanwhile into a single newer one, so the
kernel only ever sees the latest value. Mouse drags (:mod:`kmlteach.widgets._drag`)
are throttled by ipyevents and coalesced in the kernel.

The figure goes out first: while ``update`` and the render run, the state messages of
the controls and the readout are held (``hold_sync``) and sent after the image. The
browser handles the kernel's messages one at a time, in order, and re-lays out a slider
or the readout for each; sent first, they kept JupyterLab busy while the figure waited
behind them (and, on two cores, took the CPU from the render). A float value that the
browser sends back only to round it to its slider's grid (``0.65`` comes back as
``0.6499999999999999``) changes nothing on screen and is not redrawn.
"""

from __future__ import annotations

import contextlib
import io
import math
import time
from collections.abc import Callable
from typing import Any

import ipywidgets as W

from .._render import Blitter


def png_bytes(fig, dpi: int = 100) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


STALE_NOTE_CLASS = "kml-widget-note"
"""The class of the note shown under an explorer whose live widget is gone (see
:meth:`Explorer._ipython_display_`); the site and the slides drop outputs carrying it."""

# A reopened notebook keeps a widget's output but not its model: JupyterLab then writes
# "Error displaying widget: model not found" and nothing else. So the explorer's output is
# followed by this note, which CSS hides while the explorer right above it is alive (its view
# carries the class kml-explorer); the stale case shows it. (Where the <style> is not
# applied, e.g. in an untrusted notebook, the note always shows: it stays true.)
STALE_NOTE_HTML = (
    f'<div class="{STALE_NOTE_CLASS}" style="color:#555;font-size:90%">'
    "&#9654; No interactive figure here? Run this cell (Shift+Enter) to get it back: "
    "a notebook opened again keeps the cell's output, not the live widget.</div>"
    f"<style>.jp-OutputArea-child:has(.kml-explorer) + .jp-OutputArea-child .{STALE_NOTE_CLASS}"
    "{display:none}</style>"
)


class Explorer(W.VBox):
    """A VBox holding controls, a readout and a rendered figure.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    controls : dict[str, ipywidgets.Widget]
        Named controls; each one's ``value`` change calls ``update``.
    update : callable(explorer) -> None
        Recomputes ``explorer.state``, updates artists and the readout text.
    layout_rows : list of lists of control names, optional
        How to arrange the controls (default: one row of all of them).
    per_row : int, optional
        Without ``layout_rows``: rows of this many controls, in the order of ``controls``.
    """

    def __init__(
        self,
        fig,
        controls: dict[str, W.Widget],
        update: Callable[[Explorer], None],
        layout_rows: list[list[str]] | None = None,
        dpi: int = 100,
        title: str | None = None,
        css_class: str | None = None,
        per_row: int | None = None,
    ):
        self.fig = fig
        self.controls = controls
        self.state: dict[str, Any] = {}
        self.dpi = dpi
        self.blitter = Blitter(fig, dpi)
        self._update = update
        # show the PNG at its natural size (the figure's inches × dpi), shrinking only on
        # narrow screens; stretching it to the cell width made small figures huge
        natural = int(round(fig.get_figwidth() * dpi))
        self.image = W.Image(
            format="png", layout=W.Layout(width=f"{natural}px", max_width="100%", height="auto")
        )
        self.readout = W.HTML(value="", layout=W.Layout(margin="0 0 0 8px"))
        self.readout.add_class("kml-readout")
        self.image.add_class("kml-figure")
        names = list(controls)
        step = per_row or len(names) or 1
        rows = layout_rows or [names[i : i + step] for i in range(0, len(names), step)] or [[]]
        boxes = [W.HBox([controls[n] for n in row]) for row in rows]
        children = ([W.HTML(f"<b>{title}</b>")] if title else []) + boxes + [self.readout, self.image]
        super().__init__(children=children)
        self.add_class("kml-explorer")
        if css_class:
            self.add_class(css_class)
        self._busy = False
        for c in controls.values():
            if hasattr(c, "value"):
                c.observe(self._on_change, names="value")
            elif isinstance(c, W.Button):
                pass  # buttons wire their own on_click
        self._update(self)
        self._prime()

    def _ipython_display_(self, **kwargs) -> None:
        """Show the widget, then the note for a reopened notebook (:data:`STALE_NOTE_HTML`),
        a separate output that CSS hides while the widget above it is alive."""
        from IPython.display import display

        display(self._repr_mimebundle_(**kwargs), raw=True)
        display({"text/html": STALE_NOTE_HTML}, raw=True)

    def _prime(self) -> None:
        """Run ``update`` once more on the same values, so that the artists it touches are
        known (and blitted) from the first draw on."""
        self.blitter.prime(lambda: self._update(self))
        self.render()

    def _on_change(self, change=None) -> None:
        if self._busy or _float_noise(change):
            return
        self.refresh()

    def _held_sync(self) -> contextlib.ExitStack:
        """Hold the controls' and the readout's state messages until the block ends (the
        figure, set inside it, is sent first)."""
        stack = contextlib.ExitStack()
        for w in (*self.controls.values(), self.readout):
            if isinstance(w, W.Widget):
                stack.enter_context(w.hold_sync())
        return stack

    def hold(self):
        """Context manager: change several controls, redraw once at the end."""
        explorer = self

        class _Hold:
            def __enter__(self_inner):
                explorer._busy = True
                self_inner.held = explorer._held_sync()
                return explorer

            def __exit__(self_inner, *exc):
                with self_inner.held:
                    explorer._busy = False
                    explorer.refresh()
                return False

        return _Hold()

    def refresh(self) -> None:
        with self._held_sync():  # the figure's message goes out first
            t0 = time.perf_counter()
            self._update(self)
            t1 = time.perf_counter()
            self.render()
            self.timings = {
                "update": t1 - t0,
                "render": time.perf_counter() - t1,
                "full": self.blitter.last_was_full,
            }

    def render(self) -> None:
        """Put the PNG of the current figure (blitted) on the image widget."""
        self.image.value = self.blitter.render()

    def full_png(self) -> bytes:
        """PNG of a full redraw of the current state (the reference for the blitted image)."""
        return self.blitter.full_png()

    def fix_readout_height(self, lines: int) -> None:
        """Give the readout a fixed height of ``lines`` lines (scrolling if a long text wraps
        further), so the figure below it stays where it is whatever the readout says: a
        figure that moved under a drag put the dragged point below the pointer."""
        # ipywidgets lays an HTML widget's lines out at its inline height (28 px in JupyterLab)
        self.readout.layout.height = f"calc(var(--jp-widgets-inline-height, 28px) * {int(lines)} + 4px)"
        self.readout.layout.overflow = "hidden auto"

    def set_readout(self, html: str) -> None:
        self.readout.value = html
        self.state["readout"] = html


def number(v: float, spec: str = ".3f") -> str:
    """``format(v, spec)`` without a negative zero: a value that rounds to 0 prints as 0
    (``-0.0001`` with ``".3f"`` is ``"0.000"``, not ``"-0.000"``; ``"+.3f"`` gives ``"+0.000"``)."""
    text = format(v, spec)
    if text.lstrip("+-").strip("0.") == "" and text.startswith("-"):
        text = format(0.0, spec)
    return text


def nowrap(*phrases: str, sep: str = " &nbsp; ") -> str:
    """Readout HTML in which each phrase stays on one line: a line breaks only between
    phrases (``"calibration (2.27): c"`` / ``"= 4.000"`` was a break inside one)."""
    return sep.join(f'<span style="white-space: nowrap">{p}</span>' for p in phrases if p)


def plural(n: int, word: str, words: str | None = None) -> str:
    """``"1 update"``, ``"3 updates"`` (``words``: the plural when it is not ``word + "s"``)."""
    return f"{n} {word}" if n == 1 else f"{n} {words or word + 's'}"


def _float_noise(change) -> bool:
    """Whether a value change is only float rounding (a slider snapping to its grid)."""
    if not isinstance(change, dict):
        return False
    old, new = change.get("old"), change.get("new")
    if not all(isinstance(v, float) for v in (old, new)):
        return False
    return old != new and math.isclose(old, new, rel_tol=1e-9, abs_tol=1e-12)


def slider(
    description: str,
    value: float,
    min: float,
    max: float,
    step: float,
    log: bool = False,
    readout_format: str = ".3g",
    width: str = "320px",
    **kw,
) -> W.Widget:
    """A float slider with a readable label (log scale when ``log``; bounds are then exponents of 10)."""
    style = {"description_width": "initial"}
    layout = W.Layout(width=width)
    cls, extra = (W.FloatLogSlider, {"base": 10}) if log else (W.FloatSlider, {})
    return cls(
        value=value,
        min=min,
        max=max,
        step=step,
        description=description,
        readout_format=readout_format,
        continuous_update=True,
        style=style,
        layout=layout,
        **extra,
        **kw,
    )


def int_slider(
    description: str, value: int, min: int, max: int, step: int = 1, width: str = "320px", **kw
) -> W.IntSlider:
    return W.IntSlider(
        value=value,
        min=min,
        max=max,
        step=step,
        description=description,
        continuous_update=True,
        style={"description_width": "initial"},
        layout=W.Layout(width=width),
        **kw,
    )


def class_scatters(ax, X, y, s: float = 48) -> dict:
    """One scatter artist per binary class (-1, +1), styled as everywhere in the course.

    Returns ``{-1.0: PathCollection, 1.0: PathCollection}`` so callbacks can move points
    with ``set_offsets``.
    """
    from ..plots import binary_points

    return binary_points(ax, X, y, s=s, edgecolors="white", linewidths=0.6, zorder=3)


def data_or_example(first, second, example: Callable[[], tuple]) -> tuple:
    """A widget's data as two float arrays of its own (copies: a widget may move its points):
    ``first`` and ``second`` as given, or ``example()``'s pair when ``first`` is None."""
    import numpy as np

    if first is None:
        first, second = example()
    return np.array(first, dtype=float), np.array(second, dtype=float)
