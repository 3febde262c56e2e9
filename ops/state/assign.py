"""Assign: ref = value, in place (GE's state op; Note [Variables] in
ge.engine.variables says how a variable's memory is the session's).

The output ``ref`` is the input ``ref``'s memory (make_output_ref_input),
so the copy lands in the variable itself. Bytes are copied, so every
fixed-size dtype is one code path; strings (pointers to data the CPU
device does not own per tensor) are refused in infer_meta, as is a value
of another shape (GE's Assign does not broadcast).
"""

from __future__ import annotations

import ctypes

from ge_impl.state.assign import AssignBase

from ge.custom_op import get_execute_ctx, register_op_impl
from ge.graph import DataType
from ge.runtime import Tensor, TensorDesc


def _known(dims: list[int]) -> bool:
    return all(d >= 0 for d in dims)


@register_op_impl(op_type=AssignBase.OP_TYPE)
class Assign(AssignBase):
    """Copies value's bytes into ref's memory."""

    @staticmethod
    def infer_meta(
        ref: TensorDesc,
        value: TensorDesc,
        *,
        validate_shape: bool,
        use_locking: bool,
    ) -> TensorDesc:
        if ref.data_type is DataType.DT_STRING:
            raise ValueError(
                "Assign of string tensors is not supported on the CPU device; "
                "assign a fixed-size dtype"
            )
        ref_dims = ref.shape.origin_shape.dims
        value_dims = value.shape.origin_shape.dims
        if _known(ref_dims) and _known(value_dims) and ref_dims != value_dims:
            raise ValueError(
                f"Assign: value has shape {value_dims} but ref has shape {ref_dims}; "
                "Assign does not broadcast (give value ref's shape)"
            )
        return TensorDesc(ref_dims, ref.data_type)

    def execute(
        self,
        ref: Tensor,
        value: Tensor,
        *,
        validate_shape: bool,
        use_locking: bool,
    ) -> None:
        out = get_execute_ctx().make_output_ref_input(0, 0)
        if out.size:
            ctypes.memmove(out.addr, value.addr, out.size)
