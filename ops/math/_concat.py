"""Concat and ConcatV2's shared rule: the joined shape, checked."""

from __future__ import annotations

from ge.runtime import TensorDesc

from ._host import axis_of


def joined(op_type: str, x: list[TensorDesc], value: object, n: int) -> TensorDesc:
    """y's desc: x's tensors joined along the axis ``value`` names."""
    if not x:
        raise ValueError(f"{op_type}: x has no tensors")
    if n != len(x):
        raise ValueError(
            f"{op_type}: attr N is {n} but x has {len(x)} tensors; pass N=len(x)"
        )
    first = list(x[0].shape.origin_shape.dims)
    axis = axis_of(op_type, "concat_dim", value, len(first))
    for i, desc in enumerate(x):
        dims = list(desc.shape.origin_shape.dims)
        if desc.data_type != x[0].data_type:
            raise ValueError(
                f"{op_type}: x[{i}] is {desc.data_type.spec_name}, x[0] "
                f"{x[0].data_type.spec_name}; all tensors need one dtype"
            )
        if len(dims) != len(first) or any(
            a != b for d, (a, b) in enumerate(zip(dims, first)) if d != axis
        ):
            raise ValueError(
                f"{op_type}: x[{i}] has shape {dims} and x[0] {first}: they may "
                f"differ only in dim {axis} (concat_dim)"
            )
    out = list(first)
    out[axis] = sum(d.shape.origin_shape.dims[axis] for d in x)
    return TensorDesc(out, x[0].data_type)
