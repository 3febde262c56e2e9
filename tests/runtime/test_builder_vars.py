"""ge.es.tensor_like (convert_to_tensor_holder, resolve_builder),
control_dependency_scope, GraphBuilder.create_variable and the state op
Assign: variables keep their value across the runs of one Session, control
edges order the compiled graph, offline models refuse variables."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from math_harness import ROOT, math_session

from ge.custom_op import bootstrap, get_registered_op_impl
from ge.es import GraphBuilder, TensorHolder, control_dependency_scope
from ge.es.tensor_like import convert_to_tensor_holder, resolve_builder
from ge.graph import DataType, Graph, Tensor
from ge.graph.graph import Node
from ge.offline import compile_model
from ge.session import CompileError, Session

STATE_DIR = ROOT / "ops" / "state"
_ids = iter(range(5000, 10**6))


def _load_state_ops() -> None:
    impl = get_registered_op_impl("Assign")
    file = "" if impl is None else impl.source.rpartition(":")[0]
    if not file or Path(file).resolve().parent != STATE_DIR:
        bootstrap._imported.difference_update(
            str(f.resolve()) for f in STATE_DIR.glob("*.py")
        )
        bootstrap.load_custom_op_plugins(str(STATE_DIR))


@pytest.fixture()
def session() -> Iterator[Session]:
    """A fresh Session (fresh variables) with ops/math and ops/state."""
    with math_session() as s:
        _load_state_ops()
        yield s


def _assign(ref: TensorHolder, value: object) -> TensorHolder:
    from ge.es.state import Assign

    return Assign(ref, value)


def _run(
    session: Session, graph: Graph, inputs: tuple[np.ndarray, ...] = ()
) -> list[np.ndarray]:
    graph_id = next(_ids)
    session.add_graph(graph_id, graph)
    return [o.numpy() for o in session.run_graph(graph_id, [Tensor(a) for a in inputs])]


def _const_value(holder: TensorHolder) -> np.ndarray:
    node = holder.node
    assert node.type == "Const"
    return node.get_attr("value").numpy()


# -- tensor_like ---------------------------------------------------------------------


def test_convert_numbers_and_lists_as_ge_does() -> None:
    b = GraphBuilder("conv")
    cases = [
        (3, DataType.DT_INT64, np.array(3, np.int64)),
        (-2.5, DataType.DT_FLOAT, np.array(-2.5, np.float32)),
        ([[1, 2, 3], [4, 5, 6]], DataType.DT_INT64, np.arange(1, 7).reshape(2, 3)),
        ([1, 2.5], DataType.DT_FLOAT, np.array([1, 2.5], np.float32)),
        ([[1], [2.0]], DataType.DT_FLOAT, np.array([[1], [2]], np.float32)),
        ([], DataType.DT_INT64, np.zeros((0,), np.int64)),
        (np.int32(7), DataType.DT_INT64, np.array(7, np.int64)),
        (np.float64(0.5), DataType.DT_FLOAT, np.array(0.5, np.float32)),
    ]
    for value, dtype, want in cases:
        holder = convert_to_tensor_holder(value, b)
        assert holder is not None
        assert holder.data_type is dtype, value
        got = _const_value(holder)
        assert got.dtype == want.dtype and got.shape == want.shape, value
        np.testing.assert_array_equal(got, want)


def test_convert_keeps_none_and_own_holders() -> None:
    b = GraphBuilder("keep")
    x = b.create_input(0)
    assert convert_to_tensor_holder(None, b) is None
    assert convert_to_tensor_holder(x, b) is x


def test_converted_constants_run(session: Session) -> None:
    b = GraphBuilder("run_consts")
    x = b.create_input(0, data_type=DataType.DT_FLOAT, shape=[2, 2])
    c = convert_to_tensor_holder([[1.5, 2.0], [3.0, -4.0]], b)
    assert c is not None
    (got,) = _run(session, b.build_and_reset([x * c]), (np.ones((2, 2), np.float32),))
    np.testing.assert_array_equal(got, np.array([[1.5, 2], [3, -4]], np.float32))


def test_convert_refuses_misuse() -> None:
    b, other = GraphBuilder("a"), GraphBuilder("b")
    with pytest.raises(ValueError, match="irregular nested list"):
        convert_to_tensor_holder([[1, 2], [3]], b)
    with pytest.raises(TypeError, match=r"value\[1\] is bool"):
        convert_to_tensor_holder([1, True], b)
    with pytest.raises(TypeError, match=r"value\[0\]\[0\] is str"):
        convert_to_tensor_holder([["x"]], b)
    with pytest.raises(TypeError, match="an int, a float, a nested list"):
        convert_to_tensor_holder(True, b)
    with pytest.raises(TypeError, match="got tuple"):
        convert_to_tensor_holder((1, 2), b)
    with pytest.raises(TypeError, match="builder must be a GraphBuilder"):
        convert_to_tensor_holder(1, "b")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="does not fit in int64"):
        convert_to_tensor_holder([2**63], b)
    with pytest.raises(ValueError, match="belongs to graph builder 'b', not to 'a'"):
        convert_to_tensor_holder(other.create_input(0), b)
    assert len(b._check_usable().nodes) == 0  # nothing was added
    b.build_and_reset()
    with pytest.raises(RuntimeError, match="already been built"):
        convert_to_tensor_holder(1, b)


def test_resolve_builder() -> None:
    b, other = GraphBuilder("a"), GraphBuilder("b")
    x = b.create_input(0)
    assert resolve_builder(1, [2.0], x, None) is b
    assert resolve_builder(None, b) is b
    assert resolve_builder(x, b, 3) is b
    with pytest.raises(ValueError, match="at least one argument"):
        resolve_builder()
    with pytest.raises(ValueError, match="no argument is a TensorHolder"):
        resolve_builder(1, [2], None)
    y = other.create_input(0)
    with pytest.raises(
        ValueError, match="argument 1 belongs to graph builder 'b', but argument 0"
    ):
        resolve_builder(x, y)
    with pytest.raises(ValueError, match="argument 2 belongs to graph builder 'b'"):
        resolve_builder(x, 5, other)


# -- control_dependency_scope ----------------------------------------------------------


def _names(node: Node) -> list[str]:
    return [n.name for n in node.control_inputs]


def test_scope_adds_control_edges_to_every_node_inside() -> None:
    b = GraphBuilder("scoped")
    x = b.create_input(0, shape=[2])
    c = b.create_const_float(1.0)
    with control_dependency_scope([x]):
        inner = b.create_const_float(2.0)
        with control_dependency_scope([c, x]):
            nested = b.create_scalar_int32(3)
        after_nested = b.create_scalar_int32(4)
    outside = b.create_scalar_int32(5)
    assert _names(inner.node) == ["input_0"]
    assert _names(nested.node) == ["input_0", c.name]
    assert _names(after_nested.node) == ["input_0"]
    assert _names(outside.node) == []


def test_scope_is_per_thread() -> None:
    b = GraphBuilder("threads")
    x = b.create_input(0)
    seen: list[list[str]] = []

    def other_thread() -> None:
        seen.append(_names(b.create_const_float(1.0).node))

    with control_dependency_scope([x]):
        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
        here = b.create_const_float(2.0)
    assert seen == [[]]
    assert _names(here.node) == ["input_0"]


def test_scope_refuses_misuse() -> None:
    b, other = GraphBuilder("a"), GraphBuilder("b")
    x = b.create_input(0)
    with pytest.raises(TypeError, match="expects a list of TensorHolder, got"):
        with control_dependency_scope(x):  # type: ignore[arg-type]
            pass
    with pytest.raises(TypeError, match=r"tensors\[1\] must be a TensorHolder"):
        with control_dependency_scope([x, 3]):  # type: ignore[list-item]
            pass
    y = other.create_input(0)
    with control_dependency_scope([y]):
        with pytest.raises(
            ValueError, match="belongs to graph builder 'b', but the node being"
        ):
            b.create_const_float(1.0)
    assert [n.name for n in b._check_usable().nodes] == ["input_0"]


def test_scope_edges_order_the_compiled_graph(session: Session) -> None:
    """A node made in a scope runs after its tensors' producers: the read
    sees the assignment."""
    b = GraphBuilder("scope_order")
    v = b.create_variable(0, "s_v", value=Tensor(np.float32([1, 2])))
    x = b.create_input(0, shape=[2])
    a = _assign(v, x)
    with control_dependency_scope([a]):
        read = v * 10.0
    graph = b.build_and_reset([read])
    assert a.node in read.node.control_inputs
    (got,) = _run(session, graph, (np.float32([5, 6]),))
    np.testing.assert_array_equal(got, np.float32([50, 60]))


@pytest.mark.parametrize("ordered", [False, True])
def test_control_edges_decide_which_runs_first(session: Session, ordered: bool) -> None:
    """A read made before an assignment runs first, unless a control edge
    puts it after: the compiler honours control edges."""
    b = GraphBuilder(f"order_{ordered}")
    v = b.create_variable(0, "o_v", value=Tensor(np.float32([1, 2, 3])))
    x = b.create_input(0, shape=[3])
    read = v + 0.0  # made first
    a = _assign(v, x)
    if ordered:
        b.add_control_dependency(read, [a])
    got, after = _run(session, b.build_and_reset([read, a]), (np.float32([7, 8, 9]),))
    want = np.float32([7, 8, 9]) if ordered else np.float32([1, 2, 3])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(after, np.float32([7, 8, 9]))


def test_a_control_cycle_is_a_compile_error(session: Session) -> None:
    b = GraphBuilder("cycle")
    x = b.create_input(0, shape=[1])
    y = x + 1.0
    z = y + 1.0
    b.add_control_dependency(y, [z])
    session.add_graph(1, b.build_and_reset([z]))
    with pytest.raises(CompileError, match="cycle"):
        session.run_graph(1, [Tensor(np.float32([1]))])


# -- variables ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "int32", "float16", "int64"])
def test_a_variable_keeps_its_value_across_runs(session: Session, dtype: str) -> None:
    start = np.array([[1, 2], [3, 4]], dtype)
    b = GraphBuilder(f"inc_{dtype}")
    v = b.create_variable(0, f"counter_{dtype}", value=Tensor(start))
    step = b.create_input(0, data_type=v.data_type, shape=[2, 2])
    new = _assign(v, v + step)
    graph_id = next(_ids)
    session.add_graph(graph_id, b.build_and_reset([new]))
    delta = np.array([[1, 0], [2, 5]], dtype)
    want = start.copy()
    for _ in range(3):
        want = want + delta
        (got,) = session.run_graph(graph_id, [Tensor(delta)])
        assert got.numpy().dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got.numpy(), want)


def test_variables_are_shared_by_name_within_a_session_only(
    session: Session,
) -> None:
    def writer() -> Graph:
        b = GraphBuilder("writer")
        v = b.create_variable(0, "shared", value=Tensor(np.float32([0.5, 1.5])))
        x = b.create_input(0, shape=[2])
        return b.build_and_reset([_assign(v, v * x)])

    def reader() -> Graph:
        b = GraphBuilder("reader")
        v = b.create_variable(3, "shared").set_shape([2])  # float32 by default
        return b.build_and_reset([v])

    _run(session, writer(), (np.float32([2, 4]),))
    np.testing.assert_array_equal(_run(session, reader())[0], np.float32([1, 6]))
    fresh = Session({})
    fresh.add_graph(1, reader())
    # A new session has its own variable: zeros (the reader has no value).
    np.testing.assert_array_equal(fresh.run_graph(1, [])[0].numpy(), np.zeros(2))


def test_an_init_graph_assigns_and_a_graph_reads(session: Session) -> None:
    b = GraphBuilder("init")
    v = b.create_variable(0, "w").set_data_type(DataType.DT_INT32).set_shape([3])
    init = b.build_and_reset([_assign(v, b.create_const(Tensor(np.int32([4, 5, 6]))))])
    b = GraphBuilder("use")
    v = b.create_variable(0, "w").set_data_type(DataType.DT_INT32).set_shape([3])
    use = b.build_and_reset([v * 2])
    np.testing.assert_array_equal(_run(session, use)[0], np.int32([0, 0, 0]))
    _run(session, init)
    np.testing.assert_array_equal(_run(session, use)[0], np.int32([8, 10, 12]))


def test_create_variable_refuses_misuse() -> None:
    b = GraphBuilder("bad_vars")
    with pytest.raises(TypeError, match="index must be an int, got str"):
        b.create_variable("0", "v")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="variable name must be a non-empty str"):
        b.create_variable(0, 5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="variable name must be a non-empty str"):
        b.create_variable(0, "")
    with pytest.raises(ValueError, match="variable index must be >= 0"):
        b.create_variable(-1, "v")
    with pytest.raises(TypeError, match="value must be a ge.graph.Tensor"):
        b.create_variable(0, "v", value=[1.0])  # type: ignore[arg-type]
    b.create_variable(0, "v")
    with pytest.raises(ValueError, match="already has a node named 'v'"):
        b.create_variable(1, "v")
    with pytest.raises(ValueError, match="already has variable index 0"):
        b.create_variable(0, "w")
    b.build_and_reset()
    with pytest.raises(RuntimeError, match="already been built"):
        b.create_variable(2, "u")


def _variable_graph(
    name: str, variable: str, shape: list[int], value: object = None
) -> Graph:
    b = GraphBuilder(name)
    v = b.create_variable(0, variable, value=value)  # type: ignore[arg-type]
    if value is None:
        v.set_shape(shape)
    return b.build_and_reset([v + 1.0])


def test_one_variable_name_has_one_shape_per_session(session: Session) -> None:
    _run(session, _variable_graph("first", "fixed", [2]))
    with pytest.raises(
        CompileError,
        match=r"'fixed' is declared float32\[3\].*session's variable 'fixed' is "
        r"float32\[2\].*use another name",
    ):
        _run(session, _variable_graph("second", "fixed", [3]))


def test_variables_need_concrete_shapes_and_matching_values(session: Session) -> None:
    with pytest.raises(CompileError, match="'vague' has no concrete shape.*set_shape"):
        _run(session, _variable_graph("vague", "vague", [-1]))
    b = GraphBuilder("mismatch")
    v = b.create_variable(0, "mis", value=Tensor(np.float32([1, 2])))
    v.set_shape([3])
    with pytest.raises(
        CompileError,
        match=r"declared float32\[3\] but its initial value is float32\[2\]",
    ):
        _run(session, b.build_and_reset([v + 1.0]))


def test_assign_refuses_misuse(session: Session) -> None:
    from ge.es.state import Assign

    b = GraphBuilder("bad_assign")
    v = b.create_variable(0, "av", value=Tensor(np.float32([1, 2])))
    with pytest.raises(ValueError, match="dtype int32 differs from"):
        Assign(v, b.create_const(Tensor(np.int32([1, 2]))))
    other = GraphBuilder("other")
    with pytest.raises(ValueError, match="belongs to graph builder 'other'"):
        Assign(v, other.create_input(0, shape=[2]))
    wrong = Assign(v, b.create_const(Tensor(np.float32([1, 2, 3]))))
    with pytest.raises(
        CompileError, match=r"value has shape \[3\] but ref has shape \[2\]"
    ):
        _run(session, b.build_and_reset([wrong]))


def test_offline_models_refuse_variables(session: Session, tmp_path: Path) -> None:
    graph = _variable_graph("offline_var", "kept", [2])
    with pytest.raises(
        CompileError,
        match="Variable node 'kept'.*offline model.*run the graph online with Session",
    ):
        compile_model(graph, tmp_path / "m.om")
    assert not (tmp_path / "m.om").exists()


def test_a_graph_file_keeps_its_variables(session: Session, tmp_path: Path) -> None:
    b = GraphBuilder("saved")
    v = b.create_variable(2, "saved_v", value=Tensor(np.int64([10, 20])))
    b.build_and_reset([_assign(v, v - 1)]).save_to_air(str(tmp_path / "g.air"))
    graph = Graph.load_from_air(str(tmp_path / "g.air"))
    node = graph.find_node_by_name("saved_v")
    assert node is not None and node.type == "Variable"
    assert node.get_attr("index") == 2
    graph_id = next(_ids)
    session.add_graph(graph_id, graph)
    for want in ([9, 19], [8, 18]):
        np.testing.assert_array_equal(
            session.run_graph(graph_id, [])[0].numpy(), np.int64(want)
        )
