"""The instructor's side of the hub's classroom (docs/classroom.md): :mod:`.collect`
(``collect``), :mod:`.giveback` (``return``), :mod:`.lms` (the ``late`` column and
``grade --lms``), over :mod:`.exchange` (the service's exchange folder, read and written
safely as root); :mod:`.cli` adds them to ``python -m kmlteach``."""

from .collect import collect
from .giveback import give_back
from .lms import after_grade

__all__ = ["collect", "give_back", "after_grade"]
