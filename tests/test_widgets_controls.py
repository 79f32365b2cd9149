"""Controls a student can read (issue 36): no button label cut short, no drop-down that opens
blank, text boxes that update while typing, and the numbers shown without a negative zero or
a wrong plural."""

from __future__ import annotations

import pytest

W = pytest.importorskip("ipywidgets")

from kmlteach.widgets._base import number, plural  # noqa: E402  (after the importorskip)
from kmlteach.widgets._catalog import builders  # noqa: E402

BUILT = {name: build() for name, build in builders()}
PX_PER_CHAR, BUTTON_PADDING = 7.5, 20.0  # 13 px widget font; a button's own padding


def _labels(c) -> list[str]:
    return [str(o[0] if isinstance(o, tuple) else o) for o in c.options]


def _guesses(ex):
    p = getattr(ex, "predict", None)
    return [p.guess] if p is not None else []


@pytest.mark.parametrize("name", sorted(BUILT))
def test_button_labels_are_not_cut_short(name):
    """ "gaussian | polynom…", "gini | entro… | error" and "y = …" (issue 36)."""
    ex = BUILT[name]
    for c in [*ex.controls.values(), *_guesses(ex)]:
        if isinstance(c, W.ToggleButtons) and c.style.button_width:
            width = float(c.style.button_width.removesuffix("px"))
            need = PX_PER_CHAR * max(map(len, _labels(c))) + BUTTON_PADDING
            assert width >= need, f"{c.description!r}: {width:.0f} px for {_labels(c)} (needs {need:.0f})"


@pytest.mark.parametrize("name", sorted(BUILT))
def test_no_drop_down_opens_blank(name):
    """09's NORMA "budget τ" showed nothing (value None: index −1). Only a prediction's guess
    starts empty, on purpose."""
    ex = BUILT[name]
    for key, c in ex.controls.items():
        if isinstance(c, (W.Dropdown, W.ToggleButtons, W.SelectionSlider)):
            assert c.index is not None, f"{name}: control {key!r} shows no selection"


@pytest.mark.parametrize("name", sorted(BUILT))
def test_text_boxes_update_while_typing(name):
    """03's n-gram boxes waited for Enter, and nothing said so."""
    for key, c in BUILT[name].controls.items():
        if isinstance(c, W.Text):
            assert c.continuous_update, f"{name}: {key!r} updates only on Enter"


def test_numbers_never_print_a_negative_zero_and_plurals_agree():
    assert number(-0.0001) == "0.000" and number(-0.0001, "+.3f") == "+0.000"
    assert number(-0.25) == "-0.250" and number(1e-12, ".2f") == "0.00"
    assert plural(1, "update") == "1 update" and plural(0, "update") == "0 updates"
    assert plural(2, "member") == "2 members" and plural(1, "training point") == "1 training point"
