"""A real data set for model selection (chapter 02): Breast Cancer Wisconsin (Diagnostic).

569 fine-needle aspirates of breast masses, 30 real-valued features each (the mean,
standard error and worst value of ten measurements of the cell nuclei in a digitised
image) and the diagnosis. Bundled as ``kmlteach/data/wdbc.csv``, whose header states the
source (UCI Machine Learning Repository, doi:10.24432/C5DW2B), the creators and the
licence (CC BY 4.0); nothing is downloaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

__all__ = ["RealData", "breast_cancer"]

_FILE = "data/wdbc.csv"


@dataclass(frozen=True)
class RealData:
    """A bundled real data set.

    Attributes
    ----------
    X : (m, d) float64 array of features, in their original units.
    y : (m,) int64 array of labels in {-1, +1} (+1 = the positive class, ``positive``).
    feature_names : tuple of d str
    positive : str, what label +1 means
    citation : str, where the data come from and under which licence

    Source: bundled data (Street, Wolberg & Mangasarian 1993); see ``citation``.
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: tuple
    positive: str
    citation: str


@lru_cache(maxsize=1)
def _read() -> tuple:
    text = resources.files("kmlteach").joinpath(_FILE).read_text(encoding="utf-8")
    lines = text.splitlines()
    comments = [ln[2:] for ln in lines if ln.startswith("# ")]
    rows = [ln for ln in lines if ln and not ln.startswith("#")]
    names = tuple(rows[0].split(",")[:-1])
    body = [r.split(",") for r in rows[1:]]
    X = np.array([[float(v) for v in r[:-1]] for r in body])
    y = np.array([1 if r[-1] == "M" else -1 for r in body], dtype=np.int64)
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y, names, " ".join(comments)


def breast_cancer() -> RealData:
    """The Breast Cancer Wisconsin (Diagnostic) data: X (569, 30), y = +1 malignant
    (212 cases), -1 benign (357).

    Licence CC BY 4.0; see ``.citation`` (and the header of ``kmlteach/data/wdbc.csv``).
    The arrays are fresh copies: change them freely.
    """
    X, y, names, citation = _read()
    return RealData(X.copy(), y.copy(), names, "malignant", citation)
