"""Synthetic OCR words for chapter 05 (UML §17.3): letter images of real words.

Each word is a sequence of small grey-level letter images (16 x 8 pixels, one row
per letter after flattening). The glyphs are drawn from DejaVu Sans, the font that
ships with matplotlib, so nothing is downloaded: the 26 clean lower-case glyphs are
rasterised once (at 4x resolution, anti-aliased) and cached; every letter instance
is then a random affine distortion of its cached glyph (rotation, shear, scale,
shift), resampled bilinearly, plus Gaussian pixel noise. Words are drawn uniformly
from ``kmlteach/data/words.txt`` (a few thousand common English words; its header
says how the list was made).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from .._validation import check_int, check_nonnegative, check_rng

__all__ = ["OCRWords", "ocr_words", "word_list", "glyphs", "LETTERS", "LETTER_SHAPE"]

LETTERS = "abcdefghijklmnopqrstuvwxyz"
LETTER_SHAPE = (16, 8)  # (height, width) of one letter image
_SUPER = 4  # glyphs are cached at 4x resolution
_EM_BOTTOM, _EM_TOP = -0.23, 0.79  # vertical extent of the em box (font units)
_MAX_WIDTH = 0.44  # wide glyphs (m, w) are squeezed to this width


@dataclass(frozen=True)
class OCRWords:
    """A sample of word images.

    Attributes
    ----------
    X : list of ndarray, each (r_i, n_pixels)
        Letter images of word i, one flattened 16 x 8 image per row, values in [0, 1].
    y : list of int64 ndarray, each (r_i,)
        The letters as 0..25 (a = 0).
    words : list of str
    letter_shape : tuple (height, width)
    """

    X: list
    y: list
    words: list
    letter_shape: tuple

    @property
    def n_pixels(self) -> int:
        return self.letter_shape[0] * self.letter_shape[1]


@lru_cache(maxsize=1)
def word_list() -> tuple[str, ...]:
    """The bundled list of common English words (lower-case a-z, length 2-12)."""
    text = resources.files("kmlteach").joinpath("data/words.txt").read_text(encoding="utf-8")
    return tuple(w for w in (line.strip() for line in text.splitlines()) if w and not w.startswith("#"))


@lru_cache(maxsize=1)
def glyphs() -> np.ndarray:
    """The 26 clean glyphs at 4x resolution, shape (26, 64, 32), values in [0, 1]."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.path import Path
    from matplotlib.textpath import TextPath
    from matplotlib.transforms import Affine2D

    H, Wd = LETTER_SHAPE[0] * _SUPER, LETTER_SHAPE[1] * _SUPER
    fine = 3  # 3 x 3 coverage samples per cached pixel
    em_h = _EM_BOTTOM - _EM_TOP
    scale = -H / em_h  # font units -> cached pixels
    # sample points (x right, y up in font units) at the centres of the fine grid
    gy = (np.arange(H * fine) + 0.5) / fine
    gx = (np.arange(Wd * fine) + 0.5) / fine
    px, py = np.meshgrid(gx, gy)
    pts = np.c_[px.ravel(), py.ravel()]
    prop = FontProperties(family="DejaVu Sans")
    out = np.empty((26, H, Wd))
    for k, ch in enumerate(LETTERS):
        path = TextPath((0, 0), ch, size=1.0, prop=prop)
        ext = path.get_extents()
        sx = min(1.0, _MAX_WIDTH / ext.width)
        # centre horizontally, keep the baseline: font y -> image row (downwards)
        tr = (
            Affine2D()
            .translate(-(ext.x0 + ext.x1) / 2, 0)
            .scale(sx * scale, -scale)
            .translate(Wd / 2, _EM_TOP * scale)
        )
        # even-odd rule over the glyph's closed contours, so that holes stay open
        inside = np.zeros(pts.shape[0], dtype=bool)
        for poly in tr.transform_path(path).to_polygons(closed_only=True):
            inside ^= Path(poly).contains_points(pts)
        inside = inside.reshape(H * fine, Wd * fine).astype(float)
        out[k] = inside.reshape(H, fine, Wd, fine).mean(axis=(1, 3))
    out.setflags(write=False)
    return out


_CHUNK = 256  # letters resampled at once: bounds the temporaries (~1 MiB per array)


