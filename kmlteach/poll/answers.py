"""A student's first answer to a concept check or a prediction, posted to the class poll.

``ask(id, choice)`` and a prediction explorer's first *Reveal* call :func:`first_answer`.
On the course's hub (:func:`kmlteach.classroom.hub.configured`) the kernel's first answer
to each poll id is posted, in the background, to the classroom service, which counts it
in the poll's open round without the student's name (the instructor sees counts only).
A later answer of the same kernel is never posted, so the poll shows what the class
thought before any feedback. When no round is open the service says so and the first
answer waits; it is posted when the student answers that question again (still the
first answer, not the new one). Off the hub nothing happens: no thread, no connection.

The student's own token identifies them to the service, which takes one answer per user
and round whatever a kernel sends, and only an answer the question can have
(:func:`poll_label`): one of a concept check's options, a number for a numeric question,
a guess of the prediction's declared kind (:data:`PREDICTIONS`). Whether an answer is
right is the service's business, never the kernel's: a question's right option comes from
its record, and a prediction's correctness is not shown at all (each student's setting
may differ, and what a kernel says about it cannot be checked).
"""

from __future__ import annotations

import math
import threading

from ..classroom.hub import ClassroomError, call, configured

__all__ = ["first_answer", "label", "flush", "status", "poll_label", "PREDICTIONS"]

_FIRST: dict[str, tuple[str, bool | None]] = {}  # poll id -> the first answer (label, right)
_DONE: set[str] = set()  # poll ids whose first answer the service took (or already had)
_STATUS: dict[str, str] = {}  # poll id -> "accepted", "duplicate", "closed", "error: ..."
_LOCK = threading.Lock()
_SENDER: dict[str, object] = {}


def label(answer) -> str | None:
    """An answer as the poll shows it: a letter or text as is, a number with 4
    significant digits, a set of indices as ``"1, 4, 7"`` (``"none"`` when empty)."""
    if answer is None:
        return None
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    if isinstance(answer, (int, float)):
        if isinstance(answer, float) and not math.isfinite(answer):
            return None
        text = f"{answer:.4g}"
        return "0" if text == "-0" else text
    if isinstance(answer, (tuple, list, set, frozenset)):
        try:
            items = sorted(answer)
        except TypeError:
            items = list(answer)
        return ", ".join(str(label(x)) for x in items) or "none"
    text = " ".join(str(answer).split())
    return text[:40] or None


# The guess each prediction's explorer takes (kmlteach/widgets: its guess widget):
# ("number", low, high) a number in [low, high] (None: unbounded), ("set",) ticked
# indices "1, 4, 7" or "none", ("choice", options) one of the buttons' labels.
PREDICTIONS: dict[str, tuple] = {
    "00.p_wrong_side": ("number", 0, 10_000),
    "01.p_support": ("set",),
    "02.p_accuracy": ("number", 0, 100),
    "03.p_component": ("choice", ("separates (≥ 95 %)", "partly (70–95 %)", "does not (< 70 %)")),
    "04.p_loser": ("choice", ("class 1", "class 2", "class 3", "none")),
    "05.p_path": ("set",),
    "06.p_kendall": ("number", 0, 1),
    "07.p_threshold": ("number", None, None),
    "08.p_stump": ("choice", ("+1 iff x₁ ≤ c", "+1 iff x₁ > c", "+1 iff x₂ ≤ c", "+1 iff x₂ > c")),
    "09.p_sv_fraction": ("number", 0, 1),
}
_MAX_SET = 30  # at most this many indices in a guessed set


def _number(text: str) -> float | None:
    try:
        x = float(text)
    except ValueError:
        return None
    return x if math.isfinite(x) and label(x) == text else None  # as label() writes numbers


