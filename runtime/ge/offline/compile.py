"""Compiling a graph to a model file (the part ATC plays in GE's flow)."""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from ge._container import FileFormatError
from ge.custom_op.control_flow import ControlFlow, declared_control_flow
from ge.engine import infer
from ge.engine.compiled import CompiledGraph, ExecuteStep, TaskSegment
from ge.engine.compiler import ImplCache, compile_graph
from ge.engine.dds import DataDependentGraph
from ge.engine.errors import CompileError, describe
from ge.engine.loading import load_op_modules
from ge.engine.subgraphs import CompiledSubgraph
from ge.graph.graph import Graph
from ge.graph.paths import check_path
from ge.offline import model_file
from ge.offline.model_file import BranchRecord, ModelData, TensorDescription
from ge.offline.portable_model import portable_parts
from ge_ir.version import __version__

# The most dims a model file's PLAN describes per input or output (checked
# by model_file.decode; here to name the tensor).
MAX_MODEL_DIMS = 32


class OfflineError(CompileError):
    """A graph that cannot become a model file (the message says why)."""


def model_data(compiled: CompiledGraph, depth: int = 0) -> ModelData:
    """A compiled graph as model file contents; OfflineError if some node
    runs through a Python execute callback that no declared control flow
    rule stands in for (Note [Declared control flow])."""
    branches: list[BranchRecord] = []
    subplans: list[ModelData] = []
    refused = []
    at = 0
    for step in compiled.steps:
        if isinstance(step, TaskSegment):
            at = step.end
        elif not isinstance(step, ExecuteStep):  # a loaded model's branch step
            raise OfflineError(f"graph '{compiled.name}' is a loaded model")
        elif step.subgraphs and _rule(step) is not None:
            branches.append(_branch_record(compiled, step, at, subplans, depth))
        else:
            refused.append(step.node)
    with_subgraphs = [n for n in refused if n.subgraphs]
    if with_subgraphs:  # Note [Subgraph ops] in ge.custom_op.subgraphs
        names = ", ".join(f"'{n.name}' ({n.type})" for n in with_subgraphs)
        raise OfflineError(
            f"graph '{compiled.name}' cannot run offline: node(s) {names} are "
            "subgraph ops whose implementation declares no control_flow rule, so "
            "only their Python execute callback knows which subgraph to run, and a "
            "model file holds no Python. If the op follows GE's If or Case rule, set "
            "control_flow = ge.custom_op.ControlFlow.IF (or .CASE) on its "
            "implementation class (docs/model-format.md, Branch steps); otherwise "
            "run the graph in a Session, or from its graph file (load_from_air)"
        )
    if refused:
        names = ", ".join(f"'{n.name}' ({n.type})" for n in refused)
        raise OfflineError(
            f"graph '{compiled.name}' cannot run offline: node(s) {names} run through "
            "a Python execute callback; an offline model holds only annotated-args "
            "nodes (declare_launch_args)"
        )
    binaries: list[bytes] = []
    binary_index: dict[str, int] = {}
    kernel_names: list[str] = []
    name_index: dict[str, int] = {}
    tasks = []
    for spec in compiled.task_specs:
        binary = spec.kernel.binary
        if binary.digest not in binary_index:
            binary_index[binary.digest] = len(binaries)
            binaries.append(binary.data)
        if spec.kernel.name not in name_index:
            name_index[spec.kernel.name] = len(kernel_names)
            kernel_names.append(spec.kernel.name)
        tasks.append(
            (
                binary_index[binary.digest],
                name_index[spec.kernel.name],
                spec.block_dim,
                spec.first,
                spec.nslots,
            )
        )

    def describe(tensor_id: int, name: str) -> TensorDescription:
        info = compiled.tensors[tensor_id]
        return TensorDescription(
            name,
            info.meta.dtype.name,
            tuple(info.meta.shape or ()),
            info.meta.format.name,
            info.nbytes,
        )

    consts = compiled.consts
    portable_ops, payloads, foreign = portable_parts(compiled.foreign_calls)
    return ModelData(
        name=compiled.name,
        arena_size=compiled.arena.size,
        const_sizes=tuple(b.size for b in consts),
        workspace_sizes=tuple(b.size for b in compiled.workspaces),
        inputs=tuple(
            describe(t, compiled.tensors[t].producer) for t in compiled.input_ids
        ),
        outputs=tuple(
            describe(t, f"output_{j}") for j, t in enumerate(compiled.output_ids)
        ),
        output_copies=tuple(
            (
                j,
                compiled.tensors[t].buffer,
                compiled.tensors[t].offset,
                compiled.tensors[t].nbytes,
            )
            for j, t in compiled.output_copies
        ),
        kernel_names=tuple(kernel_names),
        binaries=tuple(binaries),
        tasks=tuple(tasks),
        slots=_slots(compiled),
        bindings=tuple((b.slot, b.buffer, b.offset) for b in compiled.bindings),
        consts=b"".join(bytes(b.array) for b in consts),
        portable_ops=portable_ops,
        payloads=payloads,
        foreign=foreign,
        isa_level=max(
            (s.kernel.binary.isa_level for s in compiled.task_specs), default=1
        ),
        branches=tuple(branches),
        subplans=tuple(subplans),
    )


