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
from dataclasses import dataclass

from gen_ops.model import OpSpec, Output

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

# Names every generated builder reserves: its own keyword parameters.
RESERVED_PARAMS = ("name", "owner_builder")
# Attributes of tuple that a NamedTuple field must not shadow.
_TUPLE_ATTRS = frozenset({"count", "index"})


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
    output names to result fields.
    """

    params: dict[tuple[str, str], str]
    fields: dict[str, str]
    renames: tuple[Rename, ...]


def _field_name(output: Output) -> tuple[str, str | None]:
    if output.ref_input is not None:
        return ROLE_PREFIX["ref_output"] + output.name, "clash"
    if output.name in PYTHON_KEYWORDS:
        return ROLE_PREFIX["output"] + output.name, "keyword"
    if output.name in _TUPLE_ATTRS:
        return ROLE_PREFIX["output"] + output.name, "clash"
    return output.name, None


def python_names(op: OpSpec) -> PythonNames:
    """Assign the builder's Python names in signature order (Note [Keyword
    renaming]); a name that would clash gets its role prefix, then a number."""
    taken: set[str] = set(RESERVED_PARAMS)
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
            stem, n = name, 2
            while name in taken:
                name, n = f"{stem}_{n}", n + 1
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
    return PythonNames(params, fields, tuple(renames))


# Names a generated builder module binds besides its op function; an op type
# may not take one of them.
PYTHON_MODULE_NAMES = frozenset(
    {
        "DataType",
        "Graph",
        "GraphBuilder",
        "NamedAttrs",
        "NamedTuple",
        "Sequence",
        "Tensor",
        "TensorHolder",
        "TensorLike",
        "annotations",
    }
)


def exported_names(op: OpSpec) -> tuple[str, ...]:
    """Names ``ge.es.<module>`` exports for ``op``: the function, and its
    result class when it has several outputs."""
    if len(op.outputs) > 1:
        return (op.op_type, f"{op.op_type}Output")
    return (op.op_type,)


@dataclass(frozen=True)
class ImplNames:
    """Parameter names of the schema-bound methods and the prototype.

    Attrs are bound by name (GE's register_op_impl), so they keep their IR
    names; inputs and outputs are positional and yield to them.
    """

    inputs: dict[str, str]
    outputs: dict[str, str]


def impl_names(op: OpSpec) -> ImplNames:
    taken = {"self"} | {a.name for a in op.attrs}
    chosen: dict[tuple[str, str], str] = {}
    for role, items in (("input", op.inputs), ("output", op.outputs)):
        prefix = ROLE_PREFIX[role]
        for item in items:
            name = item.name
            if name in PYTHON_KEYWORDS or name in taken:
                name = prefix + name
            stem, n = name, 2
            while name in taken:
                name, n = f"{stem}_{n}", n + 1
            taken.add(name)
            chosen[(role, item.name)] = name
    return ImplNames(
        inputs={i.name: chosen[("input", i.name)] for i in op.inputs},
        outputs={o.name: chosen[("output", o.name)] for o in op.outputs},
    )
