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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ge.graph.attrs import AttrType
from ge.graph.graph_edit import is_vacant
from ge.graph.types import DataType, Format
from ge_ir.dtype_rules import DtypeRules
from ge_ir.names import DATA_NODE_TYPES as _DATA_TYPES

if TYPE_CHECKING:
    from ge.graph.tensor_desc import TensorDesc

__all__ = [
    "AttrNotFoundError",
    "Graph",
    "InputKind",
    "Node",
    "TensorMeta",
    "IrInput",
    "IrOutput",
    "DumpFormat",
    "check_ir",
    "data_index",
    "register_ir_defaults",
]


class DumpFormat(enum.Enum):
    """GE's dump formats, with GE's values (ge/graph/graph.py)."""

    kOnnx = 0
    kTxt = 1
    kReadable = 2


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


class AttrNotFoundError(KeyError, RuntimeError):
    """``get_attr`` of an attr that is not there: a KeyError, and the
    RuntimeError GE's ``get_attr`` raises (samples catch that)."""


# Note [IR defaults for readers]: a builder leaves an optional attr at its
# IR default off the node (Note [Defaults stay off the node] in
# ge/es/_op_api.py), and whoever reads the node takes the default. In GE the
# node carries every IR attr, so a pass's ``node.get_attr("dilations")``
# finds the default. Node.get_attr does the same from the defaults of the
# op types whose builders are loaded (each ge.es OpDef registers its own,
# here, since this layer cannot look at prototypes); has_attr stays what the
# node holds.
_IR_DEFAULTS: dict[str, dict[str, tuple[AttrType, Any]]] = {}


def register_ir_defaults(
    op_type: str, defaults: dict[str, tuple[AttrType, Any]]
) -> None:
    """The optional attrs' IR defaults of ``op_type`` (Note [IR defaults
    for readers])."""
    _IR_DEFAULTS[op_type] = dict(defaults)


