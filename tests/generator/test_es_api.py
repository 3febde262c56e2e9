"""The C and C++ ES API (target es, docs/es-c-cpp.md): each form gen_esb
gives a declaration, and every generated file syntax-checked by g++ against
the declarations of GE's ES base API (tests/cpp/ge_es, then
tests/cpp/ge_external). Parity with gen_esb's own expected outputs is
bench/esb_parity.py's (it needs a GE mirror)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from helpers import ROOT, load_ops, spec_yaml

from gen_ops import pipeline
from gen_ops.emit.outputs import Target
from gen_ops.lowering import lower_es

GXX = shutil.which("g++")
needs_gxx = pytest.mark.skipif(GXX is None, reason="g++ is not on PATH")
TREES = {"generated": ROOT / "generated", "golden": ROOT / "tests/golden/expected"}


def _render(tmp_path: Path, **spec: object) -> dict[str, str]:
    data = {"op": "Probe", "module": "probe", **spec}
    path = tmp_path / "specs" / "probe.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(spec_yaml(data), encoding="utf-8")
    ops, sink = load_ops(path.parent)
    assert not sink.has_errors, [d.format() for d in sink.items]
    files = pipeline.render(ops, frozenset({Target.ES}))
    return {Path(f.path).name: f.content for f in files}


def _flat(text: str) -> str:
    return "".join(text.split())


X = {"name": "x", "dtype": "float32"}
Y = {"name": "y", "dtype": "float32"}


def test_one_required_input_is_a_holder(tmp_path: Path) -> None:
    files = _render(tmp_path, inputs=[X], outputs=[Y])
    assert "EsCTensorHolder *EsProbe(EsCTensorHolder *x);" in files["es_Probe_c.h"]
    assert "inline EsTensorHolder Probe(const EsTensorHolder &x)" in files["es_Probe.h"]
    assert 'extern "C"' in files["es_Probe.cpp"]


def test_several_inputs_are_tensor_like(tmp_path: Path) -> None:
    files = _render(tmp_path, inputs=[X, {**X, "name": "x2"}], outputs=[Y])
    header = files["es_Probe.h"]
    assert "Probe(const EsTensorLike &x, const EsTensorLike &x2)" in header
    assert "ResolveBuilder(x, x2)" in header


def test_no_inputs_take_the_owner_builder_first(tmp_path: Path) -> None:
    files = _render(
        tmp_path, outputs=[Y], attrs=[{"name": "n", "type": "int", "default": 1}]
    )
    assert (
        "EsProbe(EsCGraphBuilder *owner_graph_builder, int64_t n)"
        in files["es_Probe_c.h"]
    )
    assert (
        "Probe(const EsGraphBuilder &owner_builder, int64_t n=1)" in files["es_Probe.h"]
    )


def test_all_optional_inputs_take_the_owner_builder_last(tmp_path: Path) -> None:
    opt = {**X, "optional": True}
    files = _render(tmp_path, inputs=[opt, {**opt, "name": "x2"}], outputs=[Y])
    assert (
        "EsCTensorHolder *x2, EsCGraphBuilder *owner_graph_builder)"
        in files["es_Probe_c.h"]
    )
    assert (
        "const EsTensorLike &x=nullptr, const EsTensorLike &x2=nullptr, "
        "const EsGraphBuilder *owner_builder=nullptr)"
    ) in files["es_Probe.h"]


def test_dynamic_inputs_and_outputs_are_vectors(tmp_path: Path) -> None:
    files = _render(
        tmp_path,
        inputs=[X, {**X, "name": "xs", "dynamic": True}],
        outputs=[{**Y, "dynamic": True}],
    )
    c = files["es_Probe_c.h"]
    assert "EsCTensorHolder **xs, int64_t xs_num, int64_t y_num);" in c
    assert "} EsProbeOutput;" in c
    cpp = files["es_Probe.h"]
    assert "inline std::vector<EsTensorHolder> Probe(" in cpp
    assert "const std::vector<EsTensorHolder> &xs, int64_t y_num)" in cpp
    body = _flat(files["es_Probe.cpp"])
    assert "AddEdgeAndUpdatePeerDesc(*ge_graph,one_xs->GetProducer()" in body
    assert "node,1+i)" in body


def test_several_outputs_make_output_structs(tmp_path: Path) -> None:
    files = _render(tmp_path, inputs=[X], outputs=[Y, {**Y, "name": "y2"}])
    assert _flat("typedef struct { EsCTensorHolder *y; EsCTensorHolder *y2; }") in (
        _flat(files["es_Probe_c.h"])
    )
    assert _flat("struct ProbeOutput { EsTensorHolder y; EsTensorHolder y2; };") in (
        _flat(files["es_Probe.h"])
    )


def test_subgraphs_move_as_unique_ptrs(tmp_path: Path) -> None:
    files = _render(
        tmp_path,
        inputs=[{**X, "dynamic": True}],
        outputs=[{**Y, "dynamic": True}],
        graphs=[{"name": "body"}, {"name": "branches", "dynamic": True}],
    )
    assert (
        "EsCGraph *body, EsCGraph **branches, int64_t branches_num"
        in files["es_Probe_c.h"]
    )
    cpp = files["es_Probe.h"]
    assert "std::unique_ptr<ge::Graph> body, " in cpp
    assert "std::vector<std::unique_ptr<ge::Graph>> branches)" in cpp
    assert "body.release()" in cpp
    assert 'node.SetSubgraph("body", *body_ptr);' in files["es_Probe.cpp"]


def test_optional_attrs_are_set_only_when_not_the_default(tmp_path: Path) -> None:
    files = _render(
        tmp_path,
        inputs=[X],
        outputs=[Y],
        attrs=[
            {"name": "f", "type": "float", "default": 0.5},
            {"name": "tiny", "type": "float", "default": 1e-08},
            {"name": "flag", "type": "bool"},
        ],
    )
    body = files["es_Probe.cpp"]
    assert "ge::es::CreateFromIfNotEqual(f, static_cast<float>(0.500000))" in body
    # %f would print 1e-08 as 0.000000: such a default is written exactly
    (tiny,) = re.findall(
        r"CreateFromIfNotEqual\(tiny, static_cast<float>\((.*?)\)\)", body
    )
    assert float(tiny) == 1e-08
    assert "ge::es::CreateFrom(static_cast<bool>(flag))" in body
    # required attrs first, then the optional ones with C++ defaults
    assert f"bool flag, float f=0.500000, float tiny={tiny})" in files["es_Probe.h"]


def test_keyword_names_take_gen_esb_prefixes(tmp_path: Path) -> None:
    files = _render(
        tmp_path,
        inputs=[{**X, "name": "for"}],
        outputs=[{**Y, "name": "break"}],
        attrs=[{"name": "not", "type": "int", "default": 0}],
        graphs=[{"name": "switch"}],
    )
    assert (
        "EsProbe(EsCTensorHolder *in_for, EsCGraph *subgraph_switch, int64_t attr_not)"
    ) in files["es_Probe_c.h"]
    assert "int64_t attr_not=0" in files["es_Probe.h"]
    # the node takes IR names
    assert 'node.SetSubgraph("switch", *subgraph_switch_ptr);' in files["es_Probe.cpp"]


def test_unsupported_ops_are_listed_in_the_aggregates(tmp_path: Path) -> None:
    files = _render(
        tmp_path,
        inputs=[X],
        outputs=[Y],
        attrs=[{"name": "na", "type": "named_attrs", "default": {}}],
    )
    assert "es_Probe.h" not in files
    assert "Unsupported attr type: NamedAttrs(1): [Probe]" in files["es_probe_ops.h"]
    assert "[Probe]" in files["es_all_ops_c.h"]


def test_guard_prefix(tmp_path: Path) -> None:
    with lower_es.guard_prefix("_INTERNAL"):
        files = _render(tmp_path, inputs=[X], outputs=[Y])
    assert (
        "#ifndef AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_INTERNAL_OP_Probe_H_"
        in (files["es_Probe_c.h"])
    )
    assert "GRAPH_BUILDER_INTERNAL_probe_OPS_CPP_H" in files["es_probe_ops.h"]
    with pytest.raises(ValueError):
        with lower_es.guard_prefix("no-dash"):
            pass


def _units(tree: Path) -> list[Path]:
    es = tree / "es"
    return sorted(es.glob("src/*.cpp")) + sorted(es.glob("include/es_*_ops*.h"))


@needs_gxx
@pytest.mark.parametrize("tree", sorted(TREES))
def test_generated_es_files_compile(tree: str) -> None:
    """Every source, and every aggregate (which includes every header), as a
    C++17 translation unit against GE's ES declarations."""
    root = TREES[tree]
    units = _units(root)
    assert units

    def check(unit: Path) -> tuple[Path, subprocess.CompletedProcess[str]]:
        assert GXX is not None
        done = subprocess.run(
            [
                GXX,
                "-std=c++17",
                "-fsyntax-only",
                "-Wall",
                "-Werror",
                "-I",
                "tests/cpp/ge_es",
                "-I",
                "tests/cpp/ge_external",
                "-I",
                os.path.relpath(root / "es/include", ROOT),
                "-x",
                "c++",
                str(unit),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        return unit, done

    with ThreadPoolExecutor(max_workers=2) as pool:
        failed = [
            (u, d.stderr[:2000]) for u, d in pool.map(check, units) if d.returncode
        ]
    assert not failed, failed
