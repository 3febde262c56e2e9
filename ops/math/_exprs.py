"""The C side of the math kernels: each dtype's storage and compute types,
loading and storing an element (bfloat16 by its bits), and each op's
expression on the compute type.

Note [bfloat16 in the kernels]: C has no portable bfloat16, so an element
is stored as its 16 bits (``uint16_t``) and computed in float: loading
shifts the bits into the top of a float (exact), storing rounds the float
to nearest even once (NaN stays NaN, keeping its sign). A wider value
(double, int32, int64) is rounded to float "to odd" first (toward zero,
the last bit set when inexact), which makes the two roundings one, as
``ml_dtypes`` rounds a double or an int64 directly. float16 works the same
way with gcc's ``_Float16`` doing the rounding. numpy's answer through
``ml_dtypes`` is the same: float32 arithmetic rounded to bfloat16.

Note [Integer Pow]: numpy raises for an integer to a negative integer
power and TensorFlow's kernel fails; a kernel cannot raise, and GE's own
Pow header calls the case undefined, "consistent with PyTorch". We give
PyTorch's answer, the integer part of 1 / x**n: 1 for x = 1, +-1 for
x = -1 (by the parity of n), and 0 for every other x, 0 included. A
non-negative power is computed by repeated squaring in the unsigned type
of the width, so it wraps on overflow as numpy's does.
"""

from __future__ import annotations

import math

from ge.graph import DataType

# DataType -> (storage C type, compute C type, unsigned C type or None, kind)
C_TYPES: dict[DataType, tuple[str, str, str | None, str]] = {
    DataType.DT_BOOL: ("uint8_t", "uint32_t", "uint32_t", "b"),
    DataType.DT_FLOAT16: ("_Float16", "float", None, "f"),
    DataType.DT_BF16: ("uint16_t", "float", None, "f"),
    DataType.DT_FLOAT: ("float", "float", None, "f"),
    DataType.DT_DOUBLE: ("double", "double", None, "f"),
    DataType.DT_INT8: ("int8_t", "int32_t", "uint32_t", "i"),
    DataType.DT_INT16: ("int16_t", "int32_t", "uint32_t", "i"),
    DataType.DT_INT32: ("int32_t", "int32_t", "uint32_t", "i"),
    DataType.DT_INT64: ("int64_t", "int64_t", "uint64_t", "i"),
    DataType.DT_UINT8: ("uint8_t", "uint32_t", "uint32_t", "u"),
    DataType.DT_UINT16: ("uint16_t", "uint32_t", "uint32_t", "u"),
}
_INT_MIN = {
    DataType.DT_INT8: "INT8_MIN",
    DataType.DT_INT16: "INT16_MIN",
    DataType.DT_INT32: "INT32_MIN",
    DataType.DT_INT64: "INT64_MIN",
}

# Helpers every kernel source carries (Note [bfloat16 in the kernels]).
HELPERS = """static inline float ge_bf16_load(uint16_t v) {
  union { uint32_t u; float f; } x;
  x.u = (uint32_t)v << 16;
  return x.f;
}
static inline uint16_t ge_bf16_store(float f) {
  union { uint32_t u; float f; } x;
  x.f = f;
  if (f != f) return (uint16_t)((x.u >> 16) | 0x40u);
  return (uint16_t)((x.u + 0x7fffu + ((x.u >> 16) & 1u)) >> 16);
}
static inline uint16_t ge_bf16_store_wide(long double d) {
  union { uint32_t u; float f; } x;
  x.f = (float)d;
  if ((long double)x.f != d && x.f - x.f == 0) {
    if (fabsl((long double)x.f) > fabsl(d)) x.u -= 1;
    x.u |= 1u;
  }
  return ge_bf16_store(x.f);
}
"""

# Integer x ** n (Note [Integer Pow]); C is the compute type, U unsigned.
INT_POW = """static inline C ge_ipow(C a, C b) {
  if (b < 0) return a == 1 ? (C)1 : a == -1 ? ((b & 1) ? (C)-1 : (C)1) : (C)0;
  U r = 1, base = (U)a;
  for (U e = (U)b; e; e >>= 1) {
    if (e & 1u) r *= base;
    base *= base;
  }
  return (C)r;
}
"""


def load(dtype: DataType, value: str) -> str:
    """C: an element ``value`` of ``dtype`` as its compute type."""
    _, ctype, _, _ = C_TYPES[dtype]
    if dtype is DataType.DT_BF16:
        return f"ge_bf16_load({value})"
    return f"({ctype})({value})"


