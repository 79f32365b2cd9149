"""Chapter 05 data: synthetic OCR words rendered from matplotlib's DejaVu Sans."""

import time

import numpy as np
import pytest

from kmlteach.datasets import ocr_words
from kmlteach.datasets._ocr import glyphs, word_list


def test_word_list():
    words = word_list()
    assert 2000 <= len(words) <= 6000
    assert all(w.isascii() and w.isalpha() and w.islower() and 2 <= len(w) <= 12 for w in words)
    assert {"the", "and", "house", "water"} <= set(words)


def test_shapes_labels_and_range():
    d = ocr_words(20, noise=0.1, seed=0)
    assert d.letter_shape == (16, 8)
    assert len(d.X) == len(d.y) == len(d.words) == 20
    for x, y, w in zip(d.X, d.y, d.words):
        assert x.shape == (len(w), 128) and x.dtype == np.float64
        assert y.dtype == np.int64 and "".join(chr(97 + k) for k in y) == w
        assert x.min() >= 0 and x.max() <= 1


def test_deterministic_for_a_seed():
    a, b, c = ocr_words(15, seed=3), ocr_words(15, seed=3), ocr_words(15, seed=4)
    assert a.words == b.words
    for xa, xb in zip(a.X, b.X):
        np.testing.assert_array_equal(xa, xb)
    assert a.words != c.words


def test_images_look_like_their_glyphs():
    """Without noise most letter images correlate best with their own clean glyph."""
    d = ocr_words(100, noise=0.0, seed=1)
    G = glyphs().reshape(26, 16, 4, 8, 4).mean(axis=(2, 4)).reshape(26, -1)
    X, y = np.vstack(d.X), np.concatenate(d.y)
    Xc = X - X.mean(axis=1, keepdims=True)
    Gc = G - G.mean(axis=1, keepdims=True)
    corr = (Xc @ Gc.T) / np.outer(np.linalg.norm(Xc, axis=1) + 1e-12, np.linalg.norm(Gc, axis=1))
    assert np.mean(corr.argmax(axis=1) == y) > 0.6  # chance: 1/26; measured ~0.79
    # holes stay open: the centre of a clean 'o' is blank
    assert glyphs()[14][30:34, 14:18].max() < 0.1


def test_noise_grows():
    clean = np.vstack(ocr_words(30, noise=0.0, seed=2).X)
    noisy = np.vstack(ocr_words(30, noise=0.5, seed=2).X)
    assert np.abs(noisy - clean).mean() > 0.15


def test_a_thousand_words_do_not_hang():
    # a hang guard only (0.3 s on an idle machine; CI shares 2 cores with parallel test
    # workers): speed is measured in `make bench`, never asserted in a test
    glyphs()
    t0 = time.perf_counter()
    data = ocr_words(1000, seed=0)
    assert time.perf_counter() - t0 < 60.0
    assert len(data.words) == len(data.X) == len(data.y) == 1000


def test_bad_input():
    with pytest.raises(ValueError, match="n_words"):
        ocr_words(0)
    with pytest.raises(TypeError, match="n_words"):
        ocr_words("10")
    with pytest.raises(ValueError, match="noise"):
        ocr_words(5, noise=-0.1)
    with pytest.raises(ValueError, match="noise"):
        ocr_words(5, noise=float("nan"))
    with pytest.raises(TypeError, match="seed"):
        ocr_words(5, seed="a")


def test_chunked_resampling_changes_no_bit_and_bounds_the_temporaries(monkeypatch):
    import tracemalloc

    from kmlteach.datasets import _ocr

    _ocr.glyphs()
    tracemalloc.start()
    try:
        chunked = ocr_words(400, noise=0.3, seed=1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 40 * 2**20  # 2 600 letters at once: 134 MiB of temporaries
    monkeypatch.setattr(_ocr, "_CHUNK", 10**9)  # every letter in one chunk
    whole = ocr_words(400, noise=0.3, seed=1)
    assert chunked.words == whole.words
    for a, b in zip(chunked.X, whole.X):
        np.testing.assert_array_equal(a, b)
