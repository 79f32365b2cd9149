"""``python -m kmlteach grade``: a folder of submissions in, a gradebook out.

Before anything runs, every submission is read into memory (a hostile submission
that deletes or rewrites the others while it runs changes nothing), hashed, and
looked up in the resume state. Pending ones are graded ``jobs`` at a time, each in
its own fresh sandboxed kernel (:func:`.grader.grade_submission`), locally (asyncio)
or as tasks of a Dask cluster (``executor="dask"``). Progress goes to stderr; the
state is saved after every submission; the CSV is written once, atomically, at the end
from the grader's memory.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path

from .feedback import write_feedback
from .gradebook import State, fingerprint, gradebook_csv, write_atomic
from .grader import SubmissionResult, grade_submission, grade_submission_sync
from .isolation.mode import detect
from .limits import Limits
from .plan import book_exercises
from .submission import collect, read_regular

__all__ = ["GradeError", "grade_folder", "collect"]


class GradeError(Exception):
    """A problem with the command itself (bad folder, unwritable output): one line."""


def _check_writable(folder: Path, what: str) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".kmlteach-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise GradeError(f"{what} {str(folder)!r} is not writable ({exc.strerror or exc})") from None


class _Progress:
    def __init__(self, total: int, stream=sys.stderr):
        self.total, self.done, self.t0, self.stream = total, 0, time.monotonic(), stream
        self.graded = 0
        self.tty = getattr(stream, "isatty", lambda: False)()

    def step(self, r: SubmissionResult | None = None, cached: bool = False) -> None:
        self.done += 1
        if cached or r is None or r.status == "invalid":
            self.t0 = time.monotonic() if self.graded == 0 else self.t0  # rate of real grading only
        else:
            self.graded += 1
        el = time.monotonic() - self.t0
        rate = self.graded / el if el > 0 and self.graded else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else 0.0
        what = "" if r is None else f"  {r.submission}: {r.status}{' (unchanged)' if cached else ''}"
        line = (
            f"[grade] {self.done}/{self.total} done, {rate * 60:.1f}/min, "
            f"ETA {int(eta) // 60}m{int(eta) % 60:02d}s{what}"
        )
        self.stream.write(("\r" + line[:100].ljust(100)) if self.tty else line + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")


def _invalid(sub_id: str, message: str) -> SubmissionResult:
    return SubmissionResult(sub_id, status="invalid", message=message)


async def _local(pending, limits, jobs, kw, on_done) -> None:
    sem = asyncio.Semaphore(jobs)

    async def one(sub_id, sha, data):
        async with sem:
            try:
                r = await grade_submission(sub_id, data, limits, **kw)
            except Exception as exc:  # a grader bug must not lose the other rows
                r = SubmissionResult(
                    sub_id, status="crashed", message=f"grader error: {type(exc).__name__}: {exc}"[:300]
                )
            on_done(sub_id, sha, r)

    await asyncio.gather(*(one(*p) for p in pending))


def _dask(pending, limits, scheduler, kw, on_done) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise GradeError(
            "--executor dask needs the optional extra: pip install 'kmlteach[grade-dask]'"
        ) from None
    try:
        client = Client(scheduler, timeout="20s") if isinstance(scheduler, str) else Client(scheduler)
    except (OSError, TimeoutError, ValueError) as exc:
        raise GradeError(f"cannot reach the Dask scheduler {scheduler!r} ({exc})") from None
    try:
        futures = {
            client.submit(grade_submission_sync, sub_id, data, limits, pure=False, **kw): (sub_id, sha)
            for sub_id, sha, data in pending
        }
        for fut in as_completed(futures):
            sub_id, sha = futures[fut]
            try:
                r = SubmissionResult.from_dict(fut.result())
            except Exception as exc:
                # a documented status (red team 2: "error" was not one); the exception's
                # class only, never its text (it may carry what the worker was given)
                r = SubmissionResult(
                    sub_id,
                    status="crashed",
                    message=f"the grading worker failed ({type(exc).__name__}): grade again",
                )
            on_done(sub_id, sha, r)
    finally:
        if isinstance(scheduler, str):
            client.close()


def _feedback(folder: Path, r: SubmissionResult, progress) -> None:
    try:
        write_feedback(folder, r)
    except OSError as exc:  # a feedback file never costs the gradebook
        if progress is not None:
            progress.write(f"warning: no feedback file for {r.submission!r} ({exc.strerror or exc})\n")


def _package_hash() -> str:
    """Hash of the grader, its hidden cases and the references (checked after grading)."""
    here = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for f in sorted([*here.rglob("*.py"), *here.parents[1].joinpath("exercises").glob("ch*.py")]):
        h.update(f.as_posix().encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def grade_folder(
    submissions,
    out,
    *,
    limits: Limits = Limits(),
    jobs: int = 1,
    feedback=None,
    executor: str = "local",
    scheduler=None,
    chapter: str | None = None,
    book_path: str | None = None,
    progress=sys.stderr,
    secret=None,
    run_all: bool = False,
    unsafe_root: bool = False,
    similarity=None,
) -> list[SubmissionResult]:
    """Grade every notebook below ``submissions`` into the CSV ``out``; the results.

    ``secret``: a file whose bytes seed each submission's hidden cases (HMAC with its id);
    ``run_all``: run whole notebooks instead of the selected code; ``unsafe_root``: as root,
    grade even where a kernel would keep root's capabilities; ``similarity``: write an
    HTML report of similar exercise functions there (never changes points)."""
    from .secret import read_secret

    folder, out = Path(submissions), Path(out)
    if not folder.is_dir():
        raise GradeError(f"submissions folder {str(folder)!r} does not exist or is not a folder")
    if not isinstance(jobs, int) or jobs < 1:
        raise GradeError(f"--jobs must be a positive integer, got {jobs!r}")
    if executor not in ("local", "dask"):
        raise GradeError(f"--executor must be 'local' or 'dask', got {executor!r}")
    if executor == "dask" and not scheduler:
        raise GradeError("--executor dask needs --scheduler ADDRESS")
    if out.exists() and out.is_dir():
        raise GradeError(f"--out {str(out)!r} is a folder; give a file name such as gradebook.csv")
    # the resume state (OUT.state.json) says which submissions need no grading: a file a
    # student slipped into the submissions folder must never be it (red team 3)
    for opt, path in (("--out", out.parent), ("--feedback", feedback)):
        if path is not None and Path(path).resolve().is_relative_to(folder.resolve()):
            raise GradeError(f"{opt} must be outside the submissions folder {str(folder)!r}")
    _check_writable(out.parent if str(out.parent) else Path("."), "output folder")
    if feedback is not None:
        _check_writable(Path(feedback), "feedback folder")
    chapters = book_exercises(book_path)
    if chapter is not None and chapter not in chapters:
        raise GradeError(f"--chapter {chapter!r} has no graded exercises in book.toml")
    key = read_secret(secret) if secret is not None else None
    isolation = detect(limits)
    problem = isolation.refusal()
    if problem and not unsafe_root:
        raise GradeError(problem)
    if progress is not None:
        progress.write(isolation.banner(limits) + "\n")
        progress.flush()

    before = _package_hash()
    items = collect(folder)
    snapshot = []  # read everything before any submission runs
    results: dict[str, SubmissionResult] = {}
    for sub_id, path in items:
        try:
            if path.is_symlink():
                results[sub_id] = _invalid(sub_id, "a symbolic link, not a notebook file")
                continue
            data = read_regular(path)
            if data is None:
                results[sub_id] = _invalid(sub_id, "not a regular file, or larger than a notebook may be")
                continue
        except OSError as exc:
            results[sub_id] = _invalid(sub_id, f"cannot read the file ({exc.strerror})")
            continue
        snapshot.append((sub_id, hashlib.sha256(data).hexdigest(), data))
    config = fingerprint(
        asdict(limits), chapter, chapters, run_all, hashlib.sha256(key).hexdigest() if key else None
    )
    state = State(out.with_name(out.name + ".state.json"), config)
    prog = _Progress(len(items), progress) if progress is not None else None
    for _sub_id, r in results.items():
        prog and prog.step(r)
    pending = []
    for sub_id, sha, data in snapshot:
        cached = state.cached(sub_id, sha)
        if cached is not None:
            results[sub_id] = cached
            prog and prog.step(cached, cached=True)
        else:
            pending.append((sub_id, sha, data))

    warned = []

    def on_done(sub_id, sha, r):
        if "landlock: unavailable" in r.sandbox and not warned and progress is not None:
            warned.append(1)
            progress.write(
                "warning: Linux Landlock is unavailable here: submissions can read and "
                "write your files (see docs/security.md)\n"
            )
        results[sub_id] = r
        state.put(sub_id, sha, r)
        if feedback is not None:
            _feedback(Path(feedback), r, progress)
        prog and prog.step(r)

    # the grader's own paths: never readable by a kernel, whatever the file-access policy grants
    deny = [folder.resolve(), out.parent.resolve()] + ([Path(feedback).resolve()] if feedback else [])
    deny += [Path(secret).resolve()] if secret is not None else []
    kw = {
        "chapter": chapter,
        "book_path": book_path,
        "deny": [str(p) for p in deny],
        "secret": key,
        "run_all": run_all,
        "chapters": frozenset(chapters),
    }
    if executor == "local":
        asyncio.run(_local(pending, limits, jobs, kw, on_done))
    else:
        _dask(pending, limits, scheduler, kw, on_done)
    prog and prog.close()
    seen = {r.chapter for r in results.values()}
    ids = [e["id"] for ch in sorted(chapters) if ch in seen for e in chapters[ch]]
    write_atomic(out, gradebook_csv(list(results.values()), ids))  # before anything else can fail
    if feedback is not None:
        for r in results.values():
            _feedback(Path(feedback), r, progress)
    if similarity is not None:
        from .similarity import similarity_report

        sources = {sub_id: data for sub_id, _, data in snapshot}
        write_atomic(Path(similarity), similarity_report(sources, results, book_path))
    if _package_hash() != before:
        raise GradeError(
            "the grader's files (kmlteach/course/grade, kmlteach/exercises) changed "
            "while grading: check them and grade again (is Linux Landlock available?)"
        )
    return [results[k] for k in sorted(results)]
