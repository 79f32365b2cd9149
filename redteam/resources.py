"""Resource attacks from inside a correct 01.distance: huge stdout on every call,
filling the scratch folder and /dev/shm, many inodes. The grader must finish, write
every row and not be slowed for the next submission.
usage: python redteam/resources.py DIR && python -m kmlteach grade DIR --out DIR.csv --jobs 1
"""

import json
import sys
from pathlib import Path

BODY = "    return abs(np.dot(w, x) + b) / np.linalg.norm(w)"
CHECK = 'from kmlteach.exercises import check\ncheck("01.distance", distance)'
ATTACKS = {
    "stdout": "    import sys\n    sys.stdout.write('x' * 50_000_000); sys.stdout.flush()\n",
    "disk": "    import os\n    try:\n        with open('fill.bin', 'ab') as f:\n            f.write(b'0' * 200_000_000)\n"
    "    except OSError:\n        pass\n",
    "shm": "    try:\n        with open('/dev/shm/rt-fill', 'ab') as f:\n            f.write(b'0' * 200_000_000)\n"
    "    except OSError:\n        pass\n",
    "inodes": "    import os\n    for i in range(20000):\n        try:\n            open(f'i{os.getpid()}_{i}', 'w').close()\n"
    "        except OSError:\n            break\n",
}
out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
for name, pre in ATTACKS.items():
    cells = ["import numpy as np", "def distance(x, w, b):\n" + pre + BODY, CHECK]
    nb = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "source": s, "outputs": [], "execution_count": None}
            for s in cells
        ],
        "metadata": {"kmlteach": {"chapter": "01"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (out / f"{name}.ipynb").write_text(json.dumps(nb))
