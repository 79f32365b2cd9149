"""The machinery around the chapters: never imported by the algorithm packages.

* :mod:`kmlteach.course.book` — reads ``book.toml`` (chapters, exercises, Binder links).
* :mod:`kmlteach.course.build` — builds ``notebooks/*.ipynb`` from ``notebooks/src/*.py``
  and executes them (``python -m kmlteach execute``).
* :mod:`kmlteach.course.release` — the student version of a notebook (solutions stubbed).

Later: grading (runner, limits, gradebook, feedback), the static site and the slides.
"""
