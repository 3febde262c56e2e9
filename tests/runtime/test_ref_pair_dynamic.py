"""An output named like an input is GE's ref pair only when both are dynamic
or neither (W907): GE names a dynamic output's instances x0, x1, ..., so a
dynamic output x does not pair with a single input x (GE's phony_dup_name).
The Python builders and the C/C++ ES runtime library record the same
pairs."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from _rt_support import registries  # noqa: F401
from helpers import import_file, load_ops, render_tree, write_tree

from ge.es import GraphBuilder, esrt
from ge.graph import Graph

SPEC = """\
op: DupNameOut
module: dupname
inputs:
  - {name: x, dtype: float32}
  - {name: dx, dtype: float32, dynamic: true}
outputs:
  - {name: x, dtype: float32, dynamic: true}
  - {name: dx, dtype: float32, dynamic: true}
"""


PROGRAM = r"""
#include "es_DupNameOut.h"
int main(int, char **argv) {
  ge::es::EsGraphBuilder builder("dup");
  auto x = builder.CreateInput(0, "x", ge::DT_FLOAT, ge::FORMAT_ND, {2});
  auto a = builder.CreateInput(1, "a", ge::DT_FLOAT, ge::FORMAT_ND, {2});
  auto b = builder.CreateInput(2, "b", ge::DT_FLOAT, ge::FORMAT_ND, {2});
  auto out = ge::es::DupNameOut(x, {a, b}, 2, 2);
  auto graph = builder.BuildAndReset({out.ref_x[0]});
  return graph != nullptr && graph->SaveToFile(argv[1]) == ge::GRAPH_SUCCESS ? 0 : 1;
}
"""


def _render(tmp_path: Path) -> Path:
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "dup.yaml").write_text(SPEC)
    _, sink = load_ops(specs)
    assert [d.code for d in sink.sorted() if d.code != "W904"] == ["W907"]
    out = tmp_path / "out"
    write_tree(render_tree(specs), out)
    return out


def test_only_same_dynamic_ness_pairs(tmp_path: Path, registries: None) -> None:
    out = _render(tmp_path)
    module = import_file(out / "python/ge/es/dupname/dup_name_out.py")
    builder = GraphBuilder("dup")
    x, a, b = (builder.create_input(i) for i in range(3))
    result = module.DupNameOut(x, [a, b], 2, 2)
    assert len(result.ref_x) == 2 and len(result.ref_dx) == 2
    node = result.ref_x[0].node
    # inputs: x at slot 0, dx at 1-2; outputs: x at 0-1, dx at 2-3
    assert node.ref_outputs == {2: 1, 3: 2}


@pytest.mark.skipif(
    shutil.which(os.environ.get("CXX", "g++")) is None, reason="no C++ compiler"
)
def test_the_es_runtime_library_pairs_the_same(tmp_path: Path) -> None:
    out = _render(tmp_path)
    (tmp_path / "prog.cpp").write_text(PROGRAM)
    program = tmp_path / "prog"
    subprocess.run(
        [
            os.environ.get("CXX", "g++"),
            str(tmp_path / "prog.cpp"),
            str(out / "es/src/es_DupNameOut.cpp"),
            f"-I{out / 'es/include'}",
            *esrt.compile_flags(),
            *esrt.link_flags(),
            "-o",
            str(program),
        ],
        check=True,
    )
    subprocess.run([str(program), str(tmp_path / "dup.air")], check=True)
    graph = Graph.load_from_air(tmp_path / "dup.air")
    (node,) = [n for n in graph.nodes if n.type == "DupNameOut"]
    assert node.ref_outputs == {2: 1, 3: 2}


def test_an_unpaired_output_may_reuse_another_input(tmp_path: Path) -> None:
    """Output x, single, named like dynamic input x, is no ref pair, so its
    reuse_input is no second claim on memory (no E617)."""
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "unpaired.yaml").write_text(
        "op: UnpairedReuse\nmodule: dupname\ninputs:\n"
        "  - {name: x, dtype: float32, dynamic: true}\n"
        "  - {name: b, dtype: float32}\n"
        "outputs:\n  - {name: x, dtype: float32, reuse_input: b}\n"
        "infer_meta:\n  x: {shape: same_as(b), dtype: b}\n"
        "impl:\n  capabilities: [execute]\n"
    )
    _, sink = load_ops(specs)
    codes = [d.code for d in sink.sorted()]
    assert "W907" in codes and not any(c.startswith("E") for c in codes), codes
