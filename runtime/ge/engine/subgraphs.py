"""The compiler's side of subgraph ops (Note [Subgraph ops] in
``ge.custom_op.subgraphs``): each subgraph of a node becomes a
``CompiledSubgraph``, which compiles the graph once per input signature
with the parent's compile function (same session cache, options and
variables; a subgraph's own subgraph ops recurse) and runs a plan on the
addresses of the tensors an op's callback hands it.

The plan writes the caller's output tensors directly (they are bound as
the plan's graph outputs, as a run's output buffers are), so a branch costs
no copy beyond what a plan makes for any graph (an output that is one of
the subgraph's inputs is copied, as a graph output read from a graph input
is).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from ge.custom_op.contexts import EagerOpExecutionContext
from ge.custom_op.subgraphs import Subgraph, SubgraphTable
from ge.device import rt
from ge.engine.compiled import CompiledGraph
from ge.engine.errors import CompileError
from ge.graph.graph import Graph, Node, TensorMeta
from ge.graph.graph_edit import is_vacant
from ge.graph.types import DataType
from ge.runtime.tensor import Tensor
from ge.runtime.types import TensorDesc

CompileFn = Callable[[Graph, Sequence[TensorMeta]], CompiledGraph]
_Key = tuple[tuple[DataType, tuple[int, ...]], ...]


def _key(metas: Sequence[TensorMeta]) -> _Key:
    return tuple((m.dtype, tuple(m.shape or ())) for m in metas)


def _describe(key: _Key) -> str:
    return ", ".join(f"{d.spec_name}{list(s)}" for d, s in key) or "no inputs"


class CompiledSubgraph(Subgraph):
    """One subgraph of one node, compiled per input signature."""

    def __init__(self, graph: Graph, owner: str, slot: str, compile: CompileFn):
        self._graph = graph
        self._what = f"{owner}: subgraph '{slot}' (graph '{graph.name}')"
        self._compile = compile
        self._plans: dict[_Key, CompiledGraph] = {}
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._graph.name

    @property
    def input_num(self) -> int:
        try:
            return len(self._graph.graph_inputs())
        except ValueError as exc:
            raise CompileError(f"{self._what}: {exc}") from None

    def plan(self, metas: Sequence[TensorMeta]) -> CompiledGraph:
        """The subgraph compiled for inputs ``metas`` (once per signature)."""
        key = _key(metas)
        plan = self._plans.get(key)
        if plan is not None:
            return plan
        with self._lock:
            plan = self._plans.get(key)
            if plan is None:
                try:
                    plan = self._compile(self._graph, list(metas))
                except CompileError as exc:
                    raise CompileError(
                        f"{self._what}, compiled for inputs ({_describe(key)}): {exc}"
                    ) from None
                self._plans[key] = plan
        return plan

    def infer(self, inputs: Sequence[TensorDesc]) -> list[TensorDesc]:
        metas = []
        for i, desc in enumerate(inputs):
            if not isinstance(desc, TensorDesc):
                raise TypeError(
                    f"{self._what}: input {i} must be a TensorDesc, got "
                    f"{type(desc).__name__}"
                )
            metas.append(
                TensorMeta(tuple(desc.shape.origin_shape.dims), desc.data_type)
            )
        plan = self.plan(metas)
        return [TensorDesc(list(m.shape or ()), m.dtype) for m in plan.output_metas]

    def run(self, inputs: Sequence[Tensor], outputs: Sequence[Tensor]) -> None:
        plan = self.plan(
            [_meta(self._what, "input", i, t) for i, t in enumerate(inputs)]
        )
        if len(outputs) != len(plan.output_metas):
            raise ValueError(
                f"{self._what} has {len(plan.output_metas)} output(s), got "
                f"{len(outputs)} output tensors"
            )
        for j, (tensor, want) in enumerate(zip(outputs, plan.output_metas)):
            got = _meta(self._what, "output", j, tensor)
            if got.dtype is not want.dtype or got.shape != tuple(want.shape or ()):
                raise ValueError(
                    f"{self._what}: output {j} is {want.describe()}, the tensor "
                    f"given for it is {got.describe()}"
                )
        regions = rt.CALLBACK.get()
        context = None if regions is None else regions.context
        stream = (  # the calling execute's stream, when there is one
            context.get_stream()
            if isinstance(context, EagerOpExecutionContext)
            else rt.DEFAULT_STREAM
        )
        plan.run_at([t.addr for t in inputs], [t.addr for t in outputs], stream)


def _meta(what: str, kind: str, index: int, tensor: object) -> TensorMeta:
    if not isinstance(tensor, Tensor):
        raise TypeError(
            f"{what}: {kind} {index} must be a ge.runtime.Tensor, got "
            f"{type(tensor).__name__}"
        )
    return TensorMeta(tuple(tensor.storage_shape.dims), tensor.data_type)


def subgraphs_of(node: Node, label: str, compile: CompileFn) -> SubgraphTable:
    """The node's subgraphs as its callbacks receive them (empty slots left
    by ``remove_subgraph`` are refused: the node cannot run without them)."""
    table: dict[str, list[Subgraph]] = {}
    for slot, graphs in node.subgraphs.items():
        for g in graphs:
            if is_vacant(g):
                raise CompileError(
                    f"{label}: its subgraph '{g.name}' (slot '{slot}') was removed "
                    "(remove_subgraph); add_subgraph a graph of that name first"
                )
        table[slot] = [CompiledSubgraph(g, label, slot, compile) for g in graphs]
    return SubgraphTable(node.name, table)
