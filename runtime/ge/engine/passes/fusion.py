"""Element-wise fusion: regions of built-in element-wise ops become one
generated kernel (docs/compiler.md, "Element-wise fusion").

Note [Fusion regions]: after the compiler has collected the ops (shapes and
dtypes inferred), each op is a unit; in the graph's order, a node that can
join (``joinable``) joins the regions of the producers it reads whose output
shape is its own, as many of them as can merge without a cycle (a region
must not read, through a node outside it, a value that depends on
itself). Then regions of one shape that read the same tensor (siblings)
merge, when that makes no cycle. A node joins nothing, and starts its own
region, when

- it is not one of the library's element-wise ops (MatMul, a custom op,
  Data, Const, a variable), or its dtypes are not ones the CPU device runs
  for it (its own kernel then reports the error);
- its output shape differs from its producer's region (broadcasting into a
  larger shape: the smaller value is written out and read broadcast);
- it has control edges, or its output is empty;
- joining would make a cycle (see above).

A region of one node keeps its own kernel. In a region of two or more, the
values a node outside the region reads, and graph outputs, are written to
memory; every other value stays in registers. Dtype changes (Cast, a
promoting Pow) stay inside a region. The units are then put in a
topological order, and the compiler plans memory for them as for ops.
The kernel gives the unfused graph's bits (Note [Fused kernels give the
unfused bits] in ``ops/math/_fusion.py``).
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from ge.custom_op import bootstrap
from ge.custom_op.contexts import ArgSlot, LaunchSlotKind
from ge.custom_op.proto import get_registered_op_proto_by_op_type
from ge.custom_op.registry import get_registered_op_impl
from ge.device.kernels import build_kernel, load_binary
from ge.engine.compiled import TensorInfo
from ge.engine.errors import CompileError
from ge.engine.launches import Place, bind_launch
from ge.engine.passes.report import FusionRegion
from ge.engine.passes.spec import FusedInput, FusedKernelSpec, FusedNode
from ge.engine.tasks import TaskTable
from ge.graph.graph import InputKind, Node
from ge_ir.elementwise import Expr
from ge_ir.elementwise import names as elementwise_names

FUSED_TYPE = "FusedElementwise"
KERNEL = "ge_fused"
BUILD_FLAGS = ("-ffp-contract=off",)


@dataclass
class FusedOp:
    """A region as the compiler's op list holds it (what ``_Op`` offers the
    memory planner: position, inputs, outputs, reuse, node)."""

    node: Node
    position: int
    inputs: list[int | None]
    outputs: list[int]
    members: list[Any]  # the compiler's _Op of each node, in order
    spec: FusedKernelSpec
    reuse: tuple[tuple[int, int], ...] = ()
    proto_attrs: list[tuple[str, Any, Any]] = field(default_factory=list)


def generator(load: bool = False) -> ModuleType | None:
    """The math library's ``_fusion`` module (loaded with the library; with
    ``load``, the library is loaded if it is not: a graph of custom ops
    with element-wise expressions fuses with its generator too)."""
    impl = get_registered_op_impl("Add")
    if impl is None and load:
        try:
            bootstrap.load_builtin_ops()
        except (FileNotFoundError, RuntimeError):
            return None
        impl = get_registered_op_impl("Add")
    if impl is None:
        return None
    package = impl.cls.__module__.rpartition(".")[0]
    try:
        return importlib.import_module(f"{package}._fusion")
    except ImportError:
        return None


def _runs(gen: ModuleType, op: Any, tensors: list[TensorInfo]) -> bool:
    runs = importlib.import_module(gen.__name__.rpartition(".")[0] + "._runs").runs
    metas = [tensors[t].meta for t in op.inputs if t is not None]
    if op.node.type == "Cast":
        cast_types = importlib.import_module(
            gen.__name__.rpartition(".")[0] + "._cast"
        ).CAST_TYPES
        out = tensors[op.outputs[0]].meta.dtype
        return all(m.dtype in cast_types for m in metas) and out in cast_types
    return all(runs(op.node.type, m.dtype) for m in metas)


def builtin(gen: ModuleType, node: Node) -> bool:
    """Whether ``node`` is one of the math library's element-wise ops."""
    return node.type in gen.BINARY or node.type in gen.UNARY or node.type == "Cast"


def expression(node: Node) -> Expr | None:
    """A custom op's element-wise expression, when its prototype declares
    one (Note [Element-wise expressions] in ``ge_ir.elementwise``)."""
    proto = get_registered_op_proto_by_op_type(node.type)
    return None if proto is None else proto.elementwise


