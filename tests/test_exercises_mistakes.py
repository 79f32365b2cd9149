"""Feedback that names the mistake (issue 25, point 1).

Every code exercise catalogues at least three typical mistakes, each written as a wrong
implementation in ``kmlteach/exercises/chNN.py`` and named by its record. ``check()``
must name each of them (a line beginning ``Common mistake:``), must not name one for the
reference, and must not claim one for an unrelated wrong answer (the reference's output
perturbed, or zeros of the right shape).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from kmlteach.exercises import check, record, registry
from kmlteach.exercises._match import copy_args, find_mistake

REG = registry()
IDS = sorted(REG)
PAIRS = [(ex_id, k) for ex_id in IDS for k in range(len(REG[ex_id].mistakes))]

# The mistakes the instructor's guide lists ("Where students go wrong"), by exercise: each
# must be in that exercise's catalogue, before the ones found by trying wrong solutions.
GUIDE = {
    "01.distance": "functional margin",
    "01.perceptron": "< 0",
    "01.sgd_step": "λ instead of λt",
    "02.gram": "convention",
    "02.kernel_perceptron": "x_i instead of y_i",
    "02.class_mean": "offset b",
    "03.center": "only the rows",
    "03.ngram": "non-overlapping",
    "03.diffusion": "exp(βA)",
    "04.generalized_hinge": "argmax before adding",
    "04.kesler": "sign",
    "05.chain_score": "off by one",
    "05.viterbi": "wrong end",
    "05.loss_augmented": "pairwise",
    "06.permutation": "inverse",
    "06.kendall": "twice",
    "07.confusion": "swapped b and c",
    "07.precision_at_k": "ties",
    "08.adaboost_round": "renormalise",
    "08.best_alpha": "SAMME",
    "08.split_gain": "parent's counts",
    "09.nu_property": "count",
    "09.oneclass_value": "sign",
    "09.rademacher": "one draw",
}


# The mistakes each chapter invites (issue 36, point 4): catalogued, by a word of their name.
INVITED = {
    "05.viterbi": ["unary scores of the first position", "back-pointers one position off"],
    "02.gram": ["/σ): dropped the 2"],
    "07.precision_at_k": ["strict >"],
    "04.generalized_hinge": ["0–1 cost instead of Δ"],
    "04.hinge_subgradient": ["0–1 cost instead of Δ"],
    # a student's walk through the edition (walk report 10): each was met, none was named
    "06.permutation": ["counted from the top"],
    "04.one_vs_all": ["targets 0 and 1"],
    "02.kernel_sgd": ["averaged α after the update", "α(2), …, α(T + 1)"],
    "04.multiclass_perceptron": ["argmax over all labels"],
    "08.split_gain": ["unweighted average"],
}

# The catalogued conventions (issue 36, point 5): answers that would be right under another
# convention than the exercise's — a tie-break, the order of rows or indices, 0-based
# positions, a shape, which violator to fix, the form of the Gaussian or of the regulariser.
# check() and the grader print them as "Convention: ..."; every other entry is a mistake.
CONVENTIONS = {
    "01.perceptron": {"fixed the last mistake instead of the first"},
    "01.sgd_step": {"2λt: the λ‖w‖² objective instead of (λ/2)‖w‖²"},
    "02.gram": {"mixed the two Gaussian conventions: 2σ² instead of 2σ", "used σ as scikit-learn's γ"},
    "02.kernel_perceptron": {"scanned from the wrong index after an update"},
    "04.multivector_psi": {"counted the blocks from 1", "returned a k × n matrix"},
    "04.generalized_hinge": {"read Δ the other way round"},
    "04.multiclass_perceptron": {"demoted the first violating class instead of the strongest"},
    "04.one_vs_all": {"ties go to the largest class"},
    "04.kesler": {"the rows in a different order"},
    "05.chain_score": {"read W_pair the other way round"},
    "05.viterbi": {"read the pairwise scores the other way round", "ties go to the largest label"},
    "05.score_coefficients": {"the bigram counts transposed", "divided by r: UML's Ψ"},
    "06.permutation": {"0-based positions", "sorted decreasingly", "positions counted from the top"},
    "07.confusion": {"a score equal to θ predicted negative"},
    "07.fixed_ab": {"ties go to the larger index", "labels 0 and 1 instead of −1 and +1"},
    "07.reliability": {"a probability on an inner edge put in the upper bin"},
    "08.stump_error": {"x_j = θ on the wrong side"},
    "08.oob_error": {"a tied vote says +1"},
    "09.nu_property": {"the two fractions swapped"},
    "09.oneclass_value": {"mixed the Gaussian conventions: 2σ² instead of 2σ"},
}


def _run(ex_id, fn, capsys) -> tuple[bool, str]:
    ok = check(ex_id, fn)
    return ok, capsys.readouterr().out


def test_every_code_exercise_has_three_catalogued_wrong_implementations():
    ids = [r["id"] for p in record.chapter_files().values() for r in record.load_chapter(p)["exercise"]]
    assert sorted(ids) == IDS and len(IDS) >= 48  # every code exercise of chapters 00-09
    for ex_id in IDS:
        ms = REG[ex_id].mistakes
        assert len(ms) >= 3, f"{ex_id}: {len(ms)} catalogued mistakes"
        assert len({m.name for m in ms}) == len(ms), ex_id
        for m in ms:
            assert callable(m.wrong), f"{ex_id}: {m.name!r} has no wrong implementation"
            # student-facing, no code: no calls, no numpy, no assignments
            assert len(m.explain) > 40 and not re.search(
                r"np\.|\b[a-z_]{3,}\(|\breturn\b|==|\+=|\[:", m.explain
            ), (ex_id, m.name)


@pytest.mark.parametrize("ex_id, what", sorted(GUIDE.items()))
def test_the_guides_mistakes_come_first(ex_id, what):
    names = [m.name for m in REG[ex_id].mistakes]
    hit = [i for i, n in enumerate(names) if what in n]
    assert hit, f"{ex_id}: no catalogued mistake mentions {what!r}: {names}"
    # the guide's mistakes precede the ones found by trying wrong solutions
    assert hit[0] < 2, names


@pytest.mark.parametrize("ex_id, words", sorted(INVITED.items()))
def test_the_mistakes_the_chapter_invites_are_catalogued(ex_id, words):
    names = [m.name for m in REG[ex_id].mistakes]
    for w in words:
        assert any(w in n for n in names), f"{ex_id}: no catalogued mistake mentions {w!r}: {names}"


def test_conventions_are_labelled_and_explain_the_convention():
    assert set(CONVENTIONS) <= set(IDS)
    found = {
        ex_id: {m.name for m in REG[ex_id].mistakes if m.kind == "convention"}
        for ex_id in IDS
        if any(m.kind == "convention" for m in REG[ex_id].mistakes)
    }
    assert found == CONVENTIONS
    assert sum(map(len, found.values())) >= 13
    for ex_id, names in CONVENTIONS.items():
        for m in REG[ex_id].mistakes:
            if m.name in names:
                assert m.line().startswith("Convention: "), m.line()
                # the explanation says which convention the exercise (or the course, or UML) takes
                assert re.search(
                    r"\b(this exercise|this course|the course|course's|here|UML)\b", m.explain
                ), (
                    ex_id,
                    m.name,
                )


def test_an_unweighted_average_of_the_children_fails_where_the_weights_matter(capsys):
    """(walk report 10) 08.split_gain's first case where the sides differ in size is named
    for the weights, so the failure does not point at empty sides."""
    m = next(m for m in REG["08.split_gain"].mistakes if "unweighted average" in m.name)
    ok, out = _run("08.split_gain", m.wrong, capsys)
    first = re.search(r"case \d+/\d+ (.*?): expected", " ".join(out.split())).group(1)
    assert not ok and "share of the points" in first and "empty" not in first, out


@pytest.mark.parametrize("ex_id, k", PAIRS, ids=[f"{i}-{k}" for i, k in PAIRS])
def test_check_names_each_catalogued_mistake(ex_id, k, capsys):
    m = REG[ex_id].mistakes[k]
    ok, out = _run(ex_id, m.wrong, capsys)
    assert not ok, f"{ex_id}: the wrong implementation {m.name!r} passes the visible cases"
    flat = " ".join(out.split())  # check() wraps its lines at word boundaries
    assert flat.count("Common mistake:") + flat.count("Convention:") == 1, out
    assert " ".join(m.line().split()) in flat, out


@pytest.mark.parametrize("ex_id", IDS)
def test_the_reference_passes_and_claims_no_mistake(ex_id, capsys):
    ok, out = _run(ex_id, REG[ex_id].reference, capsys)
    assert ok and "Common mistake" not in out, out


def _perturb(v, rng):
    """A value of the same kind and shape as ``v`` that is wrong in no systematic way."""
    if isinstance(v, tuple):
        return tuple(_perturb(x, rng) for x in v)
    if isinstance(v, (bool, np.bool_)):
        return not v
    if isinstance(v, (int, np.integer)):
        return int(v) + int(rng.integers(5, 9))
    a = np.asarray(v)
    if a.dtype.kind in "iu":
        out = a + rng.integers(5, 9, size=a.shape)
        return out if isinstance(v, np.ndarray) else out.tolist()
    out = a.astype(float) * (1 + 0.3 * rng.random(a.shape)) + 0.1 + rng.random(a.shape)
    out = np.where(np.isfinite(out), out, 0.5)
    return float(out) if np.ndim(v) == 0 else out


def _zeros(v):
    if isinstance(v, tuple):
        return tuple(_zeros(x) for x in v)
    a = np.asarray(v)
    return 0.0 if a.ndim == 0 else np.zeros(a.shape, dtype=a.dtype)


def _is_a_mistakes_output(ex, fn) -> bool:
    """Whether ``fn`` behaves like a catalogued wrong implementation on every visible case."""
    cases = ex.all_cases()
    values = [ex.prepare(fn(*copy_args(c)[0], **copy_args(c)[1])) for c in cases]
    return find_mistake(ex, cases, values) is not None


@pytest.mark.parametrize("ex_id", IDS)
def test_an_unrelated_wrong_answer_claims_no_mistake(ex_id, capsys):
    ex = REG[ex_id]
    rng = np.random.default_rng(sum(map(ord, ex_id)))

    def noisy(*args, **kwargs):
        return _perturb(ex.reference(*args, **kwargs), rng)

    def zeros(*args, **kwargs):
        return _zeros(ex.reference(*args, **kwargs))

    ok, out = _run(ex_id, noisy, capsys)
    assert not ok and "expected" in out and "Common mistake" not in out, out
    if not _is_a_mistakes_output(ex, zeros):  # zeros may be a catalogued mistake's answer
        ok, out = _run(ex_id, zeros, capsys)
        assert not ok and "Common mistake" not in out, out


def test_every_record_lists_its_mistakes_with_a_wrong_function():
    for path in record.chapter_files().values():
        for rec in record.load_chapter(path)["exercise"]:
            assert all("wrong" in m for m in rec["mistakes"]), rec["id"]


@pytest.mark.parametrize("chapter", sorted({i[:2] for i in IDS}))
def test_the_graders_feedback_names_the_same_mistake(chapter):
    """The grader decodes the answer's values outside the student's kernel; its feedback
    names a catalogued mistake with check()'s words, and never for an unrelated answer."""
    from kmlteach.course.grade.codec import encode
    from kmlteach.course.grade.feedback import feedback_markdown
    from kmlteach.course.grade.grader import SubmissionResult, score_exercise
    from kmlteach.course.grade.plan import chapter_plan

    def reply(plan, fn):
        ex = REG[plan.id]
        visible = ex.all_cases()
        vals = [fn(*copy_args(c)[0], **copy_args(c)[1]) for c in visible]
        vals += [c.expected for c in plan.cases[len(visible) :]]  # hidden cases: right
        return {"cases": [{"value": encode((v,), {})[0]["T"][0]} for v in vals], "called": []}

    rng = np.random.default_rng(int(chapter))
    for plan in chapter_plan(chapter).exercises:
        ex = REG[plan.id]
        m = ex.mistakes[-1]
        res = score_exercise(plan, reply(plan, m.wrong))
        assert res.first_visible_failure["mistake"] == m.line(), plan.id
        text = feedback_markdown(SubmissionResult("s1", chapter, exercises=[res]))
        assert f"- {m.label}: {m.name} \u2014" in text, plan.id
        res = score_exercise(plan, reply(plan, lambda *a, ex=ex, **k: _perturb(ex.reference(*a, **k), rng)))
        assert res.first_visible_failure and "mistake" not in res.first_visible_failure, plan.id
        assert "Common mistake" not in feedback_markdown(SubmissionResult("s1", chapter, exercises=[res]))


