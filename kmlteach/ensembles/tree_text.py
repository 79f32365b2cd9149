"""Reading a fitted decision tree (UML §18.2): its nodes as dicts and as indented text.

Used by :class:`kmlteach.ensembles.DecisionTree` (``tree.nodes``, ``tree.export_text()``).
"""

from __future__ import annotations

import numpy as np

__all__: list[str] = []


def tree_nodes(tree) -> list[dict]:
    """The nodes as a list of dicts (id, depth, test or leaf label, class counts)."""
    out = []
    for i in range(tree.n_nodes):
        node = {
            "id": i,
            "depth": int(tree.node_depth[i]),
            "samples": int(tree.counts[i].sum()),
            "counts": tree.counts[i].astype(int).tolist(),
            "label": _label(tree.classes[tree.value[i]]),
        }
        if tree.feature[i] >= 0:
            node.update(
                feature=int(tree.feature[i]),
                threshold=float(tree.threshold[i]),
                left=int(tree.left[i]),
                right=int(tree.right[i]),
            )
        out.append(node)
    return out


def export_text(tree, feature_names=None, decimals: int = 3) -> str:
    """The tree as indented text, one line per test and per leaf."""
    names = (
        [f"x{j}" for j in range(tree.n_features)]
        if feature_names is None
        else [str(n) for n in feature_names]
    )
    if len(names) != tree.n_features:
        raise ValueError(f"feature_names must have {tree.n_features} entries, got {len(names)}")
    lines: list[str] = []
    stack = [(0, 0, "")]
    while stack:
        i, level, prefix = stack.pop()
        pad = "|   " * level
        if tree.feature[i] < 0:
            counts = ", ".join(str(int(c)) for c in tree.counts[i])
            lines.append(f"{pad}{prefix}predict {_label(tree.classes[tree.value[i]])!r} (counts [{counts}])")
            continue
        name, thr = names[tree.feature[i]], f"{tree.threshold[i]:.{decimals}f}"
        lines.append(f"{pad}{prefix}{name} <= {thr}?")
        stack.append((int(tree.right[i]), level + 1, "no:  "))
        stack.append((int(tree.left[i]), level + 1, "yes: "))
    return "\n".join(lines)


def _label(v):
    """A NumPy scalar label as the plain Python value (prints as -1.0 or 'tasty')."""
    return v.item() if isinstance(v, np.generic) else v
