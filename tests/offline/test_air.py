"""Graph files: graph -> file -> graph keeps everything, bit for bit (every
attr type the specs use, with the values that usually get lost: NaN, -0.0,
infinities, subnormals, int64 extremes, NUL bytes, non-ASCII text, every
tensor dtype), and damaged files are refused with FileFormatError."""

from __future__ import annotations

import math
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import load_ops

from ge._container import FileFormatError
from ge.es import GraphBuilder
from ge.es.control import CaseCustom, IfCustom
from ge.es.custom import (
    AttrZooCustom,
    ConcatCustom,
    LayerNormCustom,
    ScaleCustom,
    SplitCustom,
    SumNCustom,
)
from ge.graph import DataType, Format, Graph, NamedAttrs, Tensor
from ge.graph.air import graph_bytes, graph_from_bytes
from ge.graph.attrs import AttrType

ROOT = Path(__file__).resolve().parents[2]

# A NaN with a sign and a payload: float.hex would write both as "nan".
PAYLOAD_NAN = struct.unpack("<d", struct.pack("<Q", 0xFFF8_0000_0000_0123))[0]
NASTY_FLOATS = [
    math.nan,
    PAYLOAD_NAN,
    -0.0,
    math.inf,
    -math.inf,
    1.401298464324817e-45,
    1e-8,
]


def every_dtype_tensor() -> list[Tensor]:
    """One small tensor of every dtype with a fixed size, random bytes."""
    rng = np.random.default_rng(7)
    tensors = []
    for dtype in DataType:
        try:
            size = Tensor(data_type=dtype, shape=[3]).size
        except ValueError:
            continue  # no fixed element size (strings), or not a tensor dtype
        data = rng.integers(0, 256, size=size, dtype=np.uint8).tobytes()
        tensors.append(Tensor(data, data_type=dtype, shape=[3]))
    return tensors


def zoo_attrs() -> dict[str, Any]:
    inner = NamedAttrs(
        "inner",
        {
            "f": math.nan,
            "t": Tensor([1.5, -0.0], data_type=DataType.DT_FLOAT),
            "l": [NamedAttrs("deepest", {"z": -0.0})],
        },
    )
    return {
        "required_i": 2**63 - 1,
        "i": -(2**63),
        "f": -0.0,
        "b": False,
        "s": 'nul-free but \u00fcn\u00efc\u00f8de \U0001f600 and "quotes" \\ \t\n',
        "dt": DataType.DT_FLOAT16,  # not its default (DT_BF16): on the node
        "t": Tensor(
            np.arange(6, dtype=np.int64).reshape(2, 3), data_type=DataType.DT_INT64
        ),
        "na": NamedAttrs("conv", {"z": 1, "a": "first key is not sorted", "m": inner}),
        "by": bytes(range(256)),
        "li": [0, -1, 2**62],
        "lf": NASTY_FLOATS,
        "lb": [True, False, True],
        "ls": ["", "a", "\u00e9"],
        "ldt": list(DataType)[:5],
        "lli": [[], [1], [2, -3, 4]],
        "lt": every_dtype_tensor(),
        "lna": [inner, NamedAttrs("", {})],
    }


def branch(name: str, scale: float) -> Graph:
    builder = GraphBuilder(name)
    x = builder.create_input(0, shape=[4])
    return builder.build_and_reset([ScaleCustom(x, alpha=scale)])


def rich_graph() -> Graph:
    """Every attr type, dynamic and optional inputs, several outputs,
    constants, subgraphs (nested), unknown dims and graph attrs."""
    builder = GraphBuilder("rich")
    x = builder.create_input(0, name="x", shape=[4])
    y = builder.create_input(1, name="y", shape=[-1, 4], format=Format.FORMAT_NCHW)
    zoo = AttrZooCustom(x, **zoo_attrs(), name="zoo")
    zoo_defaults = AttrZooCustom(zoo, required_i=0)
    total = SumNCustom([x, zoo_defaults, builder.create_const_float(2.5)])
    norm = LayerNormCustom(y, epsilon=1e-12)  # absent optional inputs
    parts = SplitCustom(ConcatCustom([x, total], concat_dim=0), num_split=2)
    inner_if = IfCustom(
        builder.create_const(Tensor([True], data_type=DataType.DT_BOOL, shape=[])),
        [parts[0]],
        1,
        then_branch=branch("then", 2.0),
        else_branch=branch("else", -0.0),
    )
    case = CaseCustom(
        builder.create_const_int32(1),
        [parts[1]],
        1,
        branches=[branch("b0", math.inf), branch("b1", 0.5), branch("b2", 1e-30)],
    )
    builder.set_graph_attr_string("_created_by", "test_air")
    graph = builder.build_and_reset([*norm, *inner_if, *case, zoo])
    graph.set_attr("_meta", NamedAttrs("m", {"v": 1, "f": -0.0}))
    graph.set_attr("_tags", ["a", "b"])
    return graph


