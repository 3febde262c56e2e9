"""``ge.session.Session``: add graphs, compile them, run them."""

from __future__ import annotations

import itertools
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ge.allocator import Allocator, AllocatorError
from ge.device import rt
from ge.engine.compiled import CompiledGraph
from ge.engine.compiler import ImplCache, compile_graph
from ge.engine.errors import CompileError, ExecuteError
from ge.engine.loading import load_op_modules
from ge.engine.passes.custom_run import COMPILE_ID
from ge.engine.variables import VariableStore
from ge.ge_global import global_options, is_initialized
from ge.graph.graph import Graph, TensorMeta
from ge.graph.tensor import Tensor
from ge.session.allocators import StreamMemory

__all__ = ["Session", "AllocatorError", "CompileError", "ExecuteError"]


@dataclass
class _Entry:
    graph: Graph
    options: dict[str, str]
    compiled: dict[tuple[object, ...], CompiledGraph] = field(default_factory=dict)
    static: CompiledGraph | None = None  # the one compiled form of a static graph

    def __post_init__(self) -> None:
        self.dynamic = any(
            output.shape is None or any(d < 0 for d in output.shape)
            for n in self.graph.input_nodes
            for output in n.outputs[:1]
        )


THREADS_OPTION = "ge.cpu.threads"
_SESSION_IDS = itertools.count(1)  # 0: compiles outside a Session


def _device_threads(options: Mapping[str, str]) -> None:
    """The ``ge.cpu.threads`` option: the CPU device's worker threads (the
    device is one per process, so the last session that sets it wins)."""
    value = options.get(THREADS_OPTION)
    if value is not None:
        from ge.device import native

        native.set_threads(native.parse_threads(value, f"option {THREADS_OPTION}"))


