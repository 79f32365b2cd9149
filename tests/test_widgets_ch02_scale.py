"""Chapter 02's kernel-methods-at-scale widget (kmlteach/widgets/ch02/scale.py): the numbers
it shows against independent computations, and its controls moving the figure."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from kmlteach import kernels as kk
from kmlteach.kernel_methods import kernel_ridge
from kmlteach.widgets.ch02 import make_scale_explorer, plot_scale, scale_data, scale_table
from kmlteach.widgets.ch02.scale import SIZES, cost_model, ridge_classifier


@pytest.fixture(scope="module")
def small():
    """300 training and 200 test digits: a table in well under a second."""
    X, y, Xt, yt = scale_data(n_train=300, seed=1)
    return X, y, Xt[:200], yt[:200]


@pytest.fixture(scope="module")
def table(small):
    return scale_table(sizes=(5, 20, 60, 150), sigma=5.0, lam=1e-3, data=small)


def test_scale_data_is_the_digits_split_without_overlap():
    X, y, Xt, yt = scale_data()
    assert X.shape == (1200, 64) and Xt.shape == (597, 64)
    assert 0.0 <= X.min() and X.max() <= 1.0  # pixels scaled to [0, 1]
    assert set(np.unique(y)) == set(range(10)) and set(np.unique(yt)) == set(range(10))
    rows = {r.tobytes() for r in X}
    assert sum(r.tobytes() in rows for r in Xt) < 5  # only digits whose images repeat exactly


def test_exact_column_is_the_course_kernel_ridge(small):
    """Each column of α = (K + λnI)⁻¹Y is kernel_ridge on that class's ±1 targets."""
    X, y, _, _ = small
    n, lam = len(y), 1e-3
    K = kk.gram("gaussian", X, sigma=5.0)
    Y = np.where(y[:, None] == np.arange(10), 1.0, -1.0)
    A = np.linalg.solve(K + lam * n * np.eye(n), Y)
    for c in (0, 7):
        np.testing.assert_allclose(A[:, c], kernel_ridge(K, Y[:, c], lam).alpha, rtol=1e-9, atol=1e-10)


def test_features_with_every_point_a_landmark_give_the_exact_predictions(small):
    """Nyström with m = n: Φ Φᵀ = K, so ridge on Φ predicts what kernel ridge predicts
    (push-through identity), on training and test points."""
    X, y, Xt, _ = small
    n, lam = len(y), 1e-3
    fmap = kk.nystroem_map(X, n, sigma=5.0, seed=0)
    W = ridge_classifier(fmap.transform(X), y, lam)
    K = kk.gram("gaussian", X, sigma=5.0)
    alpha = np.linalg.solve(K + lam * n * np.eye(n), np.where(y[:, None] == np.arange(10), 1.0, -1.0))
    np.testing.assert_allclose(
        fmap.transform(Xt) @ W, kk.gram("gaussian", Xt, X, sigma=5.0) @ alpha, atol=1e-7
    )


def test_ridge_on_features_minimises_its_objective():
    rng = np.random.default_rng(0)
    F, y, lam = rng.normal(size=(40, 6)), rng.integers(0, 10, 40), 0.1
    W = ridge_classifier(F, y, lam)
    Y = np.where(y[:, None] == np.arange(10), 1.0, -1.0)
    grad = lam * W + F.T @ (F @ W - Y) / len(y)  # of (λ/2)‖W‖² + (1/(2n))‖FW − Y‖²
    assert np.abs(grad).max() < 1e-10


