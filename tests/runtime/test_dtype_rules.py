"""Dtype rules travel with the op (Note [Dtype rules travel with the op] in
ge_ir/dtype_rules.py): a graph however made or loaded, in a process that
never imported the op's builder, is checked against the op's dtype rules;
graph inputs are compared with their declared dtype."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from ge.custom_op import DtypeRules, bootstrap, register_op
from ge.es import GraphBuilder
from ge.ge_global import GeApi
from ge.graph import DataType, Graph, Tensor
from ge.graph.air import graph_bytes, graph_from_bytes
from ge.runtime import TensorDesc
from ge.session import CompileError, Session
from ge_ir.dtype_rules import SlotDtype, SlotRule

ROOT = Path(__file__).resolve().parents[2]
ADD_OPS = ROOT / "examples/add_custom/add_custom_op.py"


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    bootstrap.load_custom_op_plugins(str(ADD_OPS))
    GeApi().ge_initialize({"ge.exec.deviceId": "0"})
    yield Session()


def add_graph(name: str, shape: list[int] | None = None) -> Graph:
    from ge.es.custom import AddCustom

    builder = GraphBuilder(name)
    x = builder.create_input(0, shape=shape or [1024])
    y = builder.create_input(1, shape=shape or [1024])
    return builder.build_and_reset([AddCustom(x, y)])


def test_a_built_node_records_its_ops_rules() -> None:
    graph = add_graph("records")
    (node,) = [n for n in graph.nodes if n.type == "AddCustom"]
    assert node.dtype_rules is not None
    assert node.dtype_rules.inputs["x"] == SlotRule(
        "T", frozenset({DataType.DT_FLOAT, DataType.DT_FLOAT16})
    )
    loaded = graph_from_bytes(graph_bytes(graph))
    (again,) = [n for n in loaded.nodes if n.type == "AddCustom"]
    assert again.dtype_rules == node.dtype_rules


def test_the_prototype_carries_the_rules(session: Session) -> None:
    from ge.custom_op import get_registered_op_proto_by_op_type

    proto = get_registered_op_proto_by_op_type("AddCustom")
    assert proto is not None and proto.dtype_rules is not None
    assert proto.dtype_rules.outputs["z"].var == "T"


SCRIPT = r"""
import os, sys
from ge.ge_global import GeApi
from ge.graph import Graph
from ge.session import CompileError, Session
GeApi().ge_initialize({"ge.exec.deviceId": "0"})
session = Session()
session.add_graph(0, Graph.load_from_air(sys.argv[1]))
try:
    session.compile_graph(0)
except CompileError as exc:
    print("REFUSED", exc)
print("BUILDER IMPORTED", "ge.es.custom" in sys.modules)
"""


def test_a_loaded_graph_in_a_fresh_process_refuses_a_forbidden_dtype(
    tmp_path: Path,
) -> None:
    """The issue's case: a graph file whose x is int32, run through the
    float-only AddCustom in a process that never imports the builder."""
    graph = add_graph("int_into_float")
    data = [n for n in graph.nodes if n.type == "Data"]
    for node in data:
        node.outputs[0].dtype = DataType.DT_INT32
    path = tmp_path / "g.air"
    graph.save_to_air(str(path))
    env = {**os.environ, "ASCEND_CUSTOM_OPP_PATH": str(ADD_OPS)}
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(path)],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "REFUSED node 'AddCustom_0' (AddCustom): "
        "input 'x' is int32; T (float32, float16) allowed"
    ), lines
    assert lines[1] == "BUILDER IMPORTED False"


def test_the_prototypes_rules_hold_without_rules_on_the_node(
    session: Session,
) -> None:
    graph = add_graph("stripped")
    for node in graph.nodes:
        node.dtype_rules = None  # as a graph file written before rules were kept
        if node.type == "Data":
            node.outputs[0].dtype = DataType.DT_INT64
    session.add_graph(10, graph)
    with pytest.raises(CompileError, match="input 'x' is int64; T .* allowed"):
        session.compile_graph(10)


def test_a_node_whose_rules_differ_from_the_prototypes_is_refused(
    session: Session,
) -> None:
    graph = add_graph("stale_rules")
    (node,) = [n for n in graph.nodes if n.type == "AddCustom"]
    node.dtype_rules = DtypeRules.from_table(
        type_vars={"T": ("float32",)}, inputs={"x": "T", "y": "T"}, outputs={"z": "T"}
    )
    session.add_graph(11, graph)
    with pytest.raises(
        CompileError,
        match=r"node 'AddCustom_0' \(AddCustom\): the node was built with other "
        r"dtype rules than the prototype's \(.*\): input 'x' allows T \(float32\) "
        r"here but T \(float32, float16\) there",
    ):
        session.compile_graph(11)


def test_a_graph_inputs_dtype_is_compared_with_its_declaration(
    session: Session,
) -> None:
    """A graph with unknown dims compiles for each run's inputs; an input of
    another dtype than declared is refused, not silently taken."""
    session.add_graph(12, add_graph("dynamic", shape=[-1]))
    x = Tensor(np.ones(1024, np.int32))
    with pytest.raises(CompileError, match=r"graph input 0 \(.*\) is declared float32"):
        session.run_graph(12, [x, x])
    ok = Tensor(np.ones(1024, np.float32))
    (out,) = session.run_graph(12, [ok, ok])
    np.testing.assert_array_equal(out.numpy(), np.full(1024, 2, np.float32))


def test_a_prototype_without_rules_and_a_node_without_rules_are_not_checked(
    session: Session,
) -> None:
    """As GE: an op registered with plain register_op has no dtype rules."""
    rules = DtypeRules()
    assert rules.violation([SlotDtype("input", "x", -1, DataType.DT_INT8)]) is None


def test_rules_name_only_the_prototypes_slots() -> None:
    with pytest.raises(ValueError, match="dtype_rules name input 'nope'"):

        @register_op(
            op_type="RulesNameUnknown",
            dtype_rules=DtypeRules.from_table(inputs={"nope": "float32"}),
        )
        def proto(x: TensorDesc) -> TensorDesc:
            return x

    with pytest.raises(TypeError, match="dtype_rules must be a DtypeRules"):
        register_op(op_type="RulesWrongType", dtype_rules={"x": "float32"})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ({"inputs": {}}, "exactly 'inputs' and 'outputs'"),
        ({"inputs": [], "outputs": {}}, "must be an object of slot names"),
        ({"inputs": {"x": {"var": 1, "dtypes": []}}, "outputs": {}}, "'var' must be"),
        (
            {"inputs": {"x": {"var": None, "dtypes": ["f32"]}}, "outputs": {}},
            "'f32' is not a dtype name",
        ),
        (
            {"inputs": {"x": {"dtypes": []}}, "outputs": {}},
            "must have 'var' and 'dtypes'",
        ),
    ],
)
def test_damaged_rules_in_a_graph_file_are_refused(rules: object, message: str) -> None:
    from ge._container import FileFormatError, Section, write
    from ge.graph import air

    document = json.loads(air._encode_graph_text(add_graph("damaged")))
    (node,) = [n for n in document["nodes"] if n["type"] == "AddCustom"]
    node["dtype_rules"] = rules
    data = write(air.MAGIC, air.VERSION, [Section(1, json.dumps(document).encode())])
    with pytest.raises(FileFormatError, match=r"nodes\[2\]\.dtype_rules: .*" + message):
        graph_from_bytes(data)