def _rule(step: ExecuteStep) -> ControlFlow | None:
    """The control flow rule the node's implementation declares."""
    return declared_control_flow(type(step.instance), step.node.type)


def _branch_record(
    compiled: CompiledGraph,
    step: ExecuteStep,
    at: int,
    subplans: list[ModelData],
    depth: int,
) -> BranchRecord:
    """A subgraph op with a declared rule as a branch step, its branches
    compiled into ``subplans`` (Note [Branch steps in a model file])."""
    node = step.node
    rule = _rule(step)
    assert rule is not None
    label = f"graph '{compiled.name}' node '{node.name}' ({node.type}, control_flow {rule.name})"
    table = step.subgraphs
    branches = [
        (f"{name}[{i}]" if table.count(name) > 1 else name, table.dynamic(name, i))
        for name in table.names()
        for i in range(table.count(name))
    ]
    if why := rule.branch_count_error(len(branches)):
        raise OfflineError(f"{label} cannot run offline: {why}")
    if not step.inputs or step.inputs[0] is None or None in step.inputs[1:]:
        raise OfflineError(
            f"{label} cannot run offline: a branch step needs input 0 (the selector) "
            "and every other input present"
        )
    selector = compiled.tensors[step.inputs[0]]
    dims = tuple(selector.meta.shape or ())
    if selector.meta.dtype not in rule.selector_dtypes:
        allowed = ", ".join(sorted(d.spec_name for d in rule.selector_dtypes))
        raise OfflineError(
            f"{label} cannot run offline: its selector is "
            f"{selector.meta.dtype.spec_name}; a model file reads a {rule.value} "
            f"selector of {allowed}"
        )
    if rule.reads_selector(dims) and 0 in dims:
        raise OfflineError(
            f"{label} cannot run offline: its selector {list(dims)} has no elements"
        )
    if depth + 1 > model_file.MAX_NESTING:
        raise OfflineError(
            f"{label} cannot run offline: branch plans nest more than "
            f"{model_file.MAX_NESTING} levels deep in a model file"
        )
    ins = [compiled.tensors[t] for t in step.inputs[1:] if t is not None]
    outs = [compiled.tensors[t] for t in step.outputs]
    plans = []
    for name, branch in branches:
        assert isinstance(branch, CompiledSubgraph)
        where = f"{label}, branch {name}"
        plan = branch.plan([t.meta for t in ins])
        if not isinstance(plan, CompiledGraph):  # Note [Data-dependent shapes]
            raise OfflineError(
                f"{where} cannot run offline: an output shape in the branch depends "
                "on the data (docs/model-format.md, Data-dependent output shapes)"
            )
        got = [(m.dtype, tuple(m.shape or ())) for m in plan.output_metas]
        want = [(t.meta.dtype, tuple(t.meta.shape or ())) for t in outs]
        if got != want:
            raise OfflineError(
                f"{where} cannot run offline: the branch gives "
                f"({', '.join(m.describe() for m in plan.output_metas)}) but the node's "
                f"outputs are ({', '.join(t.meta.describe() for t in outs)})"
            )
        try:
            subplans.append(model_data(plan, depth + 1))
        except OfflineError as exc:
            raise OfflineError(f"{where}: {exc}") from None
        plans.append(len(subplans) - 1)
    return BranchRecord(
        at=at,
        rule=rule.value,
        node=node.name,
        selector=(selector.buffer, selector.offset),
        selector_dtype=selector.meta.dtype.name,
        selector_shape=dims,
        inputs=tuple((t.buffer, t.offset, t.nbytes) for t in ins),
        outputs=tuple((t.buffer, t.offset, t.nbytes) for t in outs),
        plans=tuple(plans),
    )


