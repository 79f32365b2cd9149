"""Plain values in and out of the grading kernel (runs inside it; see ``__init__``).

``value_codec(np)`` returns ``enc, size, dec``: ``enc`` turns a returned value into
plain JSON (numbers, strings, lists, tuples, dicts, NumPy arrays of bool/int/float as
raw bytes; exact types only, so no subclass or object with its own ``__eq__`` crosses),
``size`` bounds its JSON size without building it, ``dec`` rebuilds the grader's case
arguments. The grader parses replies with its own parser (``grade/codec.py``).
"""


def value_codec(np):
    import base64

    _type, _len = type, len
    _b64e, _b64d = base64.b64encode, base64.b64decode
    _ndarray, _frombuffer, _ascont, _dtype = np.ndarray, np.frombuffer, np.ascontiguousarray, np.dtype
    scalar_types = {
        *(np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8, np.bool_),
        *(np.uint64, np.uint32, np.uint16, np.uint8),
    }

    def enc(x, depth=0):
        t = _type(x)
        if depth > 20:
            raise TypeError("the returned value is nested too deeply")
        if x is None or t is bool or t is int or t is float:
            return x
        if t is str:
            return {"S": x}
        if t in scalar_types:
            return {"s": x.item()}
        if t is list or t is tuple:
            return {"L" if t is list else "T": [enc(v, depth + 1) for v in x]}
        if t is dict:
            return {"D": [[enc(k, depth + 1), enc(v, depth + 1)] for k, v in x.items()]}
        if t is _ndarray:
            if x.dtype.kind not in "biuf" or x.dtype.hasobject:
                raise TypeError(f"arrays of dtype {x.dtype} cannot be graded")
            a = _ascont(x)
            return {"A": [a.dtype.str, [int(n) for n in a.shape], _b64e(a.tobytes()).decode("ascii")]}
        raise TypeError(
            f"a value of type {t.__name__} cannot be graded (return numbers, lists, tuples or NumPy arrays)"
        )

    def size(x, depth=0):
        """An upper bound of the value's JSON size (without building it)."""
        t = _type(x)
        if t is str:
            return 6 * _len(x) + 8
        if t is _ndarray:
            return 2 * x.nbytes + 64
        if t in (list, tuple) and depth < 20:
            return 8 + sum(size(v, depth + 1) for v in x)
        if t is dict and depth < 20:
            return 8 + sum(size(k, depth + 1) + size(v, depth + 1) for k, v in x.items())
        return 32

    def dec(x):
        t = _type(x)
        if t is not dict:
            return x
        ((tag, v),) = x.items()
        if tag == "S":
            return v
        if tag == "L":
            return [dec(e) for e in v]
        if tag == "T":
            return tuple(dec(e) for e in v)
        if tag == "D":
            return {dec(k): dec(e) for k, e in v}
        if tag == "A":
            return _frombuffer(_b64d(v[2]), dtype=_dtype(v[0])).reshape(v[1]).copy()
        if tag == "F":
            ns = {"np": np}
            exec(v[1], ns)
            return ns[v[0]]
        raise ValueError(f"unknown tag {tag}")

    return enc, size, dec