def store(dtype: DataType, value: str, wide: bool = False) -> str:
    """C: ``value`` (a number) rounded or wrapped into ``dtype``'s storage;
    ``wide`` when it may not be a float (Note [bfloat16 in the kernels])."""
    storage, _, _, _ = C_TYPES[dtype]
    if dtype is DataType.DT_BF16:
        if wide:
            return f"ge_bf16_store_wide((long double)({value}))"
        return f"ge_bf16_store((float)({value}))"
    if dtype is DataType.DT_BOOL:
        return f"({storage})(({value}) != 0)"
    return f"({storage})({value})"


def convert(src: DataType, dst: DataType, value: str) -> str:
    """C: an element of ``src`` as ``dst``'s compute type, passing through
    ``dst``'s storage (GE's promotion casts the input to the promoted type)."""
    if src is dst:
        return load(dst, value)
    wide = C_TYPES[src][1] != "float"
    return load(dst, store(dst, load(src, value), wide))


def _div(dtype: DataType, kind: str) -> str:
    if kind == "f":
        return "a / b"
    if kind == "u":
        return "b == 0 ? 0 : a / b"
    low = _INT_MIN[dtype]
    return f"b == 0 ? 0 : ((a == {low} && b == -1) ? a : a / b)"


def binary_expr(op: str, dtype: DataType) -> str:
    """The C expression of ``op`` on ``a`` and ``b`` (compute type C)."""
    _, ctype, _, kind = C_TYPES[dtype]
    wrap = {"add": "+", "sub": "-", "mul": "*"}
    if kind == "b":  # numpy's bool arithmetic: + is or, * is and
        if op in ("add", "mul"):
            return "a | b" if op == "add" else "a & b"
        raise ValueError(f"no bool {op}")
    if op in wrap:
        sym = wrap[op]
        return f"a {sym} b" if kind == "f" else f"(C)((U)a {sym} (U)b)"
    if op == "div":
        return _div(dtype, kind)
    if op == "maximum":
        return "(a != a || a > b) ? a : b" if kind == "f" else "a > b ? a : b"
    if op == "minimum":
        return "(a != a || a < b) ? a : b" if kind == "f" else "a < b ? a : b"
    if op == "pow":
        if kind == "f":
            return f"pow{'f' if ctype == 'float' else ''}(a, b)"
        return "ge_ipow(a, b)"
    raise ValueError(f"unknown binary op {op}")


def _f(value: float) -> str:
    """A C double literal, inf and NaN included."""
    if math.isnan(value):
        return '__builtin_nan("")'
    if math.isinf(value):
        return "__builtin_inf()" if value > 0 else "(-__builtin_inf())"
    return repr(float(value))


def _exp_log(op: str, sfx: str, attrs: dict[str, float]) -> str:
    base, scale, shift = attrs["base"], attrs["scale"], attrs["shift"]
    arg = (
        "a"
        if (scale, shift) == (1.0, 0.0)
        else f"(C)({_f(scale)}) * a + (C)({_f(shift)})"
    )
    if op == "exp":
        if base == -1.0:
            return f"exp{sfx}({arg})"
        return f"exp{sfx}((C)log({_f(base)}) * ({arg}))"
    if base == -1.0:
        return f"log{sfx}({arg})"
    return f"log{sfx}({arg}) / (C)log({_f(base)})"


def unary_expr(op: str, dtype: DataType, attrs: dict[str, float]) -> str:
    """The C expression of ``op`` on ``a`` (compute type C)."""
    _, ctype, _, kind = C_TYPES[dtype]
    sfx = "f" if ctype == "float" else ""
    simple = {
        "sqrt": f"sqrt{sfx}(a)",
        "rsqrt": f"(C)1 / sqrt{sfx}(a)",
        "sigmoid": f"(C)1 / ((C)1 + exp{sfx}(-a))",
        "tanh": f"tanh{sfx}(a)",
    }
    if op in simple:
        return simple[op]
    if op == "neg":
        return "-a" if kind == "f" else "(C)(0 - (U)a)"
    if op == "abs":
        return f"fabs{sfx}(a)" if kind == "f" else "a < 0 ? (C)(0 - (U)a) : a"
    if op == "relu":
        return "(a > 0 || a != a) ? a : 0" if kind == "f" else "a > 0 ? a : 0"
    if op in ("exp", "log"):
        return _exp_log(op, sfx, attrs)
    raise ValueError(f"unknown unary op {op}")
