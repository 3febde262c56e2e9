"""Fused element-wise kernels: a region of the library's element-wise ops
(docs/compiler.md, "Element-wise fusion") as one C kernel making one pass
over memory.

Note [Fused kernels give the unfused bits]: each node of a region computes
exactly what its own kernel computes, element by element, with the same C
text: its inputs converted from their storage type to its compute type
(``convert``, as the binary kernels read memory), the op's expression
(``binary_expr``, ``unary_expr``, ``cast_expr``) in the same function body,
and the result rounded or wrapped into its storage type (``store``) before
any consumer reads it, as writing it to memory would. Nothing is
reassociated (no -ffast-math) and the kernel is built with
``-ffp-contract=off``, so no multiply and add are contracted into an FMA
across nodes; the unfused kernels are built without it but for the baseline
x86-64 ISA (no -march), which has no FMA, so they contract nothing either.
A region's intermediates that nothing outside reads live in registers.

The walk is the broadcast plan of ``_elementwise`` over k inputs: size-1
dims of the output dropped, neighbours merged while every input stays
contiguous across them, rows of the innermost dim split into chunks so a
large flat tensor still spreads over the worker pool's blocks.
"""

from __future__ import annotations

import math

from ge.engine.passes.spec import FusedKernelSpec
from ge.graph import DataType

from ._cast import CAST_TYPES, cast_expr
from ._custom_expr import expression_function
from ._exprs import C_TYPES, HELPERS, INT_POW, binary_expr, convert, store, unary_expr

__all__ = ["BINARY", "EXPRESSION_DTYPES", "UNARY", "fused_source", "plan"]

BINARY = {
    "Add": "add",
    "Sub": "sub",
    "Mul": "mul",
    "RealDiv": "div",
    "Div": "div",
    "Maximum": "maximum",
    "Minimum": "minimum",
    "Pow": "pow",
}
UNARY = {
    "Neg": "neg",
    "Abs": "abs",
    "Relu": "relu",
    "Sqrt": "sqrt",
    "Rsqrt": "rsqrt",
    "Sigmoid": "sigmoid",
    "Tanh": "tanh",
    "Exp": "exp",
    "Log": "log",
}
# The dtypes a custom op's element-wise expression computes in
# (Note [Element-wise expressions] in ge_ir.elementwise).
EXPRESSION_DTYPES = frozenset(
    {DataType.DT_FLOAT16, DataType.DT_BF16, DataType.DT_FLOAT, DataType.DT_DOUBLE}
)
CHUNK = 16384  # elements of a row per unit of work
MAX_BLOCKS = 64


def plan(
    shapes: list[tuple[int, ...]], out: tuple[int, ...]
) -> list[tuple[int, list[int]]]:
    """(dim, stride of each input) per dim of ``out``, outermost first, size-1
    dims dropped and contiguous neighbours merged; at least one dim."""
    rank = len(out)

    def strides(shape: tuple[int, ...]) -> list[int]:
        padded = (1,) * (rank - len(shape)) + tuple(shape)
        result, step = [0] * rank, 1
        for i in range(rank - 1, -1, -1):
            result[i] = 0 if padded[i] == 1 else step
            step *= padded[i]
        return result

    per_input = [strides(s) for s in shapes]
    merged: list[tuple[int, list[int]]] = []
    for i in range(rank):
        if out[i] == 1:
            continue
        d, st = out[i], [s[i] for s in per_input]
        if merged:
            pd, pst = merged[-1]
            if all(p == x * d for p, x in zip(pst, st)):
                merged[-1] = (pd * d, st)
                continue
        merged.append((d, st))
    return merged or [(1, [0] * len(shapes))]


def _storage(dtype: DataType) -> str:
    if dtype in C_TYPES:
        return C_TYPES[dtype][0]
    return CAST_TYPES[dtype][0]