def _custom_joinable(
    gen: ModuleType, op: Any, tensors: list[TensorInfo], expr: Expr
) -> str | None:
    """Why a custom op with an element-wise expression cannot join, or
    None: every present input and the output of one dtype the expression
    computes in, and of the output's shape (its kernel may refuse to
    broadcast), and a value for every attr the expression reads."""
    out = tensors[op.outputs[0]].meta
    if any(ir.kind is InputKind.DYNAMIC for ir in op.node.ir_inputs):
        return "a dynamic input"
    metas = [tensors[t].meta for t in op.inputs if t is not None]
    if out.dtype not in gen.EXPRESSION_DTYPES or any(
        m.dtype is not out.dtype for m in metas
    ):
        return "a dtype its element-wise expression does not compute in"
    if any(tuple(m.shape or ()) != tuple(out.shape or ()) for m in metas):
        return "an input whose shape is not its output's (no broadcast inside it)"
    present = frozenset(
        ir.name for ir, t in zip(op.node.ir_inputs, op.inputs) if t is not None
    )
    values = dict((name, value) for name, _, value in op.proto_attrs)
    for name in elementwise_names(expr, present):
        if name not in present and not isinstance(values.get(name), (int, float)):
            return f"attr '{name}' its expression reads has no number"
    return None


def joinable(gen: ModuleType, op: Any, tensors: list[TensorInfo]) -> str | None:
    """Why ``op`` cannot be in a region, or None (Note [Fusion regions])."""
    node = op.node
    expr = None if builtin(gen, node) else expression(node)
    if not builtin(gen, node) and expr is None:
        return "not an element-wise op of the math library"
    if node.control_inputs:
        return "has control edges"
    if len(op.outputs) != 1 or (expr is None and any(t is None for t in op.inputs)):
        return "not one output and all inputs"
    if expr is not None:
        why = _custom_joinable(gen, op, tensors, expr)
        if why is not None:
            return why
    elif not _runs(gen, op, tensors):
        return "a dtype the CPU device does not run for it"
    if math.prod(tensors[op.outputs[0]].meta.shape or ()) == 0:
        return "an empty output"
    return None


def fuse(compiler: Any) -> tuple[list[FusionRegion], dict[str, str]]:
    """Group ``compiler.ops`` into regions (Note [Fusion regions]), replace
    each region of two or more by a FusedOp, order the units and renumber
    positions and last uses. Returns the regions and why nodes broke off."""
    gen = generator(any(expression(op.node) is not None for op in compiler.ops))
    if gen is None or not compiler.ops:
        return [], {}
    ops: list[Any] = compiler.ops
    tensors: list[TensorInfo] = compiler.tensors
    producer: dict[int, int] = {t: i for i, op in enumerate(ops) for t in op.outputs}
    region, members, breaks = _group(gen, ops, tensors, producer)
    units = _order(ops, region, members, producer)
    consumers_outside: set[int] = set()
    graph_outputs = {
        compiler.tensor_of.get((id(n), i)) for n, i in compiler.graph.outputs
    }
    for i, op in enumerate(ops):
        for t in op.inputs:
            if t is not None and t in producer and region[producer[t]] != region[i]:
                consumers_outside.add(t)
    new_ops: list[Any] = []
    regions: list[FusionRegion] = []
    for rid in units:
        idx = sorted(members[rid], key=lambda i: ops[i].position)
        if len(idx) == 1:
            new_ops.append(ops[idx[0]])
            continue
        fused = _fused_op(
            gen,
            [ops[i] for i in idx],
            tensors,
            consumers_outside | graph_outputs,
            _scalar_consts(compiler),
        )
        fused.node.name = f"fused_{len(regions)}"
        regions.append(
            FusionRegion(
                tuple(ops[i].node.name for i in idx),
                tuple(tensors[t].producer for t in fused.outputs),
                fused.spec.shape,
            )
        )
        new_ops.append(fused)
    if not regions:
        return [], breaks
    compiler.last_use.clear()
    for position, op in enumerate(new_ops):
        op.position = position
        for t in op.inputs:
            if t is not None:
                compiler.last_use[t] = position
    compiler.ops = new_ops
    return regions, breaks


