"""``ge.graph.Graph``: nodes, edges, inputs, outputs and attributes.

A node keeps GE's IR layout: its IR inputs (each required, optional or
dynamic, with an instance count) flatten into input slots; an absent optional
input keeps its slot with no edge. Outputs flatten the same way. Attributes
are stored with their attr type, so a graph file round-trips exactly.
"""

from __future__ import annotations

import enum
import hashlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ge.graph.attrs import AttrType
from ge.graph.types import DataType, Format, attr_dtype_spec_name
from ge_ir.dtype_rules import DtypeRules
from ge_ir.names import DATA_NODE_TYPES as _DATA_TYPES

__all__ = [
    "Graph",
    "InputKind",
    "Node",
    "TensorMeta",
    "IrInput",
    "IrOutput",
    "DumpFormat",
    "check_ir",
    "data_index",
]


class DumpFormat(enum.Enum):
    kReadable = "readable"


@dataclass
class TensorMeta:
    """What is known about a tensor before it runs. ``shape`` None: unknown."""

    shape: tuple[int, ...] | None = None
    dtype: DataType = DataType.DT_UNDEFINED
    format: Format = Format.FORMAT_ND

    def copy(self) -> TensorMeta:
        return TensorMeta(self.shape, self.dtype, self.format)

    def describe(self) -> str:
        shape = (
            "?" if self.shape is None else "[" + ",".join(map(str, self.shape)) + "]"
        )
        dtype = "?" if self.dtype is DataType.DT_UNDEFINED else self.dtype.spec_name
        return f"{dtype}{shape}"


class InputKind(enum.StrEnum):
    """GE's kinds of IR input (INPUT, OPTIONAL_INPUT, DYNAMIC_INPUT); an IR
    output is required or dynamic. The values are how graph files, registry
    queries and messages spell them."""

    REQUIRED = "required"
    OPTIONAL = "optional"
    DYNAMIC = "dynamic"

    @classmethod
    def of_output(cls, dynamic: bool) -> InputKind:
        """An IR output's kind, by the same words."""
        return cls.DYNAMIC if dynamic else cls.REQUIRED


@dataclass(frozen=True)
class IrInput:
    name: str
    kind: InputKind
    count: int  # instances (an absent optional input still counts 1 slot)


@dataclass(frozen=True)
class IrOutput:
    name: str
    dynamic: bool
    count: int


@dataclass(frozen=True)
class Edge:
    """The producer of one input slot."""

    node: Node
    index: int


class _Attributed:
    """get_attr / set_attr over an ``attrs`` dict of (type, value), for nodes
    and graphs alike."""

    attrs: dict[str, tuple[AttrType, Any]]

    def get_attr(self, name: str) -> Any:
        return self.attrs[name][1]

    def set_attr(
        self, name: str, value: Any, attr_type: AttrType | None = None
    ) -> None:
        from ge.graph.attrs import check_attr_value
        from ge.graph.named_attrs import infer_attr_type

        kind = attr_type or infer_attr_type(value)
        self.attrs[name] = (kind, check_attr_value(kind, value))


@dataclass(eq=False)
class Node(_Attributed):
    name: str
    type: str
    ir_inputs: tuple[IrInput, ...] = ()
    ir_outputs: tuple[IrOutput, ...] = ()
    inputs: list[Edge | None] = field(default_factory=list)
    outputs: list[TensorMeta] = field(default_factory=list)
    attrs: dict[str, tuple[AttrType, Any]] = field(default_factory=dict)
    subgraphs: dict[str, tuple[Graph, ...]] = field(default_factory=dict)
    control_inputs: list[Node] = field(default_factory=list)
    # GE's ref pairs: output index -> input slot it writes in place.
    ref_outputs: dict[int, int] = field(default_factory=dict)
    # The op's dtype rules, when the node was built by a generated builder
    # or read from a graph file that has them (Note [Dtype rules travel with
    # the op] in ge_ir/dtype_rules.py).
    dtype_rules: DtypeRules | None = None

    def __repr__(self) -> str:
        return f"Node({self.name!r}, {self.type!r})"


