"""Cut a stored figure PNG into its panels, for slides too small to show it whole.

A widget's multi-panel figure is often too wide for a 1280×720 slide at 1.5× its reading
size. The saved widget state holds only the PNG, so the panels are found in its pixels:
an axes is framed by its spines, long straight dark lines. Columns crossed by a long
horizontal dark line (top/bottom spines) belong to a panel; a *gutter* is a run of
columns crossed by no such line and holding almost no ink (a shared title or legend may
cross it). The figure is cut in the middle of each gutter, the same way row-wise with
vertical lines, and each piece is trimmed to its ink. Nothing is re-rendered.
"""

from __future__ import annotations

import base64
import io

import numpy as np

__all__ = ["decode_png", "encode_png", "panel_boxes", "crop_png"]

DARK = 110  # luminance below which a pixel can belong to a spine
INK = 235  # luminance below which a pixel is ink (not background)
LINE_FRAC = 0.08  # a spine is at least this fraction of the image's side long
INK_FRAC = 0.03  # a gutter column holds at most this fraction of ink
MIN_PANEL = 150  # px: no panel cut out of a figure is narrower or lower than this


def decode_png(b64: str) -> np.ndarray:
    """Luminance (0–255, float32) of a base64 PNG, shape (height, width)."""
    from PIL import Image

    if not isinstance(b64, str) or not b64:
        raise ValueError("b64 must be a non-empty base64 PNG string")
    img = Image.open(io.BytesIO(base64.b64decode(b64))).convert("L")
    return np.asarray(img, dtype=np.float32)


def encode_png(img) -> str:
    buf = io.BytesIO()
    img.save(buf, "PNG", optimize=False, compress_level=6)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _covered(lum: np.ndarray) -> np.ndarray:
    """Columns crossed by a horizontal dark line at least LINE_FRAC of the width long."""
    dark = lum < DARK
    h, w = dark.shape
    need = max(8, int(LINE_FRAC * w))
    cov = np.zeros(w, dtype=bool)
    for row in dark[dark.sum(axis=1) >= need]:
        edges = np.flatnonzero(np.diff(np.concatenate(([0], row.view(np.int8), [0]))))
        for a, b in zip(edges[::2], edges[1::2]):
            if b - a >= need:
                cov[a:b] = True
    return cov


