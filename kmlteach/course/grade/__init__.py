"""Batch grading of submitted chapter notebooks (``python -m kmlteach grade``).

Grouped by which side of the boundary the code runs on:

* the grader's process: :mod:`.runner` (folder → gradebook: jobs, progress, resume,
  Dask), :mod:`.grader` (one submission: select code, probe, score), :mod:`.kernel` (the
  client of one sandboxed kernel), :mod:`.cells` (which statements run), :mod:`.codec`
  (the strict parser of replies), :mod:`.plan`, :mod:`.cases`, :mod:`.secret` (exercises,
  points, visible and hidden cases, expected values), :mod:`.scoring`,
  :mod:`.gradebook`, :mod:`.feedback`, :mod:`.similarity`, :mod:`.limits` (the limits only);
* around the kernel, :mod:`.isolation`: the one file-access policy (``isolation/policy.py``:
  the only file that says what a kernel may read), bubblewrap, the launcher (rlimits,
  uid, Landlock, seccomp), cgroups, uids, reaping, the banner;
* inside the kernel, :mod:`.inkernel`: the fork server, the disarming of references, the
  child's rules, its reaper, the codec, sent as one start-up cell.

What the sandbox contains and the threat model: docs/security.md; how to grade: docs/grading.md.
"""

from .grader import ExerciseResult, SubmissionResult, grade_submission, grade_submission_sync
from .limits import Limits
from .runner import GradeError, collect, grade_folder

__all__ = [
    "ExerciseResult",
    "SubmissionResult",
    "grade_submission",
    "grade_submission_sync",
    "Limits",
    "GradeError",
    "collect",
    "grade_folder",
]
