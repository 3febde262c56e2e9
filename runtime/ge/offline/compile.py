"""Compiling a graph to a model file (the part ATC plays in GE's flow)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from ge.custom_op import bootstrap
from ge.engine.compiled import CompiledGraph, ExecuteStep
from ge.engine.compiler import ImplCache, compile_graph
from ge.engine.errors import CompileError
from ge.graph.graph import Graph
from ge.offline import model_file
from ge.offline.model_file import ModelData, TensorDescription


class OfflineError(CompileError):
    """A graph that cannot become a model file (the message says why)."""


def model_data(compiled: CompiledGraph) -> ModelData:
    """A compiled graph as model file contents; OfflineError if some node
    runs through a Python execute callback."""
    execute_nodes = [s.node for s in compiled.steps if isinstance(s, ExecuteStep)]
    if execute_nodes:
        names = ", ".join(f"'{n.name}' ({n.type})" for n in execute_nodes)
        raise OfflineError(
            f"graph '{compiled.name}' cannot run offline: node(s) {names} run through "
            "a Python execute callback; an offline model holds only annotated-args "
            "nodes (declare_launch_args)"
        )
    binaries: list[bytes] = []
    binary_index: dict[str, int] = {}
    names: list[str] = []
    name_index: dict[str, int] = {}
    tasks = []
    for spec in compiled.task_specs:
        binary = spec.kernel.binary
        if binary.digest not in binary_index:
            binary_index[binary.digest] = len(binaries)
            binaries.append(binary.data)
        if spec.kernel.name not in name_index:
            name_index[spec.kernel.name] = len(names)
            names.append(spec.kernel.name)
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

    consts = compiled.fixed[: compiled.const_count]
    workspaces = compiled.fixed[compiled.const_count :]
    return ModelData(
        name=compiled.name,
        arena_size=compiled.arena.size,
        const_sizes=tuple(b.size for b in consts),
        workspace_sizes=tuple(b.size for b in workspaces),
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
        kernel_names=tuple(names),
        binaries=tuple(binaries),
        tasks=tuple(tasks),
        slots=tuple(int(v) for v in np.asarray(compiled.table, dtype=np.uint64)),
        bindings=tuple(compiled.bound),
        consts=b"".join(bytes(b.array) for b in consts),
    )


def compile_model(
    graph: Graph | str | os.PathLike[str],
    output: str | os.PathLike[str] | None = None,
    options: Mapping[str, str] | None = None,
) -> bytes:
    """Compile a graph (or a graph file) into a model; write it to ``output``
    when given; return its bytes. Op modules come from ASCEND_CUSTOM_OPP_PATH."""
    if not isinstance(graph, Graph):
        graph = Graph.load_from_air(graph)
    bootstrap.load_custom_op_plugins()
    compiled = compile_graph(graph, options or {}, ImplCache())
    data = model_file.encode(model_data(compiled))
    if len(data) > model_file.MAX_FILE_BYTES:
        raise OfflineError(
            f"graph '{graph.name}' makes a {len(data)}-byte model; a model file "
            f"holds at most {model_file.MAX_FILE_BYTES} bytes"
        )
    if output is not None:
        Path(output).write_bytes(data)
    return data


def main(argv: Sequence[str] | None = None) -> int:
    """``ge-atc``: compile a graph file into a model file."""
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
        default="1",
        choices=["1"],
        help="the graph file's framework: 1 (AIR), as in ATC",
    )
    parser.add_argument(
        "--soc_version", default="CPU", help="accepted for ATC compatibility"
    )
    args = parser.parse_args(argv)
    output = Path(args.output)
    if output.suffix != ".om":
        output = output.with_name(output.name + ".om")
    try:
        data = compile_model(args.model, output, {"ge.socVersion": args.soc_version})
    except (OSError, ValueError, TypeError, CompileError) as exc:
        print(f"ge-atc: {exc}", file=sys.stderr)
        return 1
    print(f"ge-atc: wrote {output} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