class _Attributed:
    """get_attr / set_attr over an ``attrs`` dict of (type, value), for nodes
    and graphs alike."""

    attrs: dict[str, tuple[AttrType, Any]]

    def _attr_default(self, name: str) -> tuple[AttrType, Any] | None:
        return None

    def get_attr(self, name: str) -> Any:
        entry = self.attrs.get(name)
        if entry is None:
            entry = self._attr_default(name)
        if entry is None:
            raise AttrNotFoundError(name)
        return entry[1]

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
    # Input descs a pass set (update_input_desc), by input slot (Note
    # [Tensor descs of a node] in ge/graph/node_desc.py).
    input_descs: dict[int, TensorMeta] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Node({self.name!r}, {self.type!r})"

    def _attr_default(self, name: str) -> tuple[AttrType, Any] | None:
        return _IR_DEFAULTS.get(self.type, {}).get(name)

    # -- GE's Node queries (what graph passes read) ---------------------------------

    def get_inputs_size(self) -> int:
        """Input slots (an absent optional input keeps its slot)."""
        return len(self.inputs)

    def get_outputs_size(self) -> int:
        return len(self.outputs)

    def has_attr(self, attr_name: str) -> bool:
        return attr_name in self.attrs

    def get_in_data_nodes_and_port_indexes(self, in_index: int) -> tuple[Node, int]:
        """The producer of input ``in_index`` and its output index
        (RuntimeError when the slot is absent or unconnected, as GE)."""
        from ge.graph.node_desc import same_graph

        if not isinstance(in_index, int) or isinstance(in_index, bool):
            raise TypeError(
                f"input index must be an int, got {type(in_index).__name__}"
            )
        edge = self.inputs[in_index] if 0 <= in_index < len(self.inputs) else None
        if edge is None:
            raise RuntimeError(
                f"input {in_index} of node '{self.name}' is not connected"
            )
        return same_graph(self, edge.node), edge.index

    def get_out_data_nodes_and_port_indexes(
        self, out_index: int
    ) -> list[tuple[Node, int]]:
        """The (consumer, input slot) pairs reading output ``out_index``, in
        the graph's node order (Note [A node's graph] in ge/graph/node_desc.py:
        the node must have been handed out by its graph)."""
        from ge.graph.node_desc import out_data_nodes

        return out_data_nodes(self, out_index)

    def get_in_control_nodes(self) -> list[Node]:
        from ge.graph.node_desc import same_graph

        return [same_graph(self, n) for n in self.control_inputs]

    def get_out_control_nodes(self) -> list[Node]:
        """The nodes with a control edge from this one (Note [A node's graph])."""
        from ge.graph.node_desc import out_control_nodes

        return out_control_nodes(self)

    def get_input_desc(self, index: int) -> TensorDesc:
        """A copy of input ``index``'s desc (Note [Tensor descs of a node])."""
        from ge.graph.node_desc import input_desc

        return input_desc(self, index)

    def update_input_desc(self, index: int, tensor_desc: TensorDesc) -> None:
        from ge.graph.node_desc import update_input_desc

        update_input_desc(self, index, tensor_desc)

    def get_output_desc(self, index: int) -> TensorDesc:
        """A copy of output ``index``'s desc."""
        from ge.graph.node_desc import output_desc

        return output_desc(self, index)

    def update_output_desc(self, index: int, tensor_desc: TensorDesc) -> None:
        from ge.graph.node_desc import update_output_desc

        update_output_desc(self, index, tensor_desc)


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
        from ge.graph.node_desc import bind

        return bind(self, list(self.nodes))

    def get_all_nodes(self) -> list[Node]:
        """Nodes of this graph and, recursively, of its subgraphs."""
        from ge.graph.node_desc import bind

        out: list[Node] = []
        for node in self.nodes:
            out.append(node)
            for graphs in node.subgraphs.values():
                for sub in graphs:
                    out.extend(sub.get_all_nodes())
        bind(self, list(self.nodes))
        return out

    def find_node_by_name(self, name: str) -> Node | None:
        from ge.graph.node_desc import bind

        found = next((n for n in self.nodes if n.name == name), None)
        return None if found is None else bind(self, [found])[0]

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
        """The subgraphs of this graph's direct nodes (a vacant slot left by
        remove_subgraph is not listed)."""
        return [
            g
            for n in self.nodes
            for gs in n.subgraphs.values()
            for g in gs
            if not is_vacant(g)
        ]

    # -- text form -----------------------------------------------------------------

    def dump(self) -> str:
        """This runtime's detailed text form: one line per node with its input
        edges, output descriptions, attributes and control inputs; subgraphs
        indented below their node (ge/graph/dump.py)."""
        from ge.graph import dump

        return dump.detailed(self)

    def dump_to_stream(self, format: DumpFormat = DumpFormat.kReadable) -> str:
        """The graph as text, as GE's ``Graph.dump_to_stream``: ``kReadable``
        is GE's readable dump, ``kTxt`` the graph file's JSON document
        (ge/graph/dump.py says where each differs from GE's bytes); ``kOnnx``
        is refused (no ONNX here)."""
        from ge.graph import dump

        _check_format(format)
        if format is DumpFormat.kTxt:
            return dump.txt(self)
        return dump.readable(self)

    def __str__(self) -> str:
        return self.dump_to_stream(DumpFormat.kReadable)

    def dump_to_file(
        self, format: DumpFormat = DumpFormat.kReadable, suffix: str = ""
    ) -> str:
        """Write ``dump_to_stream(format)`` to ``ge_readable_<name><suffix>.txt``
        (``kTxt``: ``ge_txt_<name><suffix>.json``) in the current directory
        (or ``$DUMP_GRAPH_PATH``), the name and suffix made safe as a file
        name (Note [Dump file names]); returns the path."""
        if not isinstance(suffix, str):
            raise TypeError(f"suffix must be a str, got {type(suffix).__name__}")
        text = self.dump_to_stream(format)
        directory = os.environ.get("DUMP_GRAPH_PATH", ".")
        path = os.path.join(directory, dump_file_name(self._name, suffix, format))
        with open(path, "w", encoding="utf-8", errors="backslashreplace") as handle:
            handle.write(text)
        return path

    # -- editing (ge/graph/graph_edit.py, ge/graph/subgraph_edit.py) ---------------

    def remove_node(self, node: Node) -> None:
        """Remove a direct node and every edge to and from it, without
        relinking, as GE does (Note [Graph edits]): its readers' input slots
        become unconnected and graph outputs it produced are dropped."""
        from ge.graph.graph_edit import remove_node

        remove_node(self, node)

    def remove_edge(
        self, src_node: Node, src_port_index: int, dst_node: Node, dst_port_index: int
    ) -> None:
        """Remove the data edge ``src_node:src_port_index ->
        dst_node:dst_port_index``, or the control edge with ports (-1, -1)."""
        from ge.graph.graph_edit import remove_edge

        remove_edge(self, src_node, src_port_index, dst_node, dst_port_index)

    def add_data_edge(
        self, src_node: Node, src_port_index: int, dst_node: Node, dst_port_index: int
    ) -> None:
        """Connect output ``src_port_index`` of ``src_node`` to the unconnected
        input ``dst_port_index`` of ``dst_node`` (cycles refused)."""
        from ge.graph.graph_edit import add_data_edge

        add_data_edge(self, src_node, src_port_index, dst_node, dst_port_index)

    def add_control_edge(self, src_node: Node, dst_node: Node) -> None:
        """Make ``dst_node`` run after ``src_node`` (cycles refused)."""
        from ge.graph.graph_edit import add_control_edge

        add_control_edge(self, src_node, dst_node)

    def get_subgraph(self, name: str) -> Graph | None:
        """The subgraph named ``name`` under any node, at any depth; None if
        there is none (Note [Subgraph editing])."""
        from ge.graph.subgraph_edit import get_subgraph

        return get_subgraph(self, name)

    def add_subgraph(self, subgraph: Graph) -> None:
        """Fill the vacant subgraph slot named ``subgraph.name`` (left by
        remove_subgraph) with ``subgraph``."""
        from ge.graph.subgraph_edit import add_subgraph

        add_subgraph(self, subgraph)

    def remove_subgraph(self, name: str) -> None:
        """Detach the subgraph named ``name`` from its node, leaving the slot
        vacant under that name until add_subgraph fills it."""
        from ge.graph.subgraph_edit import remove_subgraph

        remove_subgraph(self, name)

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


