"""The widgets' rendering layer: everything that draws a frame of a widget fast.

* :mod:`.blit` — :class:`Blitter`: redraw only the artists an update changed, over a
  stored background, pixel-identical to a full draw (:mod:`.regions` measures them);
* :mod:`.png` — :func:`encode_png`, the frame's PNG;
* :mod:`.text` — the one fast-text mechanism (texts drawn once into bitmaps and pasted):
  :func:`stamp`, :func:`label`, :func:`text_row`, :func:`title_row`, :class:`TextGroup`;
* :mod:`.layers` — pixel layers: :func:`region_layer`, :func:`paint_cached`,
  :func:`paint_markers`;
* :mod:`.cache` — the layer's one bounded cache (:data:`CACHE`);
* :mod:`._mpl` — the only reads of matplotlib's private attributes, each explained.

Part of the ground floor: it imports matplotlib and NumPy, never ``kmlteach.widgets``,
``kmlteach.plots`` or the course machinery (``tests/test_architecture.py``).
"""

from .blit import Blitter
from .cache import CACHE
from .layers import paint_cached, paint_markers, region_layer, set_gc_clip
from .png import encode_png
from .regions import bound_by_axes
from .text import (
    StampText,
    TextGroup,
    detached_texts,
    label,
    stamp,
    stamp_axis,
    stamp_text,
    text_row,
    title_row,
)

__all__ = [
    "Blitter",
    "CACHE",
    "encode_png",
    "bound_by_axes",
    "region_layer",
    "paint_cached",
    "paint_markers",
    "set_gc_clip",
    "StampText",
    "TextGroup",
    "detached_texts",
    "label",
    "stamp",
    "stamp_axis",
    "stamp_text",
    "text_row",
    "title_row",
]