def _slots(compiled: CompiledGraph) -> tuple[int, ...]:
    """The slot table as a file stores it: a foreign function's address is
    this process's, so its slot holds 0 (loading writes it again)."""
    slots = [int(v) for v in np.asarray(compiled.table, dtype=np.uint64)]
    for call in compiled.foreign_calls:
        slots[call.slot] = 0
    return tuple(slots)


def _check_describable(data: ModelData) -> None:
    """What a model file can describe (docs/model-format.md: PLAN): at most
    32 dims per graph input and output."""
    for kind, items in (("input", data.inputs), ("output", data.outputs)):
        for index, item in enumerate(items):
            if len(item.shape) > MAX_MODEL_DIMS:
                raise OfflineError(
                    f"graph '{data.name}' {kind} {index} ('{item.name}') has "
                    f"{len(item.shape)} dims; a model file describes at most "
                    f"{MAX_MODEL_DIMS}"
                )


def _write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that ``path`` is either left as it was
    or holds all of it."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException as exc:
        try:
            temporary.unlink(missing_ok=True)
        except OSError:
            pass
        if isinstance(exc, OSError) and exc.errno is not None:
            # Name the file asked for, not the temporary one.
            raise type(exc)(exc.errno, exc.strerror, str(path)) from None
        raise


def compile_model(
    graph: Graph | str | os.PathLike[str],
    output: str | os.PathLike[str] | None = None,
    options: Mapping[str, str] | None = None,
) -> bytes:
    """Compile a graph (or a graph file) into a model; write it to ``output``
    when given; return its bytes. Op modules come from ASCEND_CUSTOM_OPP_PATH.

    Raises OSError (files), ValueError (a graph file that cannot be read:
    FileFormatError; a bad path item), TypeError (a bad registration) or
    CompileError (the graph cannot be compiled, an op module does not load;
    OfflineError: it cannot become a model file). A model it returns loads
    with ``load_model``; a failure writes nothing.
    """
    if output is not None:
        check_path(output, "output")
    source = None
    if not isinstance(graph, Graph):
        if not isinstance(graph, (str, os.PathLike)):
            raise TypeError(
                "graph must be a ge.graph.Graph or a graph file path, got "
                f"{type(graph).__name__} {graph!r}"
            )
        source = os.fspath(graph)
        graph = Graph.load_from_air(graph)
    load_op_modules()
    try:
        compiled = compile_graph(graph, options or {}, ImplCache())
        if isinstance(compiled, DataDependentGraph):  # Note [Data-dependent shapes]
            raise OfflineError(
                f"graph '{graph.name}': {infer.node_label(compiled.node)} has an output "
                "whose shape depends on the data (infer_meta gives an unknown dim), so "
                "the graph cannot run offline: only the op's Python execute callback "
                "knows that shape, and a model file holds no Python; and the nodes "
                "after it are planned and given their launch arguments for each real "
                "shape by their Python infer_meta and declare_launch_args, and a model "
                "runs with no compiler. Such a graph runs online only "
                "(Session.run_graph); docs/model-format.md, "
                '"Data-dependent output shapes"'
            )
        contents = model_data(compiled)
        _check_describable(contents)
    except CompileError as exc:
        if source is not None:
            exc.add_note(f"compiling graph file {source}")
        raise
    data = model_file.encode(contents)
    if model_file.total_bytes(contents) > model_file.MAX_TOTAL_BYTES:
        raise OfflineError(
            f"graph '{graph.name}' and its branch plans need "
            f"{model_file.total_bytes(contents)} bytes of memory; a model file "
            f"may claim at most {model_file.MAX_TOTAL_BYTES}"
        )
    if len(data) > model_file.MAX_FILE_BYTES:
        raise OfflineError(
            f"graph '{graph.name}' makes a {len(data)}-byte model; a model file "
            f"holds at most {model_file.MAX_FILE_BYTES} bytes"
        )
    try:
        model_file.decode(data)  # what load_model checks, before anything is written
    except FileFormatError as exc:
        raise OfflineError(
            f"graph '{graph.name}' makes a model that would not load: {exc}"
        ) from None
    if output is not None:
        _write_atomically(Path(check_path(output, "output")), data)
    return data


