"""Everything is configured in pyproject.toml; this file only works around a setuptools bug.

setuptools' editable wheels (``pip install -e .``, used by ``make lab``, Binder's
postBuild and CI) never install ``[tool.setuptools.data-files]``: its editable_wheel
command asks the distribution for ``has_data()``, a method that does not exist (the
distribution has ``has_data_files()``), so it silently skips them (pypa/setuptools#3399).
The course ships one data file tree, the kmlteach-rise-shim JupyterLab extension
(jupyter/rise-shim/), which must land in ``<prefix>/share/jupyter/labextensions`` for the
widgets to run in RISE slideshows; ``tests/test_rise_shim.py`` checks that an editable
wheel carries it. Once setuptools defines ``has_data`` this file changes nothing.
"""

from setuptools import setup
from setuptools.dist import Distribution

if not hasattr(Distribution, "has_data"):
    Distribution.has_data = Distribution.has_data_files

setup()
