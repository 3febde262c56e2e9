"""The Python names of generated code: keywords, GE's renaming, clashes.

Note [Keyword renaming]: GE's gen_esb renames a name that is a keyword of the
target language by prefixing its role: inputs ``in_``, outputs ``out_`` (or
``ref_`` when named like an input), attrs ``attr_``, subgraphs ``subgraph_``
(docs/ge-compat.md, "Names"). gen-ops applies the same prefixes in one namer
(``python_names``) that also resolves every other clash in a builder's
signature, so the Python API stays GE-compatible and never breaks;
``impl_names`` does the same for the prototype and the implementation
methods, where attrs keep their names.
"""

from __future__ import annotations

import keyword
from collections.abc import Iterable
from dataclasses import dataclass

from gen_ops.spec.model import InputKind, OpSpec, Output

PYTHON_KEYWORDS = frozenset(keyword.kwlist)

# C++20 keywords and alternative tokens, plus the TM TS words GE also avoids.
CPP_KEYWORDS = frozenset("""
    alignas alignof and and_eq asm atomic_cancel atomic_commit atomic_noexcept
    auto bitand bitor bool break case catch char char8_t char16_t char32_t class
    compl concept const consteval constexpr constinit const_cast continue
    co_await co_return co_yield decltype default delete do double dynamic_cast
    else enum explicit export extern false float for friend goto if inline int
    long mutable namespace new noexcept not not_eq nullptr operator or or_eq
    private protected public reflexpr register reinterpret_cast requires return
    short signed sizeof static static_assert static_cast struct switch
    synchronized template this thread_local throw true try typedef typeid
    typename union unsigned using virtual void volatile wchar_t while xor xor_eq
    """.split())

# GE's role prefixes (Note [Keyword renaming]).
ROLE_PREFIX = {
    "input": "in_",
    "output": "out_",
    "ref_output": "ref_",
    "attr": "attr_",
    "graph": "subgraph_",
}

# GE's builder parameter (docs/ge-compat.md, "Builder calling convention"):
# gen_esb gives an op without inputs ``owner_graph_builder`` and an op whose
# inputs are all optional ``owner_builder``; keyword callers pass those names.
OWNER_GRAPH_BUILDER = "owner_graph_builder"
OWNER_BUILDER = "owner_builder"
# The node-name keyword, gen-ops' own addition: ``name``, unless a parameter
# of the op's takes that name, then the first free one of ``node_name``,
# ``node_name_2``, ... (Note [Keyword renaming]: GE's names keep their place,
# ours yield).
NODE_NAME = "name"
NODE_NAME_FALLBACK = "node_name"
# Names the builder function's body reads besides its parameters: the op
# table (and the result class, added per op).
_BUILDER_BODY_NAMES = frozenset({"_OP"})
# Attributes of tuple that a NamedTuple field must not shadow.
_TUPLE_ATTRS = frozenset({"count", "index"})


def builder_param(op: OpSpec) -> str | None:
    """GE's builder parameter of ``op``'s builder, if it takes one: for ops
    without inputs, or with only optional ones (no input may be a
    TensorHolder)."""
    if not op.inputs:
        return OWNER_GRAPH_BUILDER
    if all(i.kind is InputKind.OPTIONAL for i in op.inputs):
        return OWNER_BUILDER
    return None


def result_class(op: OpSpec) -> str | None:
    """``<Op>Output``, the result tuple of an op with several outputs."""
    return f"{op.op_type}Output" if len(op.outputs) > 1 else None


@dataclass(frozen=True)
class Rename:
    """A Python name that differs from the IR name, and why."""

    role: str
    ir_name: str
    py_name: str
    reason: str  # "keyword" or "clash"


@dataclass(frozen=True)
class PythonNames:
    """Every Python identifier one op's builder uses for its IR names.

    ``params`` maps (role, IR name) to the parameter name, for roles input,
    num (a dynamic output's count parameter), graph and attr. ``fields`` maps
    output names to result fields. ``owner`` is GE's builder parameter (None
    when the op takes none), ``node_name`` the node-name keyword, and
    ``node_name_taken`` the (role, IR name) of the parameter that took
    ``name`` from it, if one did.
    """

    params: dict[tuple[str, str], str]
    fields: dict[str, str]
    renames: tuple[Rename, ...]
    owner: str | None = None
    node_name: str = NODE_NAME
    node_name_taken: tuple[str, str] | None = None


def _field_name(output: Output) -> tuple[str, str | None]:
    if output.ref_input is not None:
        return ROLE_PREFIX["ref_output"] + output.name, "clash"
    if output.name in PYTHON_KEYWORDS:
        return ROLE_PREFIX["output"] + output.name, "keyword"
    if output.name in _TUPLE_ATTRS:
        return ROLE_PREFIX["output"] + output.name, "clash"
    return output.name, None


