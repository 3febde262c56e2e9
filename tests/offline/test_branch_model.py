"""Subgraph ops in model files (Note [Branch steps in a model file]): IfCustom
and CaseCustom declare GE's rules (ControlFlow.IF / CASE), so compile_model
stores them as branch steps over nested plans; the models run in process
and in a fresh process with no compiler on PATH and no op module, giving
numpy's results and the online run's bits. Then the refusals: subgraph ops
without a rule, branches holding Python ops, selectors a model cannot read,
damaged branch records, the version check and data-dependent shapes."""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import struct
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ge.es._op_api as api
from ge._container import FileFormatError, Section, read, write
from ge.custom_op import (
    ControlFlow,
    bootstrap,
    get_execute_ctx,
    get_infer_meta_ctx,
    register_op,
    register_op_impl,
)
from ge.engine.compiler import compile_graph
from ge.es import GraphBuilder
from ge.es.control import CaseCustom, IfCustom
from ge.es.math import Relu
from ge.graph import DataType, Graph, Tensor
from ge.offline import OfflineError, compile_model, model_file
from ge.offline.compile import main as ge_atc
from ge.offline.model import load_model_bytes
from ge.runtime import Tensor as RtTensor
from ge.runtime import TensorDesc

ROOT = Path(__file__).resolve().parents[2]
F32 = DataType.DT_FLOAT
SHAPE = [2, 3]
X = np.arange(-3, 3, dtype=np.float32).reshape(SHAPE)
Y = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -4.0]], dtype=np.float32)
_count = itertools.count()


@pytest.fixture(autouse=True)
def control_ops() -> None:
    bootstrap.load_custom_op_plugins(str(ROOT / "ops" / "control"))


def unique(prefix: str) -> str:
    return f"{prefix}_{os.getpid()}_{next(_count)}"


def branch(name: str, body: Callable[..., Any]) -> Graph:
    """A subgraph of two float32 [2, 3] Data nodes giving ``body(x, y)``."""
    b = GraphBuilder(name)
    data = [
        b.create_input(i, name=f"{name}_x{i}", data_type=F32, shape=SHAPE)
        for i in range(2)
    ]
    out = body(*data)
    return b.build_and_reset(out if isinstance(out, list) else [out])


def inputs(b: GraphBuilder, selector: DataType, shape: Sequence[int] = ()) -> Any:
    sel = b.create_input(0, name="sel", data_type=selector, shape=list(shape))
    xs = [
        b.create_input(i + 1, name=f"x{i}", data_type=F32, shape=SHAPE)
        for i in range(2)
    ]
    return sel, xs


def if_graph(
    cond_shape: Sequence[int] = (), dtype: DataType = DataType.DT_INT32
) -> Graph:
    """relu(x) -> If(cond; then: relu(x + y), x * y; else: x * y, x - y) -> + 1."""
    b = GraphBuilder("if_model")
    cond, (x, y) = inputs(b, dtype, cond_shape)
    then = branch("then_b", lambda p, q: [Relu(p + q), p * q])
    other = branch("else_b", lambda p, q: [p * q, p - q])
    a, c = IfCustom(cond, [Relu(x), y], 2, then, other, name="if")
    return b.build_and_reset([a + 1.0, c])


def if_want(cond_true: bool) -> list[np.ndarray]:
    x = np.maximum(X, 0)
    if cond_true:
        return [np.maximum(x + Y, 0) + 1, x * Y]
    return [x * Y + 1, x - Y]


def nested_branch() -> Graph:
    """b2 with an If inside, its cond a constant of the branch (true)."""
    b = GraphBuilder("b2")
    p, q = (b.create_input(i, data_type=F32, shape=SHAPE) for i in range(2))
    (out,) = IfCustom(
        b.create_scalar_int32(1),
        [p, q],
        1,
        branch("inner_then", lambda s, t: s * t - s),
        branch("inner_else", lambda s, t: s),
        name="inner_if",
    )
    return b.build_and_reset([out])


def case_graph(nested: bool = False) -> Graph:
    """Case(index; x + y, x * y, x - y or nested_branch()) on x, y."""
    b = GraphBuilder("case_model")
    index, xs = inputs(b, DataType.DT_INT32)
    branches = [
        branch("b0", lambda p, q: p + q),
        branch("b1", lambda p, q: p * q),
        nested_branch() if nested else branch("b2", lambda p, q: p - q),
    ]
    (out,) = CaseCustom(index, xs, 1, branches, name="case")
    return b.build_and_reset([out])


