"""docs/glossary.md: every "NN §k" reference names a section the chapter has, and the symbol is
there (walk report 13: "09 §7 Ex. 5" pointed at the lab; the exercises are §8).

The chapters' sections are read from the jupytext sources (``## k · Title``, ``### k.j Title``,
``### Title``, ``**Exercise n``). A reference ``§k Ex. n`` must name the Exercises section and
an exercise it holds; ``§k (*Title*)`` a sub-heading of §k; ``*Notation*`` 00's heading. The
Greek letters of a row (those its meaning cell names, else those of its symbol cell) must
appear, as the letter or its LaTeX name, in each section (or exercise) the row points at.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = ROOT / "docs" / "glossary.md"
SOURCES = ROOT / "notebooks" / "src"

GREEK = {
    "γ": "gamma", "ρ": "rho", "η": "eta", "ψ": "psi", "Ψ": "Psi", "λ": "lambda", "σ": "sigma",
    "α": "alpha", "β": "beta", "θ": "theta", "τ": "tau", "δ": "delta", "Δ": "Delta",
    "ε": "epsilon", "ν": "nu", "χ": "chi", "Φ": "Phi", "Γ": "Gamma", "μ": "mu", "ξ": "xi",
}  # fmt: skip

REF = re.compile(r"§(\d+(?:\.\d+)?)(?:–(\d+(?:\.\d+)?))?(?: Ex\. (\d+))?")


def _sections(nn: str) -> dict[str, dict]:
    """Section number -> title, text, sub-headings and exercises (their text by number)."""
    src = next(SOURCES.glob(f"{nn}-*.py")).read_text(encoding="utf-8")
    secs: dict[str, dict] = {}
    cur = sub = exercise = None
    for line in src.splitlines():
        m = re.match(r"# ## (\d+) · (.*)", line)
        if m:
            cur, sub, exercise = m.group(1), None, None
            secs[cur] = {"title": m.group(2), "text": [], "subs": [], "ex": {}}
            continue
        if line.startswith("# ## "):  # Summary, Recap quiz, Sources: not numbered
            cur = sub = exercise = None
            continue
        if cur is None:
            continue
        m = re.match(r"# ### (\d+\.\d+) (.*)", line)
        if m:
            sub = m.group(1)
            secs[sub] = {"title": m.group(2), "text": [], "subs": [], "ex": {}}
        elif line.startswith("# ### "):
            secs[cur]["subs"].append(line[6:])
        m = re.match(r"# \*\*Exercise (\d+)", line)
        if m:
            exercise = int(m.group(1))
            secs[cur]["ex"][exercise] = []
        secs[cur]["text"].append(line)
        if sub:
            secs[sub]["text"].append(line)
        if exercise is not None:
            secs[cur]["ex"][exercise].append(line)
    return secs


def _has(text: str, letter: str) -> bool:
    name = GREEK[letter]
    # the letter, its LaTeX name, or the keyword argument that sets it in a code cell (sigma=1.0)
    return letter in text or f"\\{name}" in text or f"\\var{name}" in text or f"{name}=" in text


def _references():
    """(line number, chapter, symbol cell, meaning cell, reference text) per reference."""
    chapter, symbol = None, ""
    for i, line in enumerate(GLOSSARY.read_text(encoding="utf-8").splitlines(), 1):
        m = re.match(r"## (\d\d) ·", line)
        if m:
            chapter = m.group(1)
            continue
        if not line.startswith("| ") or line.startswith("| Symbol"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        symbol = cells[0] or symbol
        for piece in cells[-1].split(";"):
            piece = piece.strip()
            m = re.match(r"(\d\d)\b", piece)
            yield i, (m.group(1) if m else chapter), symbol, cells[1], piece


def _problems(ref) -> list[str]:
    i, nn, symbol, meaning, piece = ref
    where = f"glossary line {i}: {piece!r}"
    if "onward" in piece:
        return []
    if "*Notation*" in piece:
        src = next(SOURCES.glob(f"{nn}-*.py")).read_text(encoding="utf-8")
        return [] if "# ## Notation" in src else [f"{where}: chapter {nn} has no Notation section"]
    tokens = REF.findall(piece)
    if not tokens:
        return [f"{where}: no section reference"]
    secs = _sections(nn)
    letters = [g for g in symbol if g in GREEK and g in meaning] or [g for g in symbol if g in GREEK]
    out = []
    for first, last, ex in tokens:
        texts = []
        for s in (first, last) if last else (first,):
            if s not in secs:
                out.append(f"{where}: chapter {nn} has no §{s} (its sections: {sorted(secs)})")
                continue
            if ex:
                if int(ex) not in secs[s]["ex"]:
                    out.append(f"{where}: {nn} §{s} ({secs[s]['title']}) holds no Exercise {ex}")
                    continue
                texts.append("\n".join(secs[s]["ex"][int(ex)]))
            else:
                texts.append("\n".join(secs[s]["text"]))
        heading = re.search(r"\(\*(.+?)\*\)", piece)
        if heading and first in secs and not any(h.startswith(heading.group(1)) for h in secs[first]["subs"]):
            out.append(f"{where}: {nn} §{first} has no sub-heading {heading.group(1)!r}")
        for text in texts:
            missing = [g for g in letters if not _has(text, g)]
            if missing:
                out.append(f"{where}: {''.join(missing)} does not appear in the section it names")
    return out


def test_the_glossary_has_section_references():
    refs = list(_references())
    assert sum(1 for r in refs if "§" in r[4]) > 80


def test_every_section_reference_names_a_section_holding_the_symbol():
    problems = [p for ref in _references() for p in _problems(ref)]
    assert not problems, "\n".join(problems)


def test_the_checker_catches_a_wrong_section():
    """The walk's case: 09 §7 is the lab, and its Ex. 5 does not exist; 01 §1 has no η."""
    assert _problems((0, "09", "ηᵢ", "Lagrange multipliers ηᵢ", "§7 Ex. 5"))
    assert _problems((0, "01", "η", "step size η", "§1"))
    assert _problems((0, "02", "ψ", "ψ", "§12"))
    assert _problems((0, "09", "η", "η", "§1 (*Nowhere*)"))
    assert not _problems((0, "09", "η", "η", "§1 (*Calibration*)"))
