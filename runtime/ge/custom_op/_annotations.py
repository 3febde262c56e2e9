"""What a callback annotation means: one place for register_op's rules
(docs/ge-compat.md, "register_op") and the schema-bound signatures' rules
(docs/ge-compat.md, "Schema-bound signatures").

Annotations may be written with typing (``List[int]``, ``Optional[X]``) or
builtins (``list[int]``, ``X | None``); both normalise to the same form.
"""

from __future__ import annotations

import types
import typing
from typing import Any

from ge.graph.attrs import AttrType, python_annotation
from ge.graph.types import DataType

NoneType = type(None)


def optional_inner(annotation: Any) -> Any | None:
    """``X`` for ``Optional[X]`` / ``X | None``; None otherwise."""
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        args = [a for a in typing.get_args(annotation) if a is not NoneType]
        if len(args) == 1 and len(typing.get_args(annotation)) == 2:
            return args[0]
    return None


def list_inner(annotation: Any) -> Any | None:
    """``X`` for ``list[X]`` / ``List[X]`` / ``Sequence[X]``; None otherwise."""
    origin = typing.get_origin(annotation)
    if origin in (list, typing.List):  # noqa: UP006
        args = typing.get_args(annotation)
        return args[0] if len(args) == 1 else None
    import collections.abc

    if origin is collections.abc.Sequence:
        args = typing.get_args(annotation)
        return args[0] if len(args) == 1 else None
    return None


def tuple_items(annotation: Any) -> tuple[Any, ...] | None:
    origin = typing.get_origin(annotation)
    if origin in (tuple, typing.Tuple):  # noqa: UP006
        args = typing.get_args(annotation)
        if len(args) == 2 and args[1] is Ellipsis:
            return None
        return tuple(args)
    return None


def _scalar_attr_types() -> dict[Any, AttrType]:
    from ge.graph.named_attrs import NamedAttrs
    from ge.graph.tensor import Tensor as GraphTensor

    return {
        int: AttrType.INT,
        float: AttrType.FLOAT,
        bool: AttrType.BOOL,
        str: AttrType.STR,
        DataType: AttrType.DTYPE,
        GraphTensor: AttrType.TENSOR,
        NamedAttrs: AttrType.NAMED_ATTRS,
        bytes: AttrType.BYTES,
    }


def attr_type_of(annotation: Any) -> AttrType | None:
    """The attr type an annotation names (``list[list[int]]`` -> LIST_LIST_INT)."""
    scalars = _scalar_attr_types()
    if annotation in scalars:
        return scalars[annotation]
    inner = list_inner(annotation)
    if inner is None:
        return None
    element = attr_type_of(inner)
    if element is None:
        return None
    for kind in AttrType:
        if kind.element is element:
            return kind
    return None


def attr_annotation_text(kind: AttrType) -> str:
    """How a signature error message spells an attr type."""
    return python_annotation(kind)
