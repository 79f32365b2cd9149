"""Scoring an exercise from the kernel's (parsed) probe reply, outside the kernel, and the
result records of a submission (split from :mod:`kmlteach.course.grade.grader`).

Nothing the kernel sends reaches a text unchecked: exception names must look like names,
messages go through :func:`student_text` (escaped, one line, capped), the names of
guarded functions it reports are checked against the guarded modules, and the time shown
is the grader's own measurement."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from .codec import ResultError, decode_result
from .plan import ExercisePlan


@dataclass
class ExerciseResult:
    id: str
    points: float
    max_points: float
    verdict: str = "not run"  # passed, partial, failed, error, not implemented, missing,
    message: str = ""  # reference, timeout, memory, crashed, not run
    time: float = 0.0
    passed: int = 0
    total: int = 0
    first_visible_failure: dict | None = None
    hidden_failed_kinds: list = field(default_factory=list)
    hint: str = ""


@dataclass
class SubmissionResult:
    submission: str
    chapter: str = ""
    status: str = "ok"
    message: str = ""
    exercises: list = field(default_factory=list)
    seconds: float = 0.0
    sandbox: str = ""
    # probes that went wrong and how (grader._diagnostic): the instructor's state file only,
    # never the gradebook nor the feedback
    diagnostics: list = field(default_factory=list)

    @property
    def total(self) -> float:
        return round(sum(e.points for e in self.exercises), 4)

    @property
    def max_total(self) -> float:
        return round(sum(e.max_points for e in self.exercises), 4)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["total"], d["max_total"] = self.total, self.max_total
        return d

    @classmethod
    def from_dict(cls, d: dict) -> SubmissionResult:
        d = {k: v for k, v in d.items() if k not in ("total", "max_total")}
        d["exercises"] = [ExerciseResult(**e) for e in d.get("exercises", [])]
        return cls(**d)


# a probe's child cannot read the files of the library modules that compute the graded
# exercise's answer: a new interpreter (subprocess, multiprocessing spawn) importing them fails
DENIED_NOTE = (
    "while this exercise is graded, the library module that computes its answer cannot be read: "
    "a subprocess cannot import it"
)


def _short(v, limit=120) -> str:
    """A value as one line, as ``check`` shows it (NumPy scalars as plain numbers)."""
    from kmlteach.exercises.model import short

    return short(v, limit)


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,59}")


def _name(x) -> str:
    """An exception's class name as reported by the kernel, or "an exception"."""
    m = _NAME.fullmatch(str(x)) if isinstance(x, str) else None
    return m.group(0) if m else "an exception"


def student_text(x, limit: int = 120) -> str:
    """Text the student's code produced (an exception message), as feedback may show it:
    one line, printable characters only, backticks and angle brackets replaced, at most
    ``limit`` characters. Only ever shown for *visible* cases."""
    text = x if isinstance(x, str) else ""
    text = "".join(ch if ch.isprintable() else " " for ch in text[: limit * 4])
    text = " ".join(text.split()).replace("`", "'").replace("<", "‹").replace(">", "›")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _guarded(name: str, guards) -> bool:
    """Whether ``name`` is a function the grader guards (a path of ``guards``, or a function
    of the same module, such as its private Numba kernel): checked against the modules
    themselves, so no other text from the kernel is ever shown."""
    import importlib

    if not _NAME.fullmatch(name):
        return False
    if guards is None:
        return True
    if name in guards:
        return True
    module, _, attr = name.rpartition(".")
    if not attr or module not in {g.rpartition(".")[0] for g in guards}:
        return False
    try:
        return callable(getattr(importlib.import_module(module), attr, None))
    except ImportError:
        return False