def same_value(kind: AttrType, a: Any, b: Any, where: str) -> None:
    """Exact equality: floats by bits, tensors by bytes, types included."""
    if kind.element is not None:
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            same_value(kind.element, x, y, f"{where}[{i}]")
        return
    assert type(a) is type(b), where
    if kind is AttrType.FLOAT:
        assert struct.pack("<d", a) == struct.pack("<d", b), (where, a, b)
    elif kind is AttrType.TENSOR:
        assert (a.data_type, a.format, list(a.shape), a.tobytes()) == (
            b.data_type,
            b.format,
            list(b.shape),
            b.tobytes(),
        ), where
    elif kind is AttrType.NAMED_ATTRS:
        assert a.name == b.name, where
        assert [(k, t) for k, t, _ in a.typed_items()] == [
            (k, t) for k, t, _ in b.typed_items()
        ], where
        for (key, t, x), (_, _, y) in zip(a.typed_items(), b.typed_items()):
            same_value(t, x, y, f"{where}.{key}")
    else:
        assert a == b, (where, a, b)


def same_attrs(a: dict, b: dict, where: str) -> None:
    assert list(a) == list(b), where  # names, in order
    for key in a:
        assert a[key][0] is b[key][0], f"{where}.{key}"
        same_value(a[key][0], a[key][1], b[key][1], f"{where}.{key}")


def same_graph(a: Graph, b: Graph, where: str = "graph") -> None:
    assert a.name == b.name, where
    same_attrs(a.attrs, b.attrs, where + ".attrs")
    assert len(a.nodes) == len(b.nodes), where
    index_a = {id(n): i for i, n in enumerate(a.nodes)}
    index_b = {id(n): i for i, n in enumerate(b.nodes)}

    def edges(node: Any, index: dict[int, int]) -> list[Any]:
        return [
            None if e is None else (index[id(e.node)], e.index) for e in node.inputs
        ]

    for i, (m, n) in enumerate(zip(a.nodes, b.nodes)):
        place = f"{where}.nodes[{i}] {m.name}"
        assert (m.name, m.type) == (n.name, n.type), place
        assert m.ir_inputs == n.ir_inputs and m.ir_outputs == n.ir_outputs, place
        assert edges(m, index_a) == edges(n, index_b), place
        assert [(o.shape, o.dtype, o.format) for o in m.outputs] == [
            (o.shape, o.dtype, o.format) for o in n.outputs
        ], place
        assert [index_a[id(c)] for c in m.control_inputs] == [
            index_b[id(c)] for c in n.control_inputs
        ], place
        assert m.ref_outputs == n.ref_outputs, place
        same_attrs(m.attrs, n.attrs, place + ".attrs")
        assert list(m.subgraphs) == list(n.subgraphs), place
        for key in m.subgraphs:
            assert len(m.subgraphs[key]) == len(n.subgraphs[key]), place
            for g, h in zip(m.subgraphs[key], n.subgraphs[key]):
                same_graph(g, h, f"{place}.{key}")
                assert h.owner is n, place
    assert [(index_a[id(n)], k) for n, k in a.outputs] == [
        (index_b[id(n)], k) for n, k in b.outputs
    ], where


def test_the_rich_graph_uses_every_attr_type_of_the_specs() -> None:
    """If a spec gains an attr type, this graph must cover it too."""
    ops, sink = load_ops(ROOT / "specs")
    assert not sink.has_errors
    in_specs = {a.type for op in ops for a in op.attrs}
    in_graph = {
        kind for node in rich_graph().get_all_nodes() for kind, _ in node.attrs.values()
    }
    assert in_specs <= in_graph, sorted(k.value for k in in_specs - in_graph)
    assert len(in_specs) == 16


def test_graph_file_round_trip_is_exact(tmp_path: Path) -> None:
    graph = rich_graph()
    path = tmp_path / "rich.air"
    graph.save_to_air(path)
    loaded = Graph.load_from_air(path)
    same_graph(graph, loaded)
    assert loaded.dump() == graph.dump()
    # And the file of the loaded graph is the same file.
    assert graph_bytes(loaded) == path.read_bytes()


def test_a_loaded_graph_builds_on() -> None:
    """Loaded graphs are ordinary graphs: their nodes' attrs are typed and
    their input nodes are found."""
    loaded = graph_from_bytes(graph_bytes(rich_graph()))
    assert [n.name for n in loaded.input_nodes] == ["x", "y"]
    zoo = loaded.find_node_by_name("zoo")
    assert zoo is not None and zoo.get_attr("by") == bytes(range(256))


