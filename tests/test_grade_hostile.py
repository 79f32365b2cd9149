"""Issue 11, point 3: hostile chapter-01 submissions graded in ONE run with honest ones.

Every attack is built from the real instructor notebook (tests/grade_submissions.py).
The run must produce a complete gradebook, give every honest submission exactly its
score, contain each attack (status, points) and leave no process and no damaged file
behind.
"""

from __future__ import annotations

import csv
import hashlib
import os
import shutil
import tempfile
import uuid
from pathlib import Path

import pytest
from grade_submissions import ROOT, honest_variants, hostile

from kmlteach.course.grade import Limits, grade_folder
from kmlteach.course.grade._launcher import landlock_abi

pytestmark = pytest.mark.skipif(
    landlock_abi() < 6 or not Path("/proc/self/stat").exists(),
    reason="the hostile suite needs Linux Landlock ABI >= 6 (files + signals)",
)


def _sandbox_processes(marker: str) -> list[int]:
    """Live processes whose command line names a sandbox directory starting with ``marker``."""
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{name}/cmdline").read_bytes():
                    out.append(int(name))
            except OSError:
                pass
    return out


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_hostile_submissions_are_contained(tmp_path, monkeypatch):
    # this run's sandboxes live in their own directory, so that the survivors counted below
    # are this run's, not those of a grading test running at the same time on another core
    scratch = Path(tempfile.mkdtemp(prefix="kml-hostile-", dir="/tmp"))
    scratch.chmod(0o755)  # traversable by the sandbox's user, like /tmp
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setenv("KMLTEACH_SECRET_TOKEN", "do-not-leak")
    monkeypatch.setenv("KMLTEACH_RESULTS", str(tmp_path / "results.jsonl"))
    subs, out = tmp_path / "subs", tmp_path / "out"
    (subs / "class").mkdir(parents=True)
    out.mkdir()
    sentinel = out / "sentinel.txt"
    sentinel.write_text("instructor data")
    paths = {
        "submissions": subs,
        "gradebook": sentinel,
        "course_file": ROOT / "kmlteach" / "losses.py",
        "cases_file": ROOT / "kmlteach" / "course" / "grade" / "cases" / "ch01.py",
        "outside": Path("/tmp") / f"kmlteach-pwned-{uuid.uuid4().hex}",
        "other_submission": subs / "class" / "honest.ipynb",
    }
    protected = [paths["course_file"], paths["cases_file"]]
    before = {p: p.read_bytes() for p in protected}
    cases = {
        **{f"class/{k}": v for k, v in honest_variants().items()},
        **{f"attack/{k}": v for k, v in hostile(paths).items()},
    }
    for name, (data, _) in cases.items():
        (subs / f"{name}.ipynb").parent.mkdir(parents=True, exist_ok=True)
        (subs / f"{name}.ipynb").write_bytes(data)
    honest_hash = _sha(paths["other_submission"])
    try:
        # 10 s: the infinite loop burns a core until the limit; the honest code of a chapter
        # 01 submission needs ~0.3 s once its kernel runs (start-up is not counted)
        grade_folder(
            subs,
            out / "gradebook.csv",
            limits=Limits(timeout=10),
            jobs=2,
            feedback=out / "feedback",
            progress=None,
        )
    finally:
        damaged = [p for p in protected if p.read_bytes() != before[p]]
        for p in damaged:  # never leave the course damaged, even if the test fails
            p.write_bytes(before[p])
    assert not damaged, f"course files changed: {damaged}"
    assert sentinel.read_text() == "instructor data"
    assert not paths["outside"].exists()
    assert _sha(paths["other_submission"]) == honest_hash
    assert not _sandbox_processes(f"{scratch}/kmlteach-grade-run-"), "processes of a submission survived"
    shutil.rmtree(scratch, ignore_errors=True)

    with open(out / "gradebook.csv", newline="", encoding="utf-8") as fh:
        rows = {r["submission"]: r for r in csv.DictReader(fh)}
    assert set(rows) == set(cases), "gradebook incomplete"
    problems = []
    for name, (_, exp) in cases.items():
        row = rows[name]
        if float(row["total"]) != exp["total"] or row["status"] != exp["status"]:
            problems.append(
                f"{name}: got {row['total']} {row['status']} ({row['message']}), "
                f"expected {exp['total']} {exp['status']}"
            )
        for ex_id, pts in exp.get("points", {}).items():
            if float(row[ex_id]) != pts:
                problems.append(f"{name}: {ex_id} = {row[ex_id]}, expected {pts}")
    assert not problems, "\n".join(problems)
    fb = (out / "feedback" / "attack" / "calls_reference.md").read_text(encoding="utf-8")
    assert "kmlteach.svm.perceptron" in fb and "unavailable while grading" in fb
    assert not (tmp_path / "results.jsonl").exists()
