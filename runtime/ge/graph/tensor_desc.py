"""``ge.graph.TensorDesc`` and ``ge.graph.Shape``: a tensor's metadata as a
graph pass reads and writes it (GE's ge/graph/tensor_desc.py names).

A TensorDesc is a value the pass owns: ``Node.get_input_desc`` and
``get_output_desc`` hand out a copy of what the node holds, and
``update_input_desc`` / ``update_output_desc`` write one back
(Note [Tensor descs of a node] in ge/graph/node_desc.py). Setters return the
desc itself, so calls chain as in GE.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ge.graph.types import DataType, Format

__all__ = [
    "Shape",
    "TensorDesc",
    "UNKNOWN_DIM",
    "UNKNOWN_DIM_NUM",
    "UNKNOWN_DIM_SIZE",
]

UNKNOWN_DIM = -1  # a dim not known before running
UNKNOWN_DIM_NUM = -2  # the shape [-2]: not even the rank is known
UNKNOWN_DIM_SIZE = -1  # get_shape_size of a shape with an unknown dim


def _dims(value: Any, what: str) -> list[int]:
    if value is None:
        return []
    if not isinstance(value, (list, tuple)) or not all(
        isinstance(d, int) and not isinstance(d, bool) for d in value
    ):
        raise TypeError(
            f"{what} must be a list of ints (None or [] for a scalar), got {value!r}"
        )
    return [int(d) for d in value]


class Shape(list[int]):
    """A list of dims with GE's two queries; ``[]`` is a scalar."""

    def __init__(self, dims: Iterable[int] | None = None) -> None:
        super().__init__(_dims(None if dims is None else list(dims), "dims"))

    def get_shape_size(self) -> int:
        """The element count: 0 for a scalar (as GE), UNKNOWN_DIM_SIZE when
        a dim is unknown."""
        if not self:
            return 0
        if self.is_unknown_shape():
            return UNKNOWN_DIM_SIZE
        size = 1
        for dim in self:
            size *= dim
        return size

    def is_unknown_shape(self) -> bool:
        return any(d in (UNKNOWN_DIM, UNKNOWN_DIM_NUM) for d in self)


def _check_format(value: object) -> Format:
    if not isinstance(value, Format):
        raise TypeError(f"format must be a ge.graph.Format, got {value!r}")
    return value


def _check_dtype(value: object) -> DataType:
    if not isinstance(value, DataType):
        raise TypeError(f"data_type must be a ge.graph.DataType, got {value!r}")
    return value


class TensorDesc:
    """Shape, origin shape, format, origin format and data type of a tensor.
    ``TensorDesc([1, 3, 8, 8], Format.FORMAT_NCHW, DataType.DT_FLOAT)``; the
    origin shape and format start equal to the shape and format."""

    __slots__ = ("_shape", "_origin_shape", "_format", "_origin_format", "_dtype")

    def __init__(
        self,
        shape: list[int] | None = None,
        format: Format = Format.FORMAT_ND,
        data_type: DataType = DataType.DT_FLOAT,
    ) -> None:
        self._shape = Shape(_dims(shape, "shape"))
        self._origin_shape = Shape(self._shape)
        self._format = _check_format(format)
        self._origin_format = self._format
        self._dtype = _check_dtype(data_type)

    def __repr__(self) -> str:
        return (
            f"TensorDesc(shape={list(self._shape)}, format={self._format}, "
            f"data_type={self._dtype})"
        )

    def __copy__(self) -> TensorDesc:
        raise RuntimeError("TensorDesc does not support copy (as GE's)")

    def __deepcopy__(self, memo: object) -> TensorDesc:
        raise RuntimeError("TensorDesc does not support deepcopy (as GE's)")

    @property
    def shape(self) -> Shape:
        return self.get_shape()

    @property
    def origin_shape(self) -> Shape:
        return self.get_origin_shape()

    @property
    def format(self) -> Format:
        return self._format

    @property
    def origin_format(self) -> Format:
        return self._origin_format

    @property
    def data_type(self) -> DataType:
        return self._dtype

    def get_shape(self) -> Shape:
        return Shape(self._shape)

    def set_shape(self, shape: list[int]) -> TensorDesc:
        self._shape = Shape(_dims(shape, "shape"))
        return self

    def get_origin_shape(self) -> Shape:
        return Shape(self._origin_shape)

    def set_origin_shape(self, shape: list[int]) -> TensorDesc:
        self._origin_shape = Shape(_dims(shape, "origin shape"))
        return self

    def get_format(self) -> Format:
        return self._format

    def set_format(self, format: Format) -> TensorDesc:
        self._format = _check_format(format)
        return self

    def get_origin_format(self) -> Format:
        return self._origin_format

    def set_origin_format(self, format: Format) -> TensorDesc:
        self._origin_format = _check_format(format)
        return self

    def get_data_type(self) -> DataType:
        return self._dtype

    def set_data_type(self, data_type: DataType) -> TensorDesc:
        self._dtype = _check_dtype(data_type)
        return self
