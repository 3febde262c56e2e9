"""Lower-case op types, as GE's REG_OP takes them (``phony_1i_1o`` in GE's
own generator tests): accepted, imported, rendered and run; the names that
would break generated code still refused (E304)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, import_file, load_ops, spec_yaml, write_tree

from gen_ops import pipeline
from gen_ops.emit.outputs import Target


def _spec(tmp_path: Path, op: str, **extra: object) -> Path:
    data = {
        "op": op,
        "module": "lower",
        "inputs": [{"name": "x", "dtype": "float32"}],
        "outputs": [{"name": "y", "dtype": "float32"}],
        **extra,
    }
    path = tmp_path / "specs" / f"{op.lower()}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(spec_yaml(data), encoding="utf-8")
    return path.parent


def test_lower_case_op_type_renders_and_builds(tmp_path: Path) -> None:
    ops, sink = load_ops(_spec(tmp_path, "phony_1i_1o"))
    assert not sink.items, [d.format() for d in sink.items]
    (op,) = ops
    assert op.file_stem == "phony_1i_1o"
    files = {f.path: f.content for f in pipeline.render(ops, frozenset(Target))}
    assert "def phony_1i_1o(" in files["python/ge/es/lower/phony_1i_1o.py"]
    assert "REG_OP(phony_1i_1o)" in files["include/lower/phony_1i_1o.h"]
    out = tmp_path / "out"
    write_tree(files, out)
    module = import_file(out / "python/ge/es/lower/phony_1i_1o.py")
    from ge.es import GraphBuilder

    builder = GraphBuilder("g")
    y = module.phony_1i_1o(builder.create_input(0, shape=[2]))
    assert y.node.type == "phony_1i_1o"


@pytest.mark.parametrize(
    "op, words",
    [
        ("if", "Python keyword"),  # the builder function cannot be defined
        ("for", "Python keyword"),
        ("namespace", "C++ keyword"),  # REG_OP(namespace) cannot be declared
        ("bitand", "C++ keyword"),
        ("_api", "builder module imports"),  # hides ge.es._op_api
        ("register_op_impl", "author module imports"),
    ],
)
def test_names_that_break_generated_code_are_refused(
    tmp_path: Path, op: str, words: str
) -> None:
    extra = {"impl": {"capabilities": ["execute"]}} if op.startswith("register") else {}
    _, sink = load_ops(_spec(tmp_path, op, **extra))
    errors = [d for d in sink.items if d.code == "E304"]
    assert errors and words in errors[0].message, [d.format() for d in sink.items]


def test_ge_stub_ops_import(tmp_path: Path) -> None:
    """``gen-ops import`` takes lower-case REG_OPs (as GE's stub_geir_ops.cc
    writes them) and the specs it writes validate."""
    header = tmp_path / "stub.h"
    header.write_text(
        "REG_OP(phony_1i_1o)\n"
        "    .INPUT(x, TensorType::ALL())\n"
        "    .OUTPUT(y, TensorType::ALL())\n"
        "    .ATTR(index, Int, 0)\n"
        "    .OP_END_FACTORY_REG(phony_1i_1o);\n",
        encoding="utf-8",
    )
    specs = tmp_path / "specs"
    done = subprocess.run(
        [sys.executable, "-m", "gen_ops", "import", str(header), "--out", str(specs)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    ops, sink = load_ops(specs)
    assert [op.op_type for op in ops] == ["phony_1i_1o"]
    assert not sink.has_errors
