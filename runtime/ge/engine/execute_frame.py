"""Calling an execute node: what a run state prepares once per node, and
one call.

Note [Execute frames]: the execute path runs Python on every run, so what
does not change between runs is prepared once per node and run state (an
``ExecuteFrame``, made with the state): the view templates of the node's
tensors (sizes, dims, formats, checked once), where their addresses come
from, the IR slots, the attrs, the lease's description, whether the
inputs need grouping. A call then makes only what the contract says is
the call's own: a new lease, new views (of inputs at their addresses in
this run; of outputs when allocated), a new context, the regions its
kernels may touch (bound with the lease and the context in one context
variable, Note [One binding per call] in ``ge.device.rt``), and it ends
the lease when the callback returns (docs/runtime.md). What the frame
keeps from call to call is the launches it checked (Note [Checked
launches] in ``ge.device.rt``), each valid only for the same kernel,
block_dim, arguments and regions of the call. Views and contexts are never reused: a view kept from
an earlier call stays expired. A frame belongs to one run state, and a
run state to one run at a time (Note [Concurrent runs] in
``ge.engine.compiled``), so frames are never shared between overlapping
runs.

Output allocation and infer_meta are already reused as far as they can
be: infer_meta runs when a graph is compiled, once per input shape key
(``ge.session``), and an output's memory is planned then (the arena or
the caller's output buffer), so ``malloc_output_tensor`` checks the
request against the plan and returns a view of that memory. Outputs a run
returns to its caller are new buffers (or the caller's own), never the
arena, so a later run cannot overwrite them.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any, NoReturn

from ge.custom_op.contexts import EagerOpExecutionContext, OutputAllocator
from ge.device import rt
from ge.device.memory import DeviceBuffer
from ge.device.rt import CALLBACK
from ge.engine.errors import ExecuteError
from ge.engine.infer import host_inputs
from ge.graph.graph import InputKind
from ge.graph.types import DataType
from ge.runtime.lease import Lease
from ge.runtime.tensor import Tensor as RuntimeTensor
from ge.runtime.tensor import ViewTemplate, place_on_host

_new = object.__new__

if TYPE_CHECKING:
    from ge.engine.compiled import ExecuteStep, RunState, TensorInfo


class _TensorSpec:
    """One tensor of the node: its view template and where it lives."""

    __slots__ = ("template", "buffer", "offset", "size", "info", "part")

    def __init__(self, info: TensorInfo) -> None:
        meta = info.meta
        self.template = ViewTemplate(
            size=info.nbytes,
            dims=meta.shape or (),
            data_type=meta.dtype,
            fmt=meta.format,
        )
        self.buffer = info.buffer
        self.offset = info.offset
        self.size = info.nbytes
        self.info = info
        self.part = 0  # which of the call's shared shape/format objects


class ExecuteFrame(OutputAllocator):
    """One execute node in one run state (Note [Execute frames])."""

    def __init__(
        self, step: ExecuteStep, tensors: list[TensorInfo], state: RunState
    ) -> None:
        self.step = step
        # The state's address table and memory, not the state: the state
        # holds its frames, and no cycle keeps its arena from being freed.
        self.addrs = state.addrs
        self.memory = state.memory
        self.node_name = step.node.name
        self.label = f"node '{step.node.name}' ({step.node.type})"
        self.what = f"the execute callback of node '{step.node.name}'"
        self.inputs = [
            None if t is None else _TensorSpec(tensors[t]) for t in step.inputs
        ]
        self.outputs = [_TensorSpec(tensors[t]) for t in step.outputs]
        self.ir_inputs = tuple(step.ir_inputs)
        self.ir_outputs = tuple(step.ir_outputs)
        self.output_num = sum(s.count for s in step.ir_outputs)
        self.attrs = tuple(step.attrs)
        self.flat = all(
            s.kind is not InputKind.DYNAMIC and s.count == 1 for s in step.ir_inputs
        )
        self.bounds = slot_bounds(step.ir_inputs)
        # Non-tensor inputs the kernel reads on the host (GE's input_kinds):
        # their views say kOnHost; the CPU device's memory is the host's.
        self.host_inputs = host_inputs(step.node)
        # One template per distinct key: a call makes their shape and format
        # objects once, and its views of that key share them.
        keys: dict[object, int] = {}
        self.key_templates: list[ViewTemplate] = []
        for spec in [*self.inputs, *self.outputs]:
            if spec is not None:
                spec.part = keys.setdefault(spec.template.key, len(keys))
                if spec.part == len(self.key_templates):
                    self.key_templates.append(spec.template)
        # What a call reads per input: None (absent) or where it lives.
        self.sources = [
            None if s is None else (s.buffer, s.offset, s.size, s.template, s.part)
            for s in self.inputs
        ]
        # What one call writes (its own: the frame is its run state's).
        self.lease: Lease | None = None
        self.allocated = 0  # outputs allocated or aliased
        self.parts: list[Any] = []
        self.launches: rt.LaunchCache = {}  # Note [Checked launches] in ge.device.rt
        self.spans: list[tuple[int, int]] = []  # the call's RegionSet's list
        self.regions = rt.RegionSet(self.launches, self.spans)
        self.workspaces: list[DeviceBuffer] = []
        self.ref_copies: list[tuple[int, int, int]] = []  # (to, from, bytes)

    def _address(self, spec: _TensorSpec) -> int:
        return self.addrs[spec.buffer] + spec.offset

    # -- OutputAllocator ----------------------------------------------------------------

    def allocate(
        self, index: int, dims: tuple[int, ...], dtype: DataType
    ) -> RuntimeTensor:
        spec = self.outputs[index]
        template = spec.template
        if dtype is not template.data_type or tuple(dims) != template.dims:
            raise ValueError(
                f"node '{self.node_name}' output {index}: infer_meta said "
                f"{spec.info.meta.describe()}, execute asked for "
                f"{dtype.spec_name}{list(dims)}"
            )
        addr = self.addrs[spec.buffer] + spec.offset
        self.spans.append((addr, spec.size))  # the call's regions (RegionSet.add)
        self.allocated += 1  # the context asks once per output
        return template.view(addr, self.lease, self.parts[spec.part], writable=True)  # type: ignore[arg-type]

    def alias(self, output: int, input_index: int) -> RuntimeTensor:
        source = self.inputs[input_index]
        target = self.outputs[output]
        if source is None:
            raise ValueError(
                f"input {input_index} of node '{self.node_name}' is absent"
            )
        if target.template.size > source.template.size:
            raise ValueError(
                f"output {output} ({target.template.size} bytes) cannot share input "
                f"{input_index} ({source.template.size} bytes)"
            )
        # Note [Ref outputs]: inside the callback the output is the input's
        # memory, as in GE (writes through either address are one write).
        # Readers after the node (later tasks, whose slots were fixed at
        # compile time, and the caller's output buffer) read the output's
        # planned memory, so when the plan did not put the two together the
        # input's final bytes are copied there once the callback returns.
        in_addr = self._address(source)
        out_addr = self._address(target)
        if out_addr != in_addr and target.template.size:
            self.ref_copies.append((out_addr, in_addr, target.template.size))
        self.allocated += 1  # the context asks once per output
        return target.template.view(
            in_addr, self.lease, self.parts[target.part], writable=True  # type: ignore[arg-type]
        )

    def workspace(self, size: int) -> int:
        memory = self.memory
        buffer = (
            DeviceBuffer(size)
            if memory is None
            else memory.allocate(
                size, f"a workspace of node '{self.node_name}' (execute)"
            )
        )
        self.workspaces.append(buffer)
        self.regions.add(buffer.addr, size)
        return buffer.addr

    # -- one call -------------------------------------------------------------------------

    def run(self, stream: int) -> None:
        if self.ref_copies:  # left by a call that failed
            self.ref_copies = []
        # Lease(self.what) and RegionSet(...) without their __init__ calls
        # (half the cost of making them; every field is set here).
        lease = _new(Lease)
        lease.valid, lease.what = True, self.what
        templates = self.key_templates
        if len(templates) == 1:
            parts = [templates[0].parts(lease)]
        else:
            parts = [template.parts(lease) for template in templates]
        addrs = self.addrs
        spans: list[tuple[int, int]] = []
        views: list[RuntimeTensor | None] = []
        for source in self.sources:
            if source is None:
                views.append(None)
                continue
            buffer, offset, size, template, part = source
            addr = addrs[buffer] + offset
            spans.append((addr, size))
            views.append(template.view(addr, lease, parts[part]))
        if self.host_inputs:
            for i in self.host_inputs:
                view = views[i]
                if view is not None:
                    place_on_host(view)
        regions = _new(rt.RegionSet)
        regions.spans, regions.launches, regions.lease = spans, self.launches, lease
        self.lease, self.parts, self.spans, self.regions = lease, parts, spans, regions
        self.allocated = 0
        ctx = EagerOpExecutionContext.for_call(
            self.node_name,
            lease,
            views,
            self.ir_inputs,
            self.ir_outputs,
            self.output_num,
            self.attrs,
            self,
            stream,
            self.step.subgraphs,
        )
        args = views if self.flat else grouped(self.bounds, views)
        regions.context = ctx
        bound = CALLBACK.set(regions)  # Note [One binding per call] in ge.device.rt
        try:
            kwargs = self.step.kwargs
            execute = self.step.execute or self.step.instance.execute
            result = execute(*args, **kwargs) if kwargs else execute(*args)
        except Exception as exc:
            raise ExecuteError(
                f"{self.label}: execute failed: {type(exc).__name__}: {exc}"
            ) from exc
        finally:
            CALLBACK.reset(bound)
            lease.valid = False  # lease.end(), inline
            if self.workspaces:
                self._release_workspaces(ctx)
        if result is not None:
            raise ExecuteError(
                f"{self.label}: execute must return None, got {type(result).__name__}"
            )
        if self.allocated != len(self.outputs):
            self._missing_outputs(ctx)
        if self.ref_copies:
            copies, self.ref_copies = self.ref_copies, []
            for to, source_addr, nbytes in copies:  # Note [Ref outputs]
                ctypes.memmove(to, source_addr, nbytes)

    def _missing_outputs(self, ctx: EagerOpExecutionContext) -> NoReturn:
        allocated = ctx.allocated_outputs()
        missing = [i for i in range(len(self.outputs)) if i not in allocated]
        raise ExecuteError(
            f"{self.label}: execute did not allocate output(s) {missing} "
            "(malloc_output_tensor or make_output_ref_input)"
        )

    def _release_workspaces(self, ctx: EagerOpExecutionContext) -> None:
        """Workspaces live until the callback returns; those an external
        allocator gave go back to it then. The others stay with the
        (expired) context, so while someone holds it no later buffer takes
        their addresses (a kept workspace address is then refused by a
        later call's launch, never silently another buffer)."""
        memory = self.memory
        workspaces, self.workspaces = self.workspaces, []
        if memory is not None:
            for buffer in workspaces:
                memory.release(buffer)
        else:
            ctx.retain(workspaces)


def slot_bounds(slots: Any) -> list[tuple[int, int, bool]]:
    """(start, end, dynamic) of each IR slot in the flattened inputs."""
    out = []
    at = 0
    for slot in slots:
        out.append((at, at + slot.count, slot.kind is InputKind.DYNAMIC))
        at += slot.count
    return out


def grouped(bounds: list[tuple[int, int, bool]], flat: list[Any]) -> list[Any]:
    """Flattened instances grouped by IR slot: dynamic ones as lists."""
    return [flat[a:b] if dynamic else flat[a] for a, b, dynamic in bounds]