class Graph(_Attributed):
    """A built graph. Nodes are kept in creation order, which is a topological
    order for graphs made by a GraphBuilder."""

    def __init__(self, name: str = "graph") -> None:
        if not isinstance(name, str):
            raise TypeError(f"graph name must be str, got {type(name).__name__}")
        self._name = name
        self.nodes: list[Node] = []
        self.outputs: list[tuple[Node, int]] = []
        self.attrs: dict[str, tuple[AttrType, Any]] = {}
        self._owner: Node | None = None  # set when used as a subgraph

    @property
    def name(self) -> str:
        return self._name

    @property
    def owner(self) -> Node | None:
        """The node this graph is a subgraph of, if any."""
        return self._owner

    def set_owner(self, node: Node) -> None:
        """Make this graph a subgraph of ``node`` (builders and graph files
        do, when they attach it)."""
        self._owner = node

    # -- queries -------------------------------------------------------------------

    def get_direct_nodes(self) -> list[Node]:
        return list(self.nodes)

    def get_all_nodes(self) -> list[Node]:
        """Nodes of this graph and, recursively, of its subgraphs."""
        out: list[Node] = []
        for node in self.nodes:
            out.append(node)
            for graphs in node.subgraphs.values():
                for sub in graphs:
                    out.extend(sub.get_all_nodes())
        return out

    def find_node_by_name(self, name: str) -> Node | None:
        return next((n for n in self.nodes if n.name == name), None)

    @property
    def input_nodes(self) -> list[Node]:
        """Data nodes ordered by their ``index`` attr (ValueError naming the
        node if one has no int ``index``)."""
        try:
            data = [(data_index(n), n) for n in self.nodes if n.type in _DATA_TYPES]
        except ValueError as exc:
            raise ValueError(f"graph '{self._name}': {exc}") from None
        return [node for _, node in sorted(data, key=lambda pair: pair[0])]

    def graph_inputs(self) -> list[Node]:
        """The Data nodes of a complete graph, by index, checked (Note [Data
        nodes]): ValueError naming the node unless the indices are 0..n-1,
        once each, and every Data node has one output."""
        data = self.input_nodes
        for position, node in enumerate(data):
            index = data_index(node)
            if position and index == data_index(data[position - 1]):
                raise ValueError(
                    f"graph '{self._name}': Data nodes '{data[position - 1].name}' "
                    f"and '{node.name}' both have index {index}; each graph input is "
                    "read by one Data node"
                )
            if index != position:
                raise ValueError(
                    f"graph '{self._name}': Data node '{node.name}' has index {index}, "
                    f"but the graph has {len(data)} input(s), numbered 0..{len(data) - 1}"
                )
            if len(node.outputs) != 1:
                raise ValueError(
                    f"graph '{self._name}': Data node '{node.name}' has "
                    f"{len(node.outputs)} outputs; a Data node has exactly one"
                )
        return data

    def get_all_subgraphs(self) -> list[Graph]:
        return [g for n in self.nodes for gs in n.subgraphs.values() for g in gs]

    # -- text form -----------------------------------------------------------------

    def dump(self) -> str:
        """A readable text form: one line per node with its inputs, outputs and
        attributes; subgraphs indented below their node."""
        return "\n".join(self._dump_lines(0)) + "\n"

    def _dump_lines(self, depth: int) -> Iterator[str]:
        pad = "  " * depth
        yield f"{pad}graph {self._name} {{"
        for node in self.nodes:
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
                    yield f"{pad}    subgraph {key}:"
                    yield from sub._dump_lines(depth + 3)
        outs = ", ".join(f"{n.name}:{i}" for n, i in self.outputs)
        yield f"{pad}  return ({outs})"
        yield f"{pad}}}"

    def dump_to_file(
        self, format: DumpFormat = DumpFormat.kReadable, suffix: str = ""
    ) -> str:
        """Write the text form to ``ge_readable_<name><suffix>.txt`` in the
        current directory (or ``$DUMP_GRAPH_PATH``), the name and suffix made
        safe as a file name (Note [Dump file names]); returns the path."""
        if not isinstance(format, DumpFormat):
            raise TypeError(f"format must be a DumpFormat, got {type(format).__name__}")
        if not isinstance(suffix, str):
            raise TypeError(f"suffix must be a str, got {type(suffix).__name__}")
        directory = os.environ.get("DUMP_GRAPH_PATH", ".")
        path = os.path.join(directory, dump_file_name(self._name, suffix))
        with open(path, "w", encoding="utf-8", errors="backslashreplace") as handle:
            handle.write(self.dump())
        return path

    def save_to_air(self, path: str | os.PathLike[str]) -> None:
        from ge.graph.air import save_graph

        save_graph(self, path)

    @staticmethod
    def load_from_air(path: str | os.PathLike[str]) -> Graph:
        from ge.graph.air import load_graph

        return load_graph(path)

    def __repr__(self) -> str:
        return f"Graph({self._name!r}, {len(self.nodes)} nodes)"


