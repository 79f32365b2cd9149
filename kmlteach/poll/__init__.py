"""The class poll of a lecture on the course's hub (see ``docs/classroom.md``).

Students answer as they always do, with ``ask(id, choice)`` or a prediction explorer's
*Reveal*: on the hub the first answer of each is also counted, anonymously, in the poll of
that id (:mod:`.answers`). The instructor runs it from a notebook or a RISE slide::

    from kmlteach import poll
    poll.open("01.c_support")      # start counting
    poll.show("01.c_support")      # the live histogram; "Reveal answer" marks the right one
    poll.close("01.c_support")     # stop

Off the hub nothing is posted and these functions say where they work.
"""

from __future__ import annotations

__all__ = ["open", "close", "show", "results"]


def open(poll_id: str) -> None:  # noqa: A001  (the course's name: kmlteach.poll.open)
    """Open a round of the poll ``poll_id`` (``"01.c_support"``): see :func:`.histogram.open`."""
    from .histogram import open as _open

    _open(poll_id)


def close(poll_id: str) -> None:
    """Close the round of the poll ``poll_id``: see :func:`.histogram.close`."""
    from .histogram import close as _close

    _close(poll_id)


def show(poll_id: str, interval: float = 0.5):
    """The live histogram of the poll ``poll_id`` (a widget): see :func:`.histogram.show`."""
    from .histogram import show as _show

    return _show(poll_id, interval=interval)


def results(poll_id: str) -> dict:
    """The counts of the poll's current round: see :func:`.histogram.results`."""
    from .histogram import results as _results

    return _results(poll_id)
