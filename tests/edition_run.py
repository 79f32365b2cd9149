"""Run inside a student edition's own venv (the one its `make lab` made; tests/test_journey.py
starts it): check() on a correct and a wrong answer for every exercise, with the edition's
records only (no reference code). Prints one JSON line of results. (Every notebook runs in
that venv too: the journey test runs each in JupyterLab, cell by cell.)"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import kmlteach
from kmlteach.exercises import check, registry


def main(edition: str, solutions_file: str) -> None:
    solutions = json.loads(Path(solutions_file).read_text(encoding="utf-8"))
    result = {"package": str(Path(kmlteach.__file__).resolve().parent)}
    checks = {}
    namespaces: dict = {}
    for ex_id, ex in registry().items():
        # one namespace per chapter, solutions run in order (a later exercise may call an
        # earlier one, as in the notebook)
        ns = namespaces.setdefault(ex_id[:2], {"np": __import__("numpy")})
        before = dict(ns)
        exec(solutions[ex_id], ns)
        fn = next(
            v
            for k, v in ns.items()
            if before.get(k) is not v and callable(v) and f"def {k}(" in solutions[ex_id]
        )
        checks[ex_id] = [
            ex.reference is None,
            bool(check(ex_id, fn, verbose=False)),  # a Result: true when passed
            bool(check(ex_id, lambda *a, **k: 0, verbose=False)),
        ]
    result["checks"] = checks
    print(json.dumps(result))


if __name__ == "__main__":
    main(*sys.argv[1:])
