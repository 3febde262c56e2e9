"""A recording graph builder: the runtime's GraphBuilder, which also keeps
what each node a builder function adds was given (its op type, its inputs
by IR name and its attrs), so that tests can compare how two builders bound
one call. It builds the real graph; it only watches."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ge.es import GraphBuilder, TensorHolder
from ge.graph.graph import Graph, IrInput, Node


@dataclass(frozen=True)
class Call:
    """One node as a builder asked for it: inputs by IR name (each the
    name of the node and the output that feeds it, None when absent, a
    tuple for a dynamic input), attrs by IR name."""

    op_type: str
    inputs: dict[str, Any]
    attrs: dict[str, Any]
    subgraphs: dict[str, tuple[str, ...]]  # graph parameter -> graph names


class RecordingBuilder(GraphBuilder):
    def __init__(self, name: str = "recorded") -> None:
        super().__init__(name)
        self.calls: list[Call] = []

    def _add_node(  # type: ignore[override]
        self,
        op_type: str,
        name: str | None,
        *,
        ir_inputs: tuple[IrInput, ...] = (),
        inputs: Sequence[TensorHolder | None] = (),
        attrs: Mapping[str, tuple[Any, Any]] | None = None,
        subgraphs: Mapping[str, tuple[Graph, ...]] | None = None,
        **rest: Any,
    ) -> Node:
        node = super()._add_node(
            op_type,
            name,
            ir_inputs=ir_inputs,
            inputs=inputs,
            attrs=attrs,
            subgraphs=subgraphs,
            **rest,
        )
        if op_type not in ("Const", "Data"):
            graphs = {k: tuple(g.name for g in v) for k, v in (subgraphs or {}).items()}
            self.calls.append(
                Call(op_type, _by_name(ir_inputs, inputs), _attrs(attrs), graphs)
            )
        return node


def _source(holder: TensorHolder | None) -> tuple[str, int] | None:
    return None if holder is None else (holder.name, holder.index)


def _by_name(
    ir_inputs: tuple[IrInput, ...], inputs: Sequence[TensorHolder | None]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    at = 0
    for ir in ir_inputs:
        slots = [_source(h) for h in inputs[at : at + ir.count]]
        at += ir.count
        out[ir.name] = tuple(slots) if ir.kind.value == "dynamic" else slots[0]
    return out


def _attrs(attrs: Mapping[str, tuple[Any, Any]] | None) -> dict[str, Any]:
    return {name: value for name, (_type, value) in (attrs or {}).items()}
