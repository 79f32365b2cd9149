"""Run inside a student edition's own venv (tests/test_release_edition.py starts it):
every notebook top to bottom, check() on a correct and a wrong answer for every
exercise, every widget of the catalog built by a notebook cell (the notebooks build each
with their own data; building them once more here cost 19 s of CPU). Prints one JSON line of results."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import kmlteach
from kmlteach.exercises import check, registry


def _notebooks(edition: Path) -> dict:
    import time

    import nbformat
    from nbclient import NotebookClient

    out = {}
    for path in sorted((edition / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        t0 = time.process_time(), time.perf_counter()
        NotebookClient(
            nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
        ).execute()
        code = [c for c in nb.cells if c.cell_type == "code"]
        texts = ["".join(o.get("text", "")) for c in code for o in c.outputs]
        out[path.name] = {
            "not_implemented": sum(t.count("not implemented yet") for t in texts),
            "errors": sum(o.get("output_type") == "error" for c in code for o in c.outputs),
            # the widgets the notebook built: made in a cell that ran and raised nothing
            "widgets": sorted(
                {
                    name
                    for c in code
                    for name in re.findall(r"\b(make_\w+)\(", "".join(c.source))
                    if c.get("execution_count")
                    and not any(o.get("output_type") == "error" for o in c.outputs)
                }
            ),
            "seconds": round(time.perf_counter() - t0[1], 1),
        }
    return out


def main(edition: str, solutions_file: str) -> None:
    edition = Path(edition)
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
    from kmlteach.widgets._catalog import builders

    # every widget of the catalog, built by the notebooks themselves (with their data)
    result["catalog"] = sorted({name.split(".")[1].split("[")[0] for name, _ in builders()})
    result["notebooks"] = _notebooks(edition)
    print(json.dumps(result))


if __name__ == "__main__":
    main(*sys.argv[1:])
