"""Which C++ functions ``es_<Op>.h`` declares for an op with a history:
gen_esb's overload planner (docs/es-c-cpp.md, "Calls of earlier
releases"; GE's facts in docs/ge-compat.md, "History registry").

Note [C++ overloads]: an op's versions are the registry's releases that
record it (``OpSpec.past``, oldest first) and then the current spec, with
neighbouring equal versions merged. Each step between two versions is
compared element by element in IR order:

- incompatible (an input removed, renamed or of another kind, a new input
  that is not optional, an attr removed, renamed, retyped or of another
  required flag, a new required attr, a new optional attr whose default
  GE cannot parse, any change to the outputs or subgraphs): the op gets one
  function, the current one, and a warning naming the step and the cause;
- compatible and mergeable (new optional attrs; new optional inputs when
  the older version had no attrs, not only optional inputs, and the newer
  no optional int, float or bool attr): one function, the current one,
  keeps the old calls compiling;
- otherwise a boundary: the functions of the versions on both sides are
  kept. The current version is always kept; a kept older version is the
  current function with the inputs it lacked left out (the C call passes
  ``nullptr`` for them).

The kept functions are tried in three modes, the first whose live
functions no typical call could reach twice (``_ambiguous``) wins: Try0
(no change), A1 (the inputs boundaries added, at and before a version,
lose their ``nullptr`` default; all of the older version's inputs when it
had only optional ones; plus a deleted ``std::nullptr_t`` guard per added
input so that ``nullptr`` there does not silently pick another function),
A2 (A1, the added inputs taking ``EsTensorHolder`` instead of
``EsTensorLike``). A1 and A2 each leave a warning. When A2 is ambiguous too,
the current function alone, with a warning. Ours: a mode whose functions put
a parameter without default after one with a default (which C++ rejects)
is not taken either.

Everything here is structure (roles, IR names, kinds, defaults as flags);
``lower_es`` names and spells the parameters, the templates word the
warnings and the guards' messages.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Sequence
from dataclasses import dataclass

from gen_ops.emit.literals import json_default
from gen_ops.lowering.reg_op import RegOpMacro, dtype_symbol, macro_of
from gen_ops.spec.model import OpSpec, PastAttr, PastElement, PastOp

OPTIONAL = "OPTIONAL_INPUT"
REQUIRED = "INPUT"
DYNAMIC = "DYNAMIC_INPUT"
DYNAMIC_OUTPUT = "DYNAMIC_OUTPUT"


class Role(enum.Enum):
    INPUT = "input"
    OWNER = "owner"
    COUNT = "count"  # a dynamic output's instance count
    GRAPH = "graph"
    ATTR = "attr"


class Kind(enum.Enum):
    """A parameter's C++ type, as far as overload resolution goes. An attr's
    kind is its IR type name (``Int``, ``ListFloat``, ...)."""

    LIKE = "EsTensorLike"
    HOLDER = "EsTensorHolder"
    HOLDERS = "vector<EsTensorHolder>"
    NULLPTR = "nullptr_t"
    BUILDER_REF = "EsGraphBuilder &"
    BUILDER_PTR = "EsGraphBuilder *"
    COUNT = "int64_t count"
    GRAPH = "unique_ptr<Graph>"
    GRAPHS = "vector<unique_ptr<Graph>>"
    INT = "Int"
    FLOAT = "Float"
    BOOL = "Bool"
    STR = "String"
    DTYPE = "Type"
    TENSOR = "Tensor"
    LIST_INT = "ListInt"
    LIST_FLOAT = "ListFloat"
    LIST_BOOL = "ListBool"
    LIST_DTYPE = "ListType"
    LIST_LIST_INT = "ListListInt"
    LIST_STR = "ListString"


# The arguments a typical call passes for a parameter of each kind: two
# functions are ambiguous when, at some arity both take, every position
# takes an argument both accept (GE's ambiguity checker, by its tokens).
_TOKENS: dict[Kind, frozenset[str]] = {
    Kind.LIKE: frozenset({"tensor", "nullptr", "0", "0.0"}),
    Kind.HOLDER: frozenset({"tensor"}),
    Kind.HOLDERS: frozenset({"tensor_vec"}),
    Kind.NULLPTR: frozenset({"nullptr"}),
    Kind.BUILDER_REF: frozenset({"graph_builder"}),
    Kind.BUILDER_PTR: frozenset({"graph_builder", "nullptr"}),
    Kind.COUNT: frozenset({"int", "number", "0"}),
    Kind.GRAPH: frozenset({"graph_ptr", "nullptr"}),
    Kind.GRAPHS: frozenset({"graph_vec"}),
    Kind.INT: frozenset({"int", "number", "0"}),
    Kind.FLOAT: frozenset({"float", "number", "0", "0.0"}),
    Kind.BOOL: frozenset({"bool", "0"}),
    Kind.STR: frozenset({"string", '"xx"'}),
    Kind.DTYPE: frozenset({"dtype"}),
    Kind.TENSOR: frozenset({"tensor_ptr", "nullptr"}),
    Kind.LIST_INT: frozenset({"list_int"}),
    Kind.LIST_FLOAT: frozenset({"list_float"}),
    Kind.LIST_BOOL: frozenset({"list_bool"}),
    Kind.LIST_DTYPE: frozenset({"list_type"}),
    Kind.LIST_LIST_INT: frozenset({"list_list_int"}),
    Kind.LIST_STR: frozenset({"list_string"}),
}
_ATTR_KINDS = {
    k.value: k
    for k in (
        Kind.INT,
        Kind.FLOAT,
        Kind.BOOL,
        Kind.STR,
        Kind.DTYPE,
        Kind.TENSOR,
        Kind.LIST_INT,
        Kind.LIST_FLOAT,
        Kind.LIST_BOOL,
        Kind.LIST_DTYPE,
        Kind.LIST_LIST_INT,
        Kind.LIST_STR,
    )
}
# Optional attrs of these types take number literals, which widens what a
# call of the function with more inputs can match.
_SCALAR_LITERALS = frozenset({"Int", "Float", "Bool"})


@dataclass(frozen=True)
class Param:
    role: Role
    ir_name: str  # the IR name (the owner builder: "owner_builder")
    kind: Kind
    default: bool = False


@dataclass(frozen=True)
class Guard:
    """A deleted function: ``nullptr`` passed for the new input ``input``
    is refused; ``holder`` when the input takes an EsTensorHolder (A2)."""

    input: str
    holder: bool


@dataclass(frozen=True)
class Signature:
    params: tuple[Param, ...]
    guard: Guard | None = None  # set: the function is deleted

    def has(self, role: Role, ir_name: str) -> Param | None:
        return next(
            (p for p in self.params if p.role is role and p.ir_name == ir_name), None
        )


class Mode(enum.Enum):
    TRY0 = "Try0"
    A1 = "A1"
    A2 = "A2"


@dataclass(frozen=True)
class Cause:
    """Why a step is incompatible: ``what`` (a key the templates word) and
    its details, between the versions ``older`` and ``newer`` ("" for the
    current spec)."""

    older: str
    newer: str
    what: str
    index: int = 0
    name: str = ""
    counts: tuple[int, int] = (0, 0)  # before, after
    problem: str = ""  # a default's problem: a key the templates word


@dataclass(frozen=True)
class PlanWarning:
    """``fallback``: one function, the current one (``cause``: an
    incompatible step; None: still ambiguous after A2); ``A1`` / ``A2``: the
    mode the planner moved to."""

    code: str
    op_type: str
    new_inputs: tuple[str, ...]
    cause: Cause | None = None


@dataclass(frozen=True)
class Plan:
    signatures: tuple[Signature, ...]
    warnings: tuple[PlanWarning, ...]
    versions: tuple[str, ...]  # the versions compared, "" for the specs


# --- the current spec as a version -------------------------------------------


def current(op: OpSpec) -> PastOp:
    """The spec as the history export records it (the same macros, dtype
    symbols and default literals as ``lower_history.history_op``)."""
    return PastOp(
        "",
        tuple(
            PastElement(
                i.name,
                macro_of(i).value,
                dtype_symbol(i.dtype),
                tuple(f.name for f in i.renamed_from),
            )
            for i in op.inputs
        ),
        tuple(
            PastAttr(
                a.name,
                a.type.ir_name,
                macro_of(a) is RegOpMacro.REQUIRED_ATTR,
                None if a.default is None else json_default(a.type, a.default),
                tuple(f.name for f in a.renamed_from),
            )
            for a in op.attrs
        ),
        tuple(
            PastElement(o.name, macro_of(o).value, dtype_symbol(o.dtype))
            for o in op.outputs
        ),
        tuple(
            PastElement(g.name, "DYNAMIC" if g.dynamic else "STATIC") for g in op.graphs
        ),
    )


def _same(a: PastOp, b: PastOp) -> bool:
    return (a.inputs, a.outputs, a.attrs, a.subgraphs) == (
        b.inputs,
        b.outputs,
        b.attrs,
        b.subgraphs,
    )


def default_problem(attr_type: str, text: str | None) -> str | None:
    """Why GE cannot print ``default_value`` as a C++ default (a key the
    templates word), or None."""
    if text is None or text == "":
        return "missing"
    try:
        value = json.loads(text)
    except ValueError:
        return "not_json"
    if attr_type not in _ATTR_KINDS:
        return "unsupported_type"
    if not _fits(attr_type, value):
        return "mismatch"
    if attr_type == "Tensor" and value != "Tensor()":
        return "tensor"
    return None


def _fits(attr_type: str, value: object) -> bool:
    if attr_type.startswith("List"):
        inner = attr_type[len("List") :]
        return isinstance(value, list) and all(_fits(inner, v) for v in value)
    if attr_type in ("Int", "Float"):  # GE's JSON reader converts numbers
        return type(value) in (int, float)
    if attr_type == "Bool":
        return type(value) is bool
    if attr_type in ("String", "Type", "Tensor"):
        return type(value) is str
    return False


# --- comparing versions ---------------------------------------------------------


@dataclass(frozen=True)
class _Step:
    cause: Cause | None  # set: incompatible
    new_inputs: tuple[str, ...] = ()
    mergeable: bool = True
    older_all_optional: bool = False


def _all_optional(inputs: Sequence[PastElement]) -> bool:
    return bool(inputs) and all(i.type == OPTIONAL for i in inputs)


def _renamed(old: str, new: str, former: tuple[str, ...]) -> bool:
    """Whether ``new`` is ``old``, or names it as an earlier name (ours: C++
    passes by position, so a declared rename changes no call)."""
    return old == new or old in former


def _compare(older: PastOp, newer: PastOp) -> _Step:  # one check per GE rule
    def fail(
        what: str,
        index: int = 0,
        name: str = "",
        counts: tuple[int, int] = (0, 0),
        problem: str = "",
    ) -> _Step:
        cause = Cause(older.version, newer.version, what, index, name, counts, problem)
        return _Step(cause)

    before, after = len(older.inputs), len(newer.inputs)
    if after < before:
        return fail("inputs_shrink", counts=(before, after))
    for index, (old, new) in enumerate(zip(older.inputs, newer.inputs)):
        if not _renamed(old.name, new.name, new.former) or old.type != new.type:
            return fail("input_mismatch", index=index)
    added = newer.inputs[before:]
    for item in added:
        if item.type != OPTIONAL:
            return fail("input_not_optional", name=item.name)
    before, after = len(older.attrs), len(newer.attrs)
    if after < before:
        return fail("attrs_shrink", counts=(before, after))
    for index, (a, b) in enumerate(zip(older.attrs, newer.attrs)):
        if not _renamed(a.name, b.name, b.former) or (a.type, a.required) != (
            b.type,
            b.required,
        ):
            return fail("attr_mismatch", index=index)
    for attr in newer.attrs[before:]:
        if attr.required:
            return fail("attr_required", name=attr.name)
        problem = default_problem(attr.type, attr.default)
        if problem is not None:
            return fail("attr_default", name=attr.name, problem=problem)
    for what, olds, news in (
        ("output", older.outputs, newer.outputs),
        ("subgraph", older.subgraphs, newer.subgraphs),
    ):
        if len(olds) != len(news):
            return fail(f"{what}s_changed")
        for index, (o, n) in enumerate(zip(olds, news)):
            if (o.name, o.type) != (n.name, n.type):
                return fail(f"{what}_mismatch", index=index)
    names = tuple(i.name for i in added)
    older_optional = _all_optional(older.inputs)
    risky = any(not a.required and a.type in _SCALAR_LITERALS for a in newer.attrs)
    mergeable = not names or not (older_optional or older.attrs or risky)
    return _Step(None, names, mergeable, older_optional)


@dataclass(frozen=True)
class _Boundary:
    step: int  # versions[step - 1] -> versions[step]
    new_inputs: tuple[str, ...]
    older_all_optional: bool


def _versions(op: OpSpec, latest: PastOp) -> list[PastOp]:
    merged: list[PastOp] = []
    for version in (*op.past, latest):
        if merged and _same(merged[-1], version):
            continue  # GE keeps the older of two equal versions
        merged.append(version)
    return merged


# --- building functions -----------------------------------------------------------


@dataclass(frozen=True)
class _Shape:
    """What a kept version asks of the current function."""

    removed: frozenset[str] = frozenset()
    required: frozenset[str] = frozenset()
    holders: frozenset[str] = frozenset()


def _defaultable(op: PastOp, graphs: bool, forced: frozenset[str]) -> set[str]:
    """GE's default policy: the optional inputs after the last input that is
    not optional take ``nullptr`` (a forced one neither takes it nor ends
    the run), unless an attr is required or an output dynamic; ours: nor
    when a graph follows (C++ wants defaults last)."""
    if any(a.required for a in op.attrs) or graphs:
        return set()
    if any(o.type == DYNAMIC_OUTPUT for o in op.outputs):
        return set()
    names: set[str] = set()
    for item in op.inputs:
        if item.type != OPTIONAL:
            names = set()
        elif item.name not in forced:
            names.add(item.name)
    return names


def tensor_like(op: PastOp) -> bool:
    """Inputs are EsTensorLike when all are optional, or when there are
    several and one is not dynamic."""
    if not op.inputs:
        return False
    if _all_optional(op.inputs):
        return True
    return len(op.inputs) > 1 and any(i.type != DYNAMIC for i in op.inputs)


def build(op: PastOp, shape: _Shape = _Shape()) -> Signature:
    """The function of ``op`` (the current version) for one kept version:
    inputs, the owner builder, counts, subgraphs, required then optional
    attrs."""
    defaults = _defaultable(op, bool(op.subgraphs), shape.required)
    like = tensor_like(op)
    params: list[Param] = []
    for item in op.inputs:
        if item.name in shape.removed:
            continue
        if item.type == DYNAMIC:
            params.append(Param(Role.INPUT, item.name, Kind.HOLDERS))
            continue
        kind = Kind.LIKE if like and item.name not in shape.holders else Kind.HOLDER
        defaulted = item.type == OPTIONAL and item.name in defaults
        params.append(Param(Role.INPUT, item.name, kind, defaulted))
    if not op.inputs:
        params.append(Param(Role.OWNER, "owner_builder", Kind.BUILDER_REF))
    elif _all_optional(op.inputs) and any(
        i.name not in shape.removed and i.name not in shape.required for i in op.inputs
    ):
        params.append(
            Param(Role.OWNER, "owner_builder", Kind.BUILDER_PTR, bool(defaults))
        )
    params += [
        Param(Role.COUNT, o.name, Kind.COUNT)
        for o in op.outputs
        if o.type == DYNAMIC_OUTPUT
    ]
    params += [
        Param(Role.GRAPH, g.name, Kind.GRAPHS if g.type == "DYNAMIC" else Kind.GRAPH)
        for g in op.subgraphs
    ]
    required = [a for a in op.attrs if a.required]
    optional = [a for a in op.attrs if not a.required]
    params += [Param(Role.ATTR, a.name, _ATTR_KINDS[a.type]) for a in required]
    params += [Param(Role.ATTR, a.name, _ATTR_KINDS[a.type], True) for a in optional]
    return Signature(tuple(params))


def _shape(
    latest: PastOp,
    versions: Sequence[PastOp],
    boundaries: Sequence[_Boundary],
    index: int,
    mode: Mode,
) -> _Shape:
    kept = versions[index]
    removed = frozenset(i.name for i in latest.inputs[len(kept.inputs) :])
    if mode is Mode.TRY0:
        return _Shape(removed)
    added: list[str] = []
    everything = False
    for boundary in boundaries:
        if boundary.step > index:
            continue
        added += [n for n in boundary.new_inputs if n not in added]
        everything = everything or boundary.older_all_optional
    required = (
        frozenset(i.name for i in kept.inputs) if everything else frozenset(added)
    )
    holders = frozenset(added) if mode is Mode.A2 else frozenset()
    return _Shape(removed, required, holders)


def _guard(base: Signature, name: str, holder: bool) -> Signature:
    params = list(base.params)
    at = next(
        (
            n
            for n, p in enumerate(params)
            if p.role is Role.INPUT and p.ir_name == name and p.kind is not Kind.NULLPTR
        ),
        None,
    )
    nullptr = Param(Role.INPUT, name, Kind.NULLPTR)
    if at is None:
        params = [nullptr]
    else:
        params[at] = nullptr
    return Signature(tuple(params), Guard(name, holder))


def _signatures(
    latest: PastOp,
    versions: Sequence[PastOp],
    boundaries: Sequence[_Boundary],
    mode: Mode,
) -> list[Signature]:
    kept = sorted(
        {len(versions) - 1}
        | {b.step - 1 for b in boundaries}
        | {b.step for b in boundaries}
    )
    built = {
        i: build(latest, _shape(latest, versions, boundaries, i, mode)) for i in kept
    }
    signatures = [built[i] for i in kept]
    if mode is not Mode.TRY0:
        for boundary in boundaries:
            for name in boundary.new_inputs:
                signatures.append(_guard(built[boundary.step], name, mode is Mode.A2))
    return signatures


# --- ambiguity ---------------------------------------------------------------------


def _range(sig: Signature) -> tuple[int, int]:
    return sum(not p.default for p in sig.params), len(sig.params)


def reachable_twice(a: Signature, b: Signature) -> bool:
    """Whether a typical call could match both functions: at an arity both
    take, every position takes an argument both accept."""
    (low_a, high_a), (low_b, high_b) = _range(a), _range(b)
    for arity in range(max(low_a, low_b), min(high_a, high_b) + 1):
        if all(
            _TOKENS[a.params[n].kind] & _TOKENS[b.params[n].kind] for n in range(arity)
        ):
            return True
    return False


def _ambiguous(signatures: Sequence[Signature]) -> bool:
    live = [s for s in signatures if s.guard is None]
    return any(reachable_twice(a, b) for n, a in enumerate(live) for b in live[n + 1 :])


def _defaults_last(sig: Signature) -> bool:
    seen = False
    for param in sig.params:
        seen = seen or param.default
        if seen and not param.default:
            return False
    return True


# --- the plan ------------------------------------------------------------------------


def plan(op: OpSpec) -> Plan:
    """Note [C++ overloads]."""
    latest = current(op)
    versions = _versions(op, latest)
    labels = tuple(v.version for v in versions)
    alone = (build(latest),)
    boundaries: list[_Boundary] = []
    added: list[str] = []
    for step in range(1, len(versions)):
        result = _compare(versions[step - 1], versions[step])
        if result.cause is not None:
            warning = PlanWarning("fallback", op.op_type, tuple(added), result.cause)
            return Plan(alone, (warning,), labels)
        if not result.mergeable:
            boundaries.append(
                _Boundary(step, result.new_inputs, result.older_all_optional)
            )
            added += [n for n in result.new_inputs if n not in added]
    if not boundaries:
        return Plan(alone, (), labels)
    warnings: list[PlanWarning] = []
    for mode in Mode:
        if mode is not Mode.TRY0:
            warnings.append(PlanWarning(mode.value, op.op_type, tuple(added)))
        signatures = _signatures(latest, versions, boundaries, mode)
        if not _ambiguous(signatures) and all(map(_defaults_last, signatures)):
            return Plan(tuple(signatures), tuple(warnings), labels)
    warnings.append(PlanWarning("fallback", op.op_type, tuple(added)))
    return Plan(alone, tuple(warnings), labels)
