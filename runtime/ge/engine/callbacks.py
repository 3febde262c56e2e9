"""Calling a node's compile-time callbacks: ``compile`` and
``declare_launch_args``.

Each call gets views of the node's tensors (arena tensors at their planned
address; tensors in run-time buffers at address 0, since their memory is
the caller's and changes every run), its context bound for the call, and a
lease that ends when it returns. Whatever the callback raises becomes a
CompileError naming the node.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ge.custom_op.contexts import (
    AnnotatedArgsContext,
    CompilePlatformInfo,
    IrSlot,
    OpCompileContext,
    compiling,
    declaring,
)
from ge.custom_op.registry import Capability
from ge.device.memory import DeviceBuffer
from ge.engine.compiled import TensorInfo, group, runtime_view
from ge.engine.errors import CompileError
from ge.engine.infer import node_label
from ge.engine.layout import ARENA
from ge.graph.graph import Node
from ge.runtime.lease import Lease
from ge.runtime.tensor import Tensor as RuntimeTensor


@dataclass(frozen=True)
class NodeCall:
    """What every callback of one node is called with."""

    node: Node
    instance: Any  # the implementation's instance
    ir_inputs: list[IrSlot]
    ir_outputs: list[IrSlot]
    inputs: list[int | None]  # tensor ids, None for an absent optional input
    outputs: list[int]
    kwargs: dict[str, Any]  # the attrs


def _views(
    tensors: Sequence[TensorInfo],
    ids: Sequence[int | None],
    arena: DeviceBuffer,
    lease: Lease,
) -> list[RuntimeTensor | None]:
    views: list[RuntimeTensor | None] = []
    for t in ids:
        if t is None:
            views.append(None)
            continue
        info = tensors[t]
        addr = arena.addr + info.offset if info.buffer == ARENA else 0
        views.append(runtime_view(info, addr, lease))
    return views


@contextlib.contextmanager
def _calling(call: NodeCall, method: Capability, lease: Lease) -> Iterator[None]:
    """Around one callback: its failures named, its lease ended."""
    try:
        yield
    except Exception as exc:
        raise CompileError(
            f"{node_label(call.node)}: {method} failed: {type(exc).__name__}: {exc}"
        ) from exc
    finally:
        lease.end()


def _returned(call: NodeCall, method: Capability, result: object) -> None:
    if result is not None:
        raise CompileError(f"{node_label(call.node)}: {method} must return None")


def call_compile(
    call: NodeCall,
    tensors: Sequence[TensorInfo],
    arena: DeviceBuffer,
    options: dict[str, str],
) -> None:
    """``compile`` with the compile context and the platform bound."""
    method = Capability.COMPILE
    lease = Lease(f"the {method} callback of node '{call.node.name}'")
    ins = _views(tensors, call.inputs, arena, lease)
    outs = _views(tensors, call.outputs, arena, lease)
    with _calling(call, method, lease):
        with compiling(OpCompileContext(options, lease), CompilePlatformInfo(lease)):
            result = call.instance.compile(
                *group(call.ir_inputs, ins),
                *group(call.ir_outputs, outs),
                **call.kwargs,
            )
    _returned(call, method, result)


def call_declare(
    call: NodeCall, tensors: Sequence[TensorInfo], arena: DeviceBuffer
) -> AnnotatedArgsContext:
    """``declare_launch_args``; its context, holding the launches and
    workspaces it declared."""
    method = Capability.DECLARE_LAUNCH_ARGS
    lease = Lease(f"the {method} callback of node '{call.node.name}'")
    ins = _views(tensors, call.inputs, arena, lease)
    outs = _views(tensors, call.outputs, arena, lease)
    ctx = AnnotatedArgsContext(call.node.name, lease, ins, outs)
    with _calling(call, method, lease), declaring(ctx):
        result = call.instance.declare_launch_args(
            *group(call.ir_inputs, ins), *group(call.ir_outputs, outs), **call.kwargs
        )
    _returned(call, method, result)
    return ctx
