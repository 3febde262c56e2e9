"""The C and C++ ES API of every form gen_esb knows, compiled against the
declarations of GE's ES base API kept in tests/cpp/ge_es (written to match
GE's headers, each naming its source path and commit; docs/es-c-cpp.md):
no inputs, optional inputs, all inputs optional, dynamic inputs and
outputs, several outputs, subgraphs, every attr type (required and
optional), keyword and taken-name renames and a ref pair. Every generated
file is compiled in a translation unit of its own (so each includes what it
needs), and a caller calls every C++ function as users do. The whole public
corpus is compiled against GE's real headers by bench/es_corpus_compile.py."""

from __future__ import annotations

import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from helpers import ROOT, load_ops, spec_yaml

from gen_ops import pipeline
from gen_ops.emit.outputs import Target

GXX = shutil.which("g++")
pytestmark = pytest.mark.skipif(GXX is None, reason="g++ is not on PATH")
GE_DECLARATIONS = (ROOT / "tests/cpp/ge_es", ROOT / "tests/cpp/ge_external")

X = {"name": "x", "dtype": "float32"}
Y = {"name": "y", "dtype": "float32"}
OPTIONAL = {"optional": True}
DYNAMIC = {"dynamic": True}
OPTIONAL_ATTRS = [
    {"name": "i", "type": "int", "default": -3},  # taken: attr_i
    {"name": "f", "type": "float", "default": 0.5},
    {"name": "tiny", "type": "float", "default": 1e-08},
    {"name": "b", "type": "bool", "default": True},
    {"name": "s", "type": "str", "default": 'say "hi"\n'},
    {"name": "dt", "type": "dtype", "default": "int64"},
    {"name": "t", "type": "tensor", "default": None},
    {"name": "li", "type": "list_int", "default": [1, -2]},
    {"name": "lf", "type": "list_float", "default": [0.25, 1e-08]},
    {"name": "lb", "type": "list_bool", "default": [True, False]},
    {"name": "ls", "type": "list_str", "default": ["a", ""]},
    {"name": "ldt", "type": "list_dtype", "default": ["float32", "int8"]},
    {"name": "lli", "type": "list_list_int", "default": [[], [2, 3]]},
]
REQUIRED_ATTRS = [
    {"name": "r" + a["name"], "type": a["type"]}
    for a in OPTIONAL_ATTRS
    if a["name"] != "tiny"
]
FORMS = [
    {"op": "FormNoInputs", "outputs": [Y], "attrs": [{"name": "n", "type": "int"}]},
    {"op": "FormOneInput", "inputs": [X], "outputs": [Y]},
    {
        "op": "FormOptional",
        "inputs": [
            X,
            {**X, "name": "bias", **OPTIONAL},
            {**X, "name": "scale", **OPTIONAL},
        ],
        "outputs": [Y],
    },
    {
        "op": "FormAllOptional",
        "inputs": [{**X, **OPTIONAL}, {**X, "name": "x2", **OPTIONAL}],
        "outputs": [Y],
    },
    {
        "op": "FormDynamic",
        "inputs": [X, {**X, "name": "xs", **DYNAMIC}],
        "outputs": [{**Y, **DYNAMIC}],
    },
    {
        "op": "FormDynamicOutputs",
        "inputs": [X],
        "outputs": [Y, {**Y, "name": "ys", **DYNAMIC}],
    },
    {
        "op": "FormSeveralOutputs",
        "inputs": [X],
        "outputs": [Y, {**Y, "name": "y2"}, {**Y, "name": "y3"}],
    },
    {
        "op": "FormSubgraphs",
        "inputs": [{**X, **DYNAMIC}],
        "outputs": [{**Y, **DYNAMIC}],
        "graphs": [{"name": "body"}, {"name": "branches", **DYNAMIC}],
    },
    {
        "op": "FormAttrs",
        "inputs": [X],
        "outputs": [Y],
        "attrs": REQUIRED_ATTRS + OPTIONAL_ATTRS,
    },
    {
        "op": "FormKeywords",
        "inputs": [{**X, "name": "for"}, {**X, "name": "node"}],
        "outputs": [{**Y, "name": "break"}],
        "attrs": [
            {"name": "not", "type": "int", "default": 0},
            {"name": "builder", "type": "bool", "default": False},
        ],
        "graphs": [{"name": "switch"}],
    },
    {
        "op": "FormRefPair",
        "inputs": [X, {**X, "name": "n"}],
        "outputs": [X],
        "attrs": [{"name": "n", "type": "int", "default": 0}],
    },
]

