"""``ge.runtime``: the data structures of Python custom-op callbacks.

``TensorDesc`` is what ``infer_meta`` reads and returns; ``Tensor`` and the
shape/format views are borrowed from the runtime during ``execute``,
``compile`` and ``declare_launch_args``.
"""

from ge.runtime.tensor import Tensor
from ge.runtime.types import (
    ExpandDimsType,
    Shape,
    StorageFormat,
    StorageShape,
    TensorDesc,
    TensorPlacement,
)

__all__ = [
    "ExpandDimsType",
    "Shape",
    "StorageFormat",
    "StorageShape",
    "Tensor",
    "TensorDesc",
    "TensorPlacement",
]
