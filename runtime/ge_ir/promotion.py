"""Type promotion: the dtype of a type variable declared
``DATATYPE(T3, Promote({"T1", "T2"}))``, from the dtypes bound to T1 and T2.

Note [Type promotion]: GE promotes the listed type variables pairwise, left
to right, through one table (``opcommon::PromoteType``; docs/ge-compat.md,
"Type promotion"). The table is the usual arithmetic lattice: bool below the
integers, the integers below the floating types, those below the complex
ones; a signed and an unsigned integer meet in a signed type wide enough for
both (uint8 and int8 give int16), float16 and bfloat16 meet in float32, and
an integer with a floating type gives the floating type (int64 and float16
give float16). uint16, uint32 and uint64 meet only themselves and the
complex types. Every other pair has no promoted dtype, and neither has a
pair that involves a dtype outside the table unless both are the same dtype.

``PROMOTION`` below is the table, the one place both the generated builders
(``ge.es._op_api``) and the generated infer_meta bodies
(``ge.custom_op.infer.promote``) read, as do the dtype rules a graph is
compiled against (``ge_ir.dtype_rules``). It is GE's, with two differences
docs/ge-compat.md lists: it is symmetric (GE answers a few unsigned/complex
pairs in one order only), and a dtype GE's lookup has no row for promotes
with nothing but itself (GE's reads past its rows there).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from ge_ir.types import DataType

__all__ = ["PROMOTION", "PROMOTED_DTYPES", "promote_pair", "promote"]

# The dtypes the table covers, by the short names of its rows and columns.
_SHORT = {
    "b1": DataType.DT_BOOL,
    "u1": DataType.DT_UINT8,
    "i1": DataType.DT_INT8,
    "i2": DataType.DT_INT16,
    "i4": DataType.DT_INT32,
    "i8": DataType.DT_INT64,
    "u2": DataType.DT_UINT16,
    "u4": DataType.DT_UINT32,
    "u8": DataType.DT_UINT64,
    "f2": DataType.DT_FLOAT16,
    "bf": DataType.DT_BF16,
    "f4": DataType.DT_FLOAT,
    "f8": DataType.DT_DOUBLE,
    "c2": DataType.DT_COMPLEX32,
    "c4": DataType.DT_COMPLEX64,
    "c8": DataType.DT_COMPLEX128,
}

# Row promoted with column; "--": no promoted dtype. Symmetric.
_TABLE = """
     b1 u1 i1 i2 i4 i8 u2 u4 u8 f2 bf f4 f8 c2 c4 c8
b1   b1 u1 i1 i2 i4 i8 -- -- -- f2 bf f4 f8 c2 c4 c8
u1   u1 u1 i2 i2 i4 i8 -- -- -- f2 bf f4 f8 c2 c4 c8
i1   i1 i2 i1 i2 i4 i8 -- -- -- f2 bf f4 f8 c2 c4 c8
i2   i2 i2 i2 i2 i4 i8 -- -- -- f2 bf f4 f8 c2 c4 c8
i4   i4 i4 i4 i4 i4 i8 -- -- -- f2 bf f4 f8 c2 c4 c8
i8   i8 i8 i8 i8 i8 i8 -- -- -- f2 bf f4 f8 c2 c4 c8
u2   -- -- -- -- -- -- u2 -- -- -- -- -- -- -- c4 c8
u4   -- -- -- -- -- -- -- u4 -- -- -- -- -- -- c4 c8
u8   -- -- -- -- -- -- -- -- u8 -- -- -- -- -- c8 c8
f2   f2 f2 f2 f2 f2 f2 -- -- -- f2 f4 f4 f8 c2 c4 c8
bf   bf bf bf bf bf bf -- -- -- f4 bf f4 f8 c4 c4 c8
f4   f4 f4 f4 f4 f4 f4 -- -- -- f4 f4 f4 f8 c4 c4 c8
f8   f8 f8 f8 f8 f8 f8 -- -- -- f8 f8 f8 f8 c8 c8 c8
c2   c2 c2 c2 c2 c2 c2 -- -- -- c2 c4 c4 c8 c2 c4 c8
c4   c4 c4 c4 c4 c4 c4 c4 c4 c8 c4 c4 c4 c8 c4 c4 c8
c8   c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8
"""


def _parse(text: str) -> Mapping[tuple[DataType, DataType], DataType]:
    header, *rows = (line.split() for line in text.strip().splitlines())
    table: dict[tuple[DataType, DataType], DataType] = {}
    for row in rows:
        left, cells = _SHORT[row[0]], row[1:]
        for column, cell in zip(header, cells, strict=True):
            if cell != "--":
                table[(left, _SHORT[column])] = _SHORT[cell]
    return MappingProxyType(table)


# (a, b) -> the promoted dtype, for every pair that has one.
PROMOTION = _parse(_TABLE)
# The dtypes the table has rows for.
PROMOTED_DTYPES = frozenset(_SHORT.values())


def promote_pair(a: DataType, b: DataType) -> DataType | None:
    """``a`` promoted with ``b``, or None when the pair has no promoted
    dtype (Note [Type promotion])."""
    if a is b:
        return a
    return PROMOTION.get((a, b))


def promote(dtypes: Iterable[DataType]) -> DataType | None:
    """The dtypes promoted left to right, as GE folds Promote's list; None
    when a step has no promoted dtype (or there are none)."""
    result: DataType | None = None
    for index, dtype in enumerate(dtypes):
        if index == 0:
            result = dtype
        elif result is None:
            return None
        else:
            result = promote_pair(result, dtype)
    return result
