"""Honest chapter-01 `distance` solutions written in ordinary notebook styles.

Every submission is correct; each must get the same 01.distance points as `plain`.
usage: python redteam/honest_styles.py DIR && python -m kmlteach grade DIR --out DIR.csv --jobs 1
"""

import json
import sys
from pathlib import Path

CHECK = 'from kmlteach.exercises import check\ncheck("01.distance", distance)'
STYLES = {
    "plain": [
        "import numpy as np",
        "def distance(x, w, b):\n    return abs(np.dot(w, x) + b) / np.linalg.norm(w)",
    ],
    "njit": [
        "import numpy as np\nfrom numba import njit",
        "@njit(cache=False)\ndef _d(x, w, b):\n    s = 0.0\n    n = 0.0\n    for i in range(x.shape[0]):\n"
        "        s += w[i] * x[i]\n        n += w[i] * w[i]\n    return abs(s + b) / np.sqrt(n)",
        "def distance(x, w, b):\n    return _d(np.asarray(x, dtype=np.float64), np.asarray(w, dtype=np.float64), float(b))",
    ],
    "star_import": [
        "from numpy import *",
        "def distance(x, w, b):\n    return abs(dot(w, x) + b) / sqrt(dot(w, w))",
    ],
    "lru_cache": [
        "import functools\nimport numpy as np",
        "@functools.lru_cache(maxsize=None)\ndef _norm(t):\n    return float(np.sqrt(sum(v * v for v in t)))",
        "def distance(x, w, b):\n    return abs(np.dot(w, x) + b) / _norm(tuple(np.ravel(w).tolist()))",
    ],
    "class_methods": [
        "import numpy as np",
        "class Plane:\n    def __init__(self, w, b):\n        self.w, self.b = np.asarray(w, float), b\n"
        "    def value(self, x):\n        return self.w @ np.asarray(x, float) + self.b\n"
        "    def dist(self, x):\n        return abs(self.value(x)) / np.linalg.norm(self.w)",
        "distance = lambda x, w, b: Plane(w, b).dist(x)",
    ],
    "out_of_order_global": [
        "def distance(x, w, b):\n    return abs(np.dot(w, x) + b) / np.linalg.norm(w)",
        "import numpy as np",
    ],
    "recursion_generator": [
        "import math",
        "def _dot(a, c, i=0):\n    return 0.0 if i == len(a) else a[i] * c[i] + _dot(a, c, i + 1)",
        "def distance(x, w, b):\n    w = [float(v) for v in w]\n    x = [float(v) for v in x]\n"
        "    return abs(_dot(w, x) + b) / math.sqrt(sum(v * v for v in w))",
    ],
}


def nb(cells):
    return {
        "cells": [
            {"cell_type": "code", "metadata": {}, "source": s, "outputs": [], "execution_count": None}
            for s in cells
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
for name, cells in STYLES.items():
    (out / f"{name}.ipynb").write_text(json.dumps(nb(cells + [CHECK])))
