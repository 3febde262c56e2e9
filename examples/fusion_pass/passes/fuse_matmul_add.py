"""MatMul followed by Add of a bias becomes one MatMul with its bias input
(GE's FuseMatMulAndAddPass sample, which fuses into GEMM; the CPU math
library's MatMul takes the bias itself). Written with @pattern: the
pattern and the replacement are ES expressions."""

from __future__ import annotations

from typing import Any

from ge.es import TensorHolder
from ge.es.math import MatMul
from ge.passes import (
    MatchResult,
    PassStage,
    PatternFusionPass,
    pattern,
    register_fusion_pass,
)


@register_fusion_pass(name="FuseMatMulAndAddPass", stage=PassStage.AFTER_INFER_SHAPE)
class FuseMatMulAndAddPass(PatternFusionPass):
    @pattern
    def matmul_add(self, inputs: Any) -> TensorHolder:
        a, b, c = inputs[:3]
        return MatMul(a, b) + c

    def meet_requirements(self, match_result: MatchResult) -> bool:
        # After shape inference: the bias must be one value per output
        # column ([N]), which is what MatMul's bias input adds.
        # @pattern captures the inputs a, b, c (0, 1, 2), then the output (3).
        bias, out = (match_result.get_captured_tensor(i) for i in (2, 3))
        c = bias.node.outputs[bias.index].shape
        n = out.node.outputs[out.index].shape
        return n is not None and c is not None and len(c) == 1 and c[0] == n[-1]

    def replacement(self, inputs: Any, match_result: MatchResult) -> TensorHolder:
        a, b, c = inputs[:3]
        (matmul,) = [n for n in match_result.get_matched_nodes() if n.type == "MatMul"]
        return MatMul(
            a,
            b,
            c,
            transpose_x1=bool(matmul.attrs.get("transpose_x1", (None, False))[1]),
            transpose_x2=bool(matmul.attrs.get("transpose_x2", (None, False))[1]),
        )
