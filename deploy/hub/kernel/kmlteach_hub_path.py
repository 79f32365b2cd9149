"""A hub kernel imports the installed packages before anything in the notebook's folder.

An IPython extension, loaded by the hub's kernelspec (``kmlteach.course.hub_env``), whose
kernels start with ``python -P`` (no folder put first on ``sys.path``). Plain Jupyter puts
the notebook's folder first, so a folder named ``kmlteach`` beside a notebook (a pulled
repository, a classmate's link: issue 35) would replace the course's package in every
kernel started there. Here the folder comes last: a student's own ``helpers.py`` still
imports, but never in place of an installed package.
"""

from __future__ import annotations

import sys

__all__ = ["load_ipython_extension"]


def load_ipython_extension(ipython) -> None:
    while "" in sys.path:
        sys.path.remove("")
    sys.path.append("")