# Every C++ function called as a user calls it: defaults left out, numbers
# and nullptr for tensor-like inputs, graphs and tensors moved in.
CALLER = """
#include "es_forms_ops.h"
#include <memory>
#include <utility>
#include <vector>
namespace es = ge::es;
void Calls(es::EsGraphBuilder &builder, es::EsTensorHolder x) {
  es::EsTensorHolder a = es::FormNoInputs(builder, 3);
  a = es::FormOneInput(x);
  a = es::FormOptional(x);
  a = es::FormOptional(x, x, 2.0f);
  a = es::FormOptional(1.5f, nullptr, x);
  a = es::FormAllOptional(x);
  a = es::FormAllOptional(nullptr, nullptr, &builder);
  std::vector<es::EsTensorHolder> ys = es::FormDynamic(x, {x, x}, 2);
  es::FormDynamicOutputsOutput d = es::FormDynamicOutputs(x, 3);
  ys = d.ys;
  a = d.y;
  a = es::FormSeveralOutputs(x).y3;
  std::vector<std::unique_ptr<ge::Graph>> branches;
  branches.push_back(builder.BuildAndReset());
  ys = es::FormSubgraphs({x}, 1, builder.BuildAndReset(), std::move(branches));
  a = es::FormAttrs(x, 1, 0.5f, true, "s", ge::DT_FLOAT, std::unique_ptr<ge::Tensor>(new ge::Tensor()),
                    {1}, {0.5f}, {1, 0}, {"a"}, {ge::DT_INT8}, {{1}, {}});
  a = es::FormAttrs(x, 1, 0.5f, true, "s", ge::DT_FLOAT, nullptr, {}, {}, {}, {}, {}, {}, 7, 1.0f);
  a = es::FormKeywords(x, int64_t{1}, builder.BuildAndReset(), 1, true);
  a = es::FormRefPair(x, x, 2);
}
"""


@pytest.fixture(scope="module")
def es_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("es_forms")
    for form in FORMS:
        text = spec_yaml({"module": "forms", **form})
        (root / "specs").mkdir(exist_ok=True)
        (root / "specs" / f"{form['op']}.yaml").write_text(text, encoding="utf-8")
    ops, sink = load_ops(root / "specs")
    assert not sink.has_errors, [d.format() for d in sink.items]
    for file in pipeline.render(ops, frozenset({Target.ES})):
        path = root / file.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(file.content, encoding="utf-8")
    return root / "es"


def _compile(unit: Path, include: Path) -> subprocess.CompletedProcess[str]:
    assert GXX is not None
    flags = [f"-I{d}" for d in (*GE_DECLARATIONS, include)]
    return subprocess.run(
        [GXX, "-std=c++17", "-fsyntax-only", "-Wall", "-Werror", *flags]
        + ["-x", "c++", str(unit)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_every_form_is_rendered(es_tree: Path) -> None:
    for form in FORMS:
        for name in (f"src/es_{form['op']}.cpp", f"include/es_{form['op']}.h"):
            assert (es_tree / name).is_file(), name
        assert (es_tree / f"include/es_{form['op']}_c.h").is_file()


def test_each_file_compiles_alone(es_tree: Path) -> None:
    """Every source, C header, C++ header and aggregate, each as its own
    translation unit."""
    units = sorted(es_tree.glob("src/*.cpp")) + sorted(es_tree.glob("include/*.h"))
    assert len(units) == 3 * len(FORMS) + 5  # 4 aggregates and es_log.h
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(lambda u: (u, _compile(u, es_tree / "include")), units))
    failed = [(u.name, d.stderr[:1500]) for u, d in done if d.returncode]
    assert not failed, failed


def test_the_cpp_functions_take_what_users_pass(es_tree: Path, tmp_path: Path) -> None:
    caller = tmp_path / "caller.cpp"
    caller.write_text(CALLER, encoding="utf-8")
    done = _compile(caller, es_tree / "include")
    assert done.returncode == 0, done.stderr[:3000]


def test_an_int_literal_is_no_tensor_like(es_tree: Path, tmp_path: Path) -> None:
    """As with GE's headers: EsTensorLike takes int64_t and float, so a
    plain `1` for a tensor-like input is ambiguous (write int64_t{1})."""
    caller = tmp_path / "ambiguous.cpp"
    caller.write_text(
        CALLER.replace("es::FormKeywords(x, int64_t{1},", "es::FormKeywords(x, 1,"),
        encoding="utf-8",
    )
    done = _compile(caller, es_tree / "include")
    assert done.returncode != 0
    assert "EsTensorLike" in done.stderr and "ambiguous" in done.stderr