def _cuts(lum: np.ndarray) -> list[int]:
    """Column indices where the image can be cut between two panels."""
    h, w = lum.shape
    cov = _covered(lum)
    ink = (lum < INK).sum(axis=0)
    gutter = ~cov & (ink <= INK_FRAC * h)
    # a side is a panel if a spine crosses it, or (a 3-D or frameless axes) it has inked columns
    rich = np.cumsum(ink > INK_FRAC * h)
    min_panel = 0.1 * w
    edges = np.flatnonzero(np.diff(np.concatenate(([0], gutter.view(np.int8), [0]))))
    cuts = []
    min_run = max(4, int(0.006 * w))
    for a, b in zip(edges[::2], edges[1::2]):
        left, right = rich[a - 1] if a else 0, rich[-1] - rich[b - 1]
        if a == 0 or b == w or b - a < min_run:
            continue
        if not (cov[:a].any() or left >= min_panel) or not (cov[b:].any() or right >= min_panel):
            continue
        run = ink[a:b]
        lows = np.flatnonzero(run == run.min())
        cuts.append(int(a + lows[len(lows) // 2]))
    return cuts


def _trim(lum: np.ndarray, box: tuple[int, int, int, int], pad: int = 6) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = box
    ink = lum[y0:y1, x0:x1] < INK
    cols, rows = np.flatnonzero(ink.any(axis=0)), np.flatnonzero(ink.any(axis=1))
    if not len(cols):
        return box
    return (
        max(x0, x0 + cols[0] - pad),
        max(y0, y0 + rows[0] - pad),
        min(x1, x0 + cols[-1] + 1 + pad),
        min(y1, y0 + rows[-1] + 1 + pad),
    )


def _split(lum, box, axis: int) -> list[tuple[int, int, int, int]]:
    x0, y0, x1, y1 = box
    part = lum[y0:y1, x0:x1]
    cuts = _cuts(part if axis == 1 else part.T)
    bounds = [0] + cuts + [part.shape[1] if axis == 1 else part.shape[0]]
    if axis == 1:
        return [(x0 + a, y0, x0 + b, y1) for a, b in zip(bounds, bounds[1:])]
    return [(x0, y0 + a, x1, y0 + b) for a, b in zip(bounds, bounds[1:])]


def _union(a, b):
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _merge_slivers(pieces, axis: int, frac: float = 0.12):
    """Fold a piece narrower than ``frac`` of the whole (a legend, a colour bar) into its
    narrower neighbour: it belongs to a panel, never on a slide of its own."""
    span = lambda p: p[2] - p[0] if axis == 1 else p[3] - p[1]
    total = sum(span(p) for p in pieces)
    pieces = list(pieces)
    while len(pieces) > 1:
        k = min(range(len(pieces)), key=lambda i: span(pieces[i]))
        if span(pieces[k]) >= frac * total:
            break
        nbrs = [j for j in (k - 1, k + 1) if 0 <= j < len(pieces)]
        j = min(nbrs, key=lambda i: span(pieces[i]))
        lo, hi = min(j, k), max(j, k)
        pieces[lo : hi + 1] = [_union(pieces[lo], pieces[hi])]
    return pieces


def _group(pieces, fits):
    """Merge neighbouring pieces while the merged piece still fits."""
    groups = [pieces[0]]
    for p in pieces[1:]:
        g = groups[-1]
        merged = _union(g, p)
        if fits(merged):
            groups[-1] = merged
        else:
            groups.append(p)
    return groups


def panel_boxes(lum: np.ndarray, fits, box=None, depth: int = 0) -> list[tuple[int, int, int, int]]:
    """Pixel boxes ``(x0, y0, x1, y1)`` covering the figure, each one that ``fits`` if possible.

    ``fits(box) -> bool`` says whether a box can be shown at the wanted size. The figure is
    kept whole when it fits; otherwise it is cut into columns of panels (then rows) and
    neighbouring panels are shown together whenever they fit together.
    """
    if not callable(fits):
        raise ValueError("fits must be a callable taking a box")
    lum = np.asarray(lum)
    if lum.ndim != 2 or lum.size == 0:
        raise ValueError("lum must be a non-empty 2-D luminance image")
    box = _trim(lum, box or (0, 0, lum.shape[1], lum.shape[0]))
    if fits(box) or depth > 3:
        return [box]
    for axis in (1, 0):
        pieces = _merge_slivers([_trim(lum, p) for p in _split(lum, box, axis)], axis)
        if len(pieces) > 1:
            groups = _group(pieces, fits)
            # a piece smaller than MIN_PANEL px is a letter or a tick label of a figure drawn
            # as many small axes, not a panel: such a figure is shown whole (scaled to fit)
            if any(min(g[2] - g[0], g[3] - g[1]) < MIN_PANEL for g in groups):
                continue
            out = []
            for g in groups:
                out.extend(panel_boxes(lum, fits, g, depth + 1))
            return out
    return [box]


def crop_png(b64: str, box: tuple[int, int, int, int]) -> str:
    """The base64 PNG of ``box`` (pixels ``x0, y0, x1, y1``) cut out of base64 PNG ``b64``."""
    from PIL import Image

    if not isinstance(b64, str) or not b64:
        raise ValueError("b64 must be a non-empty base64 PNG string")
    if len(box) != 4 or not (box[0] < box[2] and box[1] < box[3]):
        raise ValueError(f"box must be (x0, y0, x1, y1) with x0 < x1 and y0 < y1, got {box}")
    img = Image.open(io.BytesIO(base64.b64decode(b64)))
    return encode_png(img.crop(tuple(int(v) for v in box)))
