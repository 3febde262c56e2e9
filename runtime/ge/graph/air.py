"""Graph files ("AIR" here): a graph saved losslessly and loaded back.

One container section holds the graph as JSON (docs/model-format.md):
nodes with their IR layout, edges, output descriptions, attributes (every
attr type, typed), subgraphs, control edges and ref pairs; the graph's
outputs and attributes. Floats are written as hexadecimal strings
(``float.hex``; a NaN as ``nan:`` and its 64 bits), so every value, -0.0,
infinities and NaN payloads included, comes back exactly. Loading checks
every field's type, every index and reference, and every attr value, and
never evaluates anything; a cycle is found when the graph is compiled.
"""

from __future__ import annotations

import base64
import json
import math
import os
import struct
from typing import Any

from ge._container import FileFormatError, Section, read, read_regular_file, write
from ge.graph.attrs import AttrType, check_attr_value
from ge.graph.graph import (
    Edge,
    Graph,
    InputKind,
    IrInput,
    IrOutput,
    Node,
    TensorMeta,
    check_ir,
)
from ge.graph.graph_edit import is_vacant
from ge.graph.limits import MAX_DIM
from ge.graph.named_attrs import NamedAttrs
from ge.graph.paths import check_path
from ge.graph.types import DataType, Format
from ge_ir.dtype_rules import DtypeRules

MAGIC = b"GECPUAIR"
VERSION = 1
_GRAPH = 1
WHAT = "graph file"
MAX_DEPTH = 32  # subgraph nesting
MAX_FILE_BYTES = 1 << 31
_DOUBLE = struct.Struct("<d")
_BITS = struct.Struct("<Q")


def _float_text(value: float) -> str:
    if math.isnan(value):
        (bits,) = _BITS.unpack(_DOUBLE.pack(value))
        return f"nan:{bits:016x}"
    return value.hex()


# -- encoding ---------------------------------------------------------------------


def _encode_value(kind: AttrType, value: Any) -> Any:
    if kind.element is not None:
        return [_encode_value(kind.element, v) for v in value]
    if kind is AttrType.FLOAT:
        return _float_text(float(value))
    if kind is AttrType.DTYPE:
        return DataType(value).name
    if kind is AttrType.BYTES:
        return base64.b64encode(value).decode("ascii")
    if kind is AttrType.TENSOR:
        return {
            "dtype": value.data_type.name,
            "format": value.format.name,
            "shape": list(value.shape),
            "data": base64.b64encode(value.tobytes()).decode("ascii"),
        }
    if kind is AttrType.NAMED_ATTRS:
        return {
            "name": value.name,
            "attrs": [[k, _encode_attr(t, v)] for k, t, v in value.typed_items()],
        }
    return value  # int, bool, str


def _encode_attr(kind: AttrType, value: Any) -> dict[str, Any]:
    return {"type": kind.value, "value": _encode_value(kind, value)}


def _encode_graph(graph: Graph) -> dict[str, Any]:
    index = {id(node): i for i, node in enumerate(graph.nodes)}
    for node in graph.nodes:
        for key, graphs in node.subgraphs.items():
            for sub in graphs:
                if is_vacant(sub):
                    raise ValueError(
                        f"node '{node.name}' of graph '{graph.name}' has a vacant "
                        f"subgraph slot '{key}' (graph {sub.name!r} was removed); "
                        f"add_subgraph a graph named {sub.name!r} to fill it first"
                    )

    def ref(node: Node) -> int:
        try:
            return index[id(node)]
        except KeyError:
            raise ValueError(
                f"node {node.name!r} is referenced but not in graph {graph.name!r}"
            ) from None

    return {
        "name": graph.name,
        "attrs": [[k, _encode_attr(t, v)] for k, (t, v) in graph.attrs.items()],
        "nodes": [
            {
                "name": node.name,
                "type": node.type,
                "ir_inputs": [
                    [ir.name, ir.kind.value, ir.count] for ir in node.ir_inputs
                ],
                "ir_outputs": [
                    [ir.name, ir.dynamic, ir.count] for ir in node.ir_outputs
                ],
                "inputs": [
                    None if e is None else [ref(e.node), e.index] for e in node.inputs
                ],
                "outputs": [
                    [
                        None if m.shape is None else list(m.shape),
                        m.dtype.name,
                        m.format.name,
                    ]
                    for m in node.outputs
                ],
                # Pairs, not objects: attrs and subgraphs keep their order.
                "attrs": [[k, _encode_attr(t, v)] for k, (t, v) in node.attrs.items()],
                "subgraphs": [
                    [k, [_encode_graph(g) for g in graphs]]
                    for k, graphs in node.subgraphs.items()
                ],
                "control_inputs": [ref(n) for n in node.control_inputs],
                "ref_outputs": [[o, i] for o, i in sorted(node.ref_outputs.items())],
                **(
                    {"dtype_rules": node.dtype_rules.as_json()}
                    if node.dtype_rules is not None
                    else {}
                ),
            }
            for node in graph.nodes
        ],
        "outputs": [[ref(node), i] for node, i in graph.outputs],
    }


