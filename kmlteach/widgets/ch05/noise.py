"""Chapter 05: independent letters vs the chain model as the pixel noise grows, and the
bigram weights as SGD runs longer (what costs seconds, training, is done once per setting)."""

from __future__ import annotations

import math
import threading

import numpy as np

from ..._render import region_layer, title_row
from ...datasets import ocr_words
from ...plots import OKABE_ITO, figure
from ...plots.ch05 import LETTERS, draw_word, plot_transitions, set_word
from ...structured import letter_error, predict, structured_sgd
from .._base import Explorer, int_slider, slider
from .._threads import on_main_thread as _on_main_thread
from .viterbi import _snap, _word

__all__ = ["make_noise_compare", "make_transition_growth", "train_pair", "top_bigrams"]


def train_pair(noise: float, n_train: int = 200, T: int = 2000, seed: int = 0):
    """Chain model and independent-letter model trained on the same words."""
    train = ocr_words(n_train, noise=noise, seed=seed)
    chain = structured_sgd(train.X, train.y, eta=0.5, T=T, seed=seed)
    alone = structured_sgd(train.X, train.y, eta=0.5, T=T, seed=seed, transitions=False)
    return chain, alone


def _fit_level(nz: float, seed: int, n_test: int):
    """Both models at one noise level and their test letter errors."""
    chain, alone = train_pair(nz, seed=seed)
    test = ocr_words(n_test, noise=nz, seed=seed + 1)
    return chain, alone, test, letter_error(chain, test.X, test.y), letter_error(alone, test.X, test.y)


class _Levels:
    """Fits per noise level, made one at a time by one background *thread* (the level asked
    for first, then the others in ``levels`` order), which ends when every level is done.

    The thread shares the kernel's memory (a process cost a second Python with NumPy and
    Numba: ~120 MiB). Training, the seconds of the work, is a Numba kernel compiled with
    ``nogil=True`` (``structured_sgd``), so the widget's redraws run while it trains."""

    def __init__(self, fit, levels, on_ready):
        self.fit, self.levels, self.on_ready = fit, list(levels), on_ready
        self.done: dict = {}
        self.failed: dict = {}
        self.wanted: list = []
        self.worker = None
        self.cond = threading.Condition()

    def get(self, nz):
        with self.cond:
            if nz in self.failed:
                raise self.failed[nz]
            return self.done.get(nz)

    def compute_now(self, nz):
        """Fit ``nz`` in the calling thread (the widget's starting level)."""
        got = self.get(nz)
        if got is None:
            got = self.fit(nz)
            with self.cond:
                got = self.done.setdefault(nz, got)
                self.cond.notify_all()
        return got

    def request(self, nz) -> None:
        with self.cond:
            if nz not in self.done and nz not in self.wanted:
                self.wanted.insert(0, nz)
            if self.worker is None and self._todo():
                self.worker = threading.Thread(target=self._work, name="kmlteach-ch05-levels", daemon=True)
                self.worker.start()

    def wait(self, nz, timeout: float = 120.0) -> bool:
        self.request(nz)
        with self.cond:
            return (
                self.cond.wait_for(lambda: nz in self.done or nz in self.failed, timeout) and nz in self.done
            )

    def _todo(self) -> list:  # with self.cond held
        return [v for v in self.wanted + self.levels if v not in self.done and v not in self.failed]

    def _work(self) -> None:
        while True:
            with self.cond:
                todo = self._todo()
                if not todo:
                    self.worker = None
                    return
                nz = todo[0]
            try:
                got, err = self.fit(nz), None
            except Exception as exc:  # noqa: BLE001 - shown by the update that asks for it
                got, err = None, exc
            with self.cond:
                if err is None:
                    self.done.setdefault(nz, got)
                else:
                    self.failed[nz] = err
                if nz in self.wanted:
                    self.wanted.remove(nz)
                self.cond.notify_all()
            self.on_ready(nz)


