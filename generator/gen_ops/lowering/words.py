"""The words generated text says of an op: a dtype constraint, a type
variable's range, and a parameter's history across releases.

The builder's docstring, the reference page and the comment above REG_OP
say these things the same way; each lowering takes them from here, never
from another lowering.
"""

from __future__ import annotations

from gen_ops.lowering.call_shapes import CallShape, ParamHistory
from gen_ops.spec.model import DtypeConstraint, TypeVar, TypeVarKind


def dtype_words(dtype: DtypeConstraint) -> str:
    """``T: float32, float16`` / ``NumberType`` / ``float32`` for docs."""
    if dtype.var is not None:
        return f"{dtype.var.name}: {type_var_words(dtype.var)}"
    return dtype.written.words() if dtype.written is not None else ""


def type_var_words(var: TypeVar) -> str:
    """A type variable's range in words: ``float32, float16``, ``list of
    BasicType``, ``promotion of T1, T2``."""
    if var.kind is TypeVarKind.PROMOTE:
        return "promotion of " + ", ".join(var.promote)
    words = var.written.words()
    return f"list of {words}" if var.kind is TypeVarKind.LIST else words


def history_words(calls: CallShape, item: ParamHistory, every: bool = False) -> str:
    """What a parameter's history says to a caller: since when it is
    there (with ``every``, also when it was in the op's first recorded
    release), deprecated, and the earlier names it still takes."""
    words = []
    if calls.recorded and (every or item.since != calls.first):
        lead = "Since" if item.since is not None else "New in"
        words.append(f"{lead} {calls.release_words(item.since)}.")
    if item.deprecated:
        words.append(f"Deprecated since release {item.deprecated}.")
    for alias in item.aliases:
        words.append(
            f"Renamed from {alias.old} in release {alias.release} (the old "
            "keyword still works, with a DeprecationWarning)."
        )
    return " ".join(words)
