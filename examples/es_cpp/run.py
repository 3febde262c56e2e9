"""Graphs built in C++ with the generated ES API, run by the Python runtime.

Builds ``build_graphs.cpp`` and the generated ``es_<Op>.cpp`` bodies it
calls with ``g++`` against the ES runtime library (``python -m ge.es
--includes --libs``), runs it to save two graph files, then:

- loads ``main.air`` with ``Graph.load_from_air`` and runs it in a Session
  (ConcatCustom, SplitCustom and ScaleCustom from ops/custom), checked
  against numpy;
- builds the same two graphs with the Python builders (``ge.es.custom``,
  ``ge.es.control``) and compares them with the loaded ones structurally:
  nodes, IR layouts, edges, attrs (optional attrs as the op's prototype
  resolves them: C++ leaves an attr at its default off the node), subgraphs
  and graph outputs;
- loads ``if.air`` (IfCustom, a subgraph op: then_branch scales by 2,
  else_branch by 1, both ScaleCustom) and runs it with cond 1 and 0,
  printing each result beside numpy's answer and the result of the same
  graph built in Python (ops/control implements IfCustom).

Run from the repository root: ``python examples/es_cpp/run.py``.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
os.environ.setdefault(
    "ASCEND_CUSTOM_OPP_PATH",
    os.pathsep.join(str(ROOT / "ops" / m) for m in ("custom", "control")),
)

from ge.custom_op import get_registered_op_proto_by_op_type  # noqa: E402
from ge.engine.infer import attr_values  # noqa: E402
from ge.es import GraphBuilder, esrt  # noqa: E402
from ge.es.control import IfCustom  # noqa: E402
from ge.es.custom import ConcatCustom, ScaleCustom, SplitCustom  # noqa: E402
from ge.ge_global import GeApi  # noqa: E402
from ge.graph import DataType, Format, Graph, Tensor  # noqa: E402
from ge.graph.attrs import AttrType  # noqa: E402
from ge.session import Session  # noqa: E402

GENERATED = ROOT / "generated" / "es"
OPS = ["ConcatCustom", "SplitCustom", "ScaleCustom", "IfCustom"]


def build_cpp(workdir: Path) -> Path:
    """The example program, compiled and linked against libge_es.so."""
    program = workdir / "build_graphs"
    command = [
        os.environ.get("CXX", "g++"),
        "-Wall",
        "-Werror",
        str(HERE / "build_graphs.cpp"),
        *(str(GENERATED / "src" / f"es_{op}.cpp") for op in OPS),
        f"-I{GENERATED / 'include'}",
        *esrt.compile_flags(),
        *esrt.link_flags(),
        "-o",
        str(program),
    ]
    print("$ " + shlex.join(command), flush=True)
    subprocess.run(command, check=True)
    return program


def python_main() -> Graph:
    builder = GraphBuilder("es_cpp_main")
    xs = [
        builder.create_input(
            i,
            name=f"x{i}",
            data_type=DataType.DT_FLOAT,
            format=Format.FORMAT_ND,
            shape=[2, 64],
        )
        for i in range(3)
    ]
    parts = SplitCustom(ConcatCustom(xs, concat_dim=1), num_split=3, split_dim=1)
    plain = ScaleCustom(parts[0])
    scaled = ScaleCustom(parts[1], parts[2], alpha=0.5)
    return builder.build_and_reset([plain, scaled, parts[2]])


def python_branch(name: str, alpha: float) -> Graph:
    builder = GraphBuilder(name)
    x = builder.create_input(
        0,
        name="branch_x",
        data_type=DataType.DT_FLOAT,
        format=Format.FORMAT_ND,
        shape=[64],
    )
    return builder.build_and_reset([ScaleCustom(x, alpha=alpha)])


def python_if() -> Graph:
    builder = GraphBuilder("es_cpp_if")
    cond = builder.create_input(
        0, name="cond", data_type=DataType.DT_INT32, format=Format.FORMAT_ND, shape=[]
    )
    x = builder.create_input(
        1, name="x", data_type=DataType.DT_FLOAT, format=Format.FORMAT_ND, shape=[64]
    )
    out = IfCustom(
        cond,
        [x],
        output_num=1,
        then_branch=python_branch("then_branch", 2.0),
        else_branch=python_branch("else_branch", 1.0),
    )
    return builder.build_and_reset(out)


def _value(kind: AttrType, value: Any) -> Any:
    """An attr value to compare: floats as float32 (C++ passes float)."""
    if value is None:
        return None
    if kind is AttrType.FLOAT:
        return float(np.float32(value))
    if kind is AttrType.LIST_FLOAT:
        return [float(np.float32(v)) for v in value]
    if kind is AttrType.TENSOR:
        return (value.data_type, tuple(value.shape), value.tobytes())
    return list(value) if isinstance(value, tuple) else value


def _attrs(node: Any) -> dict[str, Any]:
    """A node's attrs, optional ones as its prototype resolves them."""
    proto = get_registered_op_proto_by_op_type(node.type)
    if proto is None:
        return {k: (t, _value(t, v)) for k, (t, v) in node.attrs.items()}
    return {name: (t, _value(t, v)) for name, t, v in attr_values(node, proto)}