class _Regions:
    """Regions of the compiler's ops while they are grouped: each op's
    region (named by its first op's index) and each region's ops."""

    def __init__(self, ops: list[Any], producer: dict[int, int]) -> None:
        self.ops = ops
        self.producer = producer
        self.region = list(range(len(ops)))
        self.members: dict[int, list[int]] = {i: [i] for i in range(len(ops))}

    def deps(self, rid: int) -> set[int]:
        """Regions ``rid`` reads from directly (data and control edges)."""
        found: set[int] = set()
        for i in self.members[rid]:
            for t in self.ops[i].inputs:
                if t is not None and t in self.producer:
                    found.add(self.region[self.producer[t]])
            for c in self.ops[i].node.control_inputs:
                for j, other in enumerate(self.ops):
                    if other.node is c:
                        found.add(self.region[j])
        found.discard(rid)
        return found

    def reaches(self, start: set[int], targets: set[int]) -> bool:
        seen: set[int] = set()
        stack = list(start)
        while stack:
            r = stack.pop()
            if r in targets:
                return True
            if r not in seen:
                seen.add(r)
                stack.extend(self.deps(r))
        return False

    def can_merge(self, group: list[int], index: int | None) -> bool:
        """Whether ``group`` (and op ``index``) can be one region: no region
        outside that it reads depends on it."""
        inside = set(group)
        outside: set[int] = set()
        for rid in group:
            outside |= self.deps(rid) - inside
        for t in [] if index is None else self.ops[index].inputs:
            if t is not None and t in self.producer:
                outside.add(self.region[self.producer[t]])
        return not self.reaches(outside - inside, inside)

    def merge(self, target: int, rid: int) -> None:
        for i in self.members.pop(rid):
            self.region[i] = target
            self.members[target].append(i)

    def shape(self, rid: int, tensors: list[TensorInfo]) -> Any:
        return tensors[self.ops[rid].outputs[0]].meta.shape

    def merge_siblings(self, fusible: list[bool], tensors: list[TensorInfo]) -> None:
        """Regions of one shape that read the same tensor merge, so it is
        read once (when that makes no cycle)."""
        readers: dict[int, list[int]] = {}
        for rid, idx in self.members.items():
            for i in (i for i in idx if fusible[i]):
                for t in self.ops[i].inputs:
                    inside = t in self.producer and self.region[self.producer[t]] == rid
                    if t is not None and not inside and rid not in readers.get(t, []):
                        readers.setdefault(t, []).append(rid)
        for rids in readers.values():
            for k, first in enumerate(rids):
                for other in rids[k + 1 :]:
                    a, b = self.region[first], self.region[other]
                    if a == b or self.shape(a, tensors) != self.shape(b, tensors):
                        continue
                    if self.can_merge([a, b], None):
                        self.merge(min(a, b), max(a, b))


def _group(
    gen: ModuleType,
    ops: list[Any],
    tensors: list[TensorInfo],
    producer: dict[int, int],
) -> tuple[list[int], dict[int, list[int]], dict[str, str]]:
    """(region of each op, members of each region, why nodes broke off):
    the grouping of Note [Fusion regions]."""
    control_sources = {id(c) for op in ops for c in op.node.control_inputs}
    regions = _Regions(ops, producer)
    region = regions.region
    fusible = [False] * len(ops)
    breaks: dict[str, str] = {}
    for index, op in enumerate(ops):
        why = joinable(gen, op, tensors)
        if why is None and id(op.node) in control_sources:
            why = "has control edges"
        if why is not None:
            if builtin(gen, op.node) or expression(op.node) is not None:
                breaks[op.node.name] = why
            continue
        fusible[index] = True
        shape = tensors[op.outputs[0]].meta.shape
        candidates: list[int] = []
        for t in op.inputs:
            if t is None or t not in producer:
                continue
            j = producer[t]
            rid = region[j]
            if not fusible[j] or rid in candidates:
                continue
            if regions.shape(rid, tensors) != shape:
                breaks.setdefault(
                    op.node.name,
                    f"reads {ops[j].node.name}, whose shape differs (broadcast)",
                )
                continue
            candidates.append(rid)
        group: list[int] = []
        for rid in candidates:
            if regions.can_merge(group + [rid], index):
                group.append(rid)
            else:
                breaks.setdefault(
                    op.node.name,
                    f"joining {ops[rid].node.name}'s region would make a cycle",
                )
        if group:
            for rid in group[1:]:
                regions.merge(group[0], rid)
            regions.merge(group[0], index)
    regions.merge_siblings(fusible, tensors)
    return region, regions.members, breaks


def _order(
    ops: list[Any],
    region: list[int],
    members: dict[int, list[int]],
    producer: dict[int, int],
) -> list[int]:
    """The regions in a topological order, by their first op's position."""
    deps: dict[int, set[int]] = {rid: set() for rid in members}
    for i, op in enumerate(ops):
        for t in op.inputs:
            if t is not None and t in producer and region[producer[t]] != region[i]:
                deps[region[i]].add(region[producer[t]])
        for c in op.node.control_inputs:
            for j, other in enumerate(ops):
                if other.node is c and region[j] != region[i]:
                    deps[region[i]].add(region[j])
    done: set[int] = set()
    order: list[int] = []
    pending = sorted(members, key=lambda r: min(ops[i].position for i in members[r]))
    while pending:
        for rid in pending:
            if deps[rid] <= done:
                break
        else:  # pragma: no cover - fuse never makes a cycle
            raise CompileError("element-wise fusion made a cycle (a bug)")
        pending.remove(rid)
        done.add(rid)
        order.append(rid)
    return order