def poll_label(poll_id: str, answer, question=None) -> str | None:
    """The bar that ``answer`` (a label sent to the poll ``poll_id``) counts in, or None
    when that question cannot have that answer: a concept check's or recap question's
    option letter (``"a"``..), a numeric question's number, a prediction's guess of its
    declared kind (:data:`PREDICTIONS`; a prediction not declared there takes none).
    ``question``: the look-up of a question by id (``kmlteach.exercises.question``, which
    the service passes: ``exercises.quiz`` imports this module, so it does not import the
    exercises package itself); without it no question's answer is taken."""
    if not isinstance(answer, str) or not isinstance(poll_id, str):
        return None
    text = " ".join(answer.split())
    kind = poll_id.split(".", 1)[1][:2] if "." in poll_id else ""
    if kind == "p_":
        spec = PREDICTIONS.get(poll_id)
        if spec is None:
            return None
        if spec[0] == "choice":
            return text if text in spec[1] else None
        if spec[0] == "set":
            if text == "none":
                return text
            items = text.split(", ")
            if len(items) > _MAX_SET or not all(
                i.isdigit() and len(i) <= 3 and i == str(int(i)) for i in items
            ):
                return None
            values = [int(i) for i in items]
            return text if values == sorted(set(values)) else None
        x = _number(text)
        lo, hi = spec[1], spec[2]
        if x is None or (lo is not None and x < lo) or (hi is not None and x > hi):
            return None
        return text
    from ..exercises.model import LETTERS

    q = question(poll_id) if question is not None else None
    if q is None:
        return None
    if q.numeric:
        return text if _number(text) is not None else None
    return text if text in LETTERS[: len(q.choices)] else None


def first_answer(poll_id: str, answer, right: bool | None = None) -> None:
    """Post the first answer of this kernel to ``poll_id`` to the class poll (on the hub;
    nothing elsewhere). Never raises and never waits for the network."""
    try:
        if not configured():
            return
        text = label(answer)
        if text is None or not isinstance(poll_id, str):
            return
        with _LOCK:
            if poll_id in _DONE:
                return
            _FIRST.setdefault(poll_id, (text, None if right is None else bool(right)))
        _start()
        _SENDER["queue"].put(poll_id)
    except Exception:  # the poll must never break a question
        pass


def _start() -> None:
    with _LOCK:
        if "thread" in _SENDER:
            return
        import queue

        _SENDER["queue"] = queue.Queue()
        t = threading.Thread(target=_send_loop, name="kmlteach-poll", daemon=True)
        _SENDER["thread"] = t
        t.start()


def _send_loop() -> None:
    q = _SENDER["queue"]
    while True:
        poll_id = q.get()
        try:
            _send(poll_id)
        finally:
            q.task_done()


def _send(poll_id: str) -> None:
    with _LOCK:
        if poll_id in _DONE:
            return
        text, _right = _FIRST[poll_id]
    body = {"answer": text}  # (the kernel's own verdict stays here: the service decides what is right)
    try:
        code, reply = call("POST", f"polls/{poll_id}", body, timeout=5.0)
    except ClassroomError as exc:
        _STATUS[poll_id] = f"error: {exc}"
        return
    reason = reply.get("reason") if code == 409 else None
    if code == 201 or reason == "duplicate":
        with _LOCK:
            _DONE.add(poll_id)
        _STATUS[poll_id] = "accepted" if code == 201 else "duplicate"
    elif reason == "closed":
        _STATUS[poll_id] = "closed"  # kept: posted again at the next answer to this question
    else:
        _STATUS[poll_id] = f"error: HTTP {code} {reply.get('error', '')}".strip()
        if code in (400, 403, 404, 413):  # the service will not take it: do not try again
            with _LOCK:
                _DONE.add(poll_id)


def flush(timeout: float = 10.0) -> bool:
    """Wait until the answers given so far were sent (tests, a notebook about to end);
    True when nothing is left."""
    q = _SENDER.get("queue")
    if q is None:
        return True
    import time

    end = time.monotonic() + timeout
    while q.unfinished_tasks and time.monotonic() < end:
        time.sleep(0.01)
    return not q.unfinished_tasks


def status(poll_id: str) -> str | None:
    """What became of this kernel's first answer to ``poll_id`` (None: nothing sent)."""
    return _STATUS.get(poll_id)
