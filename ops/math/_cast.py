"""The Cast kernel: one per source dtype, destination dtype and size, with
the conversion rule of specs/math_cast.yaml written as a C expression."""

from __future__ import annotations

from ge.graph import DataType

from ._exprs import HELPERS

# DataType -> (C storage type, kind, min, max); kind b(ool), f(loat), i, u
CAST_TYPES: dict[DataType, tuple[str, str, int, int]] = {
    DataType.DT_BOOL: ("uint8_t", "b", 0, 1),
    DataType.DT_FLOAT16: ("_Float16", "f", 0, 0),
    DataType.DT_BF16: ("uint16_t", "f", 0, 0),
    DataType.DT_FLOAT: ("float", "f", 0, 0),
    DataType.DT_DOUBLE: ("double", "f", 0, 0),
    DataType.DT_INT8: ("int8_t", "i", -(2**7), 2**7 - 1),
    DataType.DT_INT16: ("int16_t", "i", -(2**15), 2**15 - 1),
    DataType.DT_INT32: ("int32_t", "i", -(2**31), 2**31 - 1),
    DataType.DT_INT64: ("int64_t", "i", -(2**63), 2**63 - 1),
    DataType.DT_UINT8: ("uint8_t", "u", 0, 2**8 - 1),
    DataType.DT_UINT16: ("uint16_t", "u", 0, 2**16 - 1),
    DataType.DT_UINT32: ("uint32_t", "u", 0, 2**32 - 1),
    DataType.DT_UINT64: ("uint64_t", "u", 0, 2**64 - 1),
}


def _int_literal(value: int, ctype: str) -> str:
    if value == -(2**63):
        return "INT64_MIN"
    return f"({ctype})({value}{'ULL' if value >= 2**63 else 'LL'})"


def cast_expr(src: DataType, dst: DataType) -> str:
    """The C expression converting ``a`` (type S) to type D; bfloat16 by
    its bits (Note [bfloat16 in the kernels] in _exprs.py)."""
    _, skind, _, _ = CAST_TYPES[src]
    dtype, dkind, low, high = CAST_TYPES[dst]
    a = "ge_bf16_load(a)" if src is DataType.DT_BF16 else "a"
    if dkind == "b" or skind == "b":
        value = f"({a} != 0)"
        if dst is DataType.DT_BF16:
            return f"ge_bf16_store((float){value})"
        return f"(D){value}"
    if dst is DataType.DT_BF16:
        if src in (DataType.DT_FLOAT16, DataType.DT_FLOAT, DataType.DT_BF16):
            return f"ge_bf16_store((float){a})"
        return f"ge_bf16_store_wide((long double){a})"
    if skind == "f" and dkind in "iu":
        # NaN -> 0; out of range (infinities included) saturates; else truncate
        below = f"{float(low - 1)!r}" if low > -(2**63) else f"{float(low)!r}"
        above = f"{float(high + 1)!r}"
        return (
            f"(double){a} != (double){a} ? (D)0 : (double){a} <= {below} ? "
            f"{_int_literal(low, dtype)} : (double){a} >= {above} ? "
            f"{_int_literal(high, dtype)} : (D){a}"
        )
    return f"(D){a}"


def cast_source(kernel: str, src: DataType, dst: DataType, n: int) -> str:
    s, _, _, _ = CAST_TYPES[src]
    d, _, _, _ = CAST_TYPES[dst]
    return f"""#include "ge_kernel.h"
#include <math.h>
#include <stdint.h>
typedef {s} S;
typedef {d} D;
{HELPERS}
static inline D ge_cast(S a) {{ return {cast_expr(src, dst)}; }}

GE_KERNEL({kernel}, GE_IN(S, GE_ELEMS({n})), GE_OUT(D, GE_ELEMS({n}))) {{
  const S *x = GE_PTR(const S, 0);
  D *y = GE_PTR(D, 1);
  uint64_t begin, end;
  ge_block_range(block_idx, block_dim, {n}u, &begin, &end);
  for (uint64_t i = begin; i < end; ++i) y[i] = ge_cast(x[i]);
}}
"""
