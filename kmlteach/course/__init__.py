"""The machinery around the chapters: never imported by the algorithm packages.

* :mod:`kmlteach.course.book` — reads ``book.toml`` (chapters, exercises, Binder links).
* :mod:`kmlteach.course.build` — builds ``notebooks/*.ipynb`` from ``notebooks/src/*.py``,
  executes them and adds the chapter and nbgrader metadata (``python -m kmlteach execute``).
* :mod:`kmlteach.course.release` — the student notebooks (``python -m kmlteach release``).
* :mod:`kmlteach.course.edition` — the student edition, a repository without the answer
  key (``python -m kmlteach publish-student``, ``reveal``).
* :mod:`kmlteach.course.nbgrader` — a chapter as an nbgrader assignment
  (``python -m kmlteach nbgrader-export``).
* :mod:`kmlteach.course.grade` — batch grading of submitted notebooks in sandboxed
  kernels (``python -m kmlteach grade``).

* :mod:`kmlteach.course.lab_server` — the JupyterLab server setting the course installs
  (kernel websockets without Nagle's delay).

* :mod:`kmlteach.course.slides`, :mod:`~kmlteach.course.deck`, :mod:`~kmlteach.course.site` —
  lecture mode (slide metadata, reveal.js decks) and the static course site.
"""
