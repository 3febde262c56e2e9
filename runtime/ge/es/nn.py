"""``ge.es.nn``: the built-in ops GE's ES packages put in ``ge.es.nn`` (the
ops-nn library: ``Relu``, ``Conv2D``, ``BatchMatMulV2``, ``GEMM``), so code
written for GE (its fusion-pass samples: ``from ge.es.nn import Relu``)
imports them unchanged. They are the built-in library's functions
(``ge.es.math``, Note [Built-in ops] in ge.custom_op.builtin): one op, one
builder, under both names.
"""

from __future__ import annotations

import importlib
from typing import Any

# generated code, imported by name (it is not under mypy's eye)
_math: Any = importlib.import_module("ge.es.math")
GEMM = _math.GEMM
BatchMatMulV2 = _math.BatchMatMulV2
Conv2D = _math.Conv2D
Relu = _math.Relu

__all__ = ["BatchMatMulV2", "Conv2D", "GEMM", "Relu"]
