"""The course map of 00-welcome: the chapters of ``book.toml`` as a dependency graph.

Each chapter is a box placed by its depth in the ``requires`` graph (a chapter sits one
column right of the deepest chapter it needs), labelled with its time estimate
(``reading_minutes`` plus the exercises' ``minutes``) and its graded points.
"""

from __future__ import annotations

import textwrap

from .book import Book, Chapter, load

__all__ = ["depths", "direct_requires", "course_rows", "course_map", "format_minutes", "alt_text"]


def depths(book: Book) -> dict[str, int]:
    """Column of every chapter: 0 for no requirement, else 1 + the deepest requirement."""
    by_id = {c.id: c for c in book.chapters}
    out: dict[str, int] = {}

    def depth(cid: str, seen: tuple[str, ...] = ()) -> int:
        if cid in out:
            return out[cid]
        if cid in seen:
            raise ValueError(f"book.toml: chapter {cid!r} requires itself through {seen}")
        reqs = [r for r in by_id[cid].requires if r in by_id]
        out[cid] = 0 if not reqs else 1 + max(depth(r, seen + (cid,)) for r in reqs)
        return out[cid]

    for c in book.chapters:
        depth(c.id)
    return out


def direct_requires(book: Book) -> dict[str, tuple[str, ...]]:
    """The ``requires`` edges without those implied by others (the transitive reduction).

    09 requires 01 and 02, but 02 already requires 01, so only 02 → 09 is drawn.
    """
    by_id = {c.id: c for c in book.chapters}

    def ancestors(cid: str) -> set[str]:
        out: set[str] = set()
        stack = [r for r in by_id[cid].requires if r in by_id]
        while stack:
            r = stack.pop()
            if r not in out:
                out.add(r)
                stack.extend(x for x in by_id[r].requires if x in by_id)
        return out

    depths(book)  # raises on a cycle
    return {
        c.id: tuple(
            r
            for r in c.requires
            if r in by_id and not any(r in ancestors(o) for o in c.requires if o != r and o in by_id)
        )
        for c in book.chapters
    }


def format_minutes(minutes: int) -> str:
    """``95`` → ``"1 h 35 min"``, ``40`` → ``"40 min"``."""
    h, m = divmod(int(minutes), 60)
    if not h:
        return f"{m} min"
    return f"{h} h" if not m else f"{h} h {m:02d} min"


def course_rows(book: Book | None = None) -> list[dict]:
    """One row per chapter: id, title, status, requires, minutes, points, graded exercises."""
    book = book or load()
    return [
        {
            "id": c.id,
            "title": c.title,
            "status": c.status,
            "requires": c.requires,
            "minutes": c.minutes,
            "points": c.points,
            "graded": [
                (e["id"], int(e.get("points") or 0)) for e in c.exercises if int(e.get("points") or 0) > 0
            ],
        }
        for c in book.chapters
    ]


def _label(c: Chapter) -> str:
    title = "\n".join(textwrap.wrap(c.title.split(":")[0], 16)[:4])
    pts = f"\n{c.points} point{'s' if c.points != 1 else ''}" if c.points else ""
    extra = "" if c.ready else "\n(planned)"
    return f"{c.id}  {title}\n≈ {format_minutes(c.minutes)}{pts}{extra}"


def course_map(book: Book | None = None, ax=None):
    """Draw the dependency graph of the chapters; returns the Axes.

    Arrows run from a chapter to the chapters that need it (only the direct ones: an edge
    implied by a longer path is left out); planned chapters are drawn dashed and grey.
    """
    import matplotlib.pyplot as plt

    book = book or load()
    col = depths(book)
    ncol = max(col.values()) + 1
    columns: dict[int, list[Chapter]] = {}
    for c in book.chapters:
        columns.setdefault(col[c.id], []).append(c)
    nrow = max(len(v) for v in columns.values())
    edges = direct_requires(book)
    pos: dict[str, tuple[float, float]] = {}
    for k in sorted(columns):
        # fewer crossings: a chapter sits near the chapters it needs (barycentre order)
        chs = sorted(
            columns[k],
            key=lambda c: -sum(pos[r][1] for r in edges[c.id]) / len(edges[c.id]) if edges[c.id] else 0.0,
        )
        for r, c in enumerate(chs):
            pos[c.id] = (k * 3.2, 1.55 * ((len(chs) - 1) / 2 - r))
    if ax is None:
        # about a notebook's width at 100 dpi, so the text is shown at its own size, not shrunk
        _, ax = plt.subplots(figsize=(1.9 * ncol + 0.4, 1.45 * nrow + 0.9), layout="constrained")
    w, h = 2.6, 1.3
    for c in book.chapters:
        for r in edges[c.id]:
            if r in pos:
                (x0, y0), (x1, y1) = pos[r], pos[c.id]
                ax.annotate(
                    "",
                    xy=(x1 - w / 2, y1),
                    xytext=(x0 + w / 2, y0),
                    arrowprops=dict(arrowstyle="-|>", color="#555555", lw=1.3, shrinkA=2, shrinkB=2),
                    zorder=1,
                )
    for c in book.chapters:
        x, y = pos[c.id]
        ready = c.ready
        ax.add_patch(
            plt.Rectangle(
                (x - w / 2, y - h / 2),
                w,
                h,
                facecolor="#E8F1FA" if ready else "#F2F2F2",
                edgecolor="#0072B2" if ready else "#888888",
                lw=1.5,
                ls="-" if ready else "--",
                zorder=2,
            )
        )
        ax.text(
            x,
            y,
            _label(c),
            ha="center",
            va="center",
            fontsize=10.5,
            color="#111111" if ready else "#555555",
            zorder=3,
        )
    ax.set_xlim(-w / 2 - 0.2, (ncol - 1) * 3.2 + w / 2 + 0.2)
    ax.set_ylim(
        min(p[1] for p in pos.values()) - h / 2 - 0.15, max(p[1] for p in pos.values()) + h / 2 + 0.15
    )
    ax.set_axis_off()
    ax.set_title(
        "Course map: an arrow A → B means 'read A before B' (and everything before A);\n"
        "time = reading + exercises; points: those of the graded exercises",
        fontsize=11.5,
    )
    return ax


def alt_text(book: Book | None = None) -> str:
    """A sentence per chapter describing the map, for the figure's alt text."""
    book = book or load()
    parts = []
    for r in course_rows(book):
        need = ", ".join(r["requires"]) or "nothing"
        parts.append(
            f"chapter {r['id']} ({r['title']}, {r['status']}) needs {need}, about "
            f"{format_minutes(r['minutes'])}, {r['points']} points"
        )
    return "Course map as a dependency graph: " + "; ".join(parts) + "."
