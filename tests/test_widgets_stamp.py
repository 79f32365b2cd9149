"""Stamped texts (kmlteach/_render/text.py) and the one-thread guard (_threads.py)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from matplotlib import patheffects
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from kmlteach._render.text import StampText, stamp, stamp_axis, stamp_text
from kmlteach.widgets._threads import single_thread


def _png(fig) -> np.ndarray:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return np.asarray(Image.open(buf).convert("L"), dtype=float)


def _pair(**kw):
    """The same labels drawn as plain texts and as stamped texts."""
    out = []
    for make in ("text", "stamp"):
        fig = Figure(figsize=(3, 2))
        FigureCanvasAgg(fig)
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_axis_off()
        add = ax.text if make == "text" else (lambda *a, ax=ax, **k: stamp_text(ax, *a, **k))
        for i, s in enumerate(["0.12", "-21.81", "5984", "x = 'banana'"]):
            add(0.5, 0.15 + 0.22 * i, s, **kw)
        out.append(_png(fig))
    return out


@pytest.mark.parametrize(
    "kw",
    [
        dict(ha="center", va="center", fontsize=8),
        dict(ha="left", va="baseline", fontsize=10, color="tab:red"),
        dict(ha="right", va="top", fontsize=9, rotation=30),
        dict(
            ha="center",
            va="center",
            fontsize=10,
            fontweight="bold",
            path_effects=[patheffects.withStroke(linewidth=3, foreground="w")],
            bbox=dict(boxstyle="round,pad=0.15", fc="yellow", ec="none"),
        ),
    ],
)
def test_stamped_text_looks_like_the_text(kw):
    plain, stamped = _pair(**kw)
    ink_plain, ink_stamped = plain < 200, stamped < 200
    assert ink_plain.sum() > 50
    # the same amount of ink, in the same place (glyphs may land one pixel apart)
    assert abs(int(ink_stamped.sum()) - int(ink_plain.sum())) <= 0.1 * ink_plain.sum()
    rows_p, cols_p = np.nonzero(ink_plain)
    rows_s, cols_s = np.nonzero(ink_stamped)
    for a, b in ((rows_p, rows_s), (cols_p, cols_s)):
        assert abs(a.min() - b.min()) <= 2 and abs(a.max() - b.max()) <= 2
    assert np.mean(np.abs(plain - stamped)) < 2.0


def test_stamped_text_extent_is_its_ink_and_changes_with_the_text():
    fig = Figure(figsize=(3, 2))
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    t = stamp_text(ax, 0.5, 0.5, "0.25", ha="center", va="center", fontsize=8)
    canvas.draw()
    r = canvas.get_renderer()
    short = t.get_window_extent(r)
    assert 0 < short.width < 40 and 0 < short.height < 15
    assert short.x0 < ax.transData.transform((0.5, 0.5))[0] < short.x1
    t.set_text("-1234.56")
    assert t.stale
    assert t.get_window_extent(r).width > short.width
    t.set_text("")
    canvas.draw()  # an empty stamp draws nothing and does not fail


def test_stamp_converts_existing_texts_and_axis_labels():
    fig = Figure(figsize=(3, 2))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set_xticks([0, 0.5, 1], ["a", "b", "c"])
    title = ax.set_title("t")
    stamp(title)
    stamp_axis(ax.xaxis)
    assert type(title) is StampText and type(ax.xaxis.label) is StampText
    assert all(type(tk.label1) is StampText for tk in ax.xaxis.get_major_ticks())
    stamp(title)  # idempotent
    assert type(title) is StampText
    assert _png(fig).min() < 100  # draws


def test_single_thread_pins_numba_and_blas_and_restores():
    numba = pytest.importorskip("numba")
    # SciPy brings its own OpenBLAS: every BLAS loaded in the process must be pinned, not
    # only NumPy's (a version that set NumPy's library alone passed when run in isolation)
    pytest.importorskip("scipy.linalg")
    before = numba.get_num_threads()
    with single_thread():
        assert numba.get_num_threads() == 1
        try:
            from threadpoolctl import threadpool_info
        except ImportError:
            pass
        else:
            assert all(i["num_threads"] == 1 for i in threadpool_info() if i["user_api"] == "blas")
        np.linalg.eigh(np.eye(50))
    assert numba.get_num_threads() == before
    with pytest.raises(RuntimeError):  # restored on errors too
        with single_thread():
            raise RuntimeError("boom")
    assert numba.get_num_threads() == before


def test_the_bitmap_cache_is_bounded_and_drops_the_least_recently_used():
    from kmlteach._render.cache import BitmapCache

    with pytest.raises(ValueError, match="max_bytes"):
        BitmapCache(max_bytes=0)
    cache = BitmapCache(max_bytes=3 * (64 + 1000))
    made = []

    def entry(k):
        return cache.get(("t", k), lambda: made.append(k) or np.zeros(1000, dtype=np.uint8))

    for k in range(3):
        entry(k)
    entry(0)  # 0 used again: 1 is now the least recently used
    entry(3)  # over budget: 1 goes
    assert ("t", 1) not in cache and all(("t", k) in cache for k in (0, 2, 3))
    assert cache.nbytes <= cache.max_bytes and cache.count("t") == 3
    entry(0)
    assert made == [0, 1, 2, 3]  # a hit makes nothing


def test_stamped_texts_draw_from_the_one_cache():
    from kmlteach._render import CACHE

    fig = Figure(figsize=(2, 1))
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    text = "cache-test 4711"
    stamp_text(ax, 0.5, 0.5, text)
    fig.canvas.draw()
    assert CACHE.count("text") >= 1
    assert any(k[0] == "text" and k[1] == text for k in CACHE.keys())
