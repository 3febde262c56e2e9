"""The implementations of six ops of legacy_ops.h (the author's module).

gen-ops generates ``ge_impl.legacy.<op>`` from the imported specs with
additions.yaml's entries: each op's prototype (its ``infer_meta``) and a base
class with the exact ``execute`` signature GE checks. These subclasses
compute in numpy on the CPU device. run.py loads this file through
ASCEND_CUSTOM_OPP_PATH, with the generated package on PYTHONPATH.
"""

from __future__ import annotations

import numpy as np
from ge_impl.legacy._legacy_identity import _LegacyIdentityBase
from ge_impl.legacy.legacy_add_n import LegacyAddNBase
from ge_impl.legacy.legacy_assign_add import LegacyAssignAddBase
from ge_impl.legacy.legacy_mul import LegacyMulBase
from ge_impl.legacy.legacy_relu import LegacyReluBase
from ge_impl.legacy.legacy_scale import LegacyScaleBase

from ge.custom_op import get_execute_ctx, register_op_impl
from ge.graph import DataType
from ge.graph.numpy_dtypes import to_numpy_dtype
from ge.runtime import Tensor, TensorDesc
from ge_ir.promotion import promote_pair


def _store(index: int, like: Tensor, data: np.ndarray, dtype: DataType) -> None:
    """Allocate output ``index`` (the shape and dtype infer_meta gave) and fill it."""
    out = get_execute_ctx().malloc_output_tensor(
        index, list(data.shape), like.format, dtype
    )
    out.copy_from(np.ascontiguousarray(data, dtype=to_numpy_dtype(dtype)))


@register_op_impl(op_type=LegacyScaleBase.OP_TYPE)
class LegacyScale(LegacyScaleBase):
    """y = x * alpha + beta, in the dtype of x."""

    def execute(self, x: Tensor, *, alpha: float, beta: float) -> None:
        data = x.numpy()
        _store(0, x, data * data.dtype.type(alpha) + data.dtype.type(beta), x.data_type)


@register_op_impl(op_type=LegacyMulBase.OP_TYPE)
class LegacyMul(LegacyMulBase):
    """x1 * x2 in the dtype the two promote to (GE's table, ge_ir.promotion)."""

    def execute(self, x1: Tensor, x2: Tensor) -> None:
        dtype = promote_pair(x1.data_type, x2.data_type)
        assert dtype is not None  # the builder refused pairs without one
        target = to_numpy_dtype(dtype)
        _store(0, x1, x1.numpy().astype(target) * x2.numpy().astype(target), dtype)


@register_op_impl(op_type=LegacyReluBase.OP_TYPE)
class LegacyRelu(LegacyReluBase):
    """max(x, 0)."""

    def execute(self, x: Tensor) -> None:
        data = x.numpy()
        _store(0, x, np.maximum(data, data.dtype.type(0)), x.data_type)


@register_op_impl(op_type=LegacyAddNBase.OP_TYPE)
class LegacyAddN(LegacyAddNBase):
    """The sum of the instances of x. The spec gives y's shape (broadcast);
    its dtype, which REG_OP's NumberType leaves open, is the instances'."""

    @staticmethod
    def infer_dtypes(x: list[TensorDesc], *, N: int) -> DataType:
        if len(x) != N:
            raise ValueError(f"LegacyAddN: N is {N}, x has {len(x)} tensor(s)")
        dtypes = {desc.data_type for desc in x}
        if len(dtypes) != 1:
            raise ValueError("LegacyAddN: the tensors of x differ in dtype")
        return x[0].data_type

    def execute(self, x: list[Tensor], *, N: int) -> None:
        total = x[0].numpy().copy()
        for tensor in x[1:]:
            total = total + tensor.numpy()
        _store(0, x[0], total, x[0].data_type)


@register_op_impl(op_type=LegacyAssignAddBase.OP_TYPE)
class LegacyAssignAdd(LegacyAssignAddBase):
    """ref += value, in place: the output is the input's memory (GE's ref pair)."""

    def execute(self, ref: Tensor, value: Tensor, *, use_locking: bool) -> None:
        out = get_execute_ctx().make_output_ref_input(0, 0)  # ref's own memory
        out.copy_from(ref.numpy() + value.numpy())


@register_op_impl(op_type=_LegacyIdentityBase.OP_TYPE)
class _LegacyIdentity(_LegacyIdentityBase):
    """y = x."""

    def execute(self, x: Tensor) -> None:
        _store(0, x, x.numpy(), x.data_type)
