"""Taxonomy-aware costs for multiclass and structured learning (HSS2 §2.4, Fig. 2.1).

Re-exported by :mod:`kmlteach.structured`. When the labels are nodes of a tree, the cost
of confusing two labels can be the length of the path between them; HSS2 uses it as the
required margin Δ(ỹ, y) in the graph-aware hinge loss (2.21).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kmlteach._validation import as_matrix, as_vector, check_finite_output, check_int, check_positive

__all__ = ["HSS_TAXONOMY", "TaxonomyDelta", "taxonomy_delta", "taxonomy_hinge"]

HSS_TAXONOMY = {
    "Computers": ["Hardware", "Software"],
    "Hardware": ["Storage", "Cables"],
    "Storage": ["HDD", "CDROM"],
    "Software": ["Freeware", "Shareware", "Opensource"],
}


@dataclass(frozen=True)
class TaxonomyDelta:
    """Labels (tuple of names) and Δ[i, j] = shortest-path distance in the tree.

    Source: HSS2 §2.4, Fig. 2.1.
    """

    labels: tuple
    delta: np.ndarray


def taxonomy_delta(tree=None, edge_weight: float = 1.0, leaves_only: bool = False) -> TaxonomyDelta:
    """Tree-distance loss Δ_G (HSS2 §2.4, Eq. (2.21), Fig. 2.1).

    ``tree`` maps each parent to its children (default: the Fig. 2.1 taxonomy
    Computers → {Hardware, Software}, Hardware → {Storage, Cables}, Storage → {HDD,
    CDROM}, Software → {Freeware, Shareware, Opensource}); every edge weighs
    ``edge_weight``. Δ(u, v) = depth(u) + depth(v) − 2 depth(lca(u, v)) times the
    weight. With every label a child of one root and weight ρ/2, Δ = ρ(1 − δ).
    """
    tree = HSS_TAXONOMY if tree is None else tree
    if not isinstance(tree, dict) or not tree:
        raise TypeError(
            f"tree must be a non-empty dict parent -> list of children, got {type(tree).__name__}"
        )
    w = check_positive(edge_weight, "edge_weight")
    parent = {}
    for p, children in tree.items():
        if isinstance(children, (str, bytes)) or not hasattr(children, "__iter__"):
            raise TypeError(f"tree[{p!r}] must be a list of children")
        for c in children:
            if c in parent or c == p:
                raise ValueError(f"tree: node {c!r} has two parents or is its own parent")
            parent[c] = p
    roots = [p for p in tree if p not in parent]
    if len(roots) != 1:
        raise ValueError(f"tree must have exactly one root, got {roots}")
    nodes = [roots[0]]
    for p in nodes:  # breadth-first order
        nodes.extend(tree.get(p, []))
    if len(nodes) != len(set(nodes)) or set(nodes) != set(parent) | {roots[0]}:
        raise ValueError("tree must be connected and acyclic")

    def ancestors(v):
        path = [v]
        while path[-1] in parent:
            path.append(parent[path[-1]])
        return path

    labels = [v for v in nodes if not leaves_only or v not in tree]
    anc = {v: ancestors(v) for v in labels}
    k = len(labels)
    D = np.zeros((k, k))
    for i, u in enumerate(labels):
        for j, v in enumerate(labels):
            au, av = anc[u], set(anc[v])
            up = next(d for d, a in enumerate(au) if a in av)  # steps from u to the lca
            D[i, j] = w * (up + anc[v].index(au[up]))
    check_finite_output("edge_weight", D)
    return TaxonomyDelta(labels=tuple(labels), delta=D)


def taxonomy_hinge(scores, y: int, delta) -> float:
    """Graph-aware hinge of HSS2 Eq. (2.21): max{0, max_{ỹ≠y} [Δ(ỹ, y) + f(ỹ)] − f(y)}."""
    f = as_vector(scores, "scores")
    k = f.shape[0]
    D = as_matrix(delta, "delta")
    if D.shape != (k, k):
        raise ValueError(
            f"delta must have shape ({k}, {k}) (one row and column per entry of scores), got {D.shape}"
        )
    y = check_int(y, "y", minimum=0, maximum=k - 1)
    other = np.delete(D[:, y] + f, y)
    return float(max(0.0, other.max() - f[y])) if other.size else 0.0
