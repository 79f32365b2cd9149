"""Moved to :mod:`kmlteach.course.book`; this alias keeps ``kmlteach.book`` importing."""

import sys as _sys

from kmlteach.course import book as _moved

_sys.modules[__name__] = _moved