def _op_function(index: int, op_type: str, dtype: DataType, attrs: dict) -> str:
    """``ge_op_<index>``: the node's expression on its compute type, with
    the type names its own kernel's header gives (C, U, T)."""
    t, c, u, kind = C_TYPES[dtype]
    lines = [f"#define T {t}", f"#define C {c}", f"#define U {u or 'uint64_t'}"]
    if op_type in BINARY:
        op = BINARY[op_type]
        if op == "pow" and kind != "f":
            lines += [f"#define ge_ipow ge_ipow_{index}", INT_POW.rstrip()]
        body = binary_expr(op, dtype)
        lines.append(
            f"static inline C ge_op_{index}(C a, C b) {{ return (C)({body}); }}"
        )
        if op == "pow" and kind != "f":
            lines.append("#undef ge_ipow")
    else:
        body = unary_expr(UNARY[op_type], dtype, attrs)
        lines.append(f"static inline C ge_op_{index}(C a) {{ return (C)({body}); }}")
    lines += ["#undef T", "#undef C", "#undef U"]
    return "\n".join(lines) + "\n"


def _cast_function(index: int, src: DataType, dst: DataType) -> str:
    s, d = _storage(src), _storage(dst)
    return (
        f"#define S {s}\n#define D {d}\n"
        f"static inline D ge_op_{index}(S a) {{ return {cast_expr(src, dst)}; }}\n"
        "#undef S\n#undef D\n"
    )


def _literal(k: int, dtype: DataType, value: bytes) -> str:
    """A file-scope constant holding ``value``'s bits as ``dtype``'s storage
    (read through a union: the load's bits, NaN payloads included)."""
    t = _storage(dtype)
    data = ", ".join(f"0x{b:02x}" for b in value)
    return (
        f"static const union {{ uint8_t b[{len(value)}]; {t} v; }} "
        f"ge_c{k} = {{{{{data}}}}};\n"
    )


