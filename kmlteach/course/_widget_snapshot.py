"""Static snapshots of the course's widgets, read from a notebook's saved widget state.

When ``python -m kmlteach execute`` stores a notebook, the state of every live widget
(``metadata.widgets``) is saved with it, including the PNG of each explorer's figure
and the text of its readout. The site and the slide decks cannot run a kernel, so
they replace every widget view by what a student saw when the cell first ran: the
explorer's title, its controls with their initial values, the readout and the figure
(an ordinary ``image/png`` output with alt text). Nothing here needs a kernel, a CDN
or ipywidgets' JavaScript.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
_STALE_NOTE = "kml-widget-note"  # kmlteach.widgets._base.STALE_NOTE_CLASS (no widget import here)

__all__ = ["Snapshot", "snapshot", "widget_model_ids", "replace_widget_views", "WIDGET_VIEW"]

_CONTROL_MODELS = {
    "FloatSliderModel",
    "FloatLogSliderModel",
    "IntSliderModel",
    "CheckboxModel",
    "DropdownModel",
    "ToggleButtonsModel",
    "SelectionSliderModel",
    "RadioButtonsModel",
    "IntTextModel",
    "FloatTextModel",
    "ToggleButtonModel",
    "SelectModel",
}


@dataclass(frozen=True)
class Snapshot:
    """What one widget showed when its cell ran: title, controls, readout and figure."""

    model_id: str
    title: str
    classes: tuple[str, ...]
    controls: tuple[tuple[str, str], ...]
    readout_html: str
    png_base64: str | None
    width_px: int | None = None
    extra_html: tuple[str, ...] = field(default_factory=tuple)

    @property
    def readout_text(self) -> str:
        return _text(self.readout_html)

    def alt(self) -> str:
        """Alt text for the figure: the explorer's title, its settings and its readout."""
        settings = "; ".join(f"{k} = {v}" for k, v in self.controls)
        parts = [f"Snapshot of the interactive widget “{self.title}” at its initial settings"]
        if settings:
            parts.append(f"({settings})")
        text = " ".join(parts) + "."
        if self.readout_text:
            text += f" Readout: {self.readout_text}"
        return text

    def caption_html(self, binder_url: str | None = None) -> str:
        """Title, settings, the widget's own readout and where to run it live."""
        esc = html.escape
        parts = [f"<p><strong>{esc(self.title)}</strong> — static snapshot of an interactive widget</p>"]
        if self.controls:
            items = ", ".join(f"{esc(k)} = <code>{esc(v)}</code>" for k, v in self.controls)
            parts.append(f"<p>Settings: {items}.</p>")
        if self.readout_html:
            parts.append(f'<div class="kml-readout">{accessible_html(self.readout_html)}</div>')
        run = "Run the notebook to move the controls"
        parts.append(
            f'<p>{run} (<a href="{esc(binder_url)}">launch it on Binder</a>).</p>'
            if binder_url
            else f"<p>{run}.</p>"
        )
        return '<div class="kml-snapshot-caption">' + "".join(parts) + "</div>"


def _luminance(hex6: str) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(hex6[i : i + 2], 16) / 255 for i in (0, 2, 4))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def readable_color(hex6: str, min_ratio: float = 4.6) -> str:
    """``hex6`` darkened (same hue) until its contrast on white is at least ``min_ratio``.

    WCAG AA asks 4.5:1 for text; the course's Okabe-Ito vermillion #d55e00 has 3.9:1.
    """
    h = hex6.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    rgb = [int(h[i : i + 2], 16) for i in (0, 2, 4)]
    for _ in range(100):
        cur = "".join(f"{v:02x}" for v in rgb)
        if 1.05 / (_luminance(cur) + 0.05) >= min_ratio:
            return "#" + cur
        rgb = [int(v * 0.95) for v in rgb]
    return "#000000"


def accessible_html(fragment: str) -> str:
    """Readout HTML with every inline text colour made readable on white."""
    return re.sub(
        r"(?<![-\w])(color\s*:\s*)#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b",
        lambda m: m.group(1) + readable_color(m.group(2)),
        fragment or "",
    )


def _text(fragment: str) -> str:
    s = re.sub(r"<br\s*/?>", "; ", fragment or "")
    s = re.sub(r"<[^>]+>", " ", s)
    s = html.unescape(s).replace("\xa0", " ")
    return re.sub(r"\s+", " ", s).strip(" ;")


def _state(nb) -> dict:
    return (nb.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}) or {}).get("state", {})


