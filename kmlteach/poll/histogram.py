"""The instructor's side of the class poll: ``open``, ``close``, ``show`` and ``results``.

``show(id)`` is a live histogram of the class's first answers (a widget, made to be read
from the back of a lecture hall on a RISE slide): one bar per option, with the count and
the share, redrawn within half a second of a change on the service; the right answer
stays unmarked until the instructor presses *Reveal answer* (then its bar turns green and
is ticked, the others grey). *Open round* / *Close round* start and stop a round, like
:func:`open` and :func:`close`; a new round starts with no answers (a second vote after a
discussion), and only a student's first answer in their kernel is ever posted.

For a concept check or recap question the options, their texts and the right answer come
from the question's record; for a prediction (``NN.p_name``) the bars are the guesses the
class made (of the prediction's declared kind: the service takes no other) and none is
marked right: each student may have predicted for a setting of their own, and a kernel's
own verdict cannot be checked, so the service does not keep it. Reading a poll needs membership of the hub's instructors' group: a student's
``show`` reports that and shows nothing.
"""

from __future__ import annotations

import html
import threading
import time

import ipywidgets as W

from ..classroom.hub import ClassroomError, call, configured
from ..exercises import question
from ..exercises.model import LETTERS
from ..exercises.output import say
from ..plots import OKABE_ITO

__all__ = ["PollView", "open", "close", "show", "results"]

EMPTY = {"round": 0, "open": False, "n": 0, "counts": {}, "version": 0}


def _request(method: str, path: str) -> dict:
    if not configured():
        raise ClassroomError(
            "the class poll runs on the course's hub (or set KMLTEACH_CLASSROOM_URL and "
            "KMLTEACH_CLASSROOM_TOKEN to the hub's classroom service and a hub token)"
        )
    code, reply = call(method, path, timeout=5.0)
    if code == 403:
        raise ClassroomError("only members of the hub's instructors group can run or read a poll")
    if code != 200:
        raise ClassroomError(f"the classroom service answered HTTP {code}: {reply.get('error', '')}".strip())
    return {**EMPTY, **reply}


def _check_id(poll_id) -> str:
    if not (isinstance(poll_id, str) and poll_id[:2].isdigit() and poll_id[2:3] == "." and len(poll_id) > 3):
        raise ValueError(f"poll_id must look like '01.c_support' or '01.p_support', got {poll_id!r}")
    return poll_id


def results(poll_id: str) -> dict:
    """The poll's current round: ``round``, ``open``, ``n`` and ``counts`` (label → answers).
    Instructors only."""
    return _request("GET", f"polls/{_check_id(poll_id)}")


def open(poll_id: str) -> None:  # noqa: A001  (the course's name for it: kmlteach.poll.open)
    """Open a round of poll ``poll_id`` (a new one, with no answers, unless one is open):
    from now on each student's first answer to it is counted. Says in one line why not
    (off the hub, not an instructor) instead of raising."""
    try:
        r = _request("POST", f"polls/{_check_id(poll_id)}/open")
    except ClassroomError as exc:  # on a slide: one line, not a traceback
        say(f"\u26a0 poll {poll_id} not opened: {exc}")
        return
    say(f"Poll {poll_id}: round {r['round']} is open ({r['n']} answers so far).")


def close(poll_id: str) -> None:
    """Close the round of poll ``poll_id``: later answers are not counted."""
    try:
        r = _request("POST", f"polls/{_check_id(poll_id)}/close")
    except ClassroomError as exc:
        say(f"\u26a0 poll {poll_id} not closed: {exc}")
        return
    say(f"Poll {poll_id}: round {r['round']} is closed with {r['n']} answers.")