def _distort(G: np.ndarray, labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Random affine distortions of the cached glyphs, resampled to 16 x 8 (the random
    draws for all letters first, then the resampling in chunks of :data:`_CHUNK` letters:
    each letter's image depends on its own draws only, so the chunks change no bit, and the
    temporaries stay small: 2 400 letters at once took 120 MiB)."""
    h, w = LETTER_SHAPE
    N = labels.shape[0]
    angle = np.deg2rad(rng.uniform(-8, 8, N))
    shear = rng.uniform(-0.2, 0.2, N)
    sc = rng.uniform(0.88, 1.08, N)
    shift = rng.uniform(-0.8, 0.8, (N, 2))  # (dx, dy) in output pixels
    # forward map A = scale * rotation * shear; sample at A^{-1} (p - c - shift) + c
    c, s = np.cos(angle), np.sin(angle)
    A = np.empty((N, 2, 2))
    A[:, 0, 0] = sc * c
    A[:, 0, 1] = sc * (c * shear - s)
    A[:, 1, 0] = sc * s
    A[:, 1, 1] = sc * (s * shear + c)
    Ainv = np.linalg.inv(A)
    Hs, Ws = G.shape[1:]
    Gp = np.zeros((G.shape[0], Hs + 4, Ws + 4))  # zero border: samples outside are blank
    Gp[:, 2:-2, 2:-2] = G
    out = np.empty((N, h * w))
    for a in range(0, N, _CHUNK):
        b = min(N, a + _CHUNK)
        out[a:b] = _resample(Gp, labels[a:b], Ainv[a:b], shift[a:b])
    return out


def _resample(Gp: np.ndarray, labels: np.ndarray, Ainv: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """Bilinear samples of the padded glyphs ``Gp`` at the inverse-mapped sample points,
    2 x 2 per output pixel, averaged: one row of 16 x 8 pixels per letter."""
    h, w = LETTER_SHAPE
    N = labels.shape[0]
    sub = 2  # 2 x 2 samples per output pixel
    v = (np.arange(h * sub) + 0.5) / sub
    u = (np.arange(w * sub) + 0.5) / sub
    uu, vv = np.meshgrid(u, v)
    P = np.stack([uu.ravel() - w / 2, vv.ravel() - h / 2])  # (2, P)
    Q = np.einsum("nij,njp->nip", Ainv, P[None] - shift[:, :, None])
    xs = (Q[:, 0] + w / 2) * _SUPER - 0.5
    ys = (Q[:, 1] + h / 2) * _SUPER - 0.5
    x0 = np.floor(xs).astype(np.int64)
    y0 = np.floor(ys).astype(np.int64)
    fx, fy = xs - x0, ys - y0
    Hs, Ws = Gp.shape[1] - 4, Gp.shape[2] - 4
    x0 = np.clip(x0 + 2, 0, Ws + 2)
    y0 = np.clip(y0 + 2, 0, Hs + 2)
    # gather from the flattened padded glyphs (one linear index per sample)
    Gf = Gp.reshape(-1)
    stride = Ws + 4
    base = labels[:, None] * ((Hs + 4) * stride) + y0 * stride + x0
    val = (Gf[base] * (1 - fx) + Gf[base + 1] * fx) * (1 - fy) + (
        Gf[base + stride] * (1 - fx) + Gf[base + stride + 1] * fx
    ) * fy
    return val.reshape(N, h, sub, w, sub).mean(axis=(2, 4)).reshape(N, h * w)


def ocr_words(n_words: int, noise: float = 0.1, seed=None) -> OCRWords:
    """Sample ``n_words`` noisy word images (the OCR task of UML §17.3).

    Parameters
    ----------
    n_words : int >= 1
        Number of words, drawn uniformly (with replacement) from :func:`word_list`.
    noise : float >= 0, default=0.1
        Standard deviation of the Gaussian noise added to every pixel; values are then
        clipped to [0, 1]. Each letter also gets a random affine distortion
        (rotation within ±8°, shear within ±0.2, scale 0.88-1.08, shift within ±0.8 px).
    seed : int, Generator or None
        The same seed gives identical data.

    Returns
    -------
    OCRWords
        ``.X`` (list of (r_i, 128) arrays), ``.y`` (list of int arrays, a = 0),
        ``.words``, ``.letter_shape`` = (16, 8).

    Examples
    --------
    >>> data = ocr_words(3, seed=0)
    >>> data.X[0].shape[1], data.letter_shape
    (128, (16, 8))
    """
    n_words = check_int(n_words, "n_words", minimum=1)
    noise = check_nonnegative(noise, "noise")
    rng = check_rng(seed)
    vocab = word_list()
    words = [vocab[i] for i in rng.integers(0, len(vocab), size=n_words)]
    labels = np.frombuffer("".join(words).encode("ascii"), dtype=np.uint8).astype(np.int64) - 97
    imgs = _distort(glyphs(), labels, rng)
    if noise > 0:
        imgs = imgs + noise * rng.standard_normal(imgs.shape)
    np.clip(imgs, 0.0, 1.0, out=imgs)
    cuts = np.cumsum([len(w) for w in words])[:-1]
    X = [np.ascontiguousarray(a) for a in np.split(imgs, cuts)]
    y = [np.ascontiguousarray(a) for a in np.split(labels, cuts)]
    return OCRWords(X=X, y=y, words=words, letter_shape=LETTER_SHAPE)