class _OneLineWarnings:
    """Print warnings as ``ge-atc: warning: ...`` lines."""

    def __enter__(self) -> None:
        self._saved = warnings.showwarning
        warnings.showwarning = self._show

    def __exit__(self, *exc: object) -> None:
        warnings.showwarning = self._saved

    @staticmethod
    def _show(message: Warning | str, *args: object, **kwargs: object) -> None:
        text = " ".join(str(message).split())
        print(f"ge-atc: warning: {text}", file=sys.stderr)


# ATC flags the seeds pass, accepted so their scripts run unchanged.
_IGNORED = {
    "framework": "graph files are always AIR (1)",
    "soc_version": "models compile for and run on the CPU device",
    "host_env_os": "a model runs on any host this runtime runs on",
    "host_env_cpu": "a model runs on any host this runtime runs on",
}


def main(argv: Sequence[str] | None = None) -> int:
    """``ge-atc``: compile a graph file into a model file.

    Exit status 0 after writing the model; 1 when it cannot be written (one
    ``ge-atc: ...`` line on stderr, never a traceback); 2 for a usage error
    (argparse's message); 130 when interrupted."""
    parser = argparse.ArgumentParser(
        prog="ge-atc",
        description="Compile a graph file (Graph.save_to_air) into a model file for "
        "ge.offline.load_model. Op modules are loaded from ASCEND_CUSTOM_OPP_PATH.",
    )
    parser.add_argument("--model", required=True, help="the graph file")
    parser.add_argument(
        "--output",
        required=True,
        help="the model file to write (.om is added if missing)",
    )
    parser.add_argument(
        "--framework",
        choices=["1"],
        help="the graph file's framework: 1 (AIR), the only one; accepted for "
        "ATC compatibility",
    )
    parser.add_argument(
        "--soc_version", help="accepted for ATC compatibility; the model runs on CPU"
    )
    for flag in ("--host_env_os", "--host_env_cpu"):
        parser.add_argument(flag, help="accepted for ATC compatibility; ignored")
    parser.add_argument(
        "--fusion_switch_file",
        help="ATC's fusion switch file (JSON; docs/compiler.md, Switches): "
        'e.g. {"Switch": {"GraphFusion": {"ALL": "off"}}} turns fusion and '
        "constant folding off",
    )
    parser.add_argument(
        "--export_compile_stat",
        choices=["0", "1", "2"],
        default="1",
        help="ATC's fusion_result.json of the custom passes (docs/compiler.md, "
        "Writing passes): 0 none, 1 at exit (default), 2 when the graph compiled",
    )
    parser.add_argument("--version", action="version", version=f"ge-atc {__version__}")
    args = parser.parse_args(argv)
    for name, why in _IGNORED.items():
        value = getattr(args, name)
        if value is not None:
            print(f"ge-atc: note: --{name}={value} is ignored: {why}", file=sys.stderr)
    output = Path(args.output)
    if output.suffix != ".om":
        output = output.with_name(output.name + ".om")
    try:
        with _OneLineWarnings():
            options = {
                "ge.socVersion": "CPU",
                "ge.exportCompileStat": args.export_compile_stat,
            }
            if args.fusion_switch_file:
                options["ge.fusionSwitchFile"] = args.fusion_switch_file
            data = compile_model(args.model, output, options)
    except (OSError, ValueError, TypeError, CompileError) as exc:
        print(f"ge-atc: {describe(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("ge-atc: interrupted", file=sys.stderr)
        return 130
    except MemoryError as exc:  # reading a graph file, say: not a bug
        print(f"ge-atc: out of memory: {describe(exc)}", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug of ge-atc itself: still one line
        print(f"ge-atc: internal error: {describe(exc)}", file=sys.stderr)
        return 1
    print(f"ge-atc: wrote {output} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
