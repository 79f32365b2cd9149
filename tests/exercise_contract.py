"""The tests every chapter's exercises must pass, as one reusable factory.

Usage in ``tests/test_exercises_chNN.py``::

    from exercise_contract import exercise_contract

    (test_every_exercise_has_its_test_functions, test_reference_and_independent_solution_pass,
     test_wrong_answer_fails_with_message, test_stub_reports_not_implemented,
     test_written_solutions_pass) = exercise_contract(["NN"], INDEPENDENT, WRONG)

The exercise ids come from the registry (every exercise of the chapters named), so a new
exercise is tested the moment its record exists; the first test then names it until the
file gives it an independent implementation and a wrong answer:

* the registered reference and an independent implementation (written from the formulas,
  not calling the library) both pass ``check``;
* a plausible wrong answer fails with a message naming what was expected and a hint;
* a stub raising ``NotImplementedError`` reports "not implemented yet";
* the solution text shown to students, executed in ``namespace`` (default ``{"np": np}``),
  defines a function that passes.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from kmlteach.exercises import check, get, registry


def chapter_ids(chapters) -> list[str]:
    """The ids of the registered exercises of ``chapters`` ("04", ...), in record order."""
    return [i for i in registry() if i.split(".", 1)[0] in chapters]


def exercise_contract(chapters, independent: dict, wrong: dict, namespace: dict | None = None):
    ids = chapter_ids(chapters)

    def test_every_exercise_has_its_test_functions():
        assert ids, f"no exercise of chapters {chapters} is registered"
        for what, table in (("an independent implementation", independent), ("a wrong answer", wrong)):
            missing = [i for i in ids if i not in table]
            assert not missing, f"{what} is missing in this test file for {missing}"
            unknown = sorted(set(table) - set(ids))
            assert not unknown, f"{what} is given for exercises that do not exist: {unknown}"

    def _need(table: dict, ex_id: str):
        if ex_id not in table:
            pytest.fail(f"{ex_id}: this test file has no entry for it (see the first test)")
        return table[ex_id]

    @pytest.mark.parametrize("ex_id", ids)
    def test_reference_and_independent_solution_pass(ex_id, capsys):
        ex = get(ex_id)
        assert ex is not None
        assert check(ex_id, ex.reference)
        assert check(ex_id, _need(independent, ex_id))
        assert "✓" in capsys.readouterr().out

    @pytest.mark.parametrize("ex_id", ids)
    def test_wrong_answer_fails_with_message(ex_id, capsys):
        assert not check(ex_id, _need(wrong, ex_id))
        out = capsys.readouterr().out
        assert "✗" in out and "expected" in out and "hint" in out

    @pytest.mark.parametrize("ex_id", ids)
    def test_stub_reports_not_implemented(ex_id, capsys):
        def stub(*args):
            raise NotImplementedError

        assert not check(ex_id, stub)
        assert "not implemented yet" in capsys.readouterr().out

    @pytest.mark.parametrize("ex_id", ids)
    def test_written_solutions_pass(ex_id):
        ex = get(ex_id)
        ns = dict(namespace or {"np": np})
        name = re.search(r"^def (\w+)\(", ex.solution, re.M).group(1)
        exec(ex.solution, ns)
        assert check(ex_id, ns[name], verbose=False)

    return (
        test_every_exercise_has_its_test_functions,
        test_reference_and_independent_solution_pass,
        test_wrong_answer_fails_with_message,
        test_stub_reports_not_implemented,
        test_written_solutions_pass,
    )
