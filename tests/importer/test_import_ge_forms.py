"""GE's forms survive a round trip: the golden specs that use them
(tests/golden/specs: Promote, ListTensorType, named-set unions, names with a
leading _, an input called name, DT_UNDEFINED, Shape, While) rendered to
REG_OP by gen-ops and imported back give the same spec data, without a
diagnostic (a type variable's union comes back as its members, the one
spelling DATATYPE cannot keep)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen_ops import pipeline
from gen_ops.base.diagnostics import Sink
from gen_ops.emit.outputs import Target
from gen_ops.importer import driver
from gen_ops.spec.model import DtypeConstraint, OpSpec

ROOT = Path(__file__).resolve().parents[2]
SPECS = ["promote", "list_types", "ge_names", "shape", "while"]


def load(path: Path) -> OpSpec:
    sink = Sink()
    ops = pipeline.load_and_check(pipeline.discover([path], sink), sink)
    assert not sink.has_errors, [d.format() for d in sink.items]
    (op,) = ops
    return op


def data(op: OpSpec, unions: frozenset[str]) -> dict[str, object]:
    """What REG_OP carries of a model (docs and infer_meta it does not);
    of the type variables in ``unions``, their members only."""

    def dtype(c: DtypeConstraint) -> tuple[object, ...]:
        # A named set alone by its name, a list (a union too) by its members.
        written = c.written and (c.written.set_name or frozenset(c.written.dtypes))
        return (c.kind, frozenset(c.dtypes), written, c.name)

    return {
        "op": op.op_type,
        "type_vars": [
            (v.name, v.kind, None if v.name in unions else v.written, v.promote)
            + (v.dtypes,)
            for v in op.type_vars
        ],
        "inputs": [(i.name, i.kind, dtype(i.dtype)) for i in op.inputs],
        "outputs": [(o.name, o.dynamic, dtype(o.dtype)) for o in op.outputs],
        "attrs": [
            (a.name, a.type, None if a.default is None else a.default.value)
            for a in op.attrs
        ],
        "graphs": [(g.name, g.dynamic) for g in op.graphs],
    }


def unions_of(op: OpSpec) -> frozenset[str]:
    """Type variables bound to a union: GE's TensorType has no union of a
    set and dtypes, so REG_OP writes a union's members and it comes back as
    them (spec-reference.md, "How each form of dtype is printed"); an
    element's union likewise (``data`` compares its members only)."""
    return frozenset(
        v.name for v in op.type_vars if v.written.sets and len(v.written.items) > 1
    )


@pytest.mark.parametrize("name", SPECS)
def test_render_then_import_keeps_the_form(name: str, tmp_path: Path) -> None:
    original = load(ROOT / f"tests/golden/specs/{name}.yaml")
    rendered = pipeline.render([original], frozenset({Target.CPP}))
    path = f"include/{original.module}/{original.file_stem}.h"
    header = tmp_path / "ops.h"
    header.write_text(next(f.content for f in rendered if f.path == path))
    result = driver.plan(
        driver.Options(paths=(header,), out=tmp_path / "specs", module=original.module)
    )
    assert not result.diagnostics, [d.format() for d in result.diagnostics]
    (spec,) = result.files
    written = tmp_path / "specs" / spec.path
    written.parent.mkdir(parents=True)
    written.write_text(spec.text, encoding="utf-8")
    imported = load(written)
    unions = unions_of(original)
    assert data(imported, unions) == data(original, unions)
    assert imported.file_stem == original.file_stem
