"""The ES runtime library (runtime/ge/es/native): GE's ES base API in C++
writing graph files the Python runtime loads (docs/es-c-cpp.md)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ge.es import esrt
from ge.graph import DataType, Graph
from ge.graph.attrs import AttrType

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "generated" / "es"
# A bare git dir of hicann/ge, when the environment names one (CI has none).
GE_MIRROR = Path(os.environ.get("GE_MIRROR") or "/nonexistent")

pytestmark = pytest.mark.skipif(
    shutil.which(os.environ.get("CXX", "g++")) is None,
    reason="no C++ compiler (g++ or $CXX) to build the ES runtime library",
)


def _build(tmp_path: Path, source: str, extra: list[str] | None = None) -> Path:
    program = tmp_path / "prog"
    (tmp_path / "prog.cpp").write_text(source)
    subprocess.run(
        [
            os.environ.get("CXX", "g++"),
            "-Wall",
            "-Werror",
            str(tmp_path / "prog.cpp"),
            *(extra or []),
            *esrt.compile_flags(),
            *esrt.link_flags(),
            "-o",
            str(program),
        ],
        check=True,
    )
    return program


def test_flags_command_builds_the_library() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ge.es", "--includes", "--libs", "--library-dir"],
        capture_output=True,
        text=True,
        check=True,
    )
    words = result.stdout.split()
    assert "-std=c++17" in words and "-lge_es" in words
    assert any(w.endswith("eager_style_graph_builder/cpp") for w in words)
    assert (Path(words[-1]) / "libge_es.so").is_file()


def test_every_generated_source_compiles_against_the_shipped_headers() -> None:
    sources = sorted((GENERATED / "src").glob("*.cpp"))
    assert sources
    subprocess.run(
        [
            os.environ.get("CXX", "g++"),
            "-fsyntax-only",
            "-Wall",
            "-Werror",
            *map(str, sources),
            f"-I{GENERATED / 'include'}",
            *esrt.compile_flags(),
        ],
        check=True,
    )


def _names(text: str) -> set[str]:
    return set(re.findall(r"\b(Es[A-Za-z0-9]+)\s*\(", text))


@pytest.mark.skipif(
    not GE_MIRROR.is_dir(),
    reason="no mirror of GE to compare with (set GE_MIRROR to a bare git dir of hicann/ge)",
)
def test_c_api_declares_every_function_of_ges() -> None:
    path = "inc/external/ge/eager_style_graph_builder/c/esb_funcs.h"
    ge_text = subprocess.run(
        ["git", f"--git-dir={GE_MIRROR}", "show", f"HEAD:{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    ours = (esrt.INCLUDE_DIR / "eager_style_graph_builder/c/esb_funcs.h").read_text()
    assert _names(ge_text) and _names(ours) == _names(ge_text)


ATTRS_PROGRAM = r"""
#include <cstdio>
#include <string>
#include <vector>
#include "es_graph_builder.h"
#include "es_tensor_like.h"
using namespace ge;
using namespace ge::es;
int main(int, char **argv) {
  EsGraphBuilder b("attrs");
  EsTensorHolder x = b.CreateInput(0, "x", DT_FLOAT, FORMAT_ND, {2, -1});
  EsTensorHolder c = b.CreateConst(std::vector<int32_t>{1, 2, 3, 4, 5, 6}, {2, 3});
  EsTensorHolder s = b.CreateScalar(2.5F);
  EsTensorHolder sum = x + s;
  GNode *node = sum.GetProducer();
  std::vector<std::pair<const char *, AttrValue>> attrs = {
      {"i", CreateFrom(static_cast<int64_t>(-9223372036854775807LL - 1))},
      {"f", CreateFrom(1e-8F)},
      {"neg0", CreateFrom(-0.0F)},
      {"b", CreateFrom(true)},
      {"s", CreateFrom(AscendString("tab\there \"q\" \\ \xc3\xbc"))},
      {"dt", CreateFrom(DT_BF16)},
      {"li", CreateFrom(std::vector<int64_t>{1, -2, 3})},
      {"lf", CreateFrom(std::vector<float>{0.5F, -1.0F})},
      {"lb", CreateFrom(std::vector<bool>{false, true})},
      {"ls", CreateFrom(std::vector<AscendString>{"a", "b c", ""})},
      {"ldt", CreateFrom(std::vector<DataType>{DT_FLOAT, DT_INT64})},
      {"lli", CreateFrom(std::vector<std::vector<int64_t>>{{}, {2, 3}, {4}})},
      {"skipped", CreateFromIfNotEqual(static_cast<int64_t>(7), static_cast<int64_t>(7))},
  };
  for (auto &each : attrs) {
    // An empty AttrValue (an attr at its default) is not set on a node.
    const bool empty = std::string(each.first) == "skipped";
    if ((node->SetAttr(each.first, each.second) == GRAPH_SUCCESS) == empty) return 2;
  }
  if (sum.SetAttr("tensor_note", "t") != SUCCESS || b.SetAttr("graph_flag", true) != SUCCESS) return 3;
  if (c.AddControlEdge({sum}) != SUCCESS) return 4;
  EsTensorHolder bad;
  if (EsGraphBuilder::SetOutput(bad, 0) == 0) return 5;
  auto graph = b.BuildAndReset({sum, c});
  return graph != nullptr && graph->SaveToFile(argv[1]) == GRAPH_SUCCESS ? 0 : 1;
}
"""


def test_nodes_attrs_and_edges_survive_the_graph_file(tmp_path: Path) -> None:
    program = _build(tmp_path, ATTRS_PROGRAM)
    path = tmp_path / "attrs.air"
    subprocess.run([str(program), str(path)], check=True)
    graph = Graph.load_from_air(path)
    nodes = {n.name: n for n in graph.nodes}
    assert list(nodes) == ["x", "Const_0", "Const_1", "Add_0"]
    x, const, scalar, add = nodes.values()
    assert x.outputs[0].shape == (2, -1) and x.get_attr("index") == 0
    value = const.attrs["value"][1]
    assert value.data_type is DataType.DT_INT32
    assert np.array_equal(value.numpy(), np.arange(1, 7, dtype=np.int32).reshape(2, 3))
    assert scalar.attrs["value"][1].numpy() == np.float32(2.5)
    assert [(e.node.name, e.index) for e in add.inputs] == [("x", 0), ("Const_1", 0)]
    attrs = {k: v for k, (_, v) in add.attrs.items()}
    assert attrs["i"] == -(2**63) and attrs["b"] is True
    assert attrs["f"] == float(np.float32(1e-8))
    assert str(attrs["neg0"]) == "-0.0"
    assert attrs["s"] == 'tab\there "q" \\ ü'
    assert attrs["dt"] is DataType.DT_BF16
    assert attrs["li"] == (1, -2, 3) and attrs["lf"] == (0.5, -1.0)
    assert attrs["lb"] == (False, True) and attrs["ls"] == ("a", "b c", "")
    assert attrs["ldt"] == (DataType.DT_FLOAT, DataType.DT_INT64)
    assert attrs["lli"] == ((), (2, 3), (4,))
    assert "skipped" not in attrs
    assert add.attrs["0:tensor_note"] == (AttrType.STR, "t")
    assert graph.attrs["graph_flag"] == (AttrType.BOOL, True)
    assert [n.name for n in const.control_inputs] == ["Add_0"]
    assert [(n.name, i) for n, i in graph.outputs] == [("Add_0", 0), ("Const_0", 0)]


def test_example_builds_runs_and_matches_python() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "es_cpp" / "run.py")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "main.air run in a Session against numpy: PASS" in result.stdout
    # The C++-built subgraph op runs, matching numpy and the Python-built graph.
    for cond in (1, 0):
        line = next(
            t for t in result.stdout.splitlines() if f"if.air cond={cond}:" in t
        )
        assert line.endswith("PASS"), result.stdout
    assert result.stdout.count("same nodes, edges, attrs and outputs: PASS") == 2


def test_structural_comparison_sees_a_changed_attr() -> None:
    sys.path.insert(0, str(ROOT / "examples" / "es_cpp"))
    try:
        import run as example  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    a, b = example.python_if(), example.python_if()
    assert example.differences(example.structure(a), example.structure(b)) == []
    then = b.nodes[2].subgraphs["then_branch"][0]
    then.nodes[1].attrs["alpha"] = (AttrType.FLOAT, 3.0)
    diff = example.differences(example.structure(a), example.structure(b))
    assert diff and "alpha" in diff[0]
