"""The four tests every chapter's exercises must pass, as one reusable factory.

Usage in ``tests/test_exercises_chNN.py``::

    from exercise_contract import exercise_contract

    (test_reference_and_independent_solution_pass, test_wrong_answer_fails_with_message,
     test_stub_reports_not_implemented, test_written_solutions_pass) = exercise_contract(
        IDS, INDEPENDENT, WRONG)

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

from kmlteach.exercises import check, get


def exercise_contract(ids, independent: dict, wrong: dict, namespace: dict | None = None):
    @pytest.mark.parametrize("ex_id", ids)
    def test_reference_and_independent_solution_pass(ex_id, capsys):
        ex = get(ex_id)
        assert ex is not None
        assert check(ex_id, ex.reference)
        assert check(ex_id, independent[ex_id])
        assert "✓" in capsys.readouterr().out

    @pytest.mark.parametrize("ex_id", ids)
    def test_wrong_answer_fails_with_message(ex_id, capsys):
        assert not check(ex_id, wrong[ex_id])
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
        test_reference_and_independent_solution_pass,
        test_wrong_answer_fails_with_message,
        test_stub_reports_not_implemented,
        test_written_solutions_pass,
    )