def structure(graph: Graph) -> dict[str, Any]:
    """What a graph file says about a graph, but op output descriptions
    (C++ does not infer dtypes; the compiler does) and dtype rules."""
    names = {id(node): node.name for node in graph.nodes}
    nodes = []
    for node in graph.nodes:
        entry: dict[str, Any] = {
            "name": node.name,
            "type": node.type,
            "ir_inputs": [(i.name, i.kind.value, i.count) for i in node.ir_inputs],
            "ir_outputs": [(o.name, o.dynamic, o.count) for o in node.ir_outputs],
            "inputs": [
                None if e is None else (names[id(e.node)], e.index) for e in node.inputs
            ],
            "control_inputs": [n.name for n in node.control_inputs],
            "ref_outputs": sorted(node.ref_outputs.items()),
            "attrs": _attrs(node),
            "subgraphs": {
                key: [structure(g) for g in graphs]
                for key, graphs in node.subgraphs.items()
            },
        }
        if node.type in ("Data", "Const"):
            entry["outputs"] = [(m.shape, m.dtype, m.format) for m in node.outputs]
        else:
            entry["outputs"] = len(node.outputs)
        nodes.append(entry)
    return {
        "name": graph.name,
        "attrs": dict(graph.attrs),
        "nodes": nodes,
        "outputs": [(names[id(node)], index) for node, index in graph.outputs],
    }


def differences(a: Any, b: Any, where: str = "graph") -> list[str]:
    """Where two structures differ (empty when they are the same)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                out.append(f"{where}.{key}: only in {'C++' if key in a else 'Python'}")
            else:
                out.extend(differences(a[key], b[key], f"{where}.{key}"))
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            d
            for i, (x, y) in enumerate(zip(a, b))
            for d in differences(x, y, f"{where}[{i}]")
        ]
    return [] if a == b else [f"{where}: C++ {a!r}, Python {b!r}"]


def run_main(graph: Graph) -> bool:
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal([2, 64]).astype(np.float32) for _ in range(3)]
    api = GeApi()
    api.ge_initialize({"ge.exec.deviceId": "0", "ge.graphRunMode": "1"})
    try:
        session = Session({})
        session.add_graph(0, graph)
        outputs = session.run_graph(0, [Tensor.from_numpy(x) for x in xs])
    finally:
        api.ge_finalize()
    got = [o.numpy() for o in outputs]
    want = [xs[0], xs[1] * np.float32(0.5) + xs[2], xs[2]]
    ok = len(got) == 3 and all(
        g.shape == w.shape and np.allclose(g, w, rtol=1e-6, atol=1e-6)
        for g, w in zip(got, want)
    )
    print(
        f"[es_cpp] main.air run in a Session against numpy: {'PASS' if ok else 'FAIL'}"
    )
    return ok


def _head(values: np.ndarray) -> str:
    return "[" + ", ".join(f"{v:.4f}" for v in values[:3]) + ", ...]"


def run_if(loaded: Graph, built: Graph) -> bool:
    """if.air and the same graph built in Python, run with cond 1 and 0,
    each beside numpy's answer (then_branch: x * 2, else_branch: x * 1)."""
    x = np.random.default_rng(1).standard_normal(64).astype(np.float32)
    api = GeApi()
    api.ge_initialize({"ge.exec.deviceId": "0", "ge.graphRunMode": "1"})
    ok = True
    try:
        session = Session({})
        session.add_graph(0, loaded)
        session.add_graph(1, built)
        for cond in (1, 0):
            inputs = [Tensor.from_numpy(np.array(cond, np.int32)), Tensor.from_numpy(x)]
            got = session.run_graph(0, inputs)[0].numpy()
            python = session.run_graph(1, inputs)[0].numpy()
            want = x * np.float32(2.0 if cond else 1.0)
            same = np.allclose(got, want, rtol=1e-6, atol=1e-6)
            same = same and np.array_equal(got, python)
            ok = ok and same
            print(
                f"[es_cpp] if.air cond={cond}: runtime {_head(got)} numpy "
                f"{_head(want)} Python-built {_head(python)}: "
                + ("PASS" if same else "FAIL")
            )
    finally:
        api.ge_finalize()
    return ok


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="es_cpp_") as temp:
        workdir = Path(temp)
        program = build_cpp(workdir)
        subprocess.run([str(program), str(workdir)], check=True)
        loaded = {
            name: Graph.load_from_air(workdir / f"{name}.air")
            for name in ("main", "if")
        }
    ok = run_main(loaded["main"])
    ok = run_if(loaded["if"], python_if()) and ok
    for name, built in (("main", python_main()), ("if", python_if())):
        diff = differences(structure(loaded[name]), structure(built))
        print(
            f"[es_cpp] {name}.air against the Python builders: "
            + ("same nodes, edges, attrs and outputs: PASS" if not diff else "FAIL")
        )
        for line in diff:
            print("    " + line)
        ok = ok and not diff
    print("[es_cpp] " + ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
