"""``ge.es.all``: every built-in op under one module, as GE's generated
``es_all`` package offers them (its samples fall back to
``from ge.es.all import Conv2D``). The same functions as ``ge.es.math``
(Note [Built-in ops] in ge.custom_op.builtin).
"""

from __future__ import annotations

import ge.es.math as _math
from ge.es.math import *  # noqa: F401,F403  (the library's __all__)

__all__ = list(_math.__all__)
