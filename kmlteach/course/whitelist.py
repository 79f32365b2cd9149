"""The metadata a released (student) notebook may keep, checked against whitelists.

The release rebuilds every notebook from cell types and sources only; lecture mode is the
one exception (live slides from ``student/``): a cell's slide type and the slideshow's
scalar settings, so no text of the instructor notebook can ride along in metadata.
"""

from __future__ import annotations

__all__ = ["slide_meta", "rise_meta"]

_SLIDE_TYPES = {"slide", "subslide", "fragment", "skip", "notes", "-"}
_RISE_KEYS = {
    "width",
    "height",
    "scroll",
    "theme",
    "transition",
    "start_slideshow_at",
    "autolaunch",
    "controls",
    "progress",
    "center",
    "slideNumber",
    "enable_chalkboard",
}


def slide_meta(cell) -> dict:
    md = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
    show = md.get("slideshow")
    if isinstance(show, dict) and show.get("slide_type") in _SLIDE_TYPES:
        return {"slideshow": {"slide_type": show["slide_type"]}}
    return {}


def rise_meta(meta) -> dict:
    rise = meta.get("rise") if isinstance(meta, dict) else None
    if not isinstance(rise, dict):
        return {}
    return {
        k: v
        for k, v in rise.items()
        if k in _RISE_KEYS
        and (isinstance(v, (bool, int, float)) or (isinstance(v, str) and len(v) <= 24 and v.isprintable()))
    }