# Note [Dump file names]: a graph's name and a dump suffix are any text, but
# they become one file name in the dump directory. Every character that is
# not a letter or digit (Unicode), "_", "-" or "." becomes "_" (so no path
# separator, control or invisible character survives), every run of two or
# more dots becomes as many "_" (no ".."), and a name longer than
# _MAX_DUMP_STEM bytes (UTF-8) is cut and ends with "_" and 16 hex digits of
# the SHA-256 of the whole text, so that names stay distinct and file names
# stay within the 255 bytes file systems allow. The file's contents keep the
# name as it is.
_MAX_DUMP_STEM = 200
_UNSAFE_DOTS = re.compile(r"\.{2,}")


def dump_file_name(name: str, suffix: str = "") -> str:
    """``ge_readable_<name><suffix>.txt``, made safe (Note [Dump file names])."""
    text = name + suffix
    stem = "".join(ch if ch.isalnum() or ch in "_-." else "_" for ch in text)
    stem = _UNSAFE_DOTS.sub(lambda m: "_" * len(m.group()), stem)
    if len(stem.encode("utf-8")) > _MAX_DUMP_STEM:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        keep = _MAX_DUMP_STEM - 17
        while len(stem[:keep].encode("utf-8")) > _MAX_DUMP_STEM - 17:
            keep -= 1
        stem = f"{stem[:keep]}_{digest[:16]}"
    return f"ge_readable_{stem}.txt"


# Note [Data nodes]: a Data node (Data, RefData, AippData, AnyData) reads
# graph input ``index`` (an int attr) and has one output; a complete graph's
# Data nodes number its inputs 0..n-1, once each. GraphBuilder makes them so;
# the compiler checks graph files and hand-built graphs with
# Graph.graph_inputs (input_nodes is the plain query builders use while
# the numbering is still incomplete).


def data_index(node: Node) -> int:
    """The graph input a Data node reads (Note [Data nodes])."""
    entry = node.attrs.get("index")
    if entry is None or entry[0] is not AttrType.INT:
        what = "no attr 'index'" if entry is None else f"a {entry[0].value} 'index'"
        raise ValueError(
            f"Data node '{node.name}' has {what}; it needs the int attr 'index' "
            "(which graph input it reads: 0, 1, ...), e.g. node.set_attr('index', 0)"
        )
    return int(entry[1])


def check_ir(node: Node) -> None:
    """A node's input slots agree with its IR: a required or optional IR
    input, and a non-dynamic IR output, has exactly one instance (an absent
    optional input keeps its slot); the instances add up to the input slots;
    only an optional input may be absent. ValueError naming the IR slot
    otherwise."""
    for ir in node.ir_inputs:
        if ir.kind is not InputKind.DYNAMIC and ir.count != 1:
            raise ValueError(
                f"{ir.kind} input '{ir.name}' has {ir.count} instances; it has "
                "exactly one (an absent optional input still has its slot)"
            )
    if node.ir_inputs:
        if sum(ir.count for ir in node.ir_inputs) != len(node.inputs):
            raise ValueError(
                f"its IR inputs have {sum(ir.count for ir in node.ir_inputs)} "
                f"instances but it has {len(node.inputs)} input slots"
            )
        slot = 0
        for ir in node.ir_inputs:
            for instance in range(ir.count):
                if ir.kind is not InputKind.OPTIONAL and node.inputs[slot] is None:
                    which = f"[{instance}]" if ir.kind is InputKind.DYNAMIC else ""
                    raise ValueError(
                        f"{ir.kind} input '{ir.name}'{which} is not connected; only "
                        "an optional input may be absent"
                    )
                slot += 1
    for out in node.ir_outputs:
        if not out.dynamic and out.count != 1:
            raise ValueError(
                f"output '{out.name}' is not dynamic but has {out.count} instances"
            )


def _attr_text(value: Any) -> str:
    if isinstance(value, DataType):
        return attr_dtype_spec_name(value)
    if isinstance(value, tuple):
        return "[" + ", ".join(_attr_text(v) for v in value) + "]"
    if isinstance(value, str):
        return repr(value)
    return repr(value)
