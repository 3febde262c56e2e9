"""``TensorHolder``: one output of a node while a graph is being built."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ge.graph.types import DataType, Format

if TYPE_CHECKING:
    from ge.es.graph_builder import GraphBuilder
    from ge.graph.graph import Node, TensorMeta

__all__ = ["TensorHolder"]


class TensorHolder:
    """A node output (or, at index -1, a node with no outputs) of a builder.

    Made by GraphBuilder and generated builder functions, never directly. The
    setters describe the tensor and return the holder, so they chain.
    """

    __slots__ = ("_builder", "_node", "_index")
    _builder: GraphBuilder
    _node: Node
    _index: int

    def __init__(self, *_: object) -> None:
        raise TypeError("TensorHolder is created by GraphBuilder and op functions")

    @classmethod
    def _create(cls, builder: GraphBuilder, node: Node, index: int) -> TensorHolder:
        holder = object.__new__(cls)
        holder._builder = builder
        holder._node = node
        holder._index = index
        return holder

    @property
    def name(self) -> str:
        """The name of the node that produces this tensor."""
        return self._node.name

    @property
    def index(self) -> int:
        return self._index

    @property
    def node(self) -> Node:
        return self._node

    def _meta(self) -> TensorMeta:
        self._builder._check_usable()
        if self._index < 0:
            raise ValueError(f"node {self._node.name!r} has no data output")
        return self._node.outputs[self._index]

    @property
    def data_type(self) -> DataType:
        return self._meta().dtype

    @property
    def shape(self) -> list[int] | None:
        shape = self._meta().shape
        return None if shape is None else list(shape)

    @property
    def format(self) -> Format:
        return self._meta().format

    def set_data_type(self, data_type: DataType) -> TensorHolder:
        if not isinstance(data_type, DataType):
            raise TypeError(
                f"set_data_type expects a DataType, got {type(data_type).__name__}"
            )
        if data_type in (DataType.DT_MAX, DataType.DT_UNDEFINED):
            raise ValueError(f"{data_type.name} is not a data type")
        self._meta().dtype = data_type
        return self

    def set_format(self, format: Format) -> TensorHolder:
        if not isinstance(format, Format):
            raise TypeError(f"set_format expects a Format, got {type(format).__name__}")
        self._meta().format = format
        return self

    def set_shape(self, shape: Sequence[int]) -> TensorHolder:
        if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence):
            raise TypeError(
                f"set_shape expects a list of ints, got {type(shape).__name__}"
            )
        dims = []
        for dim in shape:
            if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
                raise TypeError(f"shape dims must be ints, got {type(dim).__name__}")
            if dim < -2:
                raise ValueError(f"invalid dim {dim} (use -1 for unknown)")
            dims.append(int(dim))
        self._meta().shape = tuple(dims)
        return self

    def get_owner_builder(self) -> GraphBuilder:
        return self._builder

    def __repr__(self) -> str:
        return f"TensorHolder({self._node.name}:{self._index})"