def score_exercise(plan: ExercisePlan, reply: dict, guards=None) -> ExerciseResult:
    """Turn the kernel's (parsed) probe output into points, outside the kernel."""
    from kmlteach.exercises import get
    from kmlteach.exercises.core import find_mistake

    ex = get(plan.id)
    r = ExerciseResult(plan.id, 0.0, plan.points, total=len(plan.cases), hint=plan.hint)
    if reply.get("missing"):
        r.verdict, r.message = "missing", f"no function named {plan.function!r} was defined"
        return r
    cases = reply.get("cases")
    if not isinstance(cases, list) or len(cases) > len(plan.cases):
        r.verdict, r.message = "crashed", "unreadable reply from the kernel"
        return r
    # only names the grader guards for this exercise: anything else the kernel wrote into
    # its guards' state is dropped, never shown (it could carry hidden inputs)
    called = [c for c in reply.get("called") or [] if isinstance(c, str) and _guarded(c, guards)][:4]
    r.time = float(reply.get("elapsed") or 0.0)
    errors = []  # of the visible cases only: what a hidden case raised decides no verdict
    visible, readable = [], True  # the answer's values on the visible cases
    hidden_total, hidden_passed = sum(not c.visible for c in plan.cases), 0
    for case, res in zip(plan.cases, cases):
        if not isinstance(res, dict):
            if case.visible:
                errors.append("unreadable reply")
            continue
        ok, detail, got = False, "", None
        if "error" in res:
            ename, msg = _name(res.get("error")), student_text(res.get("message", ""))
            if case.visible and (res.get("memory") is True or "MemoryError" in ename):
                r.verdict = "memory"
            detail = f"raised {ename}: {msg}"
            if ename == "PermissionError" and "kmlteach" in msg:  # a subprocess importing it
                detail += f" ({DENIED_NOTE})"
            if case.visible:
                errors.append(ename)
        else:
            try:
                got = decode_result(res.get("value"))
                got = ex.prepare(got)
                ok = bool(ex.compare(case.expected, got))
                detail = "" if ok else "wrong value"
            except ResultError as exc:
                detail = f"returned a value the grader cannot read ({exc})"
            except Exception as exc:
                detail = f"returned a value that does not compare ({type(exc).__name__})"
        if case.visible:
            visible.append(got)
            readable = readable and detail in ("", "wrong value")
        if ok:
            r.passed += 1
            hidden_passed += not case.visible
        elif case.visible and r.first_visible_failure is None:
            r.first_visible_failure = {
                "case": case.label,
                "expected": _short(case.expected),
                "got": student_text(_short(got)) if got is not None else detail,
            }
        elif not case.visible and case.label not in r.hidden_failed_kinds:
            r.hidden_failed_kinds.append(case.label)
    for case in plan.cases[len(cases) :]:  # hidden cases never answered (stopped, crashed): failed
        if not case.visible and case.label not in r.hidden_failed_kinds:
            r.hidden_failed_kinds.append(case.label)
    if r.first_visible_failure and readable:  # the same words as check()
        m = find_mistake(ex, ex.all_cases(), visible)
        if m is not None:
            r.first_visible_failure["mistake"] = m.line()  # "Common mistake: ..." or "Convention: ..."
    if called:  # on the visible cases (the hidden phase's names are never read: grader._merge)
        r.verdict = "reference"
        r.message = (
            f"calls {', '.join(called)}, which computes this exercise's answer or part of it "
            "(unavailable while grading): 0 points"
        )
        return r
    if "KeyboardInterrupt" in errors:
        r.verdict, r.message = "timeout", "stopped: time limit"
    elif errors and all(e == "NotImplementedError" for e in errors) and r.passed == 0:
        r.verdict, r.message = "not implemented", "not implemented yet"
    elif r.verdict == "memory":
        r.message = "ran out of memory"
    if r.passed == r.total and r.total:
        r.points, r.verdict, r.message = plan.points, "passed", f"all {r.total} cases passed"
    elif plan.partial and hidden_total:
        # partial credit counts hidden cases only: a visible case's answer is public (the
        # student sees it in check(), the student edition ships it), so a table of the
        # visible answers would otherwise earn their share with nothing implemented
        r.points = round(plan.points * hidden_passed / hidden_total, 2)
    if r.verdict == "not run":
        r.verdict = "partial" if r.points > 0 else ("error" if errors else "failed")
        r.message = f"{r.passed}/{r.total} cases passed"
        if plan.partial and hidden_total:
            r.message += f" ({hidden_passed}/{hidden_total} hidden: partial credit counts those)"
    return r
