"""GE's enumerations (the table lives in ``ge_ir.types``, shared with
gen-ops)."""

from ge_ir import types as _table
from ge_ir.types import *  # noqa: F403 - the public names, re-exported

__all__ = list(_table.__all__)
