"""Reading minutes are computed from the notebooks at one rate (kmlteach/course/reading.py).

* the counting rules, on a small notebook written here with hand-counted words, equations,
  figures and widgets;
* book.toml's header states the module's rates, and every chapter's ``reading_minutes``
  equals what the module computes from the stored notebook;
* ``update_book`` rewrites only the ``reading_minutes`` lines;
* bad input is rejected with a ValueError naming the argument.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kmlteach.course import book as _book
from kmlteach.course import reading

ROOT = Path(__file__).resolve().parent.parent
B = _book.load()


def _md(text):
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def _code(*outputs):
    return {
        "cell_type": "code",
        "metadata": {},
        "source": "x = 1",
        "execution_count": 1,
        "outputs": [{"output_type": "display_data", "metadata": {}, "data": d} for d in outputs],
    }


PNG = {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"}
WIDGET = {"application/vnd.jupyter.widget-view+json": {"model_id": "m"}, "image/png": "iVBO"}


def _notebook(tmp_path: Path, cells) -> Path:
    p = tmp_path / "nb.ipynb"
    p.write_text(
        json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8"
    )
    return p


def test_counting_rules_on_a_hand_counted_notebook(tmp_path):
    cells = [
        _md("# 99 · A title\n\nThe margin $\\gamma$ is [the distance](http://x.org/a-b-c) we keep."),
        # words: 99 A title The margin (γ) is the distance we keep = 11
        _md("## 1 · Two lines\n\nAn equation:\n\n$$a = b + c$$\n\nand one more $$d$$ done."),
        # words: 1 Two lines An equation and one more done = 9; equations 2
        _code(PNG, PNG),  # two figures
        _code(WIDGET),  # one widget (its PNG fallback is not a figure)
        _code(),  # no output
        _md("## 2 · Exercises\n\nMany words here that belong to the exercises $$x$$."),
        _code(PNG),  # a figure in the exercises still counts
        _md("## 3 · Summary\n\nIt's well-known."),
        # words: 3 Summary It's well-known = 4
        _md("## Sources and further reading\n\n* A. Author, *A long title*, 1999."),
    ]
    n = reading.count(_notebook(tmp_path, cells))
    assert (n.words, n.equations, n.figures, n.widgets) == (24, 2, 3, 1)
    exact = (
        24 / reading.WORDS_PER_MINUTE
        + 2 * reading.MINUTES_PER_EQUATION
        + 3 * reading.MINUTES_PER_FIGURE
        + 1 * reading.MINUTES_PER_WIDGET
    )
    assert n.exact_minutes == pytest.approx(exact)
    assert n.minutes % reading.ROUND_TO == 0 and n.minutes >= exact > n.minutes - reading.ROUND_TO


def test_rounding_is_up_to_a_multiple_and_never_zero():
    rc = reading.ReadingCounts
    assert rc(0, 0, 0, 0).minutes == reading.ROUND_TO
    w = reading.WORDS_PER_MINUTE
    assert rc(10 * w, 0, 0, 0).minutes == 10
    assert rc(10 * w + 1, 0, 0, 0).minutes == 15


def test_header_states_the_rates_of_the_module():
    header = "\n".join(
        ln for ln in (ROOT / "book.toml").read_text(encoding="utf-8").splitlines() if ln.startswith("#")
    )
    assert f"{reading.WORDS_PER_MINUTE} words per minute" in header
    assert f"{reading.MINUTES_PER_EQUATION:g} minute per display equation" in header
    assert f"{reading.MINUTES_PER_FIGURE:g} minute per figure" in header
    assert f"{reading.MINUTES_PER_WIDGET:g} minutes per widget" in header
    assert f"multiple of {reading.ROUND_TO} minutes" in header


@pytest.mark.parametrize("chapter", [c for c in B.chapters if c.ready], ids=lambda c: c.id)
def test_reading_minutes_in_book_toml_are_the_computed_ones(chapter):
    n = reading.count(B.root / chapter.notebook)
    assert chapter.reading_minutes == n.minutes, (
        f"chapter {chapter.id}: book.toml says {chapter.reading_minutes} min, the notebook gives "
        f"{n.minutes} ({n}); run `python -m kmlteach.course.reading --update`"
    )


def test_one_rate_means_the_pace_per_word_is_the_same_in_every_chapter():
    # the old hand-made estimates implied 40-70 words per minute; now the prose time of
    # every chapter is its word count over the one rate, whatever its length
    for c in B.chapters:
        if c.ready:
            n = reading.count(B.root / c.notebook)
            fixed = (
                n.equations * reading.MINUTES_PER_EQUATION
                + n.figures * reading.MINUTES_PER_FIGURE
                + n.widgets * reading.MINUTES_PER_WIDGET
            )
            assert n.exact_minutes - fixed == pytest.approx(n.words / reading.WORDS_PER_MINUTE)
            assert n.words > 300, f"chapter {c.id}: too few words counted"


def test_update_book_rewrites_only_the_reading_lines(tmp_path):
    nb = _notebook(tmp_path, [_md("word " * 1234)])  # 1234 words -> 15 min
    (tmp_path / "notebooks").mkdir()
    nb.rename(tmp_path / "notebooks" / "99-x.ipynb")
    toml = (
        '# header kept\n[book]\ntitle = "t"\n\n[[chapters]]\nid = "99"\ntitle = "x"\n'
        'notebook = "notebooks/99-x.ipynb"\nstatus = "ready"\nreading_minutes = 3   # note\n'
        "requires = []\n"
    )
    (tmp_path / "book.toml").write_text(toml, encoding="utf-8")
    assert reading.update_book(tmp_path / "book.toml") == {"99": (3, 15)}
    after = (tmp_path / "book.toml").read_text(encoding="utf-8")
    assert after == toml.replace("reading_minutes = 3   # note", "reading_minutes = 15   # note")
    assert reading.update_book(tmp_path / "book.toml") == {}


def test_bad_input_is_rejected_naming_the_argument(tmp_path):
    with pytest.raises(ValueError, match="notebook"):
        reading.count(tmp_path / "missing.ipynb")
    with pytest.raises(ValueError, match="notebook"):
        reading.count(tmp_path / "book.toml")
    bad = tmp_path / "bad.ipynb"
    bad.write_text("not json", encoding="utf-8")
    with pytest.raises(ValueError, match="notebook"):
        reading.count(bad)
    assert re.search(r"reading_minutes", reading.__doc__)
