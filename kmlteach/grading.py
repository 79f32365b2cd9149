"""Moved to :mod:`kmlteach.course.release`; this alias keeps ``kmlteach.grading`` importing."""

import sys as _sys

from kmlteach.course import release as _moved

_sys.modules[__name__] = _moved
