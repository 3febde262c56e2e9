"""The variables of a session: device memory that outlives a run.

Note [Variables]: a ``Variable`` node (``GraphBuilder.create_variable``) is
a tensor whose memory belongs to the Session, not to a run or a compiled
graph, so its value is kept from run to run and shared, by node name, by
every graph of the session (GE keeps variables per session, by name, in its
VarManager). The compiler gives it a buffer of the constants' group (Note
[Buffer layout]), whose DeviceBuffer is the store's: a compiled graph reads
it where it reads constants, and an op with a ref output on it (``Assign``,
whose output ``ref`` is its input ``ref``) writes it in place. The storage
is made when the first graph naming the variable is compiled: filled from
the node's ``value`` attr (GE's REG_OP(Variable) has ``ATTR(value,
Tensor)``) when it has one, else zeros. A later graph naming the variable
must declare the same dtype, shape and format (CompileError otherwise); its
``value`` attr does not reset the variable (initialise by running a graph
that assigns, as GE's init graphs do). Offline models cannot hold
variables: compiling a graph with one without a store is a CompileError.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from ge.device.memory import DeviceBuffer
from ge.engine.errors import CompileError
from ge.graph.attrs import AttrType
from ge.graph.graph import Node, TensorMeta
from ge.graph.limits import tensor_nbytes
from ge.graph.tensor import Tensor

__all__ = ["VARIABLE", "VariableStore", "offline_refusal"]

VARIABLE = "Variable"


@dataclass
class _Variable:
    meta: TensorMeta
    buffer: DeviceBuffer


def _initial_value(node: Node, meta: TensorMeta) -> Tensor | None:
    entry = node.attrs.get("value")
    if entry is None:
        return None
    kind, value = entry
    if kind is not AttrType.TENSOR or not isinstance(value, Tensor):
        raise CompileError(
            f"Variable node '{node.name}' has a {kind.value} attr 'value'; its "
            "initial value must be a tensor attr"
        )
    if tuple(value.shape) != meta.shape or value.data_type is not meta.dtype:
        raise CompileError(
            f"Variable node '{node.name}' is declared {meta.describe()} but its "
            f"initial value is {value.data_type.spec_name}{list(value.shape)}; "
            "set the variable's dtype and shape to the value's"
        )
    return value


class VariableStore:
    """A session's variables by name (Note [Variables])."""

    def __init__(self) -> None:
        self._variables: dict[str, _Variable] = {}
        self._lock = threading.Lock()

    def buffer(self, node: Node) -> tuple[TensorMeta, DeviceBuffer]:
        """The variable of ``node`` (made on first use): its metadata and
        memory. CompileError when it is not concrete or disagrees with the
        variable of that name the session already has."""
        meta = node.outputs[0].copy()
        if meta.shape is None or any(d < 0 for d in meta.shape):
            raise CompileError(
                f"Variable node '{node.name}' has no concrete shape "
                f"({meta.describe()}); set it with TensorHolder.set_shape"
            )
        with self._lock:
            known = self._variables.get(node.name)
            if known is not None:
                if (known.meta.shape, known.meta.dtype, known.meta.format) != (
                    meta.shape,
                    meta.dtype,
                    meta.format,
                ):
                    raise CompileError(
                        f"Variable node '{node.name}' is declared {meta.describe()}, "
                        f"but this session's variable '{node.name}' is "
                        f"{known.meta.describe()}; a variable keeps its dtype, shape "
                        "and format for the session's life (use another name)"
                    )
                return known.meta, known.buffer
            try:
                size = tensor_nbytes(meta.shape, meta.dtype)
            except ValueError as exc:
                raise CompileError(f"Variable node '{node.name}': {exc}") from None
            value = _initial_value(node, meta)
            try:
                buffer = DeviceBuffer(size)
            except MemoryError as exc:
                raise CompileError(
                    f"Variable node '{node.name}' needs {size} bytes, which the "
                    f"CPU device cannot allocate ({exc})"
                ) from None
            if value is not None and size:
                buffer.array[:] = np.frombuffer(value.tobytes(), np.uint8)
            self._variables[node.name] = _Variable(meta, buffer)
            return meta, buffer

    def names(self) -> list[str]:
        """The names of the variables made so far."""
        with self._lock:
            return sorted(self._variables)


def offline_refusal(graph_name: str, node: Node) -> CompileError:
    """The error for a variable in a graph compiled without a session."""
    return CompileError(
        f"graph '{graph_name}' has Variable node '{node.name}': a variable keeps "
        "its value across the runs of a Session, and an offline model (compiled "
        "without a session) has nowhere to keep it; run the graph online with "
        "Session, or replace the variable by a Const of its value "
        "(GraphBuilder.create_const) or a graph input"
    )
