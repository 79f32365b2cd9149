"""Case data as plain JSON, for the student edition's offline ``check``.

The student edition ships each visible case — its arguments and the reference's output
on them — as data in ``records/chNN.json`` instead of the code that draws the case and
the reference that answers it. Values are JSON scalars or one-key objects: ``{"tuple":
[...]}``, ``{"list": [...]}``, ``{"dict": [[key, value], ...]}``, ``{"array": [dtype,
shape, nested list]}``, ``{"scalar": [dtype, value]}`` and, for a helper function
passed as an argument (a learner handed to one-vs-all), ``{"function": [name,
source]}``. Floats survive the round trip bit for bit (JSON writes ``repr``).
"""

from __future__ import annotations

import inspect
import textwrap
from typing import Any

import numpy as np

__all__ = ["to_plain", "from_plain"]

_DTYPES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
)


def to_plain(x: Any) -> Any:
    """``x`` as JSON-ready plain data (raises ``TypeError`` for what has no plain form)."""
    if x is None or type(x) in (bool, int, float, str):
        return x
    if isinstance(x, np.generic):
        return {"scalar": [x.dtype.name, x.item()]}
    if isinstance(x, np.ndarray):
        if x.dtype.name not in _DTYPES:
            raise TypeError(f"no plain form for an array of {x.dtype}")
        return {"array": [x.dtype.name, list(x.shape), x.tolist()]}
    if isinstance(x, (tuple, list)):
        return {type(x).__name__: [to_plain(v) for v in x]}
    if isinstance(x, dict):
        return {"dict": [[to_plain(k), to_plain(v)] for k, v in x.items()]}
    if inspect.isfunction(x):
        return {"function": [x.__name__, _source_with_helpers(x)]}
    raise TypeError(f"no plain form for a {type(x).__name__}")


def _source_with_helpers(fn) -> str:
    """The source of ``fn`` and of the functions of its module that it calls."""
    parts, seen, todo = [], set(), [fn]
    while todo:
        f = todo.pop()
        if f.__name__ not in seen:
            seen.add(f.__name__)
            parts.append(textwrap.dedent(inspect.getsource(f)))
            todo += [
                g
                for n in f.__code__.co_names
                if inspect.isfunction(g := f.__globals__.get(n)) and g.__module__ == f.__module__
            ]
    return "\n\n".join(reversed(parts))


def from_plain(x: Any) -> Any:
    """The value :func:`to_plain` wrote (raises ``ValueError`` for anything else)."""
    if x is None or type(x) in (bool, int, float, str):
        return x
    if not isinstance(x, dict) or len(x) != 1:
        raise ValueError(f"not plain case data: {str(x)[:60]}")
    ((tag, v),) = x.items()
    if tag in ("tuple", "list"):
        items = [from_plain(e) for e in v]
        return tuple(items) if tag == "tuple" else items
    if tag == "dict":
        return {from_plain(k): from_plain(e) for k, e in v}
    if tag == "array" and v[0] in _DTYPES:
        return np.array(v[2], dtype=v[0]).reshape(v[1])
    if tag == "scalar" and v[0] in _DTYPES:
        return np.dtype(v[0]).type(v[1])
    if tag == "function":
        namespace = {"np": np}
        exec(compile(v[1], f"<case function {v[0]}>", "exec"), namespace)  # our own data file
        return namespace[v[0]]
    raise ValueError(f"unknown plain form {tag!r}")