def _scalar_consts(compiler: Any) -> dict[int, bytes]:
    """The bytes of each one-element Const's tensor, by tensor id: a fused
    kernel has them written in (Note [Fused kernels give the unfused bits]:
    the same bits as the load). Never a variable's (its value changes)."""
    found: dict[int, bytes] = {}
    for node in compiler.graph.nodes:
        if node.type != "Const":
            continue
        tensor_id = compiler.tensor_of.get((id(node), 0))
        value = node.attrs.get("value", (None, None))[1]
        shape = getattr(value, "shape", None)
        if tensor_id is not None and shape is not None and math.prod(shape) == 1:
            found[tensor_id] = value.tobytes()
    return found


def _fused_op(
    gen: ModuleType,
    members: list[Any],
    tensors: list[TensorInfo],
    read_outside: set[Any],
    scalars: dict[int, bytes],
) -> FusedOp:
    value_of = {m.outputs[0]: j for j, m in enumerate(members)}
    inputs: list[int] = []
    nodes: list[FusedNode] = []
    for m in members:
        args: list[tuple[str, int]] = []
        for t in m.inputs:
            if t is None:  # an absent optional input of a custom op
                continue
            if t in value_of:
                args.append(("node", value_of[t]))
            else:
                if t not in inputs:
                    inputs.append(t)
                args.append(("in", inputs.index(t)))
        expr = None if builtin(gen, m.node) else expression(m.node)
        if expr is None:
            attrs = tuple(
                (name, float(value))
                for name, _, value in m.proto_attrs
                if name in ("base", "scale", "shift")
            )
            present: tuple[str, ...] = ()
        else:  # a custom op: its numeric attrs, its present inputs
            attrs = tuple(
                (name, int(value) if isinstance(value, bool) else value)
                for name, _, value in m.proto_attrs
                if isinstance(value, (int, float))
            )
            present = tuple(
                ir.name for ir, t in zip(m.node.ir_inputs, m.inputs) if t is not None
            )
        nodes.append(
            FusedNode(
                m.node.type,
                tensors[m.outputs[0]].meta.dtype,
                tuple(args),
                attrs,
                expr,
                present,
            )
        )
    written = [j for j, m in enumerate(members) if m.outputs[0] in read_outside]
    shape = tuple(tensors[members[0].outputs[0]].meta.shape or ())
    spec = FusedKernelSpec(
        shape,
        tuple(
            FusedInput(
                tensors[t].meta.dtype,
                tuple(tensors[t].meta.shape or ()),
                scalars.get(t),
            )
            for t in inputs
        ),
        tuple(nodes),
        tuple(written),
    )
    node = Node(name="fused", type=FUSED_TYPE)
    return FusedOp(
        node,
        members[-1].position,
        [t for t in inputs if t not in scalars],
        [members[j].outputs[0] for j in written],
        members,
        spec,
    )


def declare_fused(op: FusedOp, tensors: list[TensorInfo], tasks: TaskTable) -> None:
    """Build the region's kernel and append its launch to ``tasks``."""
    gen = generator()
    assert gen is not None  # fuse found it
    source, _, blocks = gen.fused_source(KERNEL, op.spec)
    label = (
        f"fused region '{op.node.name}' ({', '.join(m.node.name for m in op.members)})"
    )
    try:
        kernel = load_binary(
            build_kernel(source, name="math_fused", flags=BUILD_FLAGS)
        ).get_function(KERNEL)
    except Exception as exc:  # a build failure is a bug of the generator
        raise CompileError(f"{label}: its kernel did not build: {exc}") from None
    slots = [ArgSlot(LaunchSlotKind.INPUT, i) for i in range(len(op.inputs))] + [
        ArgSlot(LaunchSlotKind.OUTPUT, i) for i in range(len(op.outputs))
    ]

    def place(slot: ArgSlot) -> Place:
        ids = op.inputs if slot.kind is LaunchSlotKind.INPUT else op.outputs
        tensor_id = ids[slot.index]
        assert tensor_id is not None
        info = tensors[tensor_id]
        return Place(info.buffer, info.offset, info.nbytes)

    bind_launch(label, kernel, slots, blocks, place, tasks)


def source_of(op: FusedOp) -> str:
    """The C source of a fused op's kernel (for reports and tests)."""
    gen = generator()
    assert gen is not None
    text: str = gen.fused_source(KERNEL, op.spec)[0]
    return text


Declare = Callable[[FusedOp, list[TensorInfo], TaskTable], None]
