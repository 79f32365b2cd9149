"""What a student reads from ``check``, ``hint``, ``ask`` and ``quiz`` (walk report 3, 11).

* **Hints in levels.** The levels a student has before the solutions are released
  (``hints`` of a record; ``hint_last`` comes with the solutions) never hold the answer's
  code: a run of tokens shared with the reference implementation or the notebook's
  solution block is a leak when it holds two or more tokens that only code has
  (``np``, ``[``, ``=``, ``axis``, ...) or ten tokens or more (:func:`leaks`). For the
  derivation exercises they never state the results the derivation is asked for
  (:data:`DERIVED`).
* **Readable texts.** No raw LaTeX (``e^{−α}``, ``R^{kn}``, ``max_{y'}``, ``\\frac``, ``$``)
  in any text these functions print, and every visible case has a name a student can read:
  a label, or arguments that are small values (never a dump of an array).
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
import unicodedata

import numpy as np
import pytest

from kmlteach.exercises import record, registry
from kmlteach.exercises.record import solution_texts

REG = registry()
RECORDS = {
    r["id"]: r for path in record.chapter_files().values() for r in record.load_chapter(path)["exercise"]
}
QUESTIONS = [q for path in record.chapter_files().values() for q in record.load_chapter(path)["question"]]

# -- hints that give the code away ------------------------------------------------------

_TOKEN = re.compile(r"[A-Za-z_]\w*|\d+(?:\.\d*)?|\*\*|//|[<>=!]=|\S")
_MATH = str.maketrans({"−": "-", "·": "*", "×": "*", "⋅": "*", "≤": "<=", "≥": ">="})
CODE_ONLY = {"np", "[", "]", "@", "**", "=", ":", "axis", "len", "range", "None", "lambda", "return", "."}
"""Tokens that code has and mathematics written in a sentence has not."""


def tokens(text: str) -> list[str]:
    """A text as Python would split it, with the math signs a hint uses (−, ·, ≤) as code's."""
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).translate(_MATH))


def code_statements(source: str) -> list[list[str]]:
    """The tokens of each statement of a function's body (no signature, docstring or comment)."""
    fn = next(n for n in ast.walk(ast.parse(textwrap.dedent(source))) if isinstance(n, ast.FunctionDef))
    body = fn.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    out = []
    for stmt in body:
        for node in ast.walk(stmt):  # nested functions and blocks: each statement on its own
            if isinstance(node, ast.stmt):
                out.append(tokens(ast.unparse(node)))
    return out


def _runs(a: list[str], b: list[str], shortest: int = 4) -> list[list[str]]:
    """Every maximal run of at least ``shortest`` tokens that ``a`` and ``b`` share."""
    out, prev = [], [0] * (len(b) + 1)
    for i in range(1, len(a) + 1):
        cur = [0] * (len(b) + 1)
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                cur[j] = prev[j - 1] + 1
        for j in range(1, len(b) + 1):
            n = cur[j]
            if n >= shortest and (i == len(a) or j == len(b) or a[i] != b[j]):
                out.append(a[i - n : i])
        prev = cur
    return out


def _is_code(run: list[str]) -> bool:
    if all(t == "." or re.fullmatch(r"[A-Za-z_]\w*", t) for t in run):
        return False  # a function's name (np.linalg.eigh): the tool, not the answer
    return sum(t in CODE_ONLY for t in run) >= 2 or len(run) >= 10


def leaks(hint: str, references: list[str]) -> list[str]:
    """The pieces of the references' code that ``hint`` repeats (empty: none)."""
    said = tokens(hint)
    found = []
    for source in references:
        for stmt in code_statements(source):
            found += [" ".join(run) for run in _runs(said, stmt) if _is_code(run)]
    return found


def _references(ex_id: str) -> list[str]:
    ex = REG[ex_id]
    out = [inspect.getsource(ex.reference)]
    solution = solution_texts(ex_id[:2]).get(ex_id)
    if solution:
        out.append(solution)
    return out


@pytest.mark.parametrize("ex_id", sorted(REG))
def test_every_exercise_has_a_nudge_an_idea_and_a_last_level_withheld(ex_id):
    rec = RECORDS[ex_id]
    assert len(rec["hints"]) == 2, f"{ex_id}: level 1 (a nudge) and level 2 (the idea) before the release"
    assert rec.get("hint_last"), f"{ex_id}: the level closest to code comes with the solutions (hint_last)"


@pytest.mark.parametrize("ex_id", sorted(REG))
def test_no_hint_before_the_release_holds_the_answers_code(ex_id):
    refs = _references(ex_id)
    for level, text in enumerate(RECORDS[ex_id]["hints"], 1):
        found = leaks(text, refs)
        assert not found, f"{ex_id}, hint level {level} repeats the solution's code: {found}"


def test_the_leak_rule_catches_what_it_should():
    """The hints a student found giving the answer away (walk report 3) are caught; the
    formula of a criterion in words and a function's name are not."""
    ref = "def f(epsilons):\n    eps = np.asarray(epsilons)\n    return np.prod(2 * np.sqrt(eps * (1 - eps))), np.exp(-2 * np.sum((0.5 - eps) ** 2))\n"
    assert leaks("np.prod(2 * np.sqrt(eps * (1 - eps))) and np.exp(-2 * np.sum((0.5 - eps) ** 2)).", [ref])
    rad = "def r(X, sigmas):\n    n = X.shape[0]\n    return np.linalg.norm(sigmas @ X, axis=1).mean() / n\n"
    assert leaks("S = sigmas @ X; the estimate is np.linalg.norm(S, axis=1).mean() / n.", [rad])
    oob = "def o(P, samples):\n    oob = np.ones(P.shape, dtype=bool)\n    votes = np.sum(np.where(oob, P, 0.0), axis=0)\n"
    assert leaks("Then votes = np.sum(np.where(oob, P, 0), axis=0).", [oob])
    gain = "def g(a):\n    return min(a, 1 - a)\n"
    assert not leaks("error: min(a, 1 − a); gini: 2a(1 − a).", [gain])
    eig = "def h(L):\n    lam, V = np.linalg.eigh(L)\n    return V\n"
    assert not leaks("Diagonalise it with np.linalg.eigh, L = V diag(λ) Vᵀ.", [eig])