class PollView(W.VBox):
    """The live histogram of :func:`show` (``.data``: the last reply of the service;
    ``.revealed``: whether the right answer is marked; ``.updated``: when the bars last
    changed, ``time.monotonic()``)."""

    def __init__(self, poll_id: str, interval: float = 0.5, fetch=None, max_minutes: float = 240):
        self.poll_id = _check_id(poll_id)
        self.q = question(poll_id)
        self.interval, self.fetch = interval, fetch or (lambda: results(self.poll_id))
        self.data, self.revealed, self.updated, self.error = dict(EMPTY), False, None, ""
        self.title = W.HTML(self._title())
        self.bars = W.HTML(self._bars())
        self.status = W.HTML("")
        self.toggle = W.Button(
            description="Open round", button_style="success", tooltip="start counting answers"
        )
        self.reveal_button = W.Button(
            description="Reveal answer", button_style="info", tooltip="mark the right answer"
        )
        self.toggle.on_click(lambda _b: self._toggle())
        self.reveal_button.on_click(lambda _b: self.reveal(not self.revealed))
        controls = W.HBox(
            [self.toggle, self.reveal_button, self.status], layout=W.Layout(align_items="center")
        )
        super().__init__([self.title, self.bars, controls], layout=W.Layout(width="100%", max_width="1100px"))
        self.add_class("kml-poll")
        self._stop = threading.Event()
        self._deadline = time.monotonic() + 60 * max_minutes
        self.refresh()
        self._thread = None
        if fetch is not None or configured():  # off the hub: the message, no thread polling nothing
            self._thread = threading.Thread(target=self._loop, name=f"kmlteach-poll-{poll_id}", daemon=True)
            self._thread.start()

    # -- data -------------------------------------------------------------------------------
    def refresh(self) -> bool:
        """Fetch the poll once; redraw when it changed. True when it did."""
        try:
            data = self.fetch()
            error = ""
        except ClassroomError as exc:
            data, error = self.data, str(exc)
        changed = error != self.error or any(
            data.get(k) != self.data.get(k) for k in ("round", "open", "version")
        )
        self.data, self.error = data, error
        if changed:
            self.bars.value = self._bars()
            self.status.value = self._status()
            self.toggle.description = "Close round" if data.get("open") else "Open round"
            self.toggle.button_style = "warning" if data.get("open") else "success"
            self.updated = time.monotonic()
        return changed

    def _loop(self) -> None:
        while not self._stop.wait(self.interval) and time.monotonic() < self._deadline:
            try:
                self.refresh()
            except Exception as exc:  # never let the thread die silently on a bug: say it
                self.status.value = f"<span style='color:#D55E00'>{html.escape(type(exc).__name__)}</span>"

    def close(self) -> None:
        stop = getattr(self, "_stop", None)  # (absent when __init__ refused its arguments)
        if stop is not None:
            stop.set()
        super().close()

    def _toggle(self) -> None:
        try:
            self.data = _request(
                "POST", f"polls/{self.poll_id}/{'close' if self.data.get('open') else 'open'}"
            )
            self.error = ""
        except ClassroomError as exc:
            self.error = str(exc)
        self.data["version"] = -1  # redraw now
        self.refresh()

    def reveal(self, on: bool = True) -> None:
        """Mark the right answer (or hide it again)."""
        self.revealed = bool(on)
        self.reveal_button.description = "Hide answer" if self.revealed else "Reveal answer"
        self.bars.value = self._bars()
        self.updated = time.monotonic()

    # -- drawing ----------------------------------------------------------------------------
    def _title(self) -> str:
        q = self.q
        what = "Prediction" if self.poll_id.split(".", 1)[1].startswith("p_") else "Question"
        prompt = (
            f"<div style='font-size:1.45em;line-height:1.35;margin-top:.2em'>{html.escape(q.prompt)}</div>"
            if q
            else ""
        )
        return (
            f"<div style='margin-bottom:.5em'><b style='font-size:1.5em'>Class poll</b> "
            f"<span style='color:#555;font-size:1.1em'>{what} {html.escape(self.poll_id)}</span>{prompt}</div>"
        )

    def rows(self) -> list[tuple[str, str, int, bool]]:
        """``(label, text, count, right)`` per bar, in the order shown."""
        counts = self.data.get("counts", {})
        q = self.q
        if q is not None and not q.numeric:
            right = set(q.answers())
            rows = [
                (LETTERS[i], c, int(counts.get(LETTERS[i], 0)), i in right) for i, c in enumerate(q.choices)
            ]
            rest = [k for k in counts if k not in LETTERS[: len(q.choices)]]
            return rows + [(k, "", int(counts[k]), False) for k in sorted(rest)]
        if q is not None:  # numeric: by value

            def value(k):
                try:
                    return (0, float(k))
                except ValueError:
                    return (1, 0.0)

            def ok(k):
                try:
                    return q.is_right(float(k))
                except ValueError:
                    return False

            return [(k, "", int(counts[k]), ok(k)) for k in sorted(counts, key=value)]
        order = sorted(counts, key=lambda k: (-int(counts[k]), k))
        return [(k, "", int(counts[k]), False) for k in order]  # a prediction: no verdict shown

    def _bars(self) -> str:
        rows = self.rows()
        n = sum(c for _, _, c, _ in rows)
        if not rows:
            return "<div style='font-size:1.4em;color:#555;padding:.6em 0'>No answers yet.</div>"
        top = max(c for _, _, c, _ in rows) or 1
        shares = _percentages([c for _, _, c, _ in rows])
        out = ["<div style='font-size:1.4em'>"]
        for (label, text, count, right), pct in zip(rows, shares):
            colour = OKABE_ITO["blue"]
            mark = ""
            if self.revealed:
                colour = OKABE_ITO["green"] if right else "#C8C8C8"
                mark = " <b style='color:#007A5A'>&#10003; right</b>" if right else ""
            share = f"{pct}%" if n else "–"
            caption = f"<b>{html.escape(label)}</b>" + (f") {html.escape(text)}" if text else "")
            width = 100 * count / top
            out.append(
                "<div style='display:flex;align-items:center;margin:.25em 0'>"
                f"<div style='flex:0 0 38%;padding-right:.6em;line-height:1.2'>{caption}{mark}</div>"
                "<div style='flex:1 1 auto;background:#F2F2F2;height:1.6em;border-radius:3px'>"
                f"<div style='width:{width:.1f}%;height:100%;background:{colour};border-radius:3px'></div></div>"
                f"<div style='flex:0 0 6.5em;text-align:right;font-variant-numeric:tabular-nums'>"
                f"{count} &middot; {share}</div></div>"
            )
        out.append("</div>")
        return "".join(out)

    def _status(self) -> str:
        d = self.data
        if self.error:
            return f"<span style='color:#D55E00;margin-left:1em'>{html.escape(self.error)}</span>"
        if not d.get("round"):
            state = "not opened yet"
        else:
            state = f"round {d['round']} &middot; {'<b>open</b>' if d.get('open') else 'closed'}"
        n = d.get("n", 0)
        return f"<span style='margin-left:1em;font-size:1.3em'>{state} &middot; {n} answer{'s' if n != 1 else ''}</span>"


def _percentages(counts: list[int]) -> list[int]:
    """Whole percentages of ``counts`` that add up to 100 (largest remainders first)."""
    n = sum(counts)
    if not n:
        return [0] * len(counts)
    exact = [100 * c / n for c in counts]
    out = [int(x) for x in exact]
    for i in sorted(range(len(counts)), key=lambda i: out[i] - exact[i])[: 100 - sum(out)]:
        out[i] += 1
    return out


def show(poll_id: str, interval: float = 0.5) -> PollView:
    """A live histogram of poll ``poll_id`` for the projector (instructors only); see
    :class:`PollView`. It keeps updating every ``interval`` seconds for four hours."""
    return PollView(poll_id, interval=interval)
