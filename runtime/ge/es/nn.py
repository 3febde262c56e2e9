"""``ge.es.nn``: the built-in ops GE's ES packages put in ``ge.es.nn`` (the
ops-nn library: ``Relu``, ``Conv2D``, ``BatchMatMulV2``, ``GEMM``), so code
written for GE (its fusion-pass samples: ``from ge.es.nn import Relu``)
imports them unchanged. They are the built-in library's functions
(``ge.es.math``, Note [Built-in ops] in ge.custom_op.builtin): one op, one
builder, under both names.
"""

from __future__ import annotations

from ge.es.math import GEMM, BatchMatMulV2, Conv2D, Relu

__all__ = ["BatchMatMulV2", "Conv2D", "GEMM", "Relu"]
