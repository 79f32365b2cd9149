"""Hand in a chapter and read its feedback, from a notebook on the course's hub.

``submit("01")`` sends the saved file of chapter 01's notebook to the hub's classroom
service, which files it under the name the hub knows you by, stamped with the service's
own clock (nothing the notebook says about its author or the time is used), replacing
what you handed in before; it prints the receipt. ``feedback("01")`` fetches the feedback
your instructor returned for chapter 01 (only yours: the service serves each student
their own), shows it, and keeps a copy in ``~/feedback/01/``.

Both print one line and never raise: a cell calling them runs everywhere; off the hub they
say that they need it.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from .hub import ClassroomError, call, configured

__all__ = ["submit", "feedback", "find_notebook"]

MAX_DEPTH = 4  # folders below the start of the search for a chapter's notebook


def _chapter(chapter) -> str:
    chapter = (
        str(chapter).strip() if isinstance(chapter, (str, int)) and not isinstance(chapter, bool) else ""
    )
    if chapter.isdigit() and len(chapter) == 1:
        chapter = "0" + chapter
    if not re.fullmatch(r"\d\d", chapter):
        raise ValueError(f"chapter must be a chapter id such as '01', got {chapter!r}")
    return chapter


def _notebook_chapter(path: Path) -> str | None:
    """``metadata.kmlteach.chapter`` of the notebook at ``path`` (None: not one)."""
    try:
        if path.stat().st_size > 64 * 2**20:
            return None
        nb = json.loads(path.read_text(encoding="utf-8"))
        return nb["metadata"]["kmlteach"]["chapter"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def find_notebook(chapter: str, start: Path | None = None) -> tuple[Path | None, list[Path]]:
    """Chapter ``chapter``'s notebook: ``(the one to hand in, every candidate)``.

    The notebook this kernel runs (``JPY_SESSION_NAME``, set by Jupyter) when it is that
    chapter's; else the most recently saved ``NN-*.ipynb`` of that chapter (its metadata says
    so) in the working folder or below your home (four folders deep, hidden folders and
    checkpoints skipped)."""
    chapter = _chapter(chapter)
    session = os.environ.get("JPY_SESSION_NAME", "")
    if session.endswith(".ipynb"):
        here = Path(session)
        if not here.is_absolute():
            here = Path.cwd() / here
        if here.is_file() and _notebook_chapter(here) == chapter:
            return here, [here]
    found: dict[Path, float] = {}
    for root in [Path(start) if start else Path.cwd(), Path.home()]:
        base_depth = len(root.parts)
        for folder, dirs, files in os.walk(root):
            depth = len(Path(folder).parts) - base_depth
            dirs[:] = [] if depth >= MAX_DEPTH else [d for d in dirs if not d.startswith(".")]
            for f in files:
                if f.startswith(f"{chapter}-") and f.endswith(".ipynb"):
                    p = Path(folder, f).resolve()
                    if p not in found and _notebook_chapter(p) == chapter:
                        found[p] = p.stat().st_mtime
    if not found:
        return None, []
    ranked = sorted(found, key=found.get, reverse=True)
    return ranked[0], ranked


def _result(ok: bool, status: str, message: str):
    from ..exercises.output import Result, say  # (lazily: kmlteach.exercises re-exports this module)

    say(message)
    return Result("submit", ok, status, message)


def _when(iso: str | None) -> str:
    """An ISO time of the service as the student's local time, to the second."""
    if not iso:
        return "?"
    from datetime import datetime

    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M:%S %Z").strip()
    except ValueError:
        return iso


