"""Plain-data codec between the grader and a submission's kernel.

Arguments go in and return values come back as JSON built from a few tagged forms:
JSON scalars, ``{"S": str}``, ``{"s": numpy-scalar-as-python}``, ``{"L": [...]}``
(list), ``{"T": [...]}`` (tuple), ``{"D": [[k, v], ...]}`` (dict), ``{"A": [dtype,
shape, base64 bytes]}`` (an ``np.ndarray`` of bool/int/uint/float), and, for
arguments only, ``{"F": [name, source]}`` (a grader-supplied helper function). The
kernel side is in ``inkernel/codec.py``; :func:`decode_result` is the strict parser the
grader applies to what comes back: anything else is rejected, so no object of the
student's (a lying ``__eq__``, an ndarray subclass) ever reaches the comparison.
"""

from __future__ import annotations

import base64
import inspect
import json
import re
import textwrap
from typing import Any

import numpy as np

__all__ = ["encode", "decode_result", "ResultError", "MAX_RESULT_BYTES"]

MAX_RESULT_BYTES = 32 * 1024 * 1024
_DTYPE = re.compile(r"^[<>|=]?(b1|[iu][1248]|f[248])$")
_MAX_DEPTH = 20


class ResultError(ValueError):
    """A value that came back from the kernel does not parse as plain data."""


def _fn_source(fn) -> list:
    """``[name, source]`` of a module-level helper and the helpers of its module it calls."""
    name = fn.__name__
    seen, parts, todo = set(), [], [fn]
    while todo:
        f = todo.pop()
        if f.__name__ in seen:
            continue
        seen.add(f.__name__)
        parts.append(textwrap.dedent(inspect.getsource(f)))
        for n in f.__code__.co_names:
            g = f.__globals__.get(n)
            if inspect.isfunction(g) and g.__module__ == f.__module__:
                todo.append(g)
    return [name, "import numpy as np\n\n" + "\n\n".join(reversed(parts))]


def _enc(x: Any) -> Any:
    if x is None or isinstance(x, (bool, int, float)) and type(x) in (bool, int, float):
        return x
    if isinstance(x, str):
        return {"S": str(x)}
    if isinstance(x, np.generic):
        return {"s": x.item()}
    if isinstance(x, list):
        return {"L": [_enc(v) for v in x]}
    if isinstance(x, tuple):
        return {"T": [_enc(v) for v in x]}
    if isinstance(x, dict):
        return {"D": [[_enc(k), _enc(v)] for k, v in x.items()]}
    if isinstance(x, np.ndarray):
        a = np.ascontiguousarray(x)
        return {"A": [a.dtype.str, list(a.shape), base64.b64encode(a.tobytes()).decode("ascii")]}
    if inspect.isfunction(x):
        return {"F": _fn_source(x)}
    raise TypeError(f"cannot send a {type(x).__name__} to the kernel")


def encode(args: tuple, kwargs: dict) -> list:
    """One case's arguments as ``[encoded args, encoded kwargs]`` (JSON-ready)."""
    return [{"T": [_enc(a) for a in args]}, {"D": [[{"S": k}, _enc(v)] for k, v in kwargs.items()]}]


def _dec(x: Any, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise ResultError("value nested too deeply")
    t = type(x)
    if x is None or t in (bool, int, float):
        return x
    if t is not dict or len(x) != 1:
        raise ResultError(f"unexpected {t.__name__} in a result")
    ((tag, v),) = x.items()
    if tag == "S" and type(v) is str:
        return v
    if tag == "s" and type(v) in (bool, int, float):
        return v
    if tag in ("L", "T") and type(v) is list:
        items = [_dec(e, depth + 1) for e in v]
        return items if tag == "L" else tuple(items)
    if tag == "D" and type(v) is list:
        out = {}
        for pair in v:
            if type(pair) is not list or len(pair) != 2:
                raise ResultError("malformed dict entry")
            key = _dec(pair[0], depth + 1)
            if type(key) not in (str, int, float, bool, tuple):
                raise ResultError("unhashable dict key")
            out[key] = _dec(pair[1], depth + 1)
        return out
    if tag == "A" and type(v) is list and len(v) == 3:
        dt, shape, data = v
        if type(dt) is not str or not _DTYPE.match(dt):
            raise ResultError(f"array dtype {dt!r} not accepted")
        if type(shape) is not list or any(type(n) is not int or n < 0 for n in shape) or len(shape) > 8:
            raise ResultError("malformed array shape")
        if type(data) is not str:
            raise ResultError("malformed array data")
        raw = base64.b64decode(data.encode("ascii"), validate=True)
        dtype = np.dtype(dt)
        if len(raw) != int(np.prod(shape, dtype=np.int64)) * dtype.itemsize:
            raise ResultError("array data does not match its shape")
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    raise ResultError(f"unknown value form {tag!r}")


def decode_result(value: Any) -> Any:
    """Parse one encoded return value into plain Python / ``np.ndarray`` (strict)."""
    return _dec(value, 0)


def loads_limited(text: str) -> Any:
    """``json.loads`` with a size limit (the kernel's reply is untrusted)."""
    if not isinstance(text, str) or len(text) > MAX_RESULT_BYTES:
        raise ResultError("result too large" if isinstance(text, str) else "no text")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # its message would carry the kernel's text
        raise ResultError("not valid JSON") from None
