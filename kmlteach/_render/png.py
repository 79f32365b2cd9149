"""The PNG encoder of the widgets' frames (an Agg canvas's pixels, fast)."""

from __future__ import annotations

import struct
import zlib

import numpy as np

__all__ = ["encode_png"]


def _chunk(tag: bytes, data: bytes) -> bytes:
    crc = struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
    return struct.pack(">I", len(data)) + tag + data + crc


def encode_png(canvas) -> bytes:
    """The canvas's current pixels (a ``FigureCanvasAgg``) as an 8-bit RGB PNG.

    Rows are stored unfiltered and deflated at level 1: on these mostly flat line-art
    images that is as small as Pillow's ``compress_level=1`` (within ~10 %) and about
    40 % faster. Any PNG decoder reads it (the tests decode it with Pillow). The RGB
    bytes are taken from the pixels viewed as little-endian 32-bit words (R in the low
    byte), three whole-plane shifts: copying ``rgba[..., :3]`` byte by byte took 4 ms of a
    1200 × 450 frame, this 1 ms.
    """
    rgba = np.asarray(canvas.buffer_rgba())
    h, w = rgba.shape[:2]
    px = np.ascontiguousarray(rgba).view("<u4").reshape(h, w)
    rows = np.empty((h, 1 + 3 * w), dtype=np.uint8)
    rows[:, 0] = 0  # filter type "None" on every row
    rgb = rows[:, 1:].reshape(h, w, 3)
    rgb[..., 0] = px  # (the uint8 cast keeps the low byte)
    rgb[..., 1] = px >> 8
    rgb[..., 2] = px >> 16
    head = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", head)
        + _chunk(b"IDAT", zlib.compress(rows, 1))
        + _chunk(b"IEND", b"")
    )
