"""``ge.es.all``: every built-in op under one module, as GE's generated
``es_all`` package offers them (its samples fall back to
``from ge.es.all import Conv2D``). The same functions as ``ge.es.math``
(Note [Built-in ops] in ge.custom_op.builtin).
"""

from __future__ import annotations

import importlib
from typing import Any

# generated code, imported by name (it is not under mypy's eye)
_math: Any = importlib.import_module("ge.es.math")
__all__ = list(_math.__all__)
globals().update({name: getattr(_math, name) for name in __all__})
