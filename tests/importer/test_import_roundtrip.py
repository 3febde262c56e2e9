"""Random valid specs, rendered to REG_OP by gen-ops' own C++ renderer
(``pipeline.render``, the cpp target), imported back: the same spec data.

What REG_OP carries is compared as gen-ops' model holds it (names, kinds,
resolved dtype sets and named sets, type variables, attr types and default
values); spelling is not (floats as the spec spelled them). Docs are not
compared: gen-ops writes them as ``///`` comments, the importer reads
``/** */`` blocks. Attrs REG_OP cannot declare (named_attrs,
list_named_attrs: Note [NamedAttrs in REG_OP] in gen_ops/lowering/reg_op.py) are not
in the header, so they do not come back. The rendered header must import
without a single diagnostic."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from helpers import spec_yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from ge_ir.types import NAMED_TENSOR_TYPES, dtype_spec_names
from gen_ops import pipeline
from gen_ops.base.diagnostics import Sink
from gen_ops.emit.outputs import Target
from gen_ops.importer import driver
from gen_ops.lowering.reg_op import declares
from gen_ops.spec.model import OpSpec

DTYPES = list(dtype_spec_names())
SETS = sorted(NAMED_TENSOR_TYPES)
ATTR_TYPES = [
    "int",
    "float",
    "bool",
    "str",
    "dtype",
    "tensor",
    "named_attrs",
    "bytes",
    "list_int",
    "list_float",
    "list_bool",
    "list_str",
    "list_dtype",
    "list_list_int",
    "list_tensor",
    "list_named_attrs",
]

ints = st.integers(-(1 << 63), (1 << 63) - 1)
floats = st.floats(width=32, allow_nan=True, allow_infinity=True)
texts = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=12,
)
SCALARS: dict[str, st.SearchStrategy[Any]] = {
    "int": ints,
    "float": floats,
    "bool": st.booleans(),
    "str": texts,
    "dtype": st.sampled_from(DTYPES),
    "tensor": st.none(),
    "named_attrs": st.none(),
    "bytes": st.binary(max_size=8),
}


def default_of(kind: str) -> st.SearchStrategy[Any]:
    if kind in SCALARS:
        return SCALARS[kind]
    if kind in ("list_tensor", "list_named_attrs"):
        return st.just([])
    if kind == "list_list_int":
        return st.lists(st.lists(ints, max_size=3), max_size=3)
    return st.lists(SCALARS[kind.removeprefix("list_")], max_size=4)


@st.composite
def specs(draw: st.DrawFn) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "op": "Op" + draw(st.from_regex(r"[A-Z][a-z0-9]{0,6}", fullmatch=True))
    }
    spec["module"] = draw(st.sampled_from(["custom", "vision", "math_ops"]))
    type_vars = {}
    for i in range(draw(st.integers(0, 2))):
        type_vars[f"T{i}"] = draw(
            st.one_of(
                st.sampled_from(SETS),
                st.lists(st.sampled_from(DTYPES), min_size=1, max_size=4, unique=True),
            )
        )
    if type_vars:
        spec["dtypes"] = type_vars
    dtype = st.one_of(
        st.sampled_from(list(type_vars) or SETS),
        st.sampled_from(SETS),
        st.sampled_from(DTYPES),
        st.lists(st.sampled_from(DTYPES), min_size=1, max_size=3, unique=True),
    )
    inputs = []
    for i in range(draw(st.integers(0, 4))):
        item: dict[str, Any] = {"name": f"x{i}", "dtype": draw(dtype)}
        kind = draw(st.sampled_from(["required", "optional", "dynamic"]))
        if kind != "required":
            item[kind] = True
        inputs.append(item)
    if inputs:
        spec["inputs"] = inputs
    outputs = []
    for i in range(draw(st.integers(0, 3))):
        item = {"name": f"y{i}", "dtype": draw(dtype)}
        if draw(st.booleans()):
            item["dynamic"] = True
        outputs.append(item)
    refs = [i for i in inputs if not i.get("optional")]
    if refs and draw(st.booleans()):  # a ref pair: an output named like an input
        ref = draw(st.sampled_from(refs))
        outputs.append(
            {
                "name": ref["name"],
                "dtype": ref["dtype"],
                "dynamic": ref.get("dynamic", False),
            }
        )
    if outputs:
        spec["outputs"] = outputs
    attrs = []
    for i in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(ATTR_TYPES))
        item = {"name": f"a{i}", "type": kind}
        if draw(st.booleans()):
            item["default"] = draw(default_of(kind))
        attrs.append(item)
    if attrs:
        spec["attrs"] = attrs
    graphs = [
        {"name": f"g{i}", **({"dynamic": True} if draw(st.booleans()) else {})}
        for i in range(draw(st.integers(0, 2)))
    ]
    if graphs:
        spec["graphs"] = graphs
    return spec


def model(text: str) -> OpSpec:
    sink = Sink()
    op = pipeline.check_text(text, "spec.yaml", sink)
    assert op is not None and not sink.has_errors, [d.format() for d in sink.items]
    return op


def _value(value: Any) -> Any:
    """A default's value, comparable with NaN equal to itself."""
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    if isinstance(value, tuple):
        return tuple(_value(v) for v in value)
    return value


def data(op: OpSpec) -> dict[str, Any]:
    """What REG_OP carries of a model (the attrs it can declare)."""

    def dtype(c: Any) -> tuple[Any, ...]:
        return (c.kind, c.dtypes, c.name, c.written)

    return {
        "op": op.op_type,
        "module": op.module,
        "type_vars": [
            (v.name, v.kind, v.written, v.promote, v.dtypes) for v in op.type_vars
        ],
        "inputs": [(i.name, i.kind, dtype(i.dtype)) for i in op.inputs],
        "outputs": [
            (o.name, o.dynamic, dtype(o.dtype), o.ref_input) for o in op.outputs
        ],
        "attrs": [
            (a.name, a.type, None if a.default is None else _value(a.default.value))
            for a in op.attrs
            if declares(a)
        ],
        "graphs": [(g.name, g.dynamic) for g in op.graphs],
    }


def header_of(op: OpSpec) -> str:
    rendered = pipeline.render([op], frozenset({Target.CPP}))
    path = f"include/{op.module}/{op.file_stem}.h"
    return next(f.content for f in rendered if f.path == path)


@settings(deadline=None)
@given(spec=specs())
def test_render_then_import_gives_the_same_spec(
    spec: dict[str, Any], tmp_path_factory: Any
) -> None:
    original = model(spec_yaml(spec, sort_keys=False))
    work: Path = tmp_path_factory.mktemp("roundtrip")
    header = work / "ops.h"
    header.write_text(header_of(original), encoding="utf-8")
    result = driver.plan(
        driver.Options(paths=(header,), out=work / "specs", module=original.module)
    )
    assert not result.diagnostics, [d.format() for d in result.diagnostics]
    (imported,) = result.files
    assert data(model(imported.text)) == data(original)
