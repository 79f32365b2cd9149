"""Batch grading of submitted chapter notebooks (``python -m kmlteach grade``).

* :mod:`.runner` — the folder → gradebook command (jobs, progress, resume, Dask);
* :mod:`.grader` — one submission: select code, run it in a sandboxed kernel, score;
* :mod:`.kernel`, :mod:`.limits`, :mod:`.sandbox`, ``_launcher.py`` — the fresh kernel,
  its limits, uid, bubblewrap namespaces, cgroup, Landlock rules and clean-up;
  ``_kernel_side.py`` — the code run inside it;
* :mod:`.cells` — which statements of a notebook run; :mod:`.codec` — plain-data values;
* :mod:`.plan`, :mod:`.cases`, :mod:`.secret` — exercises, points, visible and hidden cases
  (per student with ``--secret``), expected values;
* :mod:`.similarity` — the ``--similarity`` report;
* :mod:`.gradebook`, :mod:`.feedback` — the CSV, the resume state, feedback files.

What the sandbox does and does not contain, per platform: README, "Grading".
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