class Session:
    """Graphs by id, each compiled once per input-shape key and run on the
    CPU device. Needs ``GeApi().ge_initialize(...)`` first (as GE does)."""

    def __init__(self, options: Mapping[str, str] | None = None) -> None:
        if not is_initialized():
            raise RuntimeError(
                "call GeApi().ge_initialize(options) before creating a Session"
            )
        if options is not None and not isinstance(options, Mapping):
            raise TypeError("Session options are a dict of str to str")
        self._options = {**global_options(), **dict(options or {})}
        _device_threads(self._options)
        self._session_id = next(_SESSION_IDS)
        self._graphs: dict[int, _Entry] = {}
        # Static graphs' fast run paths, by id (only graphs in _graphs; None
        # for a graph without one, so it is looked for once).
        self._fast: dict[int, Callable[[Any, Any], list[Tensor] | None] | None] = {}
        self._cache = ImplCache()
        self._variables = VariableStore()  # Note [Variables] (ge.engine.variables)
        self._lock = threading.RLock()
        self._closed = False
        self._allocators: dict[int, StreamMemory] = {}
        self._allocators_lock = threading.Lock()

    # -- graphs -------------------------------------------------------------------

    def add_graph(
        self, graph_id: int, graph: Graph, options: Mapping[str, str] | None = None
    ) -> None:
        if isinstance(graph_id, bool) or not isinstance(graph_id, int) or graph_id < 0:
            raise TypeError(f"graph_id must be an int >= 0, got {graph_id!r}")
        if not isinstance(graph, Graph):
            raise TypeError(
                f"add_graph takes a ge.graph.Graph, got {type(graph).__name__}"
            )
        with self._lock:
            self._check_open()
            if graph_id in self._graphs:
                raise ValueError(f"graph id {graph_id} is already in this session")
            try:
                graph.graph_inputs()  # Note [Data nodes]: the compiler's own check
            except ValueError as exc:
                raise CompileError(str(exc)) from None
            self._graphs[graph_id] = _Entry(
                graph,
                {
                    **self._options,
                    **dict(options or {}),
                    # fusion_result.json's session_and_graph_id_<s>_<g>
                    COMPILE_ID: f"{self._session_id}_{graph_id}",
                },
            )

    def remove_graph(self, graph_id: int) -> None:
        """Remove a graph; each external allocator takes back its memory of
        the graph (runs of it in progress finish first)."""
        with self._lock:
            entry = self._entry(graph_id)
            del self._graphs[graph_id]
            self._fast.pop(graph_id, None)
        with self._allocators_lock:
            memories = list(self._allocators.values())
        for memory in memories:
            memory.forget(entry.compiled.values())

    def _entry(self, graph_id: int) -> _Entry:
        try:
            return self._graphs[graph_id]
        except KeyError:
            self._check_open()
            raise ValueError(f"graph id {graph_id} is not in this session") from None

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("this Session is closed")

    # -- compiling -------------------------------------------------------------------

    def _compile(self, entry: _Entry, inputs: Sequence[Tensor] | None) -> CompiledGraph:
        """The compiled graph for these inputs: one per graph when its inputs
        have concrete shapes, else one per input shape/dtype key."""
        if entry.static is not None:
            return entry.static
        dynamic = entry.dynamic
        if dynamic and inputs is None:
            raise CompileError(
                f"graph '{entry.graph.name}' has inputs of unknown shape; it is "
                "compiled for the inputs of each run"
            )
        if dynamic and not all(isinstance(t, Tensor) for t in inputs or ()):
            raise TypeError("run inputs are ge.graph.Tensor")
        key: tuple[object, ...] = (
            tuple((t.data_type, tuple(t.shape)) for t in inputs or ())
            if dynamic
            else ()
        )
        with self._lock:
            compiled = entry.compiled.get(key)
            if compiled is None:
                # GE loads Python custom ops before each compile (PreRun).
                load_op_modules()
                metas = (
                    None
                    if not dynamic
                    else [
                        TensorMeta(tuple(t.shape), t.data_type, t.format)
                        for t in inputs or ()
                    ]
                )
                compiled = compile_graph(
                    entry.graph, entry.options, self._cache, metas, self._variables
                )
                entry.compiled[key] = compiled
                if not dynamic:
                    entry.static = compiled
            return compiled

    def compile_graph(self, graph_id: int) -> None:
        """Compile for the graph's declared input shapes (CompileError names
        the node that fails). A graph with unknown input dims compiles on each
        new input shape instead; compiling it here is a no-op."""
        entry = self._entry(graph_id)
        if not entry.dynamic:
            self._compile(entry, None)

    def compiled(
        self, graph_id: int, inputs: Sequence[Tensor] | None = None
    ) -> CompiledGraph:
        """The compiled form of a graph (for tools, tests and benchmarks)."""
        return self._compile(self._entry(graph_id), inputs)

    # -- running ---------------------------------------------------------------------

    def run_graph(self, graph_id: int, inputs: Sequence[Tensor]) -> list[Tensor]:
        """Run once; returns the graph outputs as new ge.graph.Tensor."""
        if not isinstance(inputs, (list, tuple)):
            raise TypeError("run_graph inputs are a list of ge.graph.Tensor")
        return self._compile(self._entry(graph_id), inputs).run(inputs)

    def run_graph_with_stream_async(
        self,
        graph_id: int,
        stream: int,
        inputs: Sequence[Tensor],
        outputs: Sequence[Tensor] | None = None,
    ) -> list[Tensor]:
        """Run on ``stream`` with the caller's tensors: inputs are read in place
        and, when ``outputs`` is given, results are written into them (no
        copies). Launches are synchronous, so the outputs are ready on return."""
        rt.check_stream(stream)
        fast = self._fast.get(graph_id)  # Note [Fast run path] (ge.engine.hotpath)
        if fast is not None and not self._allocators:
            result = fast(inputs, outputs)
            if result is not None:
                return result
        entry = self._entry(graph_id)
        compiled = self._compile(entry, inputs)
        if entry.static is compiled and graph_id not in self._fast:
            self._add_fast(graph_id, entry, compiled)
        memory = None
        if self._allocators:  # none registered: no lock on the common path
            with self._allocators_lock:
                memory = self._allocators.get(stream)
                if memory is not None:
                    memory.active += 1
        if memory is None:
            return compiled.run(inputs, outputs, stream)
        try:
            return compiled.run(inputs, outputs, stream, memory)
        finally:
            with self._allocators_lock:
                memory.active -= 1

    def _add_fast(self, graph_id: int, entry: _Entry, compiled: CompiledGraph) -> None:
        """Give a static graph its fast run path, if it has one (runs with
        exactly the graph's tensors and no external allocator registered:
        everything else takes the Python path above)."""
        runner = compiled.fast_runner()
        with self._lock:
            if not self._closed and self._graphs.get(graph_id) is entry:
                self._fast[graph_id] = runner

    # -- external allocators (Note [External allocators] in ge.session.allocators)

    def register_external_allocator(self, stream: int, allocator: Allocator) -> None:
        """Runs on ``stream`` (run_graph_with_stream_async) take their graph
        memory from ``allocator``: run states (arena, workspaces), new
        outputs and execute workspaces. One allocator per stream."""
        if isinstance(stream, bool) or not isinstance(stream, int):
            raise TypeError(f"stream must be an int, got {type(stream).__name__}")
        if not isinstance(allocator, Allocator):
            raise TypeError(
                "allocator must be a ge.allocator.Allocator (subclass it with "
                f"malloc and free, or use RangeAllocator), got {type(allocator).__name__}"
            )
        rt.check_stream(stream)
        with self._allocators_lock:
            self._check_open()
            if stream in self._allocators:
                raise RuntimeError(
                    f"stream {stream} already has an external allocator in this "
                    f"session; call unregister_external_allocator({stream}) first"
                )
            self._allocators[stream] = StreamMemory(stream, allocator)

    def unregister_external_allocator(self, stream: int) -> None:
        """Hand back everything the stream's allocator gave (outputs still
        alive are copied to memory of their own first) and stop using it.
        RuntimeError while a run on the stream is using it."""
        if isinstance(stream, bool) or not isinstance(stream, int):
            raise TypeError(f"stream must be an int, got {type(stream).__name__}")
        with self._allocators_lock:
            memory = self._allocators.get(stream)
            if memory is None:
                raise RuntimeError(
                    f"no external allocator is registered for stream {stream} in "
                    "this session"
                )
            self._check_idle(memory)
            del self._allocators[stream]
        memory.close()

    @staticmethod
    def _check_idle(memory: StreamMemory) -> None:
        if memory.active:
            raise RuntimeError(
                f"{memory.name} is in use by {memory.active} run(s); unregister "
                "it after they return"
            )

    def close(self) -> None:
        """Unregister every external allocator (handing back all they gave)
        and remove every graph; the session can no longer be used. Closing
        again does nothing. RuntimeError while a run uses an allocator."""
        with self._allocators_lock:
            for memory in self._allocators.values():
                self._check_idle(memory)
            memories = list(self._allocators.values())
            self._allocators.clear()
            self._closed = True
        with self._lock:
            self._graphs.clear()
            self._fast.clear()
        errors = []
        for memory in memories:
            try:
                memory.close()
            except AllocatorError as exc:
                errors.append(str(exc))
        if errors:
            raise AllocatorError("; ".join(errors))

    def __del__(self) -> None:
        # A session dropped with allocators registered hands their memory
        # back (GE's Session does so in its destructor).
        if getattr(self, "_allocators", None):
            try:
                self.close()
            except Exception as exc:
                warnings.warn(f"closing a Session: {exc}", RuntimeWarning, stacklevel=1)


# The stream API, for run_graph_with_stream_async callers.
create_stream = rt.create_stream
destroy_stream = rt.destroy_stream
synchronize_stream = rt.synchronize_stream