def test_table_against_an_independent_computation(table, small):
    X, y, Xt, yt = small
    n = len(y)
    K = kk.gram("gaussian", X, sigma=5.0)
    Y = np.where(y[:, None] == np.arange(10), 1.0, -1.0)
    alpha = np.linalg.solve(K + 1e-3 * n * np.eye(n), Y)
    pred = np.argmax(kk.gram("gaussian", Xt, X, sigma=5.0) @ alpha, axis=1)
    assert table.exact_accuracy == np.mean(pred == yt)
    for i, s in enumerate(table.sizes):
        Z = kk.random_fourier_features(X, s, sigma=5.0, seed=0)
        err = np.linalg.norm(K - Z @ Z.T) / np.linalg.norm(K)
        assert table.error["rff"][i] == pytest.approx(err, rel=1e-9)
        W = np.linalg.solve(Z.T @ Z + 1e-3 * n * np.eye(s), Z.T @ Y)
        acc = np.mean(np.argmax(kk.random_fourier_features(Xt, s, sigma=5.0, seed=0) @ W, axis=1) == yt)
        assert table.accuracy["rff"][i] == acc
    # Nyström's error falls as landmarks are added (nested landmarks: K − ΦΦᵀ shrinks)
    assert np.all(np.diff(table.error["nystroem"]) < 0)
    assert table.error["nystroem"][-1] < table.error["rff"][-1]
    for m in ("nystroem", "rff"):
        assert np.all(table.seconds[m] > 0) and np.all((0 <= table.accuracy[m]) & (table.accuracy[m] <= 1))
    assert table.exact_seconds > 0 and (table.n_train, table.n_test, table.d) == (300, 200, 64)


def test_cost_model_and_bad_arguments():
    assert cost_model("exact", 0, 100, 10) == 100 * 100 * 10 + 100**3 / 3
    np.testing.assert_allclose(
        cost_model("nystroem", [10, 20], 100, 10), [10_000 + 1_000 + 20_000, 20_000 + 8_000 + 80_000]
    )
    assert cost_model("rff", 30, 100, 10) == 30_000 + 90_000 + 9_000
    with pytest.raises(ValueError, match="method"):
        cost_model("svd", 10, 100, 10)
    with pytest.raises(ValueError, match="middle"):
        plot_scale(None, middle="seconds")


def test_explorer_moves_through_the_table(table):
    ex = make_scale_explorer(table, method="nystroem", size=20)
    st = ex.state
    assert (st["method"], st["size"]) == ("nystroem", 20)
    assert st["error"] == table.error["nystroem"][1] and st["accuracy"] == table.accuracy["nystroem"][1]
    png = ex.image.value
    ex.controls["size"].value = 150
    assert ex.state["size"] == 150 and ex.state["error"] == table.error["nystroem"][3]
    assert ex.state["speedup"] == pytest.approx(table.exact_seconds / table.seconds["nystroem"][3])
    assert ex.image.value != png
    png = ex.image.value
    ex.controls["method"].value = "rff"
    assert ex.state["method"] == "rff" and ex.state["accuracy"] == table.accuracy["rff"][3]
    assert (
        "D = 150" in ex.state["readout"] and f"{100 * table.exact_accuracy:.1f}&nbsp;%" in ex.state["readout"]
    )
    assert ex.image.value != png


def test_explorer_rejects_a_size_or_method_it_has_not_measured(table):
    with pytest.raises(ValueError, match="size"):
        make_scale_explorer(table, size=7)
    with pytest.raises(ValueError, match="method"):
        make_scale_explorer(table, method="svd")


def test_default_sizes_and_static_figure(table):
    assert SIZES == tuple(sorted(SIZES)) and SIZES[-1] < 1200  # every size below the training size
    axes = plot_scale(table)
    assert len(axes) == 3 and all(ax.get_xlabel() for ax in axes)
    assert axes[1].get_ylabel().startswith("training cost")
    import matplotlib.pyplot as plt

    plt.close("all")


def test_readout_words_and_breaks(table):
    """Walk report item 16 (02): the readout wrapped between "98.0" and "%", and printed
    "1.0× slower" for two times within a few per cent."""
    import re

    from kmlteach.widgets.ch02.scale import speed_words

    assert speed_words(3.24) == "3.2× faster" and speed_words(1 / 1.6) == "1.6× slower"
    assert speed_words(0.97) == speed_words(1.03) == "about as fast"
    assert "1.0×" not in speed_words(1 / 1.049) and "1.0×" not in speed_words(1.049)
    ex = make_scale_explorer(table, method="nystroem", size=20)
    html = ex.readout.value
    assert re.search(r"\d&nbsp;%", html) and re.search(r"\d&nbsp;ms", html) and " %" not in html
    outside = re.sub(r'<span style="white-space: nowrap">.*?</span>|\s', "", html)
    assert not outside, html  # every phrase unbreakable, lines break between them
