"""Subgraphs as an op's callbacks see them: compiled graphs they can run.

Note [Subgraph ops]: a node may carry subgraphs (REG_OP's ``GRAPH`` and
``DYNAMIC_GRAPH``: IfCustom's branches, CaseCustom's list of them). The
compiler hands each one to the node's ``infer_meta`` and ``execute`` as a
``Subgraph`` (``get_infer_meta_ctx().get_subgraph(name)``,
``get_execute_ctx().get_subgraph(name)``; a dynamic graph through
``get_dynamic_subgraph_num`` / ``get_dynamic_subgraph``): ``infer`` compiles
it for its inputs' shapes and dtypes and says what it returns, ``run``
runs that plan on the callback's tensors, writing straight into the
tensors it is given (the node's own outputs, usually). A subgraph's inputs
are its Data nodes by ``index`` (0 .. n-1, as a graph's are); what an op
passes them is the op's rule (IfCustom and CaseCustom pass their dynamic
``input``). Plans are compiled once per input signature, recursively (a
subgraph's own subgraph ops compile theirs), with the parent's session,
options and variables; ``ge.engine.subgraphs`` is the compiler's side.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence

from ge.runtime.tensor import Tensor
from ge.runtime.types import TensorDesc

__all__ = ["Subgraph", "SubgraphTable"]


class Subgraph(abc.ABC):
    """One subgraph of a node, compiled by the runtime on demand."""

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """The subgraph's graph name."""

    @property
    @abc.abstractmethod
    def input_num(self) -> int:
        """How many Data nodes (inputs) the subgraph has."""

    @abc.abstractmethod
    def infer(self, inputs: Sequence[TensorDesc]) -> list[TensorDesc]:
        """The subgraph's outputs for inputs described by ``inputs``
        (compiling it for them; CompileError naming the node, the subgraph
        and what is wrong)."""

    @abc.abstractmethod
    def run(self, inputs: Sequence[Tensor], outputs: Sequence[Tensor]) -> None:
        """Run the subgraph on ``inputs``, writing its outputs into
        ``outputs`` (tensors of the shapes and dtypes ``infer`` gives)."""

    def __call__(self, inputs: Sequence[Tensor], outputs: Sequence[Tensor]) -> None:
        self.run(inputs, outputs)


class SubgraphTable:
    """A node's subgraphs by IR name, as its contexts hand them out."""

    def __init__(
        self, node_name: str, graphs: Mapping[str, Sequence[Subgraph]]
    ) -> None:
        self._node = node_name
        self._graphs = {name: tuple(gs) for name, gs in graphs.items()}

    def __bool__(self) -> bool:
        return bool(self._graphs)

    def names(self) -> list[str]:
        """The IR names of the node's subgraphs, in IR order."""
        return list(self._graphs)

    def _slot(self, name: str) -> tuple[Subgraph, ...]:
        if not isinstance(name, str):
            raise TypeError(f"a subgraph name is a str, got {type(name).__name__}")
        if name not in self._graphs:
            known = ", ".join(repr(n) for n in self._graphs) or "none"
            raise KeyError(
                f"node '{self._node}' has no subgraph '{name}' (its subgraphs: {known})"
            )
        return self._graphs[name]

    def get(self, name: str) -> Subgraph:
        graphs = self._slot(name)
        if len(graphs) != 1:
            raise ValueError(
                f"node '{self._node}': subgraph '{name}' holds {len(graphs)} "
                "graphs; use get_dynamic_subgraph(name, index)"
            )
        return graphs[0]

    def count(self, name: str) -> int:
        return len(self._slot(name))

    def dynamic(self, name: str, index: int) -> Subgraph:
        graphs = self._slot(name)
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"index must be an int, got {type(index).__name__}")
        if not 0 <= index < len(graphs):
            raise IndexError(
                f"node '{self._node}': subgraph '{name}' index {index} out of range "
                f"({len(graphs)} graphs)"
            )
        return graphs[index]


NO_SUBGRAPHS = SubgraphTable("", {})
