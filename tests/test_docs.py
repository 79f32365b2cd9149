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
import re
import unicodedata
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


# -- README ------------------------------------------------------------------------------
MANUALS = [
    "docs/instructor-guide.md",
    "docs/releasing.md",
    "docs/grading.md",
    "docs/security.md",
    "docs/cli.md",
    "docs/design.md",
    "docs/glossary.md",
    "docs/project.md",
    "deploy/hub/README.md",
    "CONTRIBUTING.md",
]


def test_the_readme_is_a_five_minute_read_that_links_every_manual():
    lines = README.splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines (at most 150)"
    for section in ("## Two commands", "## Chapters", "## Manuals"):
        assert section in README
    assert "make lab" in README and "make test" in README
    for path in MANUALS:
        assert f"]({path})" in README, f"README does not link {path}"
    # the release/collect/grade steps live in the guide: the README links them, never repeats them
    for command in ("kmlteach release", "kmlteach grade", "kmlteach publish-student", "kmlteach reveal"):
        assert command not in README, f"README repeats the guide's steps ({command})"


# -- links of every manual ------------------------------------------------------------------
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def github_slug(heading: str) -> str:
    """The id GitHub (and MyST's heading anchors) give a Markdown heading."""
    text = re.sub(r"`|\*\*|\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    keep = "".join(ch for ch in text if ch in " -_" or unicodedata.category(ch)[0] in "LN")
    return keep.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    out = set()
    for h in re.findall(r"^#{1,6}\s+(.+?)\s*#*$", text, re.M):
        slug = github_slug(h)
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def manual_files() -> list[Path]:
    return [
        ROOT / "README.md",
        ROOT / "CONTRIBUTING.md",
        ROOT / "deploy/hub/README.md",
        *sorted(DOCS.glob("*.md")),
    ]


def test_the_slug_rule():
    assert github_slug("Assignments: release, collect, grade") == "assignments-release-collect-grade"
    assert github_slug("Decisions, and why") == "decisions-and-why"
    assert github_slug("`check-env`") == "check-env"
    assert github_slug("A 13-week schedule") == "a-13-week-schedule"


def test_every_relative_link_of_the_manuals_resolves():
    broken, n = [], 0
    for md in manual_files():
        text = _FENCE.sub("", md.read_text(encoding="utf-8"))
        for target in _LINK.findall(text):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue
            n += 1
            path, _, frag = target.partition("#")
            dest = (md.parent / path).resolve() if path else md
            where = f"{md.relative_to(ROOT)} -> {target}"
            if not dest.exists():
                broken.append(f"{where} (no such file)")
            elif frag and dest.suffix == ".md" and frag not in anchors(dest):
                broken.append(f"{where} (no such heading)")
    assert n > 40, f"only {n} relative links found"
    assert not broken, "broken links in the manuals:\n" + "\n".join(broken)


# -- the design document -----------------------------------------------------------------
def test_the_design_document_is_in_the_repository_and_cited_there():
    design = DOCS / "design.md"
    assert design.is_file()
    for rel in ("CONTRIBUTING.md", "kmlteach/plots/__init__.py", "tests/test_architecture.py"):
        text = (ROOT / rel).read_text(encoding="utf-8")
        assert "docs/design.md" in text, f"{rel} does not point at docs/design.md"
        assert "shared/course/DESIGN.md" not in text and "(DESIGN.md" not in text, rel


def test_every_path_the_design_document_names_exists():
    text = (DOCS / "design.md").read_text(encoding="utf-8")
    names = set(re.findall(r"`([^`\s]+)`", text))
    names |= {
        n
        for block in re.findall(r"```text\n(.*?)```", text, re.S)
        for n in re.findall(r"^(\S+)", block, re.M)
    }
    paths = {
        n.rstrip(",")
        for n in names
        if ("/" in n or re.search(r"\.(py|md|toml|yml|json|cfg)$", n))
        and not re.search(r"[<>*()=]|NN|\.\.\.|^https?:", n)
    }
    assert len(paths) > 40, sorted(paths)
    missing = [p for p in sorted(paths) if not any((base / p).exists() for base in (ROOT, ROOT / "kmlteach"))]
    assert not missing, f"docs/design.md names paths that do not exist: {missing}"


def test_options_are_shown_as_argparse_shows_them():
    ap = argparse.ArgumentParser(prog="x")
    sub = ap.add_subparsers()
    q = sub.add_parser("go", help="go")
    q.add_argument("--lms", nargs=2, metavar=("SYSTEM", "FILE"), help="two values")
    q.add_argument("--cpu", choices=("host", "generic"), default="host", help="which")
    q.add_argument("names", nargs="*", metavar="NAME", help="some names")
    text = gen.cli_markdown(ap)
    assert "| `--lms SYSTEM FILE` | two values |" in text
    assert "| `--cpu {host,generic}` | which (default: host) |" in text
    assert "| `[NAME ...]` | some names |" in text
