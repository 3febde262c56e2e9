"""Calls of every release of an op with a history, built with the ES
runtime library against the header ``gen-ops --registry`` writes, run, and
the graph file read back (Note [C++ overloads]; docs/es-c-cpp.md, "Calls
of earlier releases")."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ge.es import esrt
from ge.graph import Graph

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    shutil.which(os.environ.get("CXX", "g++")) is None,
    reason="no C++ compiler (g++ or $CXX) to build the ES runtime library",
)

# Release 1.0 had x alone (all optional); 1.1 added y; the spec adds w.
SPEC = """\
op: Mix
module: mix
doc: Sums what is given.
inputs:
  - {name: x, dtype: float32, optional: true}
  - {name: y, dtype: float32, optional: true}
  - {name: w, dtype: float32, optional: true}
outputs:
  - {name: z, dtype: float32}
"""


def _release(inputs: list[str]) -> dict[str, object]:
    return {
        "op_type": "Mix",
        "inputs": [{"name": n, "type": "OPTIONAL_INPUT"} for n in inputs],
        "outputs": [{"name": "z", "type": "OUTPUT"}],
        "attrs": [],
        "subgraphs": [],
    }


def _registry(root: Path) -> None:
    import json

    releases = [("1.0", "2026-01-01", ["x"]), ("1.1", "2026-02-01", ["x", "y"])]
    index = {
        "version": "1.0.0",
        "releases": [{"release_version": v, "release_date": d} for v, d, _ in releases],
    }
    root.mkdir()
    (root / "index.json").write_text(json.dumps(index))
    for version, _, inputs in releases:
        folder = root / "registry" / version
        folder.mkdir(parents=True)
        (folder / "metadata.json").write_text(json.dumps({"release_version": version}))
        (folder / "operators.json").write_text(
            json.dumps({"operators": [_release(inputs)]})
        )


PROGRAM = r"""
#include "es_Mix.h"
using namespace ge;
using namespace ge::es;
int main(int, char **argv) {
  EsGraphBuilder b("calls");
  EsTensorHolder x = b.CreateInput(0, "x", DT_FLOAT, FORMAT_ND, {2});
  EsTensorHolder y = b.CreateInput(1, "y", DT_FLOAT, FORMAT_ND, {2});
  EsTensorHolder w = b.CreateInput(2, "w", DT_FLOAT, FORMAT_ND, {2});
  EsTensorHolder r10 = Mix(x);            // release 1.0
  EsTensorHolder r10b = Mix(nullptr, &b);  // release 1.0, owner given
  EsTensorHolder r11 = Mix(x, y);          // release 1.1
  EsTensorHolder now = Mix(x, y, w);       // the spec
  auto graph = b.BuildAndReset({r10, r10b, r11, now});
  return graph != nullptr && graph->SaveToFile(argv[1]) == GRAPH_SUCCESS ? 0 : 1;
}
"""


def test_each_releases_calls_build_the_node_they_built(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "mix.yaml").write_text(SPEC)
    _registry(tmp_path / "reg")
    out = tmp_path / "out"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "gen_ops",
            "--specs",
            str(tmp_path / "specs"),
            "--registry",
            str(tmp_path / "reg"),
            "--out",
            str(out),
            "--no-scaffold",
            "--only",
            "es",
            "-q",
        ],
        check=True,
        cwd=tmp_path,
    )
    header = (out / "es/include/es_Mix.h").read_text()
    assert header.count("= delete;") == 2
    (tmp_path / "prog.cpp").write_text(PROGRAM)
    program = tmp_path / "prog"
    subprocess.run(
        [
            os.environ.get("CXX", "g++"),
            "-Wall",
            "-Werror",
            str(tmp_path / "prog.cpp"),
            str(out / "es/src/es_Mix.cpp"),
            f"-I{out / 'es/include'}",
            *esrt.compile_flags(),
            *esrt.link_flags(),
            "-o",
            str(program),
        ],
        check=True,
    )
    path = tmp_path / "calls.air"
    subprocess.run([str(program), str(path)], check=True)
    graph = Graph.load_from_air(path)
    mixes = [n for n in graph.nodes if n.type == "Mix"]
    connected = [[None if e is None else e.node.name for e in n.inputs] for n in mixes]
    assert connected == [
        ["x", None, None],
        [None, None, None],
        ["x", "y", None],
        ["x", "y", "w"],
    ]