def fused_source(kernel: str, spec: FusedKernelSpec) -> tuple[str, int, int]:
    """(C source, units of work, blocks) of the region ``spec``."""
    memory = [k for k, i in enumerate(spec.inputs) if i.value is None]
    arg = {k: a for a, k in enumerate(memory)}  # input -> its argument slot
    walk_plan = plan([spec.inputs[k].shape for k in memory], spec.shape)
    inner, inner_strides = walk_plan[-1]
    outer = walk_plan[:-1]
    rows = math.prod(d for d, _ in outer)
    per_row = max(1, -(-inner // CHUNK))
    per_chunk = -(-inner // per_row)
    chunk = -(-per_chunk // 64) * 64  # whole cache lines
    per_row = max(1, -(-inner // chunk))
    units = rows * per_row
    n = math.prod(spec.shape)
    functions: list[str] = []
    body: list[str] = []
    hoisted: list[str] = []  # an input constant along the row: read once
    literals: list[str] = []  # one-element constants, written in
    for k, inp in enumerate(spec.inputs):
        storage = _storage(inp.dtype)
        if inp.value is not None:
            functions.append(_literal(k, inp.dtype, inp.value))
            literals.append(f"  const {storage} x{k} = ge_c{k}.v;\n")
        elif inner_strides[arg[k]] == 0:
            hoisted.append(f"    const {storage} x{k} = p{k}[0];\n")
        else:
            body.append(f"      const {storage} x{k} = p{k}[j];")
    value_dtype: dict[str, DataType] = {
        f"x{k}": inp.dtype for k, inp in enumerate(spec.inputs)
    }
    for j, node in enumerate(spec.nodes):
        refs = [f"x{i}" if kind == "in" else f"v{i}" for kind, i in node.args]
        attrs = dict(node.attrs)
        if node.op_type == "Cast":
            src = value_dtype[refs[0]]
            functions.append(_cast_function(j, src, node.dtype))
            expr = f"ge_op_{j}({refs[0]})"
        elif node.expr is not None:  # a custom op's elementwise expression
            functions.append(
                expression_function(
                    j, node.expr, node.dtype, node.inputs, dict(node.attrs)
                )
            )
            args = ", ".join(convert(value_dtype[r], node.dtype, r) for r in refs)
            expr = store(node.dtype, f"ge_op_{j}({args})")
        else:
            functions.append(_op_function(j, node.op_type, node.dtype, attrs))
            args = ", ".join(convert(value_dtype[r], node.dtype, r) for r in refs)
            expr = store(node.dtype, f"ge_op_{j}({args})")
        body.append(f"      const {_storage(node.dtype)} v{j} = {expr};")
        value_dtype[f"v{j}"] = node.dtype
    for k, j in enumerate(spec.outputs):
        body.append(f"      q{k}[j] = v{j};")
    read = {i for node in spec.nodes for kind, i in node.args if kind == "node"}
    body += [  # a value nothing reads (a dead node's): computed, as unfused
        f"      (void)v{j};"
        for j in range(len(spec.nodes))
        if j not in read and j not in spec.outputs
    ]
    decls = [
        f"GE_IN({_storage(spec.inputs[k].dtype)}, "
        f"GE_ELEMS({math.prod(spec.inputs[k].shape)}))"
        for k in memory
    ] + [
        f"GE_OUT({_storage(spec.nodes[j].dtype)}, GE_ELEMS({n}))" for j in spec.outputs
    ]
    pointers = [
        f"  const {_storage(spec.inputs[k].dtype)} *restrict a{k} = "
        f"GE_IN_PTR({_storage(spec.inputs[k].dtype)}, {arg[k]});"
        for k in memory
    ] + [
        f"  {_storage(spec.nodes[j].dtype)} *restrict y{k} = "
        f"GE_OUT_PTR({_storage(spec.nodes[j].dtype)}, {len(memory) + k});"
        for k, j in enumerate(spec.outputs)
    ]
    offsets = "".join(f", o{k} = 0" for k in memory)
    walk = "".join(
        "    { uint64_t i = rem % "
        + f"{d}u; rem /= {d}u;"
        + "".join(f" o{k} += i * {strides[arg[k]]}u;" for k in memory)
        + " }\n"
        for d, strides in reversed(outer)
    )
    row_ptrs = "".join(
        f"    const {_storage(spec.inputs[k].dtype)} *restrict p{k} = a{k} + o{k};\n"
        for k in memory
    ) + "".join(
        f"    {_storage(spec.nodes[j].dtype)} *restrict q{k} = y{k} + r * {inner}u;\n"
        for k, j in enumerate(spec.outputs)
    )
    source = (
        '#include "ge_kernel.h"\n#include <math.h>\n#include <stdint.h>\n'
        + HELPERS
        + "".join(functions)
        + f"\nGE_KERNEL({kernel}, {', '.join(decls)}) {{\n"
        + "\n".join(pointers)
        + "\n"
        + "".join(literals)
        + "  uint64_t begin, end;\n"
        + f"  ge_block_range(block_idx, block_dim, {units}u, &begin, &end);\n"
        + "  for (uint64_t u = begin; u < end; ++u) {\n"
        + f"    uint64_t r = u / {per_row}u, c = u % {per_row}u;\n"
        + f"    uint64_t rem = r{offsets};\n"
        + walk
        + "    (void)rem;\n"
        + row_ptrs
        + "".join(hoisted)
        + f"    uint64_t j0 = c * {chunk}u;\n"
        + f"    uint64_t j1 = j0 + {chunk}u < {inner}u ? j0 + {chunk}u : {inner}u;\n"
        + "    for (uint64_t j = j0; j < j1; ++j) {\n"
        + "\n".join(body)
        + "\n    }\n  }\n}\n"
    )
    blocks = max(1, min(MAX_BLOCKS, units))
    return source, units, blocks
