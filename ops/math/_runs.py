"""Which dtypes the CPU device runs, op by op.

Note [Declared and run dtypes]: the specs declare GE's own dtype sets
(REG_OP, the builders and the prototypes say what GE says: complex types,
string, qint8 included), so a graph written for GE builds here unchanged.
The kernels compute fewer: RUNS is what they compute, and ``require``, called
by every op's ``compile`` (the kernel builders', and the numpy ops' in
ops/math/_host.py, which check their outputs too), refuses any other dtype
with an error naming the op, the input and the dtype; the compiler adds the
node, so a graph is refused when it is compiled, before anything runs. docs/math-ops.md lists both sets;
tests/runtime/test_builtin_ops.py checks RUNS against the specs (each a
subset of what is declared) and that a declared, not run dtype is refused.
"""

from __future__ import annotations

from ge.graph import DataType
from ge.runtime import Tensor

_FLOATS = ("float16", "bfloat16", "float32", "float64")
_ARITH = (
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
)
_CAST = (*_FLOATS, "bool", "int8", "int16", "int32", "int64")
_CAST += ("uint8", "uint16", "uint32", "uint64")
# The data-movement ops copy any dtype numpy holds.
_MOVE = (*_CAST, "complex64", "complex128")

RUNS: dict[str, frozenset[str]] = {
    op: frozenset(names)
    for op, names in {
        "Add": (*_ARITH[:-1], "bfloat16", "bool"),
        "Sub": _ARITH,
        "Mul": _ARITH,
        "RealDiv": _ARITH,
        "Div": _ARITH,
        "Maximum": (*_FLOATS, "int8", "int32", "int64", "uint8"),
        "Minimum": (*_FLOATS, "int8", "int32", "int64", "uint8"),
        "Pow": (*_FLOATS, "int8", "int16", "int32", "int64", "uint8"),
        "Neg": (*_FLOATS, "int8", "int32", "int64"),
        "Abs": ("float16", "float32", "float64", "int8", "int16", "int32", "int64"),
        "Relu": (*_ARITH, "bfloat16"),
        "Sqrt": _FLOATS,
        "Rsqrt": _FLOATS,
        "Sigmoid": _FLOATS,
        "Tanh": _FLOATS,
        "Exp": _FLOATS,
        "Log": _FLOATS,
        "MatMul": ("float16", "float32", "int32"),
        "Cast": _CAST,
        # numpy inside execute (ops/math/_host.py): every dtype numpy holds
        "Identity": _MOVE,
        "TensorMove": tuple(m for m in _MOVE if m not in ("complex128",)),
        "Split": _MOVE,
        "Concat": _MOVE,
        "ConcatV2": _MOVE,
        "Transpose": _MOVE,
        "Conv2D": ("float16", "bfloat16", "float32"),
        "GEMM": ("float16", "float32", "int32"),
        "BatchMatMulV2": ("float16", "bfloat16", "float32", "int32"),
    }.items()
}


def runs(op_type: str, data_type: DataType) -> bool:
    """Whether the CPU device computes ``op_type`` for ``data_type``."""
    try:
        return DataType(data_type).spec_name in RUNS[op_type]
    except (KeyError, ValueError):
        return False


def require(op_type: str, **slots: Tensor | None) -> None:
    """TypeError naming the first input whose dtype ``op_type`` does not run
    on the CPU device (Note [Declared and run dtypes])."""
    _refuse(op_type, "input", slots)


def require_outputs(op_type: str, **slots: Tensor | None) -> None:
    """``require`` for outputs: an output's dtype may be one of its own (GE
    declares Conv2D's and BatchMatMulV2's y with a set of its own)."""
    _refuse(op_type, "output", slots)


def _refuse(op_type: str, kind: str, slots: dict[str, Tensor | None]) -> None:
    for name, tensor in slots.items():
        if tensor is None or runs(op_type, tensor.data_type):
            continue
        dtype = DataType(tensor.data_type).spec_name
        ran = ", ".join(sorted(RUNS[op_type]))
        raise TypeError(
            f"{op_type}: {kind} {name} is {dtype}, which GE declares for "
            f"{op_type} but the CPU device cannot run yet; it runs {op_type} for "
            f"{ran} (docs/math-ops.md)"
        )
