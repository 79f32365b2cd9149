"""A 3-D view for the embedding explorer, projected by hand onto a 2-D Axes.

Matplotlib's ``mplot3d`` Axes repaints itself whole on every rotation (panes, grids,
~40 tick labels laid out again: 60–250 ms per frame on two cores). :class:`Box3D`
draws the same picture — the data's bounding box with its three back panes and their
grid lines, the axes with ticks and labels, points and a plane — as ordinary 2-D
artists whose data are set in place (``set_offsets``, ``set_xy``, ``set_data``, label
rows of cached bitmaps), so a rotation repaints a few artists over a blank background.

The projection is orthographic with mplot3d's conventions: the box is scaled to the
aspect 1 : 1 : 0.75, ``azim`` turns it about the vertical axis, ``elev`` tilts the
viewer above the (x, y) plane, and the axes are labelled on the edges mplot3d uses.
Points are split by the side of the plane they lie on, so the plane hides (tints) the
ones behind it and not the ones in front — a depth cue mplot3d does not give.

Re-exported by nothing: an implementation module of :mod:`kmlteach.widgets.ch02`.
"""

from __future__ import annotations

import numpy as np

from ..._render import text_row
from ...plots import OKABE_ITO, class_style

__all__ = ["Box3D", "view_basis", "plane_polygon"]

_ASPECT = np.array([1.0, 1.0, 0.75])
_RADIUS = 0.9  # half the view's width: the box (0.71 at most) and its labels


def view_basis(elev: float, azim: float):
    """(right, up, towards the viewer): orthonormal rows of the view (degrees, mplot3d's sense)."""
    e, a = np.radians(float(elev)), np.radians(float(azim))
    eye = np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])
    right = np.array([-np.sin(a), np.cos(a), 0.0])
    up = np.array([-np.sin(e) * np.cos(a), -np.sin(e) * np.sin(a), np.cos(e)])
    return np.array([right, up, eye])


def plane_polygon(lo, hi, w, b) -> np.ndarray:
    """Corners (k, 3), in order around it, of the plane <w, z> + b = 0 cut by the box [lo, hi]
    (k = 0 when the plane misses the box or w = 0)."""
    lo, hi, w = (np.asarray(v, dtype=float) for v in (lo, hi, w))
    if not np.any(w):
        return np.zeros((0, 3))
    corners = np.array([[(lo, hi)[(c >> k) & 1][k] for k in range(3)] for c in range(8)])
    f = corners @ w + b
    pts = []
    for i in range(8):
        for k in range(3):
            j = i | (1 << k)
            if j == i:
                continue
            if f[i] == 0:
                pts.append(corners[i])
            elif f[i] * f[j] < 0:
                t = f[i] / (f[i] - f[j])
                pts.append(corners[i] + t * (corners[j] - corners[i]))
    if len(pts) < 3:
        return np.zeros((0, 3))
    P = np.unique(np.round(np.array(pts), 12), axis=0)
    if len(P) < 3:
        return np.zeros((0, 3))
    c = P.mean(axis=0)
    n = w / np.linalg.norm(w)
    u = np.cross(n, [1.0, 0, 0] if abs(n[0]) < 0.9 else [0, 1.0, 0])
    u /= np.linalg.norm(u)
    v = np.cross(n, u)
    return P[np.argsort(np.arctan2((P - c) @ v, (P - c) @ u))]


def _ticks(lo: float, hi: float) -> np.ndarray:
    from matplotlib.ticker import MaxNLocator

    t = MaxNLocator(5).tick_values(lo, hi)
    return t[(t >= lo - 1e-9 * (hi - lo)) & (t <= hi + 1e-9 * (hi - lo))]


def _fmt(v: float) -> str:
    return f"{v:g}".replace("-", "\u2212")


def _polygon_class():
    from matplotlib.patches import Polygon
    from matplotlib.transforms import Bbox

    class FastPolygon(Polygon):
        """A straight-sided polygon whose extent is its corners' (the blitter asks for it on
        every frame; ``Patch.get_window_extent`` walks the path as Bezier curves)."""

        def get_window_extent(self, renderer=None):
            xy = self.get_xy()
            if not len(xy):
                return Bbox([[0.0, 0.0], [0.0, 0.0]])
            xy = self.get_transform().transform(xy)
            return Bbox([xy.min(axis=0), xy.max(axis=0)])

    return FastPolygon