def case_want(index: int, nested: bool = False) -> np.ndarray:
    chosen = index if 0 <= index < 3 else 2
    return [X + Y, X * Y, X * Y - X if nested else X - Y][chosen]


def run_model(data: bytes, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
    model = load_model_bytes(data)
    outs = [
        Tensor(np.zeros(model.get_output_dims(j), np.float32))
        for j in range(model.get_num_outputs())
    ]
    model.execute([Tensor(a) for a in arrays], outs)
    return [o.numpy() for o in outs]


def run_online(graph: Graph, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [t.numpy() for t in compile_graph(graph).run([Tensor(a) for a in arrays])]


# -- round trips -------------------------------------------------------------------


def test_an_if_model_is_version_4_with_a_branch_step_and_two_plans() -> None:
    data = compile_model(if_graph())
    assert struct.unpack_from("<I", data, 8)[0] == model_file.BRANCH_VERSION == 4
    contents = model_file.decode(data)
    (step,) = contents.branches
    assert (step.rule, step.node, step.plans) == ("if", "if", (0, 1))
    assert step.at == 1  # after the Relu's launch; the Add's comes after it
    assert [p.name for p in contents.subplans] == ["then_b", "else_b"]
    assert all(not p.branches for p in contents.subplans)
    assert compile_model(if_graph()) == data  # deterministic


@pytest.mark.parametrize("cond", [0, 1, -7, 2**31 - 1])
def test_an_if_model_gives_numpys_results_and_the_online_bits(cond: int) -> None:
    arrays = [np.array(cond, np.int32), X, Y]
    got = run_model(compile_model(if_graph()), arrays)
    for g, w in zip(got, if_want(cond != 0)):
        np.testing.assert_allclose(g, w, rtol=1e-6)
    online = run_online(if_graph(), arrays)
    assert [g.tobytes() for g in got] == [o.tobytes() for o in online]


@pytest.mark.parametrize("shape, true", [([1], True), ([3], True), ([0], False)])
def test_a_non_scalar_condition_is_true_when_it_has_elements(
    shape: list[int], true: bool
) -> None:
    """GE's rule: the values of a non-scalar cond are not read."""
    cond = np.zeros(shape, np.int32)
    got = run_model(compile_model(if_graph(shape)), [cond, X, Y])
    for g, w in zip(got, if_want(true)):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_a_bool_condition() -> None:
    data = compile_model(if_graph(dtype=DataType.DT_BOOL))
    for cond in (False, True):
        got = run_model(data, [np.array(cond), X, Y])
        np.testing.assert_allclose(got[1], if_want(cond)[1], rtol=1e-6)


@pytest.mark.parametrize("index", [-1, 0, 1, 2, 3, 100])
def test_a_case_model_picks_the_last_branch_out_of_range(index: int) -> None:
    arrays = [np.array(index, np.int32), X, Y]
    (got,) = run_model(compile_model(case_graph()), arrays)
    np.testing.assert_allclose(got, case_want(index), rtol=1e-6)
    (online,) = run_online(case_graph(), arrays)
    assert got.tobytes() == online.tobytes()


def test_branches_nest() -> None:
    data = compile_model(case_graph(nested=True))
    contents = model_file.decode(data)
    inner = contents.subplans[2]
    assert [b.node for b in inner.branches] == ["inner_if"]
    assert [p.name for p in inner.subplans] == ["inner_then", "inner_else"]
    for index in (0, 2, 5):
        (got,) = run_model(data, [np.array(index, np.int32), X, Y])
        np.testing.assert_allclose(got, case_want(index, nested=True), rtol=1e-6)


RUNNER = r"""
import json, shutil, sys
import numpy as np
from ge.graph import Tensor
from ge.offline import load_model

assert shutil.which("gcc") is None and shutil.which("cc") is None
results = {}
for path, selectors in json.loads(sys.argv[1]):
    model = load_model(path)
    x, y = np.load(sys.argv[2]), np.load(sys.argv[3])
    runs = []
    for sel in selectors:
        outs = [
            Tensor(np.zeros(model.get_output_dims(j), np.float32))
            for j in range(model.get_num_outputs())
        ]
        model.execute([Tensor(np.array(sel, np.int32)), Tensor(x), Tensor(y)], outs)
        runs.append([o.numpy().tolist() for o in outs])
    results[path] = runs
loaded = [
    name for name, module in list(sys.modules.items())
    if name.startswith(("ge_impl", "ge.es.control"))
    or "/ops/" in (getattr(module, "__file__", None) or "")
]
assert not loaded, loaded
print(json.dumps(results))
"""


def test_models_run_in_a_fresh_process_with_no_compiler_and_no_op_module(
    tmp_path: Path,
) -> None:
    plans = []
    for name, graph, selectors in (
        ("if", if_graph(), [0, 1]),
        ("case", case_graph(nested=True), [-4, 0, 1, 2]),
    ):
        compile_model(graph, tmp_path / f"{name}.om")
        plans.append([str(tmp_path / f"{name}.om"), selectors])
    np.save(tmp_path / "x.npy", X)
    np.save(tmp_path / "y.npy", Y)
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PATH", "CC", "ASCEND_CUSTOM_OPP_PATH")
    }
    env.update(PATH=str(empty), CC=str(empty / "gcc"))
    env["GE_CPU_CACHE_DIR"] = str(tmp_path / "cache")
    result = subprocess.run(
        [sys.executable, "-c", RUNNER, json.dumps(plans)]
        + [str(tmp_path / "x.npy"), str(tmp_path / "y.npy")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    runs = json.loads(result.stdout)
    for cond, got in zip([0, 1], runs[plans[0][0]]):
        for g, w in zip(got, if_want(bool(cond))):
            np.testing.assert_allclose(np.array(g, np.float32), w, rtol=1e-6)
    for index, got in zip([-4, 0, 1, 2], runs[plans[1][0]]):
        want = case_want(index, nested=True)
        np.testing.assert_allclose(np.array(got[0], np.float32), want, rtol=1e-6)


def test_ge_atc_writes_a_branch_model(tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "g.air").write_bytes(b"")
    if_graph().save_to_air(str(tmp_path / "g.air"))
    assert (
        ge_atc(["--model", str(tmp_path / "g.air"), "--output", str(tmp_path / "m")])
        == 0
    )
    assert "ge-atc: wrote" in capsys.readouterr().out
    data = (tmp_path / "m.om").read_bytes()
    got, _ = run_model(data, [np.array(1, np.int32), X, Y])
    np.testing.assert_allclose(got, if_want(True)[0], rtol=1e-6)


# -- what is refused ---------------------------------------------------------------


def choice_op(
    rule: ControlFlow | None,
    graphs: int = 2,
    selector: str = "int32",
) -> api.OpDef:
    """An op with ``graphs`` subgraphs g0.. on one float32 input, declaring
    ``rule``; execute runs g0."""
    op_type = unique("Choice")
    names = [f"g{i}" for i in range(graphs)]

    @register_op(op_type=op_type, output_names=("y",))
    def infer(sel: TensorDesc, x: TensorDesc) -> TensorDesc:
        ctx = get_infer_meta_ctx()
        return ctx.get_subgraph(names[0]).infer([x])[0]

    @register_op_impl(op_type=op_type)
    class Impl:
        control_flow = rule

        def execute(self, sel: RtTensor, x: RtTensor) -> None:
            ctx = get_execute_ctx()
            y = ctx.malloc_output_tensor(0, x.shape, x.format, x.data_type)
            ctx.get_subgraph(names[0]).run([x], [y])

    return api.OpDef(
        op_type,
        inputs=(api.Input("sel", selector), api.Input("x", "float32")),
        outputs=(api.Output("y", "float32"),),
        graphs=tuple(api.Graph(n) for n in names),
    )


def one_input_branch(name: str, body: Callable[[Any], Any]) -> Graph:
    b = GraphBuilder(name)
    return b.build_and_reset([body(b.create_input(0, data_type=F32, shape=SHAPE))])


def choice_graph(
    op: api.OpDef, selector: DataType = DataType.DT_INT32, **bodies: Any
) -> Graph:
    b = GraphBuilder(unique("choice"))
    sel = b.create_input(0, name="sel", data_type=selector, shape=[])
    x = b.create_input(1, name="x", data_type=F32, shape=SHAPE)
    graphs = {
        g.name: one_input_branch(f"{g.name}_graph", bodies.get(g.name, Relu))
        for g in op.graphs
    }
    return b.build_and_reset(
        [op.build(inputs={"sel": sel, "x": x}, graphs=graphs, name="choice")]
    )


def test_a_subgraph_op_without_a_rule_is_refused_naming_it() -> None:
    op = choice_op(None)
    with pytest.raises(OfflineError) as info:
        compile_model(choice_graph(op))
    text = str(info.value)
    assert f"node(s) 'choice' ({op.op_type}) are subgraph ops" in text
    assert "declares no control_flow rule" in text
    assert "control_flow = ge.custom_op.ControlFlow.IF" in text


def test_ge_atc_names_the_op_in_one_line(tmp_path: Path, capsys: Any) -> None:
    op = choice_op(None)
    choice_graph(op).save_to_air(str(tmp_path / "g.air"))
    os.environ["ASCEND_CUSTOM_OPP_PATH"] = ""
    try:
        status = ge_atc(
            ["--model", str(tmp_path / "g.air"), "--output", str(tmp_path / "m")]
        )
    finally:
        del os.environ["ASCEND_CUSTOM_OPP_PATH"]
    err = capsys.readouterr().err
    assert status == 1 and len(err.strip().splitlines()) == 1
    assert err.startswith("ge-atc: ") and "declares no control_flow rule" in err
    assert not (tmp_path / "m.om").exists()


def test_a_declared_rule_runs_the_ops_own_graphs() -> None:
    """A float selector is one an IF reads as GE does: true when its
    magnitude exceeds float32's epsilon (NaN is false)."""
    op = choice_op(ControlFlow.IF, selector="float32")
    graph = choice_graph(op, DataType.DT_FLOAT, g0=Relu, g1=lambda x: x * 2.0)
    data = compile_model(graph)
    for sel, want in (
        (0.0, X * 2),
        (1e-9, X * 2),
        (float("nan"), X * 2),
        (-0.5, np.maximum(X, 0)),
        (1e-6, np.maximum(X, 0)),
    ):
        (got,) = run_model(data, [np.array(sel, np.float32), X])
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_a_case_cannot_read_a_float_selector() -> None:
    op = choice_op(ControlFlow.CASE, selector="float32")
    with pytest.raises(OfflineError) as info:
        compile_model(choice_graph(op, DataType.DT_FLOAT))
    text = str(info.value)
    assert f"node 'choice' ({op.op_type}, control_flow CASE) cannot run offline" in text
    assert (
        "its selector is float32; a model file reads a case selector of int16" in text
    )


def test_an_if_with_three_branches_is_refused() -> None:
    op = choice_op(ControlFlow.IF, graphs=3)
    with pytest.raises(
        OfflineError, match="an IF takes exactly 2 branches, the node has 3"
    ):
        compile_model(choice_graph(op))


def test_a_python_op_inside_a_branch_is_refused_naming_both() -> None:
    inner = choice_op(None, graphs=1)  # a subgraph op with no rule, in a branch
    outer = choice_op(ControlFlow.CASE)
    b = GraphBuilder("inner_graph")
    s = b.create_input(0, data_type=F32, shape=SHAPE)
    body = b.build_and_reset(
        [
            inner.build(
                inputs={"sel": b.create_scalar_int32(0), "x": s},
                graphs={"g0": one_input_branch("leaf", Relu)},
                name="deep",
            )
        ]
    )
    g = GraphBuilder(unique("outer"))
    sel = g.create_input(0, name="sel", data_type=DataType.DT_INT32, shape=[])
    x = g.create_input(1, name="x", data_type=F32, shape=SHAPE)
    graph = g.build_and_reset(
        [
            outer.build(
                inputs={"sel": sel, "x": x},
                graphs={"g0": body, "g1": one_input_branch("plain", Relu)},
                name="choice",
            )
        ]
    )
    with pytest.raises(OfflineError) as info:
        compile_model(graph)
    text = str(info.value)
    assert f"node 'choice' ({outer.op_type}, control_flow CASE), branch g0:" in text
    assert f"node(s) 'deep' ({inner.op_type}) are subgraph ops" in text


def test_a_bad_control_flow_declaration_is_refused_at_registration() -> None:
    with pytest.raises(TypeError, match=r"\.control_flow is 'if'; set it to"):

        @register_op_impl(op_type=unique("Bad"))
        class Bad:
            control_flow = "if"

            def execute(self) -> None: ...

    with pytest.raises(TypeError, match="declares control_flow IF but has no execute"):

        @register_op_impl(op_type=unique("Bad"))
        class NoExecute:
            control_flow = ControlFlow.IF

            def declare_launch_args(self) -> None: ...


# -- the file: version and damage ---------------------------------------------------


def test_an_older_reader_refuses_the_file_by_its_version() -> None:
    data = compile_model(if_graph())
    with pytest.raises(
        FileFormatError,
        match="format version 4 is newer than this runtime reads \\(up to 3\\); "
        "update the runtime",
    ):
        read(data, model_file.MAGIC, 3, model_file.WHAT)


def test_a_file_claiming_an_older_version_with_branches_is_refused() -> None:
    data = compile_model(if_graph())
    _, sections = read(data, model_file.MAGIC, model_file.VERSION, model_file.WHAT)
    older = write(
        model_file.MAGIC, 3, [Section(k, sections[k]) for k in sorted(sections)]
    )
    with pytest.raises(
        FileFormatError, match="branch steps need format version 4; the file says 3"
    ):
        model_file.decode(older)


def damaged(data: model_file.ModelData, **changes: Any) -> bytes:
    (step,) = data.branches
    return model_file.encode(
        dataclasses.replace(data, branches=(dataclasses.replace(step, **changes),))
    )


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"rule": "while"}, "has rule 'while'; known: if, case"),
        ({"at": 99}, "runs after task 99, out of order or past the tasks"),
        ({"plans": (0,)}, "an IF takes exactly 2 branches, the node has 1"),
        ({"plans": (0, 5)}, "names branch plan 5, which is not in the file"),
        ({"selector_dtype": "DT_STRING"}, "a if cannot read a DT_STRING selector"),
        ({"selector": (1, 4)}, "its selector lies outside the buffers"),
        (
            {"inputs": ((2, 0, 24),)},
            "branch plan 0 ('then_b') inputs are [24, 24] bytes",
        ),
        ({"outputs": ((1, 0, 4), (5, 0, 24))}, "output 0 lies in a input buffer"),
        (
            {"outputs": ((0, 1 << 30, 24), (5, 0, 24))},
            "output 0 does not fit its buffer",
        ),
    ],
)
def test_damaged_branch_records_are_refused(
    changes: dict[str, Any], message: str
) -> None:
    data = model_file.decode(compile_model(if_graph()))
    with pytest.raises(
        FileFormatError, match="model file: branch step 0 \\(node 'if'\\)"
    ):
        try:
            model_file.decode(damaged(data, **changes))
        except FileFormatError as exc:
            assert message in str(exc)
            raise


