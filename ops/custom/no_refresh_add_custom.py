"""NoRefreshAddCustom: the implementation.

gen-ops wrote this file once, from the op's spec, and will not touch it again.
The prototype and NoRefreshAddCustomBase (the schema-bound signatures) are generated in
ge_impl.custom.no_refresh_add_custom; regenerate them with gen-ops after editing the spec.
"""

from __future__ import annotations

from ge.custom_op import register_op_impl
from ge.runtime import Tensor, TensorDesc
from ge_impl.custom.no_refresh_add_custom import NoRefreshAddCustomBase


@register_op_impl(op_type=NoRefreshAddCustomBase.OP_TYPE)
class NoRefreshAddCustom(NoRefreshAddCustomBase):
    """Implements NoRefreshAddCustom."""

    def execute(
        self,
        x1: Tensor,
        x2: Tensor,
    ) -> None:
        raise NotImplementedError("NoRefreshAddCustom.execute")
