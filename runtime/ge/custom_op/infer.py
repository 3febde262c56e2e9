"""Helpers the generated ``infer_meta`` bodies call (spec infer_meta rules)."""

from __future__ import annotations

from collections.abc import Sequence

from ge.graph.types import DataType
from ge.runtime.types import TensorDesc
from ge_ir.promotion import promote as _promote

__all__ = ["same_as", "broadcast", "dtype_of", "dtypes_of", "promote", "output_count"]


def same_as(desc: TensorDesc) -> list[int]:
    """The origin dims of ``desc``."""
    return desc.shape.origin_shape.dims


def broadcast(*descs: TensorDesc | Sequence[TensorDesc] | None) -> list[int]:
    """NumPy-style broadcast of the origin shapes; absent (None) optional
    inputs are skipped and lists (dynamic inputs) contribute every instance."""
    shapes: list[list[int]] = []
    for item in descs:
        if item is None:
            continue
        if isinstance(item, TensorDesc):
            shapes.append(item.shape.origin_shape.dims)
        else:
            shapes.extend(d.shape.origin_shape.dims for d in item)
    if not shapes:
        raise ValueError("broadcast of no shapes")
    rank = max(len(s) for s in shapes)
    out = [1] * rank
    for shape in shapes:
        padded = [1] * (rank - len(shape)) + list(shape)
        for axis, dim in enumerate(padded):
            if dim == out[axis] or dim == 1:
                continue
            if out[axis] == 1:
                out[axis] = dim
            elif dim == -1 or out[axis] == -1:
                out[axis] = -1
            else:
                raise ValueError(f"shapes {shapes} do not broadcast (axis {axis})")
    return out


def dtype_of(descs: TensorDesc | Sequence[TensorDesc]) -> DataType:
    """The dtype of a tensor, or of every instance of a dynamic input."""
    if isinstance(descs, TensorDesc):
        return descs.data_type
    dtypes = {d.data_type for d in descs}
    if len(dtypes) != 1:
        raise ValueError(
            "a dynamic input needs one dtype across its instances, got "
            + (", ".join(sorted(d.name for d in dtypes)) or "no instances")
        )
    return dtypes.pop()


def dtypes_of(descs: Sequence[TensorDesc]) -> list[DataType]:
    """The dtype of each instance of a dynamic input (a list type variable:
    Note [Type variable kinds] in ge_ir/dtype_rules.py)."""
    return [d.data_type for d in descs]


def promote(*descs: TensorDesc | Sequence[TensorDesc]) -> DataType:
    """The promotion of the inputs' dtypes, left to right (Note [Type
    promotion] in ge_ir/promotion.py); each argument is an input of one of
    the variables promoted, a dynamic one's instances sharing a dtype."""
    dtypes = [dtype_of(d) for d in descs]
    result = _promote(dtypes)
    if result is None:
        raise ValueError(
            "no promoted dtype for " + ", ".join(d.spec_name for d in dtypes)
        )
    return result


def output_count(ir_index: int) -> int:
    """Instances of dynamic output ``ir_index`` of the node being inferred."""
    from ge.custom_op.contexts import get_infer_meta_ctx

    return get_infer_meta_ctx().get_dynamic_output_num(ir_index)
