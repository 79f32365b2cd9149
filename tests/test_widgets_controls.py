"""Controls a student can read (issue 36): no button label cut short, no drop-down that opens
blank, text boxes that update while typing, and the numbers shown without a negative zero or
a wrong plural."""

from __future__ import annotations

import pytest

W = pytest.importorskip("ipywidgets")

import functools  # noqa: E402

from kmlteach.widgets._base import number, plural  # noqa: E402  (after the importorskip)
from kmlteach.widgets._catalog import builders  # noqa: E402

# built when a test first asks, not at import: every xdist worker collects this module, and
# building the 39 widgets at collection cost each worker ~7 s of CPU for a file that runs on one
_BUILDERS = dict(builders())


@functools.cache
def built(name: str):
    return _BUILDERS[name]()


PX_PER_CHAR, BUTTON_PADDING = 7.5, 20.0  # 13 px widget font; a button's own padding


def _labels(c) -> list[str]:
    return [str(o[0] if isinstance(o, tuple) else o) for o in c.options]


def _guesses(ex):
    p = getattr(ex, "predict", None)
    return [p.guess] if p is not None else []


@pytest.mark.parametrize("name", sorted(_BUILDERS))
def test_button_labels_are_not_cut_short(name):
    """ "gaussian | polynom…", "gini | entro… | error" and "y = …" (issue 36)."""
    ex = built(name)
    for c in [*ex.controls.values(), *_guesses(ex)]:
        if isinstance(c, W.ToggleButtons) and c.style.button_width:
            width = float(c.style.button_width.removesuffix("px"))
            need = PX_PER_CHAR * max(map(len, _labels(c))) + BUTTON_PADDING
            assert width >= need, f"{c.description!r}: {width:.0f} px for {_labels(c)} (needs {need:.0f})"


@pytest.mark.parametrize("name", sorted(_BUILDERS))
def test_no_drop_down_opens_blank(name):
    """09's NORMA "budget τ" showed nothing (value None: index −1). Only a prediction's guess
    starts empty, on purpose."""
    ex = built(name)
    for key, c in ex.controls.items():
        if isinstance(c, (W.Dropdown, W.ToggleButtons, W.SelectionSlider)):
            assert c.index is not None, f"{name}: control {key!r} shows no selection"


@pytest.mark.parametrize("name", sorted(_BUILDERS))
def test_text_boxes_update_while_typing(name):
    """03's n-gram boxes waited for Enter, and nothing said so."""
    for key, c in built(name).controls.items():
        if isinstance(c, W.Text):
            assert c.continuous_update, f"{name}: {key!r} updates only on Enter"


def test_numbers_never_print_a_negative_zero_and_plurals_agree():
    assert number(-0.0001) == "0.000" and number(-0.0001, "+.3f") == "+0.000"
    assert number(-0.25) == "-0.250" and number(1e-12, ".2f") == "0.00"
    assert plural(1, "update") == "1 update" and plural(0, "update") == "0 updates"
    assert plural(2, "member") == "2 members" and plural(1, "training point") == "1 training point"
