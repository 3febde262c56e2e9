"""``TensorHolder``: one output of a node while a graph is being built."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ge.es.tensor_like import _number_kind
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

    def _get_node_snapshot(self) -> Node:
        """The node that produces this tensor, as GE's samples reach it to
        update its tensor descs (Node.update_input_desc/update_output_desc)."""
        self._builder._check_usable()
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

    # -- arithmetic (Note [TensorHolder arithmetic]) -------------------------

    def add(self, other: TensorHolder | TensorLike) -> TensorHolder:
        """``self + other`` element-wise (the math library's Add)."""
        return _arith(self, other, "Add", "add", reflected=False)

    def sub(self, other: TensorHolder | TensorLike) -> TensorHolder:
        """``self - other`` element-wise (Sub)."""
        return _arith(self, other, "Sub", "sub", reflected=False)

    def mul(self, other: TensorHolder | TensorLike) -> TensorHolder:
        """``self * other`` element-wise (Mul)."""
        return _arith(self, other, "Mul", "mul", reflected=False)

    def div(self, other: TensorHolder | TensorLike) -> TensorHolder:
        """``self / other`` element-wise (Div: integers truncate toward zero)."""
        return _arith(self, other, "Div", "div", reflected=False)

    def __add__(self, other: object) -> Any:
        return _operator(self, other, "Add", "+", reflected=False)

    def __radd__(self, other: object) -> Any:
        return _operator(self, other, "Add", "+", reflected=True)

    def __sub__(self, other: object) -> Any:
        return _operator(self, other, "Sub", "-", reflected=False)

    def __rsub__(self, other: object) -> Any:
        return _operator(self, other, "Sub", "-", reflected=True)

    def __mul__(self, other: object) -> Any:
        return _operator(self, other, "Mul", "*", reflected=False)

    def __rmul__(self, other: object) -> Any:
        return _operator(self, other, "Mul", "*", reflected=True)

    def __truediv__(self, other: object) -> Any:
        return _operator(self, other, "Div", "/", reflected=False)

    def __rtruediv__(self, other: object) -> Any:
        return _operator(self, other, "Div", "/", reflected=True)


# Note [TensorHolder arithmetic]: as GE's ES API (EsAdd/EsSub/EsMul/EsDiv),
# add/sub/mul/div and + - * / with the reflected forms build the math
# library's Add, Sub, Mul and Div nodes (ge.es.math, generated from
# specs/math_*.yaml, built into ge-ops: Note [Built-in ops] in
# ge.custom_op.builtin). A number or nested
# list on either side becomes a Const of the tensor's dtype (GE's rule: the
# scalar takes the tensor's type; the generated builder binds it to the
# type variable the tensor fixes), so ``x * 2`` on float16 multiplies by a
# float16 2 and ``1 - x`` on int32 subtracts from an int32 1. A tensor of
# another builder raises ValueError (GE: both operands must share a
# builder). Anything else makes the operator return NotImplemented, so
# Python raises its usual TypeError.

TensorLike = int | float | Sequence[Any]


def _math_op(op_type: str) -> Callable[..., TensorHolder]:
    try:
        module = importlib.import_module("ge.es.math")
    except ImportError as exc:
        raise ImportError(
            "TensorHolder arithmetic builds the built-in math ops: ge.es.math is "
            "not importable, so this ge-ops installation is incomplete; reinstall "
            "ge-ops"
        ) from exc
    op: Callable[..., TensorHolder] = getattr(module, op_type)
    return op


def _is_tensor_like(value: object) -> bool:
    return _number_kind(value) is not None or isinstance(value, (list, tuple))


def _arith(
    holder: TensorHolder, other: object, op_type: str, what: str, *, reflected: bool
) -> TensorHolder:
    if isinstance(other, TensorHolder):
        if other._builder is not holder._builder:
            raise ValueError(
                f"{what}: the operands belong to different graph builders "
                f"({holder!r} and {other!r}); both must come from one builder"
            )
    elif not _is_tensor_like(other):
        raise TypeError(
            f"{what}: expected a TensorHolder, a number or a list of numbers, "
            f"got {type(other).__name__}"
        )
    elif isinstance(other, (np.integer, np.floating)):
        other = other.item()
    op = _math_op(op_type)
    return op(other, holder) if reflected else op(holder, other)


def _operator(
    holder: TensorHolder, other: object, op_type: str, symbol: str, *, reflected: bool
) -> Any:
    if not isinstance(other, TensorHolder) and not _is_tensor_like(other):
        return NotImplemented
    return _arith(holder, other, op_type, f"'{symbol}'", reflected=reflected)