def widget_model_ids(cell) -> list[str]:
    ids = []
    for out in cell.get("outputs", []) or []:
        view = (out.get("data") or {}).get(WIDGET_VIEW)
        if view:
            ids.append(view["model_id"])
    return ids


def _label(s: dict) -> str:
    return _text(s.get("description") or "") or "control"


def _value(name: str, s: dict) -> str:
    if "_options_labels" in s and "index" in s and s["index"] is not None:
        labels = s["_options_labels"]
        idx = s["index"]
        return str(labels[idx]) if isinstance(idx, int) and 0 <= idx < len(labels) else ""
    v = s.get("value")
    if name == "FloatLogSliderModel" or isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def snapshot(nb, model_id: str) -> Snapshot:
    """The snapshot of widget ``model_id`` from the notebook's saved widget state."""
    state = _state(nb)
    if model_id not in state:
        raise KeyError(f"widget {model_id} has no saved state in the notebook metadata")
    root = state[model_id]
    title, readout, png, width = "", "", None, None
    controls: list[tuple[str, str]] = []
    extra: list[str] = []

    def walk(mid: str) -> None:
        nonlocal title, readout, png, width
        m = state.get(mid.replace("IPY_MODEL_", ""))
        if m is None:
            return
        name, s = m["model_name"], m["state"]
        classes = s.get("_dom_classes") or []
        if name == "ImageModel" and png is None:
            for buf in m.get("buffers", []) or []:
                if buf.get("path") == ["value"] and buf.get("encoding") == "base64":
                    png = buf["data"]
            lay = state.get(str(s.get("layout", "")).replace("IPY_MODEL_", ""), {}).get("state", {})
            w = str(lay.get("width") or "")
            width = int(w[:-2]) if re.fullmatch(r"\d+px", w) else None
        elif name == "HTMLModel":
            if "kml-readout" in classes:
                readout = s.get("value", "")
            elif not title and re.fullmatch(r"\s*<b>.*</b>\s*", s.get("value", "") or "", re.S):
                title = _text(s["value"])
            elif s.get("value"):
                extra.append(s["value"])
        elif name in _CONTROL_MODELS:
            controls.append((_label(s), _value(name, s)))
        for child in s.get("children", []) or []:
            walk(child)

    walk(model_id)
    classes = tuple(root["state"].get("_dom_classes") or ())
    if not title:
        named = [c for c in classes if c != "kml-explorer"]
        title = named[0].removeprefix("kml-").replace("-", " ").capitalize() if named else "Widget"
    return Snapshot(
        model_id=model_id,
        title=title,
        classes=classes,
        controls=tuple(controls),
        readout_html=readout,
        png_base64=png,
        width_px=width,
        extra_html=tuple(extra),
    )


def snapshot_outputs(snap: Snapshot, binder_url: str | None = None) -> list[dict]:
    """nbformat outputs standing in for a widget view: a caption and the figure."""
    outs = [
        {
            "output_type": "display_data",
            "metadata": {},
            "data": {
                "text/html": snap.caption_html(binder_url),
                "text/plain": f"{snap.title} (static snapshot of an interactive widget)",
            },
        }
    ]
    if snap.png_base64:
        meta = {"image/png": {"alt": snap.alt()}}
        if snap.width_px:
            meta["image/png"]["width"] = snap.width_px
        outs.append(
            {
                "output_type": "display_data",
                "metadata": meta,
                "data": {"image/png": snap.png_base64, "text/plain": snap.alt()},
            }
        )
    return outs


def replace_widget_views(nb, binder_url: str | None = None) -> int:
    """Replace every widget view in ``nb`` (in place) by its static snapshot.

    Drops ``metadata.widgets`` afterwards, so no page tries to load the widget manager.
    Returns the number of widgets replaced.
    """
    from nbformat import from_dict

    n = 0
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code" or not widget_model_ids(cell):
            continue
        new = []
        for out in cell.get("outputs", []):
            view = (out.get("data") or {}).get(WIDGET_VIEW)
            if _STALE_NOTE in str((out.get("data") or {}).get("text/html", "")):
                continue  # "run this cell to get the widget back": not for a static page
            if view:
                new.extend(from_dict(o) for o in snapshot_outputs(snapshot(nb, view["model_id"]), binder_url))
                n += 1
            else:
                new.append(out)
        cell["outputs"] = new
    nb.get("metadata", {}).pop("widgets", None)
    return n