def _free(base: str, taken: set[str]) -> str:
    """``base``, or ``base_2``, ``base_3``, ... whichever is free first."""
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    return name


def python_names(op: OpSpec) -> PythonNames:
    """Assign the builder's Python names in signature order (Note [Keyword
    renaming]); a name that would clash gets its role prefix, then a number.
    GE's builder parameter and the names the body reads are taken first;
    the node-name keyword, ours, is named last and yields."""
    owner = builder_param(op)
    taken: set[str] = set(_BUILDER_BODY_NAMES)
    taken.update(n for n in (owner, result_class(op)) if n is not None)
    params: dict[tuple[str, str], str] = {}
    renames: list[Rename] = []
    fields: dict[str, str] = {}
    for output in op.outputs:
        field, why = _field_name(output)
        fields[output.name] = field
        if why and len(op.outputs) > 1:  # fields exist only in a result tuple
            renames.append(Rename("output", output.name, field, why))

    def claim(role: str, ir_name: str, base: str, prefix: str) -> None:
        name, reason = base, None
        if name in PYTHON_KEYWORDS:
            name, reason = prefix + name, "keyword"
        if name in taken:
            name = name if name.startswith(prefix) else prefix + name
            reason = reason or "clash"
            name = _free(name, taken)
        taken.add(name)
        params[(role, ir_name)] = name
        if reason:
            renames.append(Rename(role, ir_name, name, reason))

    for item in op.inputs:
        claim("input", item.name, item.name, ROLE_PREFIX["input"])
    for output in op.outputs:
        if output.dynamic and output.count is None:
            claim("num", output.name, fields[output.name] + "_num", "out_")
    for graph in op.graphs:
        claim("graph", graph.name, graph.name, ROLE_PREFIX["graph"])
    for attr in op.attrs:
        if attr.derive is None:
            claim("attr", attr.name, attr.name, ROLE_PREFIX["attr"])
    holder = next((key for key, name in params.items() if name == NODE_NAME), None)
    node_name = (
        NODE_NAME if NODE_NAME not in taken else _free(NODE_NAME_FALLBACK, taken)
    )
    return PythonNames(params, fields, tuple(renames), owner, node_name, holder)


def exported_names(op: OpSpec) -> tuple[str, ...]:
    """Names ``ge.es.<module>`` exports for ``op``: the function, and its
    result class when it has several outputs."""
    result = result_class(op)
    return (op.op_type,) if result is None else (op.op_type, result)


# What the bodies of a generated impl module read besides their parameters
# (templates/python/impl_code.j2): the module aliases and locals, all
# "_"-prefixed so that no spec name of the usual shape can shadow them
# (Note [Leading underscores] in ge_ir/names.py says why one may), and
# KERNEL_NAME; plus, per op, the author's methods as locals and each
# output's shape and dtype locals and shape constant.
_IMPL_BODY_NAMES = frozenset(
    {
        "_AUTHOR",
        "_args",
        "_b",
        "_config",
        "_cop",
        "_ctx",
        "_d",
        "_i",
        "_infer",
        "_infer_dtypes",
        "_infer_meta",
        "_infer_shapes",
        "_rt",
        "_s",
        "_t",
        "_types",
        "KERNEL_NAME",
    }
)


def impl_body_names(outputs: Iterable[str]) -> frozenset[str]:
    """Every name the prototype's and the methods' bodies read that is not
    a parameter, for an op with these outputs: no parameter may take one
    (attrs, bound by name, cannot yield: E304)."""
    per_output = {
        name for o in outputs for name in (f"_{o}_shape", f"_{o}_dtype", f"_SHAPE_{o}")
    }
    return _IMPL_BODY_NAMES | per_output


@dataclass(frozen=True)
class ImplNames:
    """Parameter names of the schema-bound methods and the prototype.

    Attrs are bound by name (GE's register_op_impl), so they keep their IR
    names; inputs and outputs are positional and yield to them.
    """

    inputs: dict[str, str]
    outputs: dict[str, str]


def impl_names(op: OpSpec) -> ImplNames:
    body = impl_body_names(o.name for o in op.outputs)
    taken = {"self"} | {a.name for a in op.attrs} | body
    chosen: dict[tuple[str, str], str] = {}
    for role, items in (("input", op.inputs), ("output", op.outputs)):
        prefix = ROLE_PREFIX[role]
        for item in items:
            name = item.name
            if name in PYTHON_KEYWORDS or name in taken:
                name = prefix + name
            name = _free(name, taken)
            taken.add(name)
            chosen[(role, item.name)] = name
    return ImplNames(
        inputs={i.name: chosen[("input", i.name)] for i in op.inputs},
        outputs={o.name: chosen[("output", o.name)] for o in op.outputs},
    )