def graph_document(graph: Graph) -> dict[str, Any]:
    """The graph section's JSON document, as Python values."""
    if not isinstance(graph, Graph):
        raise TypeError(f"expected a Graph, got {type(graph).__name__}")
    return _encode_graph(graph)


def graph_bytes(graph: Graph) -> bytes:
    """A graph file's bytes (deterministic for a given graph)."""
    if not isinstance(graph, Graph):
        raise TypeError(f"expected a Graph, got {type(graph).__name__}")
    text = _encode_graph_text(graph)
    return write(MAGIC, VERSION, [Section(_GRAPH, text.encode("utf-8"))])


def _encode_graph_text(graph: Graph) -> str:
    """The graph section's JSON text."""
    return json.dumps(
        _encode_graph(graph),
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
        allow_nan=False,
    )


def save_graph(graph: Graph, path: str | os.PathLike[str]) -> None:
    check_path(path, "path")
    data = graph_bytes(graph)
    with open(path, "wb") as handle:
        handle.write(data)


# -- decoding ---------------------------------------------------------------------


_JSON_NAMES: dict[type, str] = {
    dict: "an object",
    list: "an array",
    str: "a string",
    int: "an integer",
    bool: "true or false",
    float: "a fractional number",
    type(None): "null",
}


class _Reader:
    """Decodes the JSON document, checking every field as it goes."""

    def __init__(self, what: str) -> None:
        self.what = what  # "graph file", or "graph file <path>"

    def fail(self, where: str, message: str) -> FileFormatError:
        return FileFormatError(f"{self.what}: {where}: {message}")

    def typed(self, value: Any, kinds: type | tuple[type, ...], where: str) -> Any:
        expected = kinds if isinstance(kinds, tuple) else (kinds,)
        if not isinstance(value, expected) or (
            isinstance(value, bool) and bool not in expected
        ):
            wanted = " or ".join(_JSON_NAMES.get(k, k.__name__) for k in expected)
            got = _JSON_NAMES.get(type(value), type(value).__name__)
            raise self.fail(where, f"expected {wanted}, got {got}")
        return value

    def enum(self, enum_type: Any, name: Any, where: str) -> Any:
        self.typed(name, str, where)
        try:
            return enum_type[name]
        except KeyError:
            raise self.fail(where, f"unknown {enum_type.__name__} {name!r}") from None

    def value(self, kind: AttrType, raw: Any, where: str, depth: int) -> Any:
        if kind.element is not None:
            self.typed(raw, list, where)
            return [
                self.value(kind.element, v, f"{where}[{i}]", depth)
                for i, v in enumerate(raw)
            ]
        if kind is AttrType.FLOAT:
            self.typed(raw, str, where)
            try:
                if raw.startswith("nan:") and len(raw) == 20:
                    bits = int(raw[4:], 16)
                    (value,) = _DOUBLE.unpack(_BITS.pack(bits))
                    if math.isnan(value):
                        return value
                    raise ValueError(raw)
                return float.fromhex(raw)
            except ValueError:
                raise self.fail(where, f"{raw!r} is not a hexadecimal float") from None
        if kind is AttrType.INT:
            return self.typed(raw, int, where)
        if kind is AttrType.BOOL:
            return self.typed(raw, bool, where)
        if kind is AttrType.STR:
            return self.typed(raw, str, where)
        if kind is AttrType.DTYPE:
            return self.enum(DataType, raw, where)
        if kind is AttrType.BYTES:
            return self.b64(raw, where)
        if kind is AttrType.TENSOR:
            from ge.graph.tensor import Tensor

            self.typed(raw, dict, where)
            dtype = self.enum(DataType, raw.get("dtype"), where + ".dtype")
            fmt = self.enum(Format, raw.get("format"), where + ".format")
            shape = self.typed(raw.get("shape"), list, where + ".shape")
            for dim in shape:
                self.typed(dim, int, where + ".shape")
            data = self.b64(raw.get("data"), where + ".data")
            try:
                return Tensor(data, data_type=dtype, format=fmt, shape=shape)
            except (TypeError, ValueError) as exc:
                raise self.fail(where, f"bad tensor: {exc}") from None
        if kind is AttrType.NAMED_ATTRS:
            self.typed(raw, dict, where)
            name = self.typed(raw.get("name"), str, where + ".name")
            attrs = self.attrs(raw.get("attrs"), where + ".attrs", depth + 1)
            return NamedAttrs(
                name,
                {k: v for k, (_, v) in attrs.items()},
                {k: t for k, (t, _) in attrs.items()},
            )
        raise AssertionError(kind)

    def b64(self, raw: Any, where: str) -> bytes:
        self.typed(raw, str, where)
        try:
            return base64.b64decode(raw.encode("ascii"), validate=True)
        except (ValueError, UnicodeEncodeError):
            raise self.fail(where, "not base64 data") from None

    def attr(self, entry: Any, where: str, depth: int) -> tuple[AttrType, Any]:
        if depth > MAX_DEPTH:
            raise self.fail(where, "nested too deeply")
        self.typed(entry, dict, where)
        try:
            kind = AttrType(self.typed(entry.get("type"), str, where + ".type"))
        except ValueError:
            raise self.fail(where, f"unknown attr type {entry.get('type')!r}") from None
        value = self.value(kind, entry.get("value"), where + ".value", depth)
        try:
            return kind, check_attr_value(kind, value)
        except (TypeError, ValueError) as exc:
            raise self.fail(where, str(exc)) from None

    def attrs(
        self, raw: Any, where: str, depth: int
    ) -> dict[str, tuple[AttrType, Any]]:
        out: dict[str, tuple[AttrType, Any]] = {}
        for item in self.typed(raw, list, where):
            if not isinstance(item, list) or len(item) != 2:
                raise self.fail(where, "expected [name, attr] pairs")
            key = self.typed(item[0], str, where)
            if key in out:
                raise self.fail(where, f"attr {key!r} appears twice")
            out[key] = self.attr(item[1], f"{where}.{key}", depth)
        return out

    def graph(self, raw: Any, where: str, depth: int) -> Graph:
        if depth > MAX_DEPTH:
            raise self.fail(where, "subgraphs nested too deeply")
        self.typed(raw, dict, where)
        graph = Graph(self.typed(raw.get("name"), str, where + ".name"))
        graph.attrs = self.attrs(raw.get("attrs", []), where + ".attrs", depth)
        nodes_raw = self.typed(raw.get("nodes"), list, where + ".nodes")
        nodes: list[Node] = []
        for i, entry in enumerate(nodes_raw):
            place = f"{where}.nodes[{i}]"
            self.typed(entry, dict, place)
            node = Node(
                name=self.typed(entry.get("name"), str, place + ".name"),
                type=self.typed(entry.get("type"), str, place + ".type"),
            )
            node.ir_inputs = tuple(
                self.ir_input(x, place)
                for x in self.typed(entry.get("ir_inputs"), list, place)
            )
            node.ir_outputs = tuple(
                self.ir_output(x, place)
                for x in self.typed(entry.get("ir_outputs"), list, place)
            )
            node.outputs = [
                self.meta(m, place)
                for m in self.typed(entry.get("outputs"), list, place + ".outputs")
            ]
            node.attrs = self.attrs(entry.get("attrs", []), place + ".attrs", depth)
            if "dtype_rules" in entry:
                try:
                    node.dtype_rules = DtypeRules.from_json(entry["dtype_rules"])
                except ValueError as exc:
                    raise self.fail(place + ".dtype_rules", str(exc)) from None
            for item in self.typed(
                entry.get("subgraphs", []), list, place + ".subgraphs"
            ):
                if not isinstance(item, list) or len(item) != 2:
                    raise self.fail(place, "expected [name, graphs] pairs")
                key = self.typed(item[0], str, place)
                if key in node.subgraphs:
                    raise self.fail(place, f"subgraph {key!r} appears twice")
                node.subgraphs[key] = tuple(
                    self.graph(g, f"{place}.subgraphs.{key}", depth + 1)
                    for g in self.typed(item[1], list, place)
                )
            for sub in (g for gs in node.subgraphs.values() for g in gs):
                sub.set_owner(node)
            nodes.append(node)
        for i, entry in enumerate(nodes_raw):
            place = f"{where}.nodes[{i}]"
            node = nodes[i]
            for edge in self.typed(entry.get("inputs"), list, place + ".inputs"):
                if edge is None:
                    node.inputs.append(None)
                    continue
                producer, index = self.pair(edge, len(nodes), place + ".inputs")
                if index >= len(nodes[producer].outputs):
                    raise self.fail(
                        place,
                        f"reads output {index} of a node with "
                        f"{len(nodes[producer].outputs)}",
                    )
                node.inputs.append(Edge(nodes[producer], index))
            for c in self.typed(entry.get("control_inputs", []), list, place):
                node.control_inputs.append(nodes[self.index(c, len(nodes), place)])
            for pair in self.typed(entry.get("ref_outputs", []), list, place):
                out, slot = self.pair(pair, len(node.outputs), place + ".ref_outputs")
                if slot >= len(node.inputs):
                    raise self.fail(
                        place + ".ref_outputs", f"input slot {slot} out of range"
                    )
                node.ref_outputs[out] = slot
            try:
                check_ir(node)
            except ValueError as exc:
                raise self.fail(place, str(exc)) from None
        names = [n.name for n in nodes]
        if len(set(names)) != len(names):
            twice = next(n for n in names if names.count(n) > 1)
            raise self.fail(where, f"node name {twice!r} appears twice")
        graph.nodes = nodes
        graph.outputs = []
        for pair in self.typed(raw.get("outputs"), list, where):
            producer, index = self.pair(pair, len(nodes), where + ".outputs")
            if index >= len(nodes[producer].outputs):
                raise self.fail(
                    where + ".outputs",
                    f"output {index} of node {names[producer]!r}, which has "
                    f"{len(nodes[producer].outputs)}",
                )
            graph.outputs.append((nodes[producer], index))
        return graph

    def index(self, raw: Any, limit: int, where: str) -> int:
        value = self.typed(raw, int, where)
        if not 0 <= value < limit:
            raise self.fail(where, f"index {value} out of range")
        return value

    def pair(self, raw: Any, limit: int, where: str) -> tuple[int, int]:
        if not isinstance(raw, list) or len(raw) != 2:
            raise self.fail(where, "expected a pair")
        return self.index(raw[0], limit, where), self.index(raw[1], 1 << 31, where)

    def ir_input(self, raw: Any, where: str) -> IrInput:
        if not isinstance(raw, list) or len(raw) != 3:
            raise self.fail(where, "bad IR input")
        text = self.typed(raw[1], str, where)
        try:
            kind = InputKind(text)
        except ValueError:
            raise self.fail(where, f"bad input kind {text!r}") from None
        return IrInput(
            self.typed(raw[0], str, where), kind, self.index(raw[2], 1 << 20, where)
        )

    def ir_output(self, raw: Any, where: str) -> IrOutput:
        if not isinstance(raw, list) or len(raw) != 3:
            raise self.fail(where, "bad IR output")
        return IrOutput(
            self.typed(raw[0], str, where),
            self.typed(raw[1], bool, where),
            self.index(raw[2], 1 << 20, where),
        )

    def meta(self, raw: Any, where: str) -> TensorMeta:
        if not isinstance(raw, list) or len(raw) != 3:
            raise self.fail(where, "bad output description")
        shape = raw[0]
        if shape is not None:
            self.typed(shape, list, where)
            for dim in shape:
                self.typed(dim, int, where)
            shape = tuple(shape)
            if shape != (-2,) and any(not -1 <= d <= MAX_DIM for d in shape):
                raise self.fail(
                    where,
                    f"bad shape {list(shape)} (dims are -1 (unknown) to {MAX_DIM} "
                    "(int64), or the shape is [-2])",
                )
        return TensorMeta(
            shape, self.enum(DataType, raw[1], where), self.enum(Format, raw[2], where)
        )


def graph_from_bytes(data: bytes, what: str = WHAT) -> Graph:
    """The graph in a graph file's bytes; FileFormatError (its message
    starting with ``what``) if it is damaged."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"a graph file's contents are bytes, got {type(data).__name__}")
    _, sections = read(bytes(data), MAGIC, VERSION, what)
    if _GRAPH not in sections:
        raise FileFormatError(f"{what}: no graph section")
    try:
        document = json.loads(sections[_GRAPH].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise FileFormatError(f"{what}: the graph section is not JSON: {exc}") from None
    except RecursionError:
        raise FileFormatError(
            f"{what}: the graph section is nested too deeply"
        ) from None
    return _Reader(what).graph(document, "graph", 0)


def load_graph(path: str | os.PathLike[str]) -> Graph:
    """The graph in a graph file: OSError if it cannot be read,
    FileFormatError naming the file if it is not a sound graph file."""
    what = f"{WHAT} {os.fspath(check_path(path, 'path'))}"
    # Not open(): a FIFO would hang it and /dev/zero exhaust memory (Note
    # [Untrusted container files] in ge._container).
    return graph_from_bytes(read_regular_file(path, MAX_FILE_BYTES, WHAT), what)