def _check_format(format: object) -> None:
    if not isinstance(format, DumpFormat):
        raise TypeError(f"format must be a DumpFormat, got {type(format).__name__}")
    if format is DumpFormat.kOnnx:
        raise ValueError(
            "DumpFormat.kOnnx is not supported by this runtime (it has no ONNX "
            "writer); use DumpFormat.kReadable (GE's readable dump) or "
            "DumpFormat.kTxt (the graph file's JSON)"
        )


def dump_file_name(
    name: str, suffix: str = "", format: DumpFormat = DumpFormat.kReadable
) -> str:
    """``ge_readable_<name><suffix>.txt`` (``kTxt``:
    ``ge_txt_<name><suffix>.json``), made safe (Note [Dump file names])."""
    text = name + suffix
    stem = "".join(ch if ch.isalnum() or ch in "_-." else "_" for ch in text)
    stem = _UNSAFE_DOTS.sub(lambda m: "_" * len(m.group()), stem)
    if len(stem.encode("utf-8")) > _MAX_DUMP_STEM:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        keep = _MAX_DUMP_STEM - 17
        while len(stem[:keep].encode("utf-8")) > _MAX_DUMP_STEM - 17:
            keep -= 1
        stem = f"{stem[:keep]}_{digest[:16]}"
    if format is DumpFormat.kTxt:
        return f"ge_txt_{stem}.json"
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