def make_noise_compare(noise: float = 0.4, seed: int = 0, n_test: int = 100):
    """Independent letters vs the chain model: both trained at the slider's noise;
    one test word decoded by each, letter errors over ``n_test`` test words.

    The starting level is trained when the widget is built; the other levels are trained
    once each by a background thread (the one asked for first). A level that is not ready
    yet is announced on the figure and in the readout, and drawn as soon as it is (in
    Jupyter; elsewhere call ``explorer.wait()``)."""
    s_min, s_max, s_step = 0.0, 0.8, 0.1
    levels = [round(v, 3) for v in np.arange(s_min, s_max + s_step / 2, s_step)]
    start = _snap(noise, s_min, s_step)
    order = sorted(levels, key=lambda v: (abs(v - start), v))

    def fit(nz: float):
        return _fit_level(nz, seed, n_test)

    ex_ref: list = []

    def ready(nz: float) -> None:
        if ex_ref and ex_ref[0].state.get("pending") == nz:
            _on_main_thread(lambda: ex_ref[0].state.get("pending") == nz and ex_ref[0].refresh())

    cache = _Levels(fit, order, ready)
    first = cache.compute_now(start)
    n_words = min(10, n_test)
    r_max = max(len(w) for w in first[2].words[:n_words])
    fig, (ax1, ax2) = figure(6.0, 4.4, nrows=2)
    panels = []
    for ax, name in ((ax1, "independent letters"), (ax2, "chain model (with bigrams)")):
        panels.append(draw_word(ax, r_max, first[2].letter_shape))
        ax.set_title(name, loc="left", fontsize=10)
    status = title_row(ax1, "right", 10)
    controls = {
        "noise": slider("pixel noise", start, s_min, s_max, s_step, readout_format=".1f"),
        "word": int_slider("word", 0, 0, n_words - 1),
    }

    def update(ex):
        nz = _snap(ex.controls["noise"].value, s_min, s_step)
        got = cache.get(nz)
        if got is None:
            # training runs in the background; say so on the figure and in the readout and
            # keep the last words on screen until the fits arrive
            cache.request(nz)
            ex.state.update(pending=nz)
            status.set_texts([(f"training at noise {nz:.1f}…", OKABE_ITO["vermillion"])])
            ex.set_readout(
                f"<i>training both models at noise {nz:.1f} in the background (once "
                f"per noise level, about a second); the words below are still those "
                f"at noise {ex.state.get('noise', start):.1f}…</i>"
            )
            return
        chain, alone, test, e_chain, e_alone = got
        i = ex.controls["word"].value
        x, truth = test.X[i], test.y[i]
        p_chain, p_alone = predict(chain, [x])[0], predict(alone, [x])[0]
        for art, p in zip(panels, (p_alone, p_chain)):
            set_word(art, x, p, truth, key=(nz, i))
        status.set_texts([(f"noise {nz:.1f}, word {i}", "black")])
        ex.state.update(
            noise=nz,
            pending=None,
            error_chain=e_chain,
            error_letters=e_alone,
            pred_chain=_word(p_chain),
            pred_letters=_word(p_alone),
            word=test.words[i],
        )
        ex.set_readout(
            f"noise {nz:.1f}: test letter error <b>{e_alone:.3f}</b> for independent "
            f"letters, <b>{e_chain:.3f}</b> for the chain model "
            f'(word "{test.words[i]}"; wrong letters in '
            f"<span style='color:{OKABE_ITO['vermillion']}'>vermillion</span>, underlined)"
        )

    ex = Explorer(
        fig, controls, update, title="Independent letters vs chain model", css_class="kml-ch05-noise"
    )
    ex_ref.append(ex)
    # draw the "training" notice once (every digit in it), so that its glyphs are rasterised
    # here and not on the first move to a level still training (46 ms of a 58 ms update)
    status.set_texts([("training at noise 0.123456789…", OKABE_ITO["vermillion"])])
    ex.render()
    ex.refresh()

    def wait(timeout: float = 120.0) -> bool:
        """Block until the level on the slider is trained, then redraw (scripts, tests)."""
        nz = _snap(controls["noise"].value, s_min, s_step)
        ok = cache.wait(nz, timeout)
        ex.refresh()
        return ok

    ex.wait = wait
    cache.request(start)  # start precomputing the other levels now
    return ex


def top_bigrams(W_pair, k: int = 10) -> list[str]:
    """The ``k`` bigrams with the largest learned weight, strongest first."""
    order = np.argsort(-np.asarray(W_pair), axis=None, kind="stable")[:k]
    return [LETTERS[i // 26] + LETTERS[i % 26] for i in order]


def make_transition_growth(train=None, test=None, noise: float = 0.3, seed: int = 0):
    """The learned bigram weights W_pair as structured SGD runs longer (slider: T).

    The nine settings of the slider (T = 100 … 10 000, log steps of 1/4) are trained when
    the widget is built (under a second), so moving the slider only redraws; the heat map
    shows W_pair / max |W_pair| on a fixed colour scale, the maximum is in the title."""
    from collections import Counter

    from matplotlib import colormaps

    if train is None:
        train = ocr_words(400, noise=noise, seed=seed)
    if test is None:
        test = ocr_words(100, noise=noise, seed=seed + 1)
    counts = Counter(w[i : i + 2] for w in train.words for i in range(len(w) - 1))
    frequent = {b for b, _ in counts.most_common(60)}
    lo, hi, step = 2, 4, 0.25
    fits = {}
    for e in np.arange(lo, hi + step / 2, step):
        T = int(round(10**e))
        model = structured_sgd(train.X, train.y, eta=0.5, T=T, seed=seed)
        fits[T] = (model, letter_error(model, test.X, test.y))
    fig, ax = figure(6.6, 4.7)  # ≤ 480 px tall: 1.5× its reading size fits a slide
    plot_transitions(np.zeros((26, 26)), ax=ax)
    img = ax.images[0]
    img.set_clim(-1.0, 1.0)
    img.colorbar.set_label("weight / largest |weight|")
    # the map itself as a pixel layer (the image stays, hidden, for the colour bar)
    img.set_visible(False)
    layer = region_layer(ax, (-0.5, 25.5, 25.5, -0.5))  # y0: the bottom row (z)
    cmap = colormaps["RdBu_r"]
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    ax.set_title("$W_{\\mathrm{pair}}$ (scaled)", loc="left", fontsize=11)
    heading = title_row(ax, "right", 10)
    controls = {"T": slider("SGD steps T", 1000, lo, hi, step, log=True, readout_format=".0f")}

    def update(ex):
        T = int(round(10 ** _snap(math.log10(max(ex.controls["T"].value, 1.0)), lo, step)))
        model, err = fits[T]
        P = model.W_pair
        lim = float(np.max(np.abs(P))) or 1.0
        layer.set_data(cmap((P / lim + 1.0) / 2.0, bytes=True)[::-1])
        top = top_bigrams(P, 10)
        overlap = len(set(top) & frequent)
        heading.set_texts([(f"T = {T}; largest |weight| {lim:.2f}", "black")])
        ex.state.update(T=T, W_pair=P, top=top, overlap=overlap, error=err)
        ex.set_readout(
            f"T = {T}: strongest bigrams <b>{' '.join(top)}</b> "
            f"({overlap} of 10 among the 60 most frequent); test letter error {err:.3f}"
        )

    return Explorer(
        fig, controls, update, title="How the transition weights emerge", css_class="kml-ch05-transitions"
    )
