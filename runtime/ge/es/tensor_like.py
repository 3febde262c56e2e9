"""TensorLike: Python numbers and (nested) lists that builders turn into consts.

Note [TensorLike constants]: GE's ``ge.es.tensor_like`` (the helpers its
generated builders import) converts a Python ``int`` to an int64 scalar
Const, a ``float`` to a float32 scalar Const and a nested list to a Const of
the list's shape, int64 unless any element is a float (then float32); an
empty list is int64 of shape [0]. ``convert_to_tensor_holder`` here does the
same. Two deliberate differences: ``bool`` (an ``int`` to Python, so GE makes
an int64 1 or 0) is a TypeError, as it is for TensorHolder arithmetic; and
numpy integer/float scalars count as ints/floats. Every literal goes through
``literal_array``, so an irregular nested list is one ValueError everywhere
(the builders' ``create_const_*``, the generated op builders and this).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

if TYPE_CHECKING:
    from ge.es.graph_builder import GraphBuilder
    from ge.es.tensor_holder import TensorHolder

__all__ = [
    "TensorLike",
    "convert_to_tensor_holder",
    "is_tensor_like",
    "literal_array",
    "resolve_builder",
]

TensorLike: TypeAlias = int | float | bool | Sequence["TensorLike"]


def is_tensor_like(value: object) -> bool:
    if isinstance(value, (bool, int, float, np.number, np.bool_)):
        return True
    if isinstance(value, np.ndarray):
        return True
    return isinstance(value, (list, tuple)) and all(is_tensor_like(v) for v in value)


def literal_array(value: object) -> np.ndarray:
    """The numpy array of a TensorLike; ValueError for ragged lists."""
    try:
        array = np.asarray(value)
    except ValueError as exc:
        raise ValueError(f"irregular nested list: {exc}") from None
    if array.dtype == object:
        raise ValueError("irregular nested list (rows of different lengths)")
    return array


def _number_kind(value: object) -> str | None:
    """'int' or 'float' for a Python/numpy number (not bool), else None."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    return None


def _has_float(value: list[Any], where: str) -> bool:
    """Whether a nested list holds a float; TypeError for any leaf that is
    not an int or a float (bool, str, None, tuples, ...)."""
    found = False
    for i, item in enumerate(value):
        if isinstance(item, list):
            found = _has_float(item, f"{where}[{i}]") or found
            continue
        kind = _number_kind(item)
        if kind is None:
            raise TypeError(
                f"convert_to_tensor_holder: {where}[{i}] is "
                f"{type(item).__name__} {item!r}; a TensorLike list holds only "
                "ints, floats and lists of them"
            )
        if kind == "int":
            _check_int64(item, f"{where}[{i}]")
        found = found or kind == "float"
    return found


def _check_int64(value: Any, where: str) -> None:
    if not -(2**63) <= int(value) < 2**63:
        raise ValueError(
            f"convert_to_tensor_holder: {where} = {value} does not fit in int64 "
            "(a TensorLike int becomes an int64 constant)"
        )


def convert_to_tensor_holder(
    value: TensorHolder | TensorLike | None, builder: GraphBuilder
) -> TensorHolder | None:
    """``value`` as a TensorHolder of ``builder`` (Note [TensorLike
    constants]): None and TensorHolders are returned as they are (a holder
    of another builder is a ValueError), numbers and nested lists become a
    Const node."""
    from ge.es.graph_builder import GraphBuilder
    from ge.es.tensor_holder import TensorHolder

    if not isinstance(builder, GraphBuilder):
        raise TypeError(
            "convert_to_tensor_holder: builder must be a GraphBuilder, got "
            f"{type(builder).__name__}"
        )
    builder._check_usable()
    if value is None:
        return None
    if isinstance(value, TensorHolder):
        if value.get_owner_builder() is not builder:
            raise ValueError(
                f"convert_to_tensor_holder: {value!r} belongs to graph builder "
                f"{value.get_owner_builder().name!r}, not to {builder.name!r}"
            )
        return value
    kind = _number_kind(value)
    if kind == "int":
        _check_int64(value, "value")
        return builder.create_scalar_int64(int(value))  # type: ignore[arg-type]
    if kind == "float":
        return builder.create_scalar_float(float(value))  # type: ignore[arg-type]
    if isinstance(value, list):
        if _has_float(value, "value"):
            return builder.create_const_float(value)
        return builder.create_const_int64(value)
    raise TypeError(
        "convert_to_tensor_holder: value must be a TensorHolder, an int, a float, "
        f"a nested list of them or None, got {type(value).__name__}"
    )


def resolve_builder(*values: object) -> GraphBuilder:
    """The GraphBuilder of the arguments: the first GraphBuilder or
    TensorHolder in order (GE's rule). ValueError when there is none, or
    when the arguments name two builders (GE takes the first silently)."""
    from ge.es.graph_builder import GraphBuilder
    from ge.es.tensor_holder import TensorHolder

    if not values:
        raise ValueError(
            "resolve_builder needs at least one argument: a TensorHolder or a "
            "GraphBuilder"
        )
    found: tuple[int, GraphBuilder] | None = None
    for i, value in enumerate(values):
        if isinstance(value, GraphBuilder):
            owner = value
        elif isinstance(value, TensorHolder):
            owner = value.get_owner_builder()
        else:
            continue
        if found is None:
            found = (i, owner)
        elif owner is not found[1]:
            raise ValueError(
                f"resolve_builder: argument {i} belongs to graph builder "
                f"{owner.name!r}, but argument {found[0]} to {found[1].name!r}; "
                "the tensors of one op come from one builder"
            )
    if found is None:
        raise ValueError(
            "resolve_builder: no argument is a TensorHolder or a GraphBuilder, so "
            "the graph builder is unknown; pass at least one input tensor or the "
            "owner builder"
        )
    return found[1]
