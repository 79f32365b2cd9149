"""How ``check``, ``ask``, ``hint``, ``solution`` and ``progress`` talk to a student.

* :func:`say` prints a message wrapped at word boundaries, :data:`WIDTH` columns wide
  (JupyterLab breaks a long output line wherever the window ends, in the middle of a word),
  and never raises (a notebook may have replaced ``sys.stdout`` with anything);
* :class:`Result` is what ``check`` and ``ask`` return: true when the answer passed, with
  the item's ``id``, a ``status`` and the ``message`` printed. It displays as nothing in
  Jupyter, so a cell ending with ``check(...)`` shows the verdict once, with no
  ``Out[n]: True`` under it.
"""

from __future__ import annotations

import textwrap
from typing import Any

__all__ = ["WIDTH", "wrap", "say", "safe", "Result"]

WIDTH = 88
"""Columns of a printed line: what a JupyterLab output area shows unbroken beside the file
browser on a 1280-pixel screen."""


def wrap(text: str, width: int = WIDTH) -> str:
    """``text`` with every line longer than ``width`` broken at spaces; a continuation is
    indented two spaces more than its line. A word longer than a line stays whole."""
    out = []
    for line in str(text).split("\n"):
        lead = line[: len(line) - len(line.lstrip(" "))]
        if len(line) <= width:
            out.append(line)
            continue
        out.append(
            textwrap.fill(
                line.strip(" "),
                width=width,
                initial_indent=lead,
                subsequent_indent=lead + "  ",
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
    return "\n".join(out)


def say(text: str, *, wrapped: bool = True) -> None:
    """Print ``text`` (wrapped, unless ``wrapped=False``: code), unless the notebook broke
    ``sys.stdout``: a verdict must not raise."""
    try:
        print(wrap(text) if wrapped else text)
    except KeyboardInterrupt:
        raise
    except BaseException:
        pass


def safe(show, obj: Any) -> str:
    """``show(obj)``, or a placeholder when the student's object cannot be shown."""
    try:
        return str(show(obj))
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        return f"<cannot be shown: {type(exc).__name__}>"


class Result:
    """The outcome of ``check`` or ``ask``: ``bool(result)`` is whether it passed (or was
    right); ``id``, ``status`` (``"passed"``, ``"wrong"``, ``"right"``, ...) and
    ``message`` tell the rest. Jupyter shows nothing for it: the message is printed already."""

    __slots__ = ("id", "ok", "status", "message")

    def __init__(self, item_id: Any, ok: bool, status: str, message: str = ""):
        self.id, self.ok, self.status, self.message = item_id, bool(ok), status, message

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return f"Result(id={self.id!r}, ok={self.ok}, status={self.status!r})"

    def _ipython_display_(self) -> None:
        """Nothing to display: the verdict was printed when it was reached."""
