"""Direct manipulation of a widget's figure: mouse presses, drags and releases.

`ipyevents <https://github.com/mwcraig/ipyevents>`_ on the explorer's ``Image`` sends
DOM mouse events to the kernel with ``dataX``/``dataY`` in the PNG's own pixels (y
pointing down, display scaling removed), which map to data coordinates through
``ax.transData.inverted()`` because the PNG is the canvas at the figure's dpi.

Moves are throttled in the browser (``wait`` ms) and coalesced in the kernel when it
falls behind. A move that reaches the kernel about as fast as the quickest one of the
drag (ipyevents sends the DOM event's ``timeStamp``; the offset between the browser's
clock and the kernel's is taken afresh at every press) is drawn at once. A move that
waited longer than ``STALE_MS`` in the kernel's queue only records the pointer, and the
redraw runs from the event loop, once for all the moves that arrived meanwhile, so a
slow update never builds a queue. Deferring every move instead cost 15-20 ms per move
in JupyterLab (the figure reached the browser that much later; input → figure on
screen 78-81 ms against 55-64 ms drawn at once, chapter 01's margin explorer, idle
2-core machine). Without a running event loop (tests, scripts) the redraw happens at
once.

The release is a position too: ipyevents' throttle sends the first move of each ``wait``
window and drops the rest, so in a fast drag the last moves before the button comes up
never reach the kernel (the walk of chapter 04 found the dragged centre 20-28 px short of
the release point in 2 of 3 fast drags). A release (or the pointer leaving the image)
away from the last position drawn is therefore applied as a final move. Tests drive gestures with
:meth:`Drag.handle` and dicts shaped like ipyevents' (``{"type": "mousedown",
"dataX": ..., "dataY": ...}``); :meth:`Drag.event` builds them from data coordinates.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["Drag"]

STALE_MS = 25.0  # a move that waited longer than this in the kernel's queue is coalesced


class Drag:
    """Mouse gestures on ``explorer.image``.

    Parameters
    ----------
    explorer : Explorer
    on_press : callable(event) -> token or None
        Called on mouse-down; a non-None token starts a drag.
    on_move : callable(token, event), optional
        Called with the latest pointer position while dragging (coalesced).
    on_release : callable(token, event), optional
        Called on mouse-up (or when the pointer leaves the image) after the last move.
    wait : int
        Browser-side throttle of mouse-move events, in milliseconds.
    """

    def __init__(
        self,
        explorer,
        on_press: Callable[[dict], Any],
        on_move: Callable[[Any, dict], None] | None = None,
        on_release: Callable[[Any, dict], None] | None = None,
        wait: int = 20,
    ):
        self.ex = explorer
        self.on_press, self.on_move, self.on_release = on_press, on_move, on_release
        self.token: Any = None
        self.pending: dict | None = None
        self.scheduled = False
        self.moves_seen = 0
        self.moves_drawn = 0
        self.offset: float | None = None  # quickest (kernel clock - event timeStamp) of the drag, ms
        self.last_xy: tuple[float, float] | None = None  # canvas position of the press or last move
        explorer.drag = self
        explorer.image.add_class("kml-draggable")
        try:
            from ipyevents import Event
        except ImportError:  # the widget still works with its controls
            self.events = []
            return
        buttons = Event(
            source=explorer.image,
            prevent_default_action=True,
            watched_events=["mousedown", "mouseup", "mouseleave"],
        )
        moves = Event(
            source=explorer.image,
            prevent_default_action=True,
            wait=wait,
            throttle_or_debounce="throttle",
            watched_events=["mousemove"],
        )
        buttons.on_dom_event(self.handle)
        moves.on_dom_event(self.handle)
        self.events = [buttons, moves]

    # -- coordinates ---------------------------------------------------------------------
    def canvas_xy(self, ev: dict) -> tuple[float, float]:
        """The event's position in the PNG's pixels (x right, y down).

        ipyevents computes ``dataX`` as ``relativeX / el.width * el.naturalWidth``; while
        the browser decodes a new PNG, ``naturalWidth`` is momentarily 0 and the event
        lands on pixel (0, 0), which made a dragged object jump to the figure's corner.
        The element's bounding box (sent with every event) is valid throughout, so the
        position is taken from it whenever it is there.
        """
        bw, bh = float(ev.get("boundingRectWidth") or 0), float(ev.get("boundingRectHeight") or 0)
        if "relativeX" in ev and bw > 0 and bh > 0:
            return (
                float(ev["relativeX"]) / bw * self.ex.fig.bbox.width,
                float(ev["relativeY"]) / bh * self.ex.fig.bbox.height,
            )
        return float(ev["dataX"]), float(ev["dataY"])

    def xy(self, ax, ev: dict) -> np.ndarray:
        """Data coordinates of the event in ``ax``."""
        x, y = self.canvas_xy(ev)
        return ax.transData.inverted().transform((x, self.ex.fig.bbox.height - y))

    def pixels(self, ax, pts) -> np.ndarray:
        """Display pixels (y up) of data points ``pts`` (n, 2) in ``ax``."""
        return ax.transData.transform(np.asarray(pts, dtype=float).reshape(-1, 2))

    def nearest(self, ax, pts, ev: dict, radius: float = 12.0) -> int | None:
        """Index of the point of ``pts`` closest to the event, if within ``radius`` pixels."""
        pts = np.asarray(pts, dtype=float).reshape(-1, 2)
        if not len(pts):
            return None
        x, y = self.canvas_xy(ev)
        d = np.hypot(*(self.pixels(ax, pts) - [x, self.ex.fig.bbox.height - y]).T)
        i = int(np.argmin(d))
        return i if d[i] <= radius else None

    def inside(self, ax, ev: dict) -> bool:
        x, y = self.canvas_xy(ev)
        return bool(ax.bbox.contains(x, self.ex.fig.bbox.height - y))

    def event(self, ax, x: float, y: float, type: str = "mousedown", **kw) -> dict:
        """An ipyevents-like event at data point (x, y) of ``ax`` (for tests)."""
        px, py = self.pixels(ax, [[x, y]])[0]
        return {"type": type, "dataX": float(px), "dataY": float(self.ex.fig.bbox.height - py), **kw}

    # -- dispatch ------------------------------------------------------------------------
    def _fresh(self, ev: dict) -> bool:
        """Whether ``ev`` reached the kernel within ``STALE_MS`` of the quickest event of
        this drag (False for events without a ``timeStamp``: they are coalesced)."""
        ts = ev.get("timeStamp")
        if not isinstance(ts, (int, float)) or not np.isfinite(ts):
            return False
        lag = time.monotonic() * 1000.0 - float(ts)
        if self.offset is None or lag < self.offset:
            self.offset = lag
        return lag - self.offset <= STALE_MS

    def handle(self, ev: dict) -> None:
        kind = ev.get("type")
        if kind == "mousedown":
            self.flush()
            self.offset = None
            self._fresh(ev)
            self.token = self.on_press(ev)
            self.last_xy = self._where(ev)
        elif kind == "mousemove":
            if self.token is None or self.on_move is None:
                return
            self.moves_seen += 1
            self.pending = ev
            if self._fresh(ev) and not self.scheduled:
                self.flush()
            else:
                self._schedule()
        elif kind in ("mouseup", "mouseleave"):
            # the release point is where the drag ends, even when the throttle dropped the
            # moves that led there (a click, released where it was pressed, moves nothing)
            if self.token is not None and self.on_move is not None:
                where = self._where(ev)
                if where is not None and where != self.last_xy:
                    self.pending = ev
            self.flush()
            if self.token is not None and self.on_release is not None:
                self.on_release(self.token, ev)
            self.token = None

    def _schedule(self) -> None:
        if self.scheduled:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush()
            return
        self.scheduled = True
        loop.call_soon(self.flush)

    def flush(self) -> None:
        """Apply the latest pending move (if any)."""
        self.scheduled = False
        ev, self.pending = self.pending, None
        if ev is not None and self.token is not None and self.on_move is not None:
            self.moves_drawn += 1
            self.last_xy = self._where(ev)
            self.on_move(self.token, ev)

    def _where(self, ev: dict) -> tuple[float, float] | None:
        """The event's canvas position, or None when it carries none."""
        try:
            return self.canvas_xy(ev)
        except (KeyError, TypeError, ValueError):
            return None
