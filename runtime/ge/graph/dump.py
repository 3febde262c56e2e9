"""Text forms of a graph: the one renderer behind ``Graph.dump``,
``Graph.dump_to_stream`` and ``Graph.dump_to_file``.

``readable`` is GE's readable dump (Note [GE's readable dump]); ``txt`` is the
graph file's JSON document, indented (GE's ``kTxt`` is the protobuf text form
of its ModelDef, which this runtime does not have); ``detailed`` is this
runtime's own form (``Graph.dump()``): every node with its input edges, output
descriptions, attributes and control inputs, subgraphs indented below their
node.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from ge.graph.graph_edit import is_vacant
from ge.graph.types import DataType, attr_dtype_spec_name

if TYPE_CHECKING:
    from ge.graph.graph import Graph, Node

__all__ = ["detailed", "readable", "txt"]


# -- GE's readable form --------------------------------------------------------------

# Note [GE's readable dump]: GE's ReadableDump (metadef
# graph/utils/readable_dump.cc and its unit tests) writes, per graph:
#
#   graph("<name>"):
#     %<node> : [#users=<outputs>] = Node[type=<type>] (inputs = (<ir>=%<producer>, ...), attrs = {<k>: <v>, ...})
#     %<ret> : [#users=<readers>] = get_element[node=%<node>](<i>)   (one per output, when a node has several)
#
#     return (%<x>)  or  return (output_0=%<a>, output_1=%<b>)
#
# then, after a blank line each, the subgraphs its nodes name (depth first,
# each once). ``[#users=]`` of a node counts its outputs (GE counts out data
# anchors), of a get_element line the input slots and graph outputs reading
# that output. Inputs are named by IR input (``x``; a dynamic input's
# instances ``x_0, x_1``; an absent optional input is left out; a node without
# IR names its slots ``_input_0, ...``). A subgraph attr reads ``<ir>: %<graph
# name>`` (``<ir>0, <ir>1`` when a node has several graphs under one IR name).
# What GE's sources do not pin down, and we chose: the names of a multi-output
# node's outputs (GE's unit tests show ``ret``, ``ret_1``; we number ``ret``,
# ``ret_1``, ``ret_2``, ... through a graph, skipping node names); attribute
# values (GE prints IR attrs through AttrString: ints, floats, ``true``/
# ``false``, quoted strings, ``DT_FLOAT``-style dtypes, ``[a, b]`` lists; we
# print every stored attr so, a tensor as ``[v v ...]`` of its values in
# row-major order); GE leaves out control edges and so do we (the detailed
# form and ``txt`` show them).


def readable(graph: Graph) -> str:
    out: list[str] = []
    stack = [graph]
    seen: set[str] = {graph.name}
    first = True
    while stack:
        current = stack.pop()
        if not first:
            out.append("")
        first = False
        subgraphs: list[Graph] = []
        out.extend(_readable_graph(current, subgraphs, seen))
        stack.extend(reversed(subgraphs))
    return "\n".join(out) + "\n"


def _output_names(graph: Graph) -> dict[int, list[str]]:
    taken = {node.name for node in graph.nodes}
    names: dict[int, list[str]] = {}
    counter = 0
    for node in graph.nodes:
        if len(node.outputs) <= 1:
            names[id(node)] = [node.name] * len(node.outputs)
            continue
        mine: list[str] = []
        for _ in node.outputs:
            while (name := "ret" if counter == 0 else f"ret_{counter}") in taken:
                counter += 1
            taken.add(name)
            mine.append(name)
            counter += 1
        names[id(node)] = mine
    return names


def _readable_graph(
    graph: Graph, subgraphs: list[Graph], seen: set[str]
) -> Iterator[str]:
    names = _output_names(graph)
    readers: dict[tuple[int, int], int] = {}
    for node in graph.nodes:
        for edge in node.inputs:
            if edge is not None:
                key = (id(edge.node), edge.index)
                readers[key] = readers.get(key, 0) + 1
    for node, index in graph.outputs:
        readers[(id(node), index)] = readers.get((id(node), index), 0) + 1

    def instance(producer: Node, index: int) -> str:
        listed = names.get(id(producer), [])
        return "%" + (listed[index] if index < len(listed) else producer.name)

    yield f'graph("{graph.name}"):'
    for node in graph.nodes:
        inputs = _readable_inputs(node, instance)
        attrs = _readable_attrs(node, subgraphs, seen)
        body = f"inputs = ({inputs})" if inputs else ""
        if attrs:
            body += (", " if body else "") + f"attrs = {{{attrs}}}"
        yield (
            f"  %{node.name} : [#users={len(node.outputs)}] = "
            f"Node[type={node.type}] ({body})"
        )
        if len(node.outputs) > 1:
            for i, name in enumerate(names[id(node)]):
                users = readers.get((id(node), i), 0)
                yield f"  %{name} : [#users={users}] = get_element[node=%{node.name}]({i})"
    if graph.outputs:
        rets = [instance(n, i) for n, i in graph.outputs]
        if len(rets) > 1:
            rets = [f"output_{k}={r}" for k, r in enumerate(rets)]
        yield ""
        yield f"  return ({', '.join(rets)})"


def _readable_inputs(node: Node, instance: Any) -> str:
    parts: list[str] = []
    if not node.ir_inputs:
        for slot, edge in enumerate(node.inputs):
            if edge is not None:
                parts.append(f"_input_{slot}={instance(edge.node, edge.index)}")
        return ", ".join(parts)
    slot = 0
    for ir in node.ir_inputs:
        for k in range(ir.count):
            edge = node.inputs[slot] if slot < len(node.inputs) else None
            slot += 1
            if edge is None:
                continue
            name = f"{ir.name}_{k}" if ir.kind == "dynamic" else ir.name
            parts.append(f"{name}={instance(edge.node, edge.index)}")
    return ", ".join(parts)


def _readable_attrs(node: Node, subgraphs: list[Graph], seen: set[str]) -> str:
    parts: list[str] = []
    for key, graphs in node.subgraphs.items():
        for k, sub in enumerate(graphs):
            label = key if len(graphs) == 1 else f"{key}{k}"
            parts.append(f"{label}: %{sub.name}")
            if not is_vacant(sub) and sub.name not in seen:
                seen.add(sub.name)
                subgraphs.append(sub)
    for name, (_, value) in node.attrs.items():
        text = _readable_value(value)
        if text in ("", '""'):
            continue
        parts.append(f"{name}: {text}")
    return ", ".join(parts)


def _readable_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, DataType):
        return value.name
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_readable_value(v) for v in value) + "]"
    if isinstance(value, (int, float)):
        return repr(value)
    numpy = getattr(value, "numpy", None)
    if callable(numpy):
        flat = np.asarray(numpy()).reshape(-1)
        return "[" + " ".join(_readable_value(v.item()) for v in flat) + "]"
    return str(value)


# -- the graph file's JSON ----------------------------------------------------------


def txt(graph: Graph) -> str:
    from ge.graph.air import graph_document

    return (
        json.dumps(
            graph_document(graph),
            indent=2,
            sort_keys=True,
            ensure_ascii=False,
            allow_nan=False,
        )
        + "\n"
    )


# -- this runtime's detailed form -----------------------------------------------------


def detailed(graph: Graph) -> str:
    return "\n".join(_detailed_lines(graph, 0)) + "\n"


def _detailed_lines(graph: Graph, depth: int) -> Iterator[str]:
    pad = "  " * depth
    yield f"{pad}graph {graph.name} {{"
    for node in graph.nodes:
        ins = [
            "-" if edge is None else f"{edge.node.name}:{edge.index}"
            for edge in node.inputs
        ]
        outs = ", ".join(meta.describe() for meta in node.outputs)
        attrs = ", ".join(
            f"{k}={_attr_text(v)}" for k, (_, v) in sorted(node.attrs.items())
        )
        line = f"{pad}  {node.name} = {node.type}({', '.join(ins)})"
        if outs:
            line += f" -> ({outs})"
        if attrs:
            line += f" {{{attrs}}}"
        if node.control_inputs:
            line += " after " + ", ".join(n.name for n in node.control_inputs)
        yield line
        for key, graphs in node.subgraphs.items():
            for sub in graphs:
                if is_vacant(sub):
                    yield f"{pad}    subgraph {key}: vacant ({sub.name!r} removed)"
                    continue
                yield f"{pad}    subgraph {key}:"
                yield from _detailed_lines(sub, depth + 3)
    outs = ", ".join(f"{n.name}:{i}" for n, i in graph.outputs)
    yield f"{pad}  return ({outs})"
    yield f"{pad}}}"


def _attr_text(value: Any) -> str:
    if isinstance(value, DataType):
        return attr_dtype_spec_name(value)
    if isinstance(value, tuple):
        return "[" + ", ".join(_attr_text(v) for v in value) + "]"
    return repr(value)
