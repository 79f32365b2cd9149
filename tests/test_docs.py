"""The repository's manuals: README, CONTRIBUTING and docs/ stay true and findable.

* the generated files of ``docs/`` (the command-line reference ``docs/cli.md`` and the
  instructor's guide's tables) are what ``python -m kmlteach docs`` writes now, and the
  reference really comes from the argparse parser: every subcommand and option is in it,
  and a new option shows up in it;
* README is a five-minute read (at most 150 lines) that names each manual and links it,
  and does not repeat the guide's release/collect/grade steps;
* every relative link of README, CONTRIBUTING, ``deploy/hub/README.md`` and ``docs/*.md``
  reaches a file of the repository, and a ``#fragment`` into a Markdown file reaches one of
  its headings (GitHub's heading ids);
* the design document lives in ``docs/design.md``: the files that cite it point there, and
  every repository path it names exists.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from kmlteach import __main__ as cli
from kmlteach.course import docs as gen

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _parser():
    return cli.build_parser("python -m kmlteach")


# -- generated files -------------------------------------------------------------------
def test_generated_docs_are_current():
    stale = [
        str(path.relative_to(ROOT))
        for path, text in gen.generated(_parser(), cli.INSTRUCTOR_ONLY).items()
        if not path.is_file() or path.read_text(encoding="utf-8") != text
    ]
    assert not stale, f"stale generated docs {stale}: run `python -m kmlteach docs`"


def test_the_cli_reference_names_every_command_and_option():
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    subs = gen._subcommands(_parser())
    assert len(subs) >= 12
    for name, _help, p in subs:
        assert f"\n## {name}\n" in text, f"docs/cli.md has no section for `{name}`"
        section = text.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]
        for action in p._actions:
            for opt in action.option_strings:
                if opt not in ("-h", "--help"):
                    assert f"`{opt}" in section, f"docs/cli.md, `{name}`: option {opt} missing"
        if name in cli.INSTRUCTOR_ONLY:
            assert "Instructor repository only" in section


def test_the_cli_reference_follows_the_parser():
    """A new option of a subcommand appears in the reference, with its help and default."""
    p = _parser()
    before = gen.cli_markdown(p)
    (site,) = [sp for name, _h, sp in gen._subcommands(p) if name == "site"]
    site.add_argument("--colour", default="teal", help="the theme's colour")
    after = gen.cli_markdown(p)
    assert "--colour" not in before
    assert "| `--colour COLOUR` | the theme's colour (default: teal) |" in after


def test_the_docs_command_checks_and_writes(tmp_path, monkeypatch, capsys):
    """``docs --check`` reports a stale file with status 1 and writes nothing; ``docs`` writes it."""
    path = tmp_path / "cli.md"
    path.write_text("old\n", encoding="utf-8")
    monkeypatch.setattr(gen, "generated", lambda parser, only=(), book=None: {path: "new\n"})
    assert cli.main(["docs", "--check"]) == 1
    assert path.read_text(encoding="utf-8") == "old\n" and "stale" in capsys.readouterr().err
    assert cli.main(["docs"]) == 0
    assert path.read_text(encoding="utf-8") == "new\n"
    assert cli.main(["docs", "--check"]) == 0


def test_markdown_in_help_texts_is_escaped():
    ap = argparse.ArgumentParser(prog="x")
    sub = ap.add_subparsers()
    q = sub.add_parser("go", help="go")
    q.add_argument("--dir", help="the package's __pycache__ or notebooks/NN-*.ipynb | more")
    text = gen.cli_markdown(ap)
    assert r"\_\_pycache\_\_" in text and r"NN-\*.ipynb" in text and r"\| more" in text
