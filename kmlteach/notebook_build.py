"""Moved to :mod:`kmlteach.course.build`; this alias keeps ``kmlteach.notebook_build`` importing."""

import sys as _sys

from kmlteach.course import build as _moved

_sys.modules[__name__] = _moved