@pytest.mark.parametrize("ex_id", IDS)
def test_the_student_edition_names_the_mistakes_from_data(ex_id, capsys):
    """In the student edition a mistake carries its wrong outputs on the visible cases as
    plain data (no code); check() names it from them exactly as from the wrong function."""
    import dataclasses
    import json

    from kmlteach.exercises import Case, Mistake, _registry
    from kmlteach.exercises.plain import from_plain, to_plain

    ex = REG[ex_id]
    cases = ex.all_cases()

    def plain(v):
        return from_plain(json.loads(json.dumps(to_plain(v))))

    student = dataclasses.replace(
        ex,
        id="96.student",
        reference=None,
        cases=[Case(*plain((c.args, c.kwargs)), c.label, plain(ex.expected(c))) for c in cases],
        mistakes=tuple(
            Mistake(
                m.name,
                m.explain,
                outputs=tuple(plain(ex.prepare(m.wrong(*copy_args(c)[0], **copy_args(c)[1]))) for c in cases),
                kind=m.kind,
            )
            for m in ex.mistakes
        ),
    )
    _registry._EXERCISES["96.student"] = student
    try:
        for m in ex.mistakes:
            ok, out = _run("96.student", m.wrong, capsys)
            assert not ok and f"{m.label}: {m.name} \u2014" in " ".join(out.split()), (ex_id, m.name, out)
        ok, out = _run("96.student", ex.reference, capsys)
        assert ok and "Common mistake" not in out
    finally:
        _registry._EXERCISES.pop("96.student", None)