class Box3D:
    """A rotatable 3-D box with two classes of points and a plane, on the 2-D Axes ``ax``.

    Parameters
    ----------
    ax : a 2-D Axes (its limits, aspect and frame are set here)
    lo, hi : the box (3 values each); ``labels``: the three axis names (plain text).
    Psi, y : points (m, 3) and their labels in {-1, +1}.
    ticks : per axis, its tick values, or None to choose them from the box.
    """

    def __init__(self, ax, lo, hi, labels, Psi, y, marker_size: float = 18, ticks=(None, None, None)):
        Polygon = _polygon_class()
        self.ax = ax
        self.lo, self.hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
        self.Psi, self.y = np.asarray(Psi, dtype=float), np.asarray(y)
        # ``ticks[k]``: the tick values of axis k (None: chosen from the box)
        self.ticks = [
            _ticks(self.lo[k], self.hi[k]) if t is None else np.asarray(t, float) for k, t in enumerate(ticks)
        ]
        ax.set_xlim(-_RADIUS, _RADIUS)
        ax.set_ylim(-0.8, 0.8)
        ax.set_aspect("equal")
        ax.set_axis_off()
        self.panes = [
            ax.add_patch(
                Polygon(
                    np.zeros((4, 2)),
                    closed=True,
                    facecolor=(0.95, 0.95, 0.95),
                    edgecolor=(0.8, 0.8, 0.8),
                    lw=0.6,
                    zorder=0.5,
                )
            )
            for _ in range(3)
        ]
        (self.grid,) = ax.plot([], [], color="#c8c8c8", lw=0.6, zorder=0.6)
        (self.axis_lines,) = ax.plot([], [], color="black", lw=0.8, zorder=0.7, solid_capstyle="butt")
        (self.tick_marks,) = ax.plot([], [], color="black", lw=0.8, zorder=0.7, solid_capstyle="butt")
        self.tick_rows = [
            text_row(ax, list(range(len(t))), 0.0, fontsize=9, transform=ax.transData) for t in self.ticks
        ]
        self.label_rows = [text_row(ax, [0.0], 0.0, fontsize=10, transform=ax.transData) for _ in range(3)]
        self.labels = list(labels)
        self.scatters = {}
        for side, z in (("behind", 1.0), ("front", 3.0)):
            for lab, k in ((-1.0, 0), (1.0, 1)):
                s = class_style(k)
                self.scatters[side, lab] = ax.scatter(
                    np.zeros(0),
                    np.zeros(0),
                    s=marker_size,
                    c=s["color"],
                    marker=s["marker"],
                    zorder=z,
                    linewidths=0,
                )
        self.plane = ax.add_patch(
            Polygon(
                np.zeros((0, 2)),
                closed=True,
                facecolor=OKABE_ITO["green"],
                alpha=0.3,
                edgecolor="none",
                zorder=2,
            )
        )

    def _norm(self, P) -> np.ndarray:
        mid, span = 0.5 * (self.lo + self.hi), np.maximum(self.hi - self.lo, 1e-12)
        return (np.asarray(P, dtype=float) - mid) / span * _ASPECT

    def draw(self, elev: float, azim: float, w, b) -> None:
        """Set every artist for the view (``elev``, ``azim``) and the plane <w, z> + b = 0."""
        B = view_basis(elev, azim)
        lo, hi = self.lo, self.hi
        eye = B[2]
        back = [lo[k] if eye[k] > 0 else hi[k] for k in range(3)]  # the faces away from the viewer
        front = [hi[k] if eye[k] > 0 else lo[k] for k in range(3)]
        proj = lambda P: (self._norm(P) @ B.T)[..., :2]
        nan = np.full((1, 2), np.nan)
        grid = []
        for k in range(3):  # pane k: coordinate k at its back
            i, j = [m for m in range(3) if m != k]
            C = np.empty((4, 3))
            C[:, k] = back[k]
            C[:, i] = [lo[i], hi[i], hi[i], lo[i]]
            C[:, j] = [lo[j], lo[j], hi[j], hi[j]]
            self.panes[k].set_xy(proj(C))
            for a, o in ((i, j), (j, i)):  # grid lines across the pane
                for t in self.ticks[a]:
                    seg = np.empty((2, 3))
                    seg[:, k], seg[:, a], seg[:, o] = back[k], t, (lo[o], hi[o])
                    grid += [proj(seg), nan]
        self.grid.set_data(*np.concatenate(grid).T)
        centre = proj(0.5 * (lo + hi))
        # the labelled edges, as mplot3d chooses them: x and y along the front of the floor
        # (the back z pane), z up the back-y corner of the front x side
        edges = {
            0: ({1: front[1], 2: back[2]}),
            1: ({0: front[0], 2: back[2]}),
            2: ({0: front[0], 1: back[1]}),
        }
        axis, marks = [], []
        for k, fixed in edges.items():
            E = np.empty((2, 3))
            E[:, k] = (lo[k], hi[k])
            for m, v in fixed.items():
                E[:, m] = v
            A, Z = proj(E)
            axis += [np.array([A, Z]), nan]
            out = 0.5 * (A + Z) - centre
            out = out / (np.linalg.norm(out) or 1.0)
            tick_len = 0.025
            for t in self.ticks[k]:
                p = A + (t - lo[k]) / (hi[k] - lo[k]) * (Z - A)
                marks += [np.array([p, p + tick_len * out]), nan]
            texts = [_fmt(t) for t in self.ticks[k]]
            if np.linalg.norm(Z - A) < 0.09 * len(texts):  # an edge seen end-on: no room
                texts = [""] * len(texts)
            side = abs(out[0]) >= 0.55  # labels beside a steep edge: aligned left/right
            # offsets in points (tick labels 9 pt, ~5.5 pt a character; the name beyond them)
            far = 7.0 + (5.5 * max(map(len, texts)) if side else 11.0) + 7.0
            self._place(
                self.tick_rows[k],
                A,
                Z,
                out,
                7.0 + 4.0 * (not side),
                texts,
                [(t - lo[k]) / (hi[k] - lo[k]) for t in self.ticks[k]],
            )
            # the name of a steep edge straight beside it (a slanted offset put it on a tick label)
            upright = abs((Z - A)[1]) > 2.0 * abs((Z - A)[0])
            name_out = np.array([np.sign(out[0]) or 1.0, 0.0]) if side and upright else out
            self._place(self.label_rows[k], A, Z, name_out, far, [self.labels[k]], [0.5])
        self.axis_lines.set_data(*np.concatenate(axis).T)
        self.tick_marks.set_data(*np.concatenate(marks).T)
        # the plane, cut by the box, and the points on either side of it
        poly = plane_polygon(lo, hi, w, b)
        self.plane.set_xy(proj(poly) if len(poly) else np.zeros((0, 2)))
        # +1: the viewer is on the side w points to (the normal taken in the scaled box)
        depth_side = np.sign(float(np.dot(np.asarray(w) * (hi - lo) / _ASPECT, eye)) or 1.0)
        s = (self.Psi @ np.asarray(w, dtype=float) + b) * depth_side
        xy = proj(self.Psi)
        for (side, lab), art in self.scatters.items():
            keep = (self.y == lab) & ((s >= 0) if side == "front" else (s < 0))
            if not len(poly):
                keep = (self.y == lab) & (side == "front")
            art.set_offsets(xy[keep] if keep.any() else np.zeros((0, 2)))

    @staticmethod
    def _place(row, A, Z, out, dist, texts, params) -> None:
        """Put the strings of a label row at ``params`` along the edge A -> Z, ``dist`` points
        outward."""
        from matplotlib.transforms import Affine2D, ScaledTranslation

        d = Z - A
        shift = ScaledTranslation(dist * out[0] / 72, dist * out[1] / 72, row.figure.dpi_scale_trans)
        row.set_transform(
            Affine2D(np.array([[d[0], 0.0, A[0]], [d[1], 0.0, A[1]], [0, 0, 1]])) + row.axes.transData + shift
        )
        row.xs = list(params)
        # (the row's prototype text carries the alignment; its bitmap cache keys on it)
        row.proto.set_horizontalalignment(
            "center" if abs(out[0]) < 0.55 else ("left" if out[0] > 0 else "right")
        )
        row.set_texts([(t, "black") for t in texts])
