"""``ge.session.Session``: add graphs, compile them, run them."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ge.device import rt
from ge.engine.compiled import CompiledGraph
from ge.engine.compiler import ImplCache, compile_graph
from ge.engine.errors import CompileError, ExecuteError
from ge.engine.loading import load_op_modules
from ge.ge_global import global_options, is_initialized
from ge.graph.graph import Graph, TensorMeta
from ge.graph.tensor import Tensor

__all__ = ["Session", "CompileError", "ExecuteError"]


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
        self._graphs: dict[int, _Entry] = {}
        self._cache = ImplCache()
        self._lock = threading.RLock()

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
            if graph_id in self._graphs:
                raise ValueError(f"graph id {graph_id} is already in this session")
            self._graphs[graph_id] = _Entry(
                graph, {**self._options, **dict(options or {})}
            )

    def remove_graph(self, graph_id: int) -> None:
        with self._lock:
            if graph_id not in self._graphs:
                raise ValueError(f"graph id {graph_id} is not in this session")
            del self._graphs[graph_id]

    def _entry(self, graph_id: int) -> _Entry:
        try:
            return self._graphs[graph_id]
        except KeyError:
            raise ValueError(f"graph id {graph_id} is not in this session") from None

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
                compiled = compile_graph(entry.graph, entry.options, self._cache, metas)
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
        return self._compile(self._entry(graph_id), inputs).run(inputs, outputs, stream)


# The stream API, for run_graph_with_stream_async callers.
create_stream = rt.create_stream
destroy_stream = rt.destroy_stream
synchronize_stream = rt.synchronize_stream
