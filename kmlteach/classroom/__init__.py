"""The student's side of the course hub's classroom: hand in, get feedback back.

``submit("01")`` hands in chapter 01's notebook and ``feedback("01")`` shows what the
instructor returned (:mod:`.handin`); both talk to the hub's classroom service through
:mod:`.hub`, which the class poll (:mod:`kmlteach.poll`) uses too. ``docs/classroom.md``
describes the whole cycle.
"""

from .handin import feedback, submit

__all__ = ["submit", "feedback"]