def submit(chapter, path=None):
    """Hand in chapter ``chapter``'s notebook (``"01"``) on the course's hub; returns a
    result that is true when the hand-in box took it. Save the notebook first (Ctrl+S):
    the saved file is what is sent. ``path`` names the file when it is not found."""
    try:
        chapter = _chapter(chapter)
    except ValueError as exc:
        return _result(False, "invalid", f"\u2717 {exc}")
    if not configured():
        return _result(
            False,
            "no-hub",
            "\u2026 submit() hands in on the course's hub; here, send your instructor the "
            "notebook file as they asked (File \u2192 Download).",
        )
    if path is not None:
        nb = Path(path).expanduser()
        if not nb.is_file() or _notebook_chapter(nb) != chapter:
            return _result(False, "invalid", f"\u2717 {str(nb)!r} is not chapter {chapter}'s notebook")
        others = [nb]
    else:
        nb, others = find_notebook(chapter)
        if nb is None:
            return _result(
                False,
                "missing",
                f"\u2717 no notebook of chapter {chapter} found here or in your home: open it "
                f'from the course\'s link, save it, and run submit("{chapter}") again, or pass '
                f'its path: submit("{chapter}", path="...")',
            )
    try:
        data = nb.read_bytes()
        saved = nb.stat().st_mtime
        _, me = call("GET", "me", timeout=20.0)
        limit = me.get("max_bytes")
        if isinstance(limit, int) and len(data) > limit:
            return _result(
                False,
                "too-large",
                f"\u2717 {nb.name} has {len(data) / 2**20:.1f} MB, more than the hand-in box takes "
                f"({limit / 2**20:.0f} MB): clear the outputs (Edit \u2192 Clear Outputs of All Cells), save, submit again",
            )
        code, reply = call("POST", f"submissions/{chapter}", raw=data, timeout=60.0)
    except (OSError, ClassroomError) as exc:
        return _result(False, "error", f"\u2717 nothing was handed in: {exc}")
    if code != 201:
        why = reply.get("error") or f"HTTP {code}"
        return _result(False, "refused", f"\u2717 the hand-in box refused chapter {chapter}: {why}")
    ago = max(0, time.time() - saved)
    age = f"{ago / 60:.0f} min ago" if ago >= 90 else f"{ago:.0f} s ago"
    lines = [
        f"\u2713 Handed in chapter {chapter} as {reply.get('user')} at {_when(reply.get('received'))}: "
        f"{nb.name} ({len(data) / 1024:.0f} KB, saved {age}; sha256 {str(reply.get('sha256'))[:12]}).",
    ]
    if reply.get("replaces"):
        lines.append(f"  This replaces your hand-in of {_when(reply['replaces'])}.")
    if len(others) > 1:
        lines.append(
            f'  (The most recently saved of {len(others)} copies; another: submit("{chapter}", path=...).)'
        )
    if ago > 120:
        lines.append("  Changed it since? Save (Ctrl+S) and submit again: the last hand-in counts.")
    return _result(True, "submitted", "\n".join(lines))


def feedback(chapter):
    """Show the feedback returned for your hand-in of chapter ``chapter`` (``"01"``) and
    keep a copy in ``~/feedback/NN/``; returns a result, true when there was feedback."""
    try:
        chapter = _chapter(chapter)
    except ValueError as exc:
        return _result(False, "invalid", f"\u2717 {exc}")
    folder = Path.home() / "feedback" / chapter
    fb = None
    if configured():
        try:
            code, reply = call("GET", f"feedback/{chapter}", timeout=20.0)
        except ClassroomError as exc:
            return _result(False, "error", f"\u2717 {exc}")
        if code == 404:
            return _result(False, "none", f"\u2026 no feedback for chapter {chapter} yet.")
        if code != 200:
            return _result(
                False, "error", f"\u2717 the classroom service answered HTTP {code}: {reply.get('error', '')}"
            )
        fb = {k: reply[k] for k in ("md", "html") if isinstance(reply.get(k), str)}
        _keep(folder, fb)
    else:
        fb = {}
        for kind in ("md", "html"):
            try:
                fb[kind] = (folder / f"feedback.{kind}").read_text(encoding="utf-8")
            except OSError:
                pass
        if not fb:
            return _result(
                False, "no-hub", f"\u2026 feedback() works on the course's hub (no {folder} here)."
            )
    _display(fb)
    return _result(True, "shown", f"(a copy is in {folder})")


def _keep(folder: Path, fb: dict) -> None:
    """Your copy of the feedback: ``~/feedback/NN/feedback.md`` and ``.html``, yours alone."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        for kind, text in fb.items():
            tmp = folder / f".feedback.{kind}.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, folder / f"feedback.{kind}")
    except OSError:
        pass


def _display(fb: dict) -> None:
    try:
        from IPython import get_ipython
        from IPython.display import HTML, Markdown, display
    except ImportError:
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None:
        if "html" in fb:
            body = re.search(r"<body>(.*)</body>", fb["html"], re.S)
            display(HTML(body.group(1) if body else fb["html"]))
        else:
            display(Markdown(fb["md"]))
        return
    print(fb.get("md") or fb.get("html", ""))