def test_a_damaged_branch_plan_is_refused_naming_it() -> None:
    data = model_file.decode(compile_model(if_graph()))
    bad = dataclasses.replace(data.subplans[1], tasks=((0, 0, 0, 0, 1),))
    with pytest.raises(FileFormatError, match="model file: branch plan 1: task 0 "):
        model_file.decode(
            model_file.encode(
                dataclasses.replace(data, subplans=(data.subplans[0], bad))
            )
        )


def test_branch_plans_nest_at_most_eight_deep() -> None:
    data = model_file.decode(compile_model(if_graph()))
    nested = data
    for _ in range(model_file.MAX_NESTING):
        nested = dataclasses.replace(data, subplans=(nested, data.subplans[1]))
    with pytest.raises(FileFormatError, match="nest more than 8 levels deep"):
        model_file.decode(model_file.encode(nested))


def test_random_branch_records_are_file_format_errors() -> None:
    """Seeded changes to the branch records' integers, the file's checksums
    made right again: a FileFormatError or a model that loads and runs
    inside its buffers, never another exception."""
    data = compile_model(case_graph(nested=True))
    _, sections = read(data, model_file.MAGIC, model_file.VERSION, model_file.WHAT)
    plan = json.loads(sections[model_file.PLAN])
    rng = np.random.default_rng(11)
    refused = 0
    for _ in range(150):
        mutated = json.loads(json.dumps(plan))
        record = mutated["branches"][0]
        key = str(rng.choice(["at", "plans", "inputs", "outputs", "selector"]))
        values = [0, 1, 2, 3, 24, 1 << 20, 1 << 33]
        if key == "at":
            record["at"] = int(rng.choice(values))
        elif key == "plans":
            record["plans"][int(rng.integers(0, 3))] = int(rng.choice(values))
        elif key == "selector":
            record["selector"][str(rng.choice(["buffer", "offset"]))] = int(
                rng.choice(values)
            )
        else:
            place = record[key][int(rng.integers(0, len(record[key])))]
            place[int(rng.integers(0, 3))] = int(rng.choice(values))
        sections[model_file.PLAN] = json.dumps(mutated).encode()
        damaged_file = write(
            model_file.MAGIC,
            model_file.VERSION,
            [Section(k, sections[k]) for k in sorted(sections)],
        )
        try:
            model = load_model_bytes(damaged_file)
        except FileFormatError:
            refused += 1
            continue
        outs = [Tensor(np.zeros(SHAPE, np.float32))]
        model.execute([Tensor(np.array(1, np.int32)), Tensor(X), Tensor(Y)], outs)
    assert refused > 100
