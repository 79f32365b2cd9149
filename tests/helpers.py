"""Helpers shared by several test modules (data generators and independent oracles).

The tests mirror the package (tests/test_<package>_<module>.py); what more than one of
them needs lives here instead of being copied.
"""

import itertools

import numpy as np


def random_problem(seed, m=60, d=3, k=4, spread=3.0):
    rng = np.random.default_rng(seed)
    C = rng.normal(scale=spread, size=(k, d))
    y = np.arange(m) % k
    X = C[y] + rng.normal(size=(m, d))
    return X, y


def stump_learner_x0(X, t):
    """A ±1 'learner': the sign of the first coordinate minus the midpoint of the means."""
    thr = 0.5 * (X[t > 0, 0].mean() + X[t < 0, 0].mean())
    sgn = 1.0 if X[t > 0, 0].mean() > thr else -1.0
    return lambda Z: np.where(sgn * (Z[:, 0] - thr) > 0, 1.0, -1.0)


def path_graph(n):
    A = np.zeros((n, n))
    for i in range(n - 1):
        A[i, i + 1] = A[i + 1, i] = 1
    return A


def delta(a, b):
    return float(a == b)


def oracle_argmax(U, P, init, cost=None):
    """Independent enumeration; ties: smallest labelling read from the back."""
    r, q = U.shape
    best, best_key, best_y = -np.inf, None, None
    for y in itertools.product(range(q), repeat=r):
        s = init[y[0]] + U[0, y[0]] + (0 if cost is None else cost[0, y[0]])
        for t in range(1, r):
            s = s + P[y[t - 1], y[t]] + (U[t, y[t]] + (0 if cost is None else cost[t, y[t]]))
        key = y[::-1]
        if s > best or (s == best and key < best_key):
            best, best_key, best_y = s, key, y
    return np.array(best_y), best


def homogeneous_separable(m, d, gamma, seed):
    """Points with |<u, x>| >= gamma for a random unit u, labelled by sign(<u, x>)."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    X = rng.normal(size=(4 * m, d))
    X = X[np.abs(X @ u) >= gamma][:m]
    y = np.sign(X @ u)
    if np.unique(y).size < 2:
        y[0] = -y[0]
        X[0] = -X[0]
    return X, y


def soft_data(seed, m=120, d=4, noise=0.7):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d)) + 0.3
    y = np.where(X @ rng.normal(size=d) + noise * rng.normal(size=m) > 0, 1.0, -1.0)
    return X, y


def sweep_values(c) -> list:
    """The values the latency check moves a control to (``kmlteach.widgets._catalog.control_values``,
    the one picker, shared with ``benchmarks/bench_widgets.py``; the check itself is
    ``/work/shared/tools/widget_latency.py``, outside the repository): every other option of
    a dropdown (up to 4), a checkbox both ways, a slider to 20/40/60/80 % of its range."""
    from kmlteach.widgets._catalog import control_values

    return control_values(c)


def move_controls(ex, values=sweep_values):
    """Set every control of an explorer to each of ``values(control)`` in turn; yields
    ``(name, value)`` after each update (a value the control refuses is skipped)."""
    for name, c in ex.controls.items():
        for v in values(c):
            try:
                c.value = v
            except Exception:  # noqa: BLE001 - a value the control refuses is not an update
                continue
            yield name, v


def full_redraws(ex) -> list:
    """The (control, value) pairs of :func:`move_controls` whose update redrew the whole
    figure instead of blitting (one such frame is a widget's p95 latency)."""
    return [(name, v) for name, v in move_controls(ex) if ex.timings["full"]]


def build_without_layout_pass(build, monkeypatch):
    """``build()`` (a widget builder) while counting constrained-layout passes; returns the
    explorer and the count. Regression guard for the start-up (issue 14): a widget whose
    panels sit at fixed positions is drawn without a layout pass."""
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    calls = []
    real = ConstrainedLayoutEngine.execute
    monkeypatch.setattr(
        ConstrainedLayoutEngine, "execute", lambda self, fig: (calls.append(fig), real(self, fig))[1]
    )
    return build(), len(calls)


def outside_the_figure(fig, slack: float = 1.0) -> list:
    """The Axes whose drawn extent (ticks, labels, title, legend) leaves the figure: a fixed
    layout must still hold everything a constrained layout would have."""
    renderer = fig.canvas.get_renderer()
    W, H = fig.bbox.width, fig.bbox.height
    bad = []
    for ax in fig.axes:
        bb = ax.get_tightbbox(renderer)
        if bb is not None and (bb.x0 < -slack or bb.y0 < -slack or bb.x1 > W + slack or bb.y1 > H + slack):
            bad.append((ax.get_title() or ax.get_label(), tuple(round(v) for v in bb.extents)))
    return bad
