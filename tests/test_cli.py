"""The command line (kmlteach/__main__.py): the ``kmlteach`` console script, one-line
errors for the user's mistakes, tracebacks for bugs."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from kmlteach import __main__ as cli

ROOT = Path(__file__).resolve().parent.parent


def test_the_console_script_is_installed_and_runs_the_cli():
    (ep,) = [e for e in metadata.entry_points(group="console_scripts") if e.name == "kmlteach"]
    assert ep.value == "kmlteach.__main__:main"
    script = Path(sys.executable).parent / "kmlteach"
    assert script.is_file(), "reinstall the package (pip install -e .) to get the kmlteach script"
    via_script = subprocess.run(
        [str(script), "chapters"], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    via_module = subprocess.run(
        [sys.executable, "-m", "kmlteach", "chapters"], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert via_script.returncode == 0, via_script.stderr
    assert via_script.stdout == via_module.stdout and "01" in via_script.stdout
    # its own name in the messages
    bad = subprocess.run([str(script), "slides", "99"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == [
        f"kmlteach slides: error: no ready chapter '99' (ready: {_ready()})"
    ]


def _ready() -> str:
    from kmlteach.course import book

    return ", ".join(c.id for c in book.load().chapters if c.ready)


def test_the_command_line_imports_what_its_command_needs():
    """Building the parser (every command does) imports neither Numba nor the grader: each
    command paid 0.4 s of CPU for them (the classroom package re-exported its grader-backed
    modules); ``chapters`` still needs neither."""
    code = (
        "import sys\nfrom kmlteach.__main__ import build_parser, main\nbuild_parser()\n"
        "heavy = ('numba', 'kmlteach.course.grade.grader', 'nbformat')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\nmain(['chapters'])\n"
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "[]" and lines[-1] == "[]", r.stdout


@pytest.mark.parametrize(
    "argv, says",
    [
        (["chapters", "--book", "/nonexistent/book.toml"], "book.toml not found at /nonexistent/book.toml"),
        (["chapters", "--book", "."], "is not a file"),
        (["slides", "99"], "no ready chapter '99'"),
        (["slides", "--out", "{file}/decks"], "--out"),
        (["site", "--out", "{file}/site"], "--out"),
        (["grade", "{tmp}", "--out", "{tmp}/gb.csv", "--memory", "10"], "memory"),
    ],
)
def test_user_mistakes_are_one_line_with_exit_status_2(argv, says, tmp_path, capsys):
    (tmp_path / "file").write_text("")
    argv = [a.format(file=tmp_path / "file", tmp=tmp_path) for a in argv]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"python -m kmlteach {argv[0]}: error: ") and says in err


def test_argparse_mistakes_exit_2_with_usage():
    for argv in (["warmup", "--jobs", "-1"], ["execute", "--timeout", "0"], ["no-such-command"]):
        with pytest.raises(SystemExit) as exc:
            cli.main(argv)
        assert exc.value.code == 2


@pytest.mark.parametrize(
    "error", [TypeError("a bug"), KeyError("a bug"), ValueError("a bug"), OSError("a bug")]
)
def test_programming_errors_raise_with_their_traceback(error, monkeypatch, capsys):
    """A TypeError/KeyError/... from inside a subcommand is a bug, not a user mistake: it
    must reach the user (and the test) as the exception, not as a tidy one-line error."""
    from kmlteach.course import book

    def broken(b):
        raise error

    monkeypatch.setattr(book.Book, "table", broken)
    with pytest.raises(type(error), match="a bug"):
        cli.main(["chapters"])
    assert "error:" not in capsys.readouterr().err


def test_a_programming_error_in_the_real_command_prints_its_traceback(tmp_path):
    code = (
        "import sys\n"
        "from kmlteach.course import book\n"
        "book.Book.table = lambda self: {}['missing']\n"
        "from kmlteach.__main__ import main\n"
        "sys.exit(main(['chapters']))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 1
    assert "Traceback" in r.stderr and "KeyError: 'missing'" in r.stderr