# The results a derivation exercise asks for, which no hint before the release may state
# (compared with spaces removed): the student derives them; hint_last may say them.
DERIVED = {
    "01.dual": ["w=Σα_iy_ix_i", "Σα_i−½‖w‖²", "½‖w‖²−‖w‖²"],
    "02.kernel_sgd": ["β_i+=y_i", "addsy_itoβ_i", "β_iincreasesbyy_i"],
    "03.mean_distance": ["meanoftheblockK[A,B]", "(1/(|A||B|))"],
    "04.hinge_subgradient": ["itsgradientinwisΨ(x,y′)−Ψ(x,y)", "itsgradientinwisΨ(x,y')−Ψ(x,y)"],
    "05.score_coefficients": ["meetseveryx_twithy_t=s", "appearsonceperoccurrence"],
    "06.ndcg_costs": ["α_i=−μ_i", "β_i=y_i/G"],
    "08.best_alpha": ["e²ᵅ=w_correct/w_wrong", "e^{2α}=w_correct/w_wrong", "w_abstain+2√"],
    "09.nu_dual": ["Σα_i=nν", "0≤α_i≤1", "Σα_iy_i=0", "−½αᵀQα"],
}


@pytest.mark.parametrize("ex_id", sorted(DERIVED))
def test_no_hint_before_the_release_states_the_derivations_results(ex_id):
    for level, text in enumerate(RECORDS[ex_id]["hints"], 1):
        flat = "".join(text.split())
        said = [r for r in DERIVED[ex_id] if r in flat]
        assert not said, f"{ex_id}, hint level {level} states the result: {said}"


# -- texts without raw LaTeX, cases with readable names -------------------------------------

_LATEX = re.compile(r"\^\{|_\{|\\[A-Za-z]+|\$|\\[{}]")


def _texts():
    """(where, text) for every text check/hint/ask/quiz can print."""
    for ex_id, rec in RECORDS.items():
        yield f"{ex_id} title", rec["title"]
        for k, h in enumerate([*rec["hints"], rec.get("hint_last", "")], 1):
            yield f"{ex_id} hint {k}", h
        for m in rec.get("mistakes", []):
            yield f"{ex_id} mistake {m['name']!r}", m["name"] + " " + m["explain"]
        for c in REG[ex_id].all_cases():
            yield f"{ex_id} case {c.label!r}", c.label
    for q in QUESTIONS:
        parts = [q["prompt"], q["explanation"], *q.get("choices", []), *q.get("feedback", [])]
        parts += [w["feedback"] for w in q.get("wrong_values", [])]
        for text in parts:
            yield q["id"], text


def test_no_raw_latex_in_what_a_student_reads():
    found = [f"{where}: {text[:90]!r}" for where, text in _texts() if _LATEX.search(text)]
    assert not found, f"{len(found)} texts with raw LaTeX:\n" + "\n".join(found[:20])


def test_the_latex_rule_catches_what_it_should():
    for bad in ("e^{−α}", "R^{kn}", "max_{y'}", r"\frac12", "$w$"):
        assert _LATEX.search(bad), bad
    for fine in ("e⁻ᵅ", "ℝᵏⁿ", "max over y′", "x_i", "(1 − 1/m)^m", "y_(t−1)"):
        assert not _LATEX.search(fine), fine


def _small(v) -> bool:
    return isinstance(v, (str, bool, int, float, np.integer, np.floating)) or (
        isinstance(v, np.ndarray) and v.size <= 4
    )


@pytest.mark.parametrize("ex_id", sorted(REG))
def test_every_visible_case_has_a_readable_name(ex_id):
    for i, c in enumerate(REG[ex_id].all_cases(), 1):
        name = c.describe()
        assert c.label or all(_small(a) for a in (*c.args, *c.kwargs.values())), (
            f"{ex_id} case {i} has no label: {name}"
        )
        assert len(name) <= 90 and "array(" not in name and "np." not in name, (ex_id, i, name)


def test_feedback_shows_numbers_as_a_student_writes_them(capsys):
    """(walk report 11) no np.float64(...) in check's feedback: a tuple of NumPy scalars
    prints as plain numbers."""
    from kmlteach.exercises import check
    from kmlteach.exercises.model import Case, short

    assert short((np.float64(0.4581234), np.float64(1.0))) == "(0.458123, 1)"
    assert short([np.int64(3), np.float32(2.5), True]) == "[3, 2.5, True]"
    assert Case((np.zeros((5, 3)), np.arange(7.0))).describe() == "(a 5×3 array, 7 values)"

    def best_alpha(w_correct, w_wrong, w_abstain=0.0):
        return np.float64(0.1), np.float64(0.2)

    check("08.best_alpha", best_alpha)
    out = " ".join(capsys.readouterr().out.split())  # wrapped at word boundaries
    assert "expected (" in out and "np.float64" not in out and "got (0.1, 0.2)" in out, out
