"""The second student walk's remaining items (walk_report 2, 5, 6, 9, 12, 16), checked on the
chapters' sources, the executed notebooks, the student release and the widgets' state.

* 6: the answer of a concept check is never on screen with its question: no Markdown between
  an ``ask("NN.c_x", "?")`` cell and the next code cell says what settles it, unless inside a
  collapsed ``<details>`` block; the settling text exists, after a code cell or in such a
  block. 00's first prediction asks about a setting the figure above it does not show.
* 9: every chapter but the last has its "Next:" link in its Summary, before the recap quiz.
* 12: each chapter's exercise text says that the last hint level and ``solution()`` come with
  the solutions (they are not in a student's copy until then).
* 16: nbval markers are not in the student release (the repository keeps them); every
  Summary comes before its recap quiz; 06 says when the assignment has ties; 08's tree explorer
  starts at the depth its held-out curve is lowest; the course map's text is readable; 02's
  line embedding has no unlabelled dummy axis; 04's all-pairs toggles stay on their line;
  progress says what a prediction explorer counts.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from kmlteach.exercises._registry import questions

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]-*.py"))
NOTEBOOKS = {p.stem[:2]: p for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))}


def _cells(src: Path) -> list[tuple[str, str]]:
    """(kind, text) of each cell of a jupytext percent source; Markdown without its '# '."""
    parts = re.split(r"^# %%(.*)$", src.read_text(encoding="utf-8"), flags=re.M)
    out = []
    for head, body in zip(parts[1::2], parts[2::2]):
        body = body.strip("\n")
        if "[markdown]" in head:
            out.append(
                (
                    "md",
                    "\n".join(
                        line[2:] if line.startswith("# ") else line.lstrip("#") for line in body.splitlines()
                    ),
                )
            )
        else:
            out.append(("code", body))
    return out


def _outside_details(md: str) -> str:
    return re.sub(r"<details>.*?</details>", "", md, flags=re.S)


CONCEPT = [(q.chapter, q.id) for q in questions(kind="concept")]


@pytest.mark.parametrize("chapter, qid", CONCEPT, ids=[q for _, q in CONCEPT])
def test_a_concept_checks_answer_is_not_on_screen_with_its_question(chapter, qid):
    src = next(p for p in SOURCES if p.name.startswith(chapter))
    cells = _cells(src)
    at = next(
        (
            i
            for i, (k, t) in enumerate(cells)
            if k == "code" and re.search(rf'ask\("{re.escape(qid)}", "\?"\)', t)
        ),
        None,
    )
    assert at is not None, f"{qid}: no ask cell in {src.name}"
    q = next(q for q in questions(kind="concept") if q.id == qid)
    right = [] if q.numeric else [q.choices[a].lower() for a in q.answers() if len(q.choices[a]) >= 12]
    i = at + 1
    while i < len(cells) and cells[i][0] == "md":  # what shows right under the question
        plain = " ".join(_outside_details(cells[i][1]).lower().split())
        assert not any(r in plain for r in right), f"{src.name}: the answer of {qid} is right under it"
        assert qid not in _outside_details(cells[i][1]), (
            f"{src.name}: the Markdown right under ask({qid!r}) settles it in plain sight; put the "
            "answer after the cell that shows it, or in <details><summary>Answer and why</summary>"
        )
        i += 1
    settled = [
        t
        for k, t in cells[at + 1 :]
        if k == "md" and re.search(rf"settles\s+(the question\s+)?{re.escape(qid)}", t)
    ]
    # the text that settles it, or at least the cell that shows it, right under the question
    assert settled or cells[at + 1][0] == "code", f"{src.name}: nothing says what settles {qid}"


def test_the_answer_blocks_are_collapsed_and_well_formed():
    n = 0
    for src in SOURCES:
        for kind, text in _cells(src):
            if kind != "md":
                continue
            assert text.count("<details>") == text.count("</details>"), src.name
            for block in re.findall(r"<details>.*?</details>", text, flags=re.S):
                n += 1
                assert block.startswith("<details><summary>Answer and why</summary>\n\n"), (
                    src.name,
                    block[:80],
                )
                assert "open" not in block.split(">", 1)[0]
    assert n >= 6


def test_00s_first_prediction_is_not_the_setting_drawn_above():
    text = (ROOT / "notebooks" / "src" / "00-welcome.py").read_text(encoding="utf-8")
    drawn = int(re.search(r"theta = np\.deg2rad\((\d+)\)", text).group(1))
    call = re.search(r"make_angle_demo\(X, y, (.*)predict=True\)", text).group(1)
    asked = re.search(r"angle=(\d+)", call)
    assert asked and int(asked.group(1)) != drawn, (
        "the prediction opens on the angle the figure above answers"
    )
    from kmlteach.datasets import separable
    from kmlteach.widgets.welcome import make_angle_demo

    X, y = separable(m=30, d=2, margin=0.6, seed=0)
    ex = make_angle_demo(X * 2.5, y, angle=int(asked.group(1)), predict=True)
    assert ex.controls["angle"].value == int(asked.group(1))


# -- 9 and 16: Summary, its Next link, then the quiz ---------------------------------------


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.stem)
def test_summary_with_next_link_comes_before_the_recap_quiz(src):
    cells = [t for k, t in _cells(src) if k == "md"]
    heads = [i for i, t in enumerate(cells) if re.match(r"#{2,3} (\d+ · )?Summary", t)]
    quiz = [i for i, t in enumerate(cells) if re.match(r"#{2,3} (\d+ · )?Recap quiz", t)]
    assert len(heads) == 1 and len(quiz) == 1 and heads[0] < quiz[0], src.name
    later = sorted(p for p in SOURCES if p.name > src.name)
    if later:
        nxt = later[0]
        link = re.search(rf"Next: \[{nxt.name[:2]} · [^\]]+\]\({nxt.stem}\.ipynb\)", cells[heads[0]])
        assert link, f"{src.name}: its Summary has no 'Next: [{nxt.name[:2]} · ...]({nxt.stem}.ipynb)'"


# -- 12: hints and solutions -----------------------------------------------------------------


@pytest.mark.parametrize("src", SOURCES[1:], ids=lambda p: p.stem)
def test_the_exercise_text_says_when_the_last_hint_and_the_solution_come(src):
    nn = src.name[:2]
    text = " ".join(src.read_text(encoding="utf-8").replace("\n# ", " ").split())
    assert f'`hint("{nn}.xxx", level=2)` and so on: three levels' in text, src.name
    assert (
        f'The third level and `solution("{nn}.xxx")` come with the solutions, when your course releases them'
        in text
    )


def test_00_does_not_promise_an_answer_from_solution():
    text = " ".join(
        (ROOT / "notebooks" / "src" / "00-welcome.py")
        .read_text(encoding="utf-8")
        .replace("\n# ", " ")
        .split()
    )
    assert "`solution(...)` the answer" not in text
    assert "`solution(...)` prints the solution once your course releases the solutions" in text
    assert "The last level, the closest to code, comes with the solutions" in text


def test_every_exercise_has_the_three_levels_the_chapters_announce():
    from kmlteach.exercises._registry import registry

    assert {len(ex.hints) + ex.withheld for ex in registry().values()} == {3}


# -- 16: the release drops nbval markers -----------------------------------------------------


def test_the_student_release_has_no_nbval_marker_and_the_repository_keeps_them():
    from kmlteach.course.release import strip_nbval_markers, student_notebook

    assert strip_nbval_markers("# NBVAL_IGNORE_OUTPUT\nx = 1\n") == "x = 1\n"
    assert strip_nbval_markers("  #NBVAL_SKIP  \nx = 1") == "x = 1"
    assert strip_nbval_markers("x = 1  # NBVAL_SKIP") == "x = 1  # NBVAL_SKIP"  # not a marker line
    assert strip_nbval_markers("s = '# NBVAL_IGNORE_OUTPUT'") == "s = '# NBVAL_IGNORE_OUTPUT'"
    kept = 0
    for nn, path in NOTEBOOKS.items():
        nb = json.loads(path.read_text(encoding="utf-8"))
        kept += sum("NBVAL_" in "".join(c["source"]) for c in nb["cells"])
        out = student_notebook(nb, nn, name=path.name)
        assert not any("NBVAL_" in c["source"] for c in out["cells"]), path.name
        assert len(out["cells"]) == len(nb["cells"])
    assert kept >= 40


# -- 16: 06's ties, 08's depth, 04's printed rows ---------------------------------------------


def _stdout(nn: str, needle: str) -> str:
    nb = json.loads(NOTEBOOKS[nn].read_text(encoding="utf-8"))
    for c in nb["cells"]:
        if c["cell_type"] == "code" and needle in "".join(c["source"]):
            return "".join(
                "".join(o.get("text", "")) for o in c.get("outputs", []) if o.get("output_type") == "stream"
            )
    raise AssertionError(f"{nn}: no cell with {needle!r}")


def test_06_says_the_assignment_has_ties_when_the_two_methods_differ():
    out = _stdout("06", 'print("Hungarian:   v ="')
    v = re.findall(r"v = \(([\d, ]+)\)\s+cost (\d+)", out)
    assert len(v) == 2 and v[0][1] == v[1][1], out
    m = re.search(r"(\d+) of the 120 assignments reach the minimum cost (\d+)", out)
    assert m and m.group(2) == v[0][1], out
    if v[0][0] != v[1][0]:
        assert int(m.group(1)) > 1 and "tie" in out, out


def test_08_tree_explorer_starts_where_its_held_out_curve_is_lowest():
    from kmlteach.ensembles import decision_tree, papaya
    from kmlteach.widgets.ch08 import make_tree_explorer

    Xp, yp, box = papaya(300, noise=0.08, seed=0)
    Xv, yv, _ = papaya(300, noise=0.08, seed=1)
    full = decision_tree(Xp, yp, criterion="gini")
    val = [
        np.mean(decision_tree(Xp, yp, max_depth=d, criterion="gini").predict(Xv) != yv)
        for d in range(min(full.depth, 12) + 1)
    ]
    chosen = int(np.argmin(val))
    ex = make_tree_explorer(Xp, yp, Xv, yv, max_depth=8, rectangle=box)
    curve = []
    for d in range(9):
        ex.controls["depth"].value = d
        curve.append(ex.state["test_error"])
    assert chosen <= 8 and int(np.argmin(curve)) == chosen, (chosen, curve)
    text = (ROOT / "notebooks" / "src" / "08-boosting.py").read_text(encoding="utf-8")
    assert "make_tree_explorer(Xp, yp, Xp_val, yp_val," in text


def test_04_prints_no_row_wider_than_the_output_area():
    out = _stdout("04", "mean cost under D13")
    assert out.count("accuracy") == 2 and max(len(line) for line in out.splitlines()) <= 100, out


# -- 16: figures and widgets -------------------------------------------------------------------


def test_the_course_map_text_is_readable_and_counts_points_in_words():
    import matplotlib

    matplotlib.use("Agg")
    from kmlteach.course.book import load
    from kmlteach.course.coursemap import _label, course_map

    labels = {c.id: _label(c) for c in load().chapters}
    assert "1 point" in labels["00"] and "1 pts" not in labels["00"]
    assert all("pts" not in t for t in labels.values())
    ax = course_map()
    width = ax.figure.get_figwidth()
    sizes = [t.get_fontsize() for t in ax.texts]
    # shown at about 900 px (the notebook's width) from a figure drawn at 100 dpi: the text
    # appears at its size times 9 / width
    assert min(sizes) * min(1.0, 9.0 / width) >= 9.0, (width, min(sizes))
    import matplotlib.pyplot as plt

    plt.close(ax.figure)


def test_02_line_embedding_has_no_dummy_axis_labelled_zero():
    from kmlteach.widgets.ch02 import embedding

    pn = embedding._panel("line")
    assert pn["box"].labels[2] == "z = 0" and list(pn["box"].ticks[2]) == [0.0]
    assert len(pn["box"].ticks[0]) > 2 and len(pn["box"].ticks[1]) > 2  # the others: from the box
    ex = embedding.make_embedding_explorer("line")
    ex.controls["azim"].value = 30
    assert ex.state["dataset"] == "line" and ex.state["azim"] == 30


def test_02_gram_heat_maps_name_their_axes_in_words():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kmlteach.plots.ch02 import plot_gram
    from kmlteach.plots.ch03 import plot_kernel_matrix as plot_gram3

    for fn in (plot_gram, plot_gram3):
        fig, ax = plt.subplots()
        fn(np.eye(3), ax=ax)
        assert ax.get_ylabel() == "row $i$" and ax.get_xlabel() == "column $j$"
        plt.close(fig)


def test_04_all_pairs_decision_toggle_keeps_its_label_and_buttons_on_one_line():
    from kmlteach.widgets.ch04 import make_ava_ties

    ex = make_ava_ties()
    t = ex.controls["decision"]
    assert t.style.description_width == "initial" and t.layout.flex == "0 0 auto"
    assert t.layout.display == "flex" and t.layout.flex_flow == "row nowrap"
    before = ex.image.value
    t.value = "tournament"
    assert ex.image.value != before  # the toggle still redraws


def test_progress_says_what_a_prediction_explorer_counts(tmp_path, monkeypatch, capsys):
    import kmlteach

    monkeypatch.setenv("KMLTEACH_RESULTS", str(tmp_path / "r.jsonl"))
    kmlteach.progress()
    out = " ".join(capsys.readouterr().out.split())
    assert "a prediction explorer once, with the first answer it scores" in out
    for src in SOURCES:
        text = " ".join(src.read_text(encoding="utf-8").replace("\n# ", " ").split())
        assert "a prediction explorer once, with the first answer it scores" in text, src.name
