"""ge-atc on bad inputs (issue 8, finding 5): every failure is one line on
stderr, ``ge-atc: ...`` naming the file, node or parameter, exit status 1,
no traceback, and no model file written. Each case runs the real command in
its own process."""

from __future__ import annotations

import copy
import json
import os
import resource
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from models import ADD_OPS, ROOT, add_graph

from ge._container import Section, read, write
from ge.es import GraphBuilder
from ge.graph import Graph
from ge.graph.air import MAGIC, VERSION, graph_bytes


@pytest.fixture(autouse=True)
def _unfused(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests count the sample ops' own launches, workspaces and
    execute nodes; the sample adds and ScaleCustom declare elementwise:, so
    element-wise fusion (docs/compiler.md) is off here."""
    monkeypatch.setenv("GE_CPU_FUSION", "0")


Document = dict[str, Any]


def document(graph: Graph) -> Document:
    """The JSON document of a graph file (docs/model-format.md)."""
    _, sections = read(graph_bytes(graph), MAGIC, VERSION, "graph file")
    return json.loads(sections[1])


def save_document(doc: Document, path: Path) -> Path:
    path.write_bytes(write(MAGIC, VERSION, [Section(1, json.dumps(doc).encode())]))
    return path


def chain_graph(shape: list[int]) -> Graph:
    """x -> add(x, x) -> add(t, t): the middle tensor lives in the arena."""
    from ge.es.custom import AnnotatedAddCustom

    builder = GraphBuilder("chain")
    x = builder.create_input(0, name="data_x", shape=shape)
    t = AnnotatedAddCustom(x, x, name="first")
    return builder.build_and_reset([AnnotatedAddCustom(t, t, name="second")])


def io_graph() -> Graph:
    """An input and a constant, both graph outputs: no op module needed."""
    import numpy as np

    from ge.graph import Tensor

    builder = GraphBuilder("io")
    x = builder.create_input(0, name="data_x", shape=[4])
    c = builder.create_const(Tensor(np.ones(4, np.float32)))
    return builder.build_and_reset([x, c])


def run_atc(
    model: Path,
    output: Path,
    *,
    opp: str | None = str(ADD_OPS),
    limit_memory: int | None = None,
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ASCEND_CUSTOM_OPP_PATH"}
    if opp is not None:
        env["ASCEND_CUSTOM_OPP_PATH"] = opp

    def limit() -> None:
        if limit_memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit_memory, limit_memory))

    return subprocess.run(
        [
            str(Path(sys.executable).parent / "ge-atc"),
            "--model",
            str(model),
            "--output",
            str(output),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        preexec_fn=limit,
    )


def assert_one_line_error(
    result: subprocess.CompletedProcess[str], output: Path, *needles: str
) -> str:
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("ge-atc: "), lines[0]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    assert result.stdout == ""
    assert not output.with_name(output.name + ".om").exists()
    return lines[0]


# --- op modules that do not load ---------------------------------------------------


OP_MODULE_FAILURES = {
    # an author module whose generated module is not on PYTHONPATH
    "missing-generated": (
        "from ge_impl.nowhere.annotated_add_custom import Base\n",
        ["ModuleNotFoundError", "ge_impl.nowhere", "PYTHONPATH", "broken_op.py"],
    ),
    "raises": (
        "raise ZeroDivisionError('division in an op module')\n",
        ["ZeroDivisionError", "division in an op module", "broken_op.py"],
    ),
    "syntax": ("def (:\n", ["SyntaxError", "broken_op.py"]),
    "value-error": (
        "int('not a number')\n",
        ["invalid literal", "broken_op.py"],
    ),
    "bad-prototype": (
        textwrap.dedent("""
            from ge.custom_op import register_op

            @register_op(op_type="BadProto")
            def infer(x) -> None:
                pass
            """),
        ["register_op op_type 'BadProto' failed", "broken_op.py"],
    ),
    "exit": ("raise SystemExit(5)\n", ["SystemExit", "broken_op.py"]),
}


@pytest.mark.parametrize("case", sorted(OP_MODULE_FAILURES))
def test_an_op_module_that_does_not_load(tmp_path: Path, case: str) -> None:
    source, needles = OP_MODULE_FAILURES[case]
    broken = tmp_path / "broken_op.py"
    broken.write_text(source)
    model = tmp_path / "add.air"
    add_graph().save_to_air(model)
    result = run_atc(
        model, tmp_path / "add", opp=os.pathsep.join([str(ADD_OPS), str(broken)])
    )
    assert_one_line_error(result, tmp_path / "add", *needles)


def test_a_missing_op_path(tmp_path: Path) -> None:
    model = tmp_path / "add.air"
    add_graph().save_to_air(model)
    result = run_atc(model, tmp_path / "add", opp=str(tmp_path / "nowhere.py"))
    assert_one_line_error(
        result, tmp_path / "add", "ASCEND_CUSTOM_OPP_PATH", "nowhere.py"
    )


def test_a_world_writable_op_path_is_a_one_line_warning(tmp_path: Path) -> None:
    opp = tmp_path / "opp"
    opp.mkdir()
    (opp / "add_ops.py").write_text(ADD_OPS.read_text())
    (opp / "add_kernel.c").write_text((ADD_OPS.parent / "add_kernel.c").read_text())
    opp.chmod(0o777)
    model = tmp_path / "add.air"
    add_graph().save_to_air(model)
    result = run_atc(model, tmp_path / "add", opp=str(opp))
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ge-atc: warning: "), lines
    assert str(opp) in lines[0] and "writable by every user" in lines[0]


# --- graph files with missing fields or odd values ----------------------------------


def _drop_attr(doc: Document, node: int, name: str) -> None:
    doc["nodes"][node]["attrs"] = [
        a for a in doc["nodes"][node]["attrs"] if a[0] != name
    ]


def _set_attr(doc: Document, node: int, name: str, attr: dict[str, Any]) -> None:
    _drop_attr(doc, node, name)
    doc["nodes"][node]["attrs"].append([name, attr])


def _set_shape(node: int, shape: list[int]) -> Callable[[Document], None]:
    def edit(doc: Document) -> None:
        doc["nodes"][node]["outputs"][0][0] = shape

    return edit


GRAPH_FILE_CASES: dict[
    str, tuple[Callable[[], Graph], Callable[[Document], None], list[str]]
] = {
    "data-without-index": (
        io_graph,
        lambda d: _drop_attr(d, 0, "index"),
        ["data_x", "index"],
    ),
    "data-index-not-int": (
        io_graph,
        lambda d: _set_attr(d, 0, "index", {"type": "str", "value": "0"}),
        ["data_x", "index"],
    ),
    "data-index-out-of-range": (
        io_graph,
        lambda d: _set_attr(d, 0, "index", {"type": "int", "value": 3}),
        ["data_x", "index 3"],
    ),
    "data-index-twice": (
        add_graph,
        lambda d: _set_attr(d, 1, "index", {"type": "int", "value": 0}),
        ["data_y", "index 0"],
    ),
    "data-without-outputs": (
        io_graph,
        lambda d: d["nodes"][0].update(outputs=[], ir_outputs=[]),
        ["data_x", "output"],
    ),
    "const-without-value": (
        io_graph,
        lambda d: _drop_attr(d, 1, "value"),
        ["Const_0", "value"],
    ),
    "const-value-not-a-tensor": (
        io_graph,
        lambda d: _set_attr(d, 1, "value", {"type": "int", "value": 1}),
        ["Const_0", "value"],
    ),
    "dims-of-2^40": (io_graph, _set_shape(0, [1 << 40]), ["data_x", "bytes"]),
    "dims-of-2^40-through-ops": (
        lambda: chain_graph([1024]),
        _set_shape(0, [1 << 40]),
        ["data_x", "bytes"],
    ),
    "a-10^12-element-tensor": (
        lambda: chain_graph([1024]),
        _set_shape(0, [10**6, 10**6]),
        ["data_x", "bytes"],
    ),
    "an-overflowing-product": (
        lambda: chain_graph([1024]),
        _set_shape(0, [1 << 62, 1 << 62, 1 << 62]),
        ["data_x"],
    ),
    "a-dim-beyond-int64": (
        io_graph,
        _set_shape(0, [1 << 70]),
        ["graph file", "nodes[0]"],
    ),
    "a-negative-dim": (io_graph, _set_shape(0, [-3]), ["graph file", "nodes[0]"]),
    "an-unknown-dim": (io_graph, _set_shape(0, [-1]), ["data_x", "concrete shape"]),
    "a-required-input-with-no-instance": (
        add_graph,
        lambda d: d["nodes"][2].update(
            ir_inputs=[["x1", "required", 0], ["x2", "required", 2]]
        ),
        ["graph file", "nodes[2]", "required"],
    ),
    "a-required-input-not-connected": (
        add_graph,
        lambda d: d["nodes"][2]["inputs"].__setitem__(1, None),
        ["graph file", "nodes[2]", "required input", "not connected"],
    ),
    "too-many-dims-for-a-model": (io_graph, _set_shape(0, [1] * 40), ["data_x", "32"]),
}


@pytest.mark.parametrize("case", sorted(GRAPH_FILE_CASES))
def test_a_graph_file_with_a_missing_field_or_odd_value(
    tmp_path: Path, case: str
) -> None:
    make, edit, needles = GRAPH_FILE_CASES[case]
    doc = copy.deepcopy(document(make()))
    edit(doc)
    model = save_document(doc, tmp_path / "odd.air")
    assert_one_line_error(run_atc(model, tmp_path / "odd"), tmp_path / "odd", *needles)


def test_running_out_of_memory_while_compiling(tmp_path: Path) -> None:
    """An 8 GiB intermediate, within the device's limits, in a process that
    may use 4 GiB: a CompileError naming the graph, not a MemoryError."""
    model = tmp_path / "big.air"
    chain_graph([1 << 31]).save_to_air(model)
    result = run_atc(model, tmp_path / "big", limit_memory=4 << 30)
    assert_one_line_error(result, tmp_path / "big", "chain", "cannot allocate")


# --- files and paths --------------------------------------------------------------------


def test_a_graph_file_that_is_a_directory(tmp_path: Path) -> None:
    result = run_atc(tmp_path, tmp_path / "out")
    assert_one_line_error(result, tmp_path / "out", str(tmp_path))


def test_an_output_in_a_missing_directory(tmp_path: Path) -> None:
    model = tmp_path / "io.air"
    io_graph().save_to_air(model)
    output = tmp_path / "missing" / "io"
    assert_one_line_error(run_atc(model, output), output, str(output.parent))


def test_a_failed_compile_keeps_an_earlier_model(tmp_path: Path) -> None:
    model = tmp_path / "io.air"
    io_graph().save_to_air(model)
    assert run_atc(model, tmp_path / "io").returncode == 0
    before = (tmp_path / "io.om").read_bytes()
    doc = document(io_graph())
    _drop_attr(doc, 1, "value")
    save_document(doc, model)
    result = run_atc(model, tmp_path / "io")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert (tmp_path / "io.om").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["io.air", "io.om"]


# --- paths given from Python -----------------------------------------------------------


@pytest.mark.parametrize("path", [3, 2.5, None, True])
def test_a_path_that_is_not_a_path_is_a_type_error(path: Any, tmp_path: Path) -> None:
    """``open`` takes an int as a file descriptor: reading or writing a
    graph file "at" 3 would use (and close) whatever descriptor 3 is."""
    from ge.graph import Tensor
    from ge.offline import compile_model

    graph = io_graph()
    with pytest.raises(TypeError, match="path"):
        Graph.load_from_air(path)
    with pytest.raises(TypeError, match="path"):
        graph.save_to_air(path)
    with pytest.raises(TypeError, match="path"):
        compile_model(graph, path if path is not None else 3)
    with pytest.raises(TypeError, match="a ge.graph.Graph or a graph file path"):
        compile_model(path)
    with pytest.raises(TypeError, match="file_path"):
        Tensor(file_path=path if path is not None else 3)
    os.fstat(0)  # stdin is still open