def test_a_file_that_is_not_a_graph_file(tmp_path: Path) -> None:
    data = graph_bytes(rich_graph())
    cases = {
        "empty": b"",
        "model file": b"GECPUOM\0" + data[8:],
        "truncated": data[:-1],
        "extended": data + b"\0",
        "future version": data[:8] + struct.pack("<I", 99) + data[12:],
        "damaged body": data[:-10] + bytes([data[-10] ^ 1]) + data[-9:],
    }
    for bad in cases.values():
        with pytest.raises(FileFormatError, match="^graph file: "):
            graph_from_bytes(bad)
    missing = tmp_path / "missing.air"
    with pytest.raises(FileNotFoundError):
        Graph.load_from_air(missing)


def _with_section(document: bytes) -> bytes:
    from ge._container import Section, write
    from ge.graph import air

    return write(air.MAGIC, air.VERSION, [Section(1, document)])


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (b"{", "the graph section is not JSON"),
        (b"\xff", "the graph section is not JSON"),
        (b"[]", "graph: expected"),
        (b"[" * 100000 + b"]" * 100000, "nested too deeply|not JSON"),
        (
            b'{"name":"g","nodes":[{"name":"a","type":"Data","ir_inputs":[],'
            b'"ir_outputs":[],"inputs":[[5,0]],"outputs":[]}],"outputs":[]}',
            r"graph.nodes\[0\].inputs: index 5 out of range",
        ),
        (
            b'{"name":"g","nodes":[{"name":"a","type":"X","ir_inputs":[],'
            b'"ir_outputs":[],"inputs":[],"outputs":[],'
            b'"attrs":[["f",{"type":"float","value":"1.5 apples"}]]}],"outputs":[]}',
            "is not a hexadecimal float",
        ),
        (
            b'{"name":"g","nodes":[{"name":"a","type":"X","ir_inputs":[],'
            b'"ir_outputs":[],"inputs":[],"outputs":[],'
            b'"attrs":[["f",{"type":"float","value":"0x1p-200"}]]}],"outputs":[]}',
            "rounds to 0 in a float32 attr",
        ),
        (
            b'{"name":"g","nodes":[{"name":"a","type":"X","ir_inputs":[],'
            b'"ir_outputs":[],"inputs":[],"outputs":[],'
            b'"attrs":[["d",{"type":"dtype","value":"DT_NOPE"}]]}],"outputs":[]}',
            "unknown DataType 'DT_NOPE'",
        ),
        (
            b'{"name":"g","nodes":[{"name":"a","type":"X","ir_inputs":[],'
            b'"ir_outputs":[],"inputs":[],"outputs":[],'
            b'"attrs":[["f",{"type":"float","value":"nan:3ff0000000000000"}]]}],'
            b'"outputs":[]}',
            "'nan:3ff0000000000000' is not a hexadecimal float",
        ),
        (
            b'{"name":"g","nodes":[{"name":"a","type":"X","ir_inputs":[],'
            b'"ir_outputs":[],"inputs":[],"outputs":[]},{"name":"a","type":"Y",'
            b'"ir_inputs":[],"ir_outputs":[],"inputs":[],"outputs":[]}],"outputs":[]}',
            "node name 'a' appears twice",
        ),
        (
            b'{"name":"g","nodes":[{"name":"a","type":"X","ir_inputs":[],'
            b'"ir_outputs":[],"inputs":[],"outputs":[[[2],"DT_FLOAT","FORMAT_ND"]]}],'
            b'"outputs":[[0,1]]}',
            "output 1 of node 'a', which has 1",
        ),
        (
            b'{"name":"g","nodes":[{"name":"a","type":"X","ir_inputs":[],'
            b'"ir_outputs":[],"inputs":[],"outputs":[[[2],"DT_FLOAT","FORMAT_ND"]],'
            b'"ref_outputs":[[0,0]]}],"outputs":[]}',
            "input slot 0 out of range",
        ),
        (
            b'{"name":"g","nodes":[{"name":"a","type":"X","ir_inputs":[],'
            b'"ir_outputs":[],"inputs":[],"outputs":[[[2,-5],"DT_FLOAT","FORMAT_ND"]]}],'
            b'"outputs":[]}',
            r"bad shape \[2, -5\]",
        ),
        (
            b'{"name":"g","nodes":[{"name":"a","type":"X","ir_inputs":[],'
            b'"ir_outputs":[],"inputs":[],"outputs":[],"subgraphs":[["b",[]],["b",[]]]}],'
            b'"outputs":[]}',
            "subgraph 'b' appears twice",
        ),
        (
            b'{"name":"g","nodes":[{"name":"a","type":"X","ir_inputs":[],'
            b'"ir_outputs":[],"inputs":[],"outputs":[],'
            b'"attrs":[["p",{"type":"pickle","value":"gASVAAAA"}]]}],"outputs":[]}',
            "unknown attr type 'pickle'",
        ),
    ],
)
def test_hostile_documents_are_refused(document: bytes, message: str) -> None:
    with pytest.raises(FileFormatError, match=message):
        graph_from_bytes(_with_section(document))
