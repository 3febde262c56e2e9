"""WhereLikeCustom: an op whose output shape depends on its input's values
(GE's data_dependent_shape_custom sample, a "type III" op).

``x`` is bool[N]; ``y`` is int64[true_count, rank(x)], the indices of x's
true elements. infer_meta can give only [-1, rank]; execute allocates the
upper bound [N, rank], takes a shape buffer as its first workspace, runs the
kernel (which writes the indices and the shape buffer: dim count, then the
dims, as GE's sample does) and writes the real shape into ``y``'s shape.
The kernel is Python here (numpy on the tensors' memory); a C kernel
launched with ``rt.launch`` works the same way.
"""

from __future__ import annotations

import ctypes

import numpy as np

import ge.es._op_api as _api
from ge.custom_op import get_execute_ctx, register_op, register_op_impl
from ge.es import TensorHolder
from ge.graph import DataType
from ge.runtime import Shape, Tensor, TensorDesc

SHAPE_BUFFER_WORDS = 3  # [dim count = 2, true_count, rank]


@register_op(op_type="WhereLikeCustom")
def where_like_infer_meta(x: TensorDesc) -> TensorDesc:
    """[unknown, rank(x)]: the first dim is known only when the op runs."""
    rank = len(x.shape.origin_shape.dims)
    return TensorDesc([-1, rank], DataType.DT_INT64)


def _array(addr: int, count: int, dtype: type) -> np.ndarray:
    size = count * np.dtype(dtype).itemsize
    raw = (ctypes.c_char * max(size, 1)).from_address(addr)
    return np.frombuffer(raw, dtype=dtype, count=count)


def where_like_kernel(
    x_addr: int, y_addr: int, shape_addr: int, n: int, dims: list[int]
) -> None:
    """The 'device' kernel: indices of the true elements, and the shape buffer."""
    x = _array(x_addr, n, np.bool_).reshape(dims)
    found = np.argwhere(x).astype(np.int64)  # [true_count, rank]
    _array(y_addr, found.size, np.int64)[:] = found.reshape(-1)
    _array(shape_addr, SHAPE_BUFFER_WORDS, np.uint64)[:] = [
        2,
        found.shape[0],
        len(dims),
    ]


@register_op_impl(op_type="WhereLikeCustom")
class WhereLikeCustom:
    def execute(self, x: Tensor) -> None:
        ctx = get_execute_ctx()
        n = x.shape_size
        rank = len(x.origin_shape.dims)
        y = ctx.malloc_output_tensor(0, [n, rank], x.format, DataType.DT_INT64)
        shape_buffer = ctx.malloc_workspace(SHAPE_BUFFER_WORDS * 8)
        where_like_kernel(x.addr, y.addr, shape_buffer, n, x.origin_shape.dims)
        words = _array(shape_buffer, SHAPE_BUFFER_WORDS, np.uint64)
        if int(words[0]) != 2:
            raise ValueError(f"invalid output dim count {int(words[0])}")
        real = Shape([int(d) for d in words[1 : 1 + int(words[0])]])
        y.shape.set_origin_shape(real)
        y.shape.set_storage_shape(real)


# The graph builder (what gen_esb makes from a REG_OP; written here by hand).
_OP = _api.OpDef(
    "WhereLikeCustom",
    inputs=(_api.Input("x", "bool"),),
    outputs=(_api.Output("y", "int64"),),
)


def WhereLike(x: TensorHolder, *, name: str | None = None) -> TensorHolder:
    """Indices of x's true elements, int64[true_count, rank(x)]."""
    return _OP.build(inputs={"x": x}, name=name)
