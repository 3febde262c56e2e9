"""``ge.graph``: data types, formats, tensors and graphs.

Names are loaded on first use, so ``import ge.graph.types`` stays cheap (the
generator uses it) while ``from ge.graph import Tensor`` brings in numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ge.graph.types import (
    AttrValueType,
    DataType,
    Format,
    Placement,
    TensorType,
)

__all__ = [
    "AttrValueType",
    "DataType",
    "DumpFormat",
    "Format",
    "Graph",
    "NamedAttrs",
    "Node",
    "Placement",
    "Shape",
    "Tensor",
    "TensorDesc",
    "TensorType",
]

_LAZY = {
    "Tensor": "ge.graph.tensor",
    "Graph": "ge.graph.graph",
    "Node": "ge.graph.graph",
    "DumpFormat": "ge.graph.graph",
    "NamedAttrs": "ge.graph.named_attrs",
    "TensorDesc": "ge.graph.tensor_desc",
    "Shape": "ge.graph.tensor_desc",
}

if TYPE_CHECKING:
    from ge.graph.graph import DumpFormat, Graph, Node
    from ge.graph.named_attrs import NamedAttrs
    from ge.graph.tensor import Tensor
    from ge.graph.tensor_desc import Shape, TensorDesc


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ge.graph' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
