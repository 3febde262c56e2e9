"""Forms found in real REG_OP headers (bench/real_corpus.py on public GE and
CANN headers), each reproduced here with op names of our own: a Bool
default written as 0, Float defaults written as constant expressions
(``1.f / 4``), GE's named constants (``ge::UNKNOWN_RANK``), an op type the
runtime reserves (``Data``), ``DT_FLOAT64`` and bare ``float16`` /
``float32`` in a type list, a named set in the wrong case
(``REALNUMBERTYPE``) and a typo (``DT_COMPLEXT64``). The import with
--fix-dtypes must report exactly these diagnostics and write exactly these
specs; gen-ops must take every spec written; ``gen-ops roundtrip`` must give
back every imported declaration but the reserved one (R101)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen_ops import pipeline
from gen_ops.base.diagnostics import Sink
from gen_ops.importer import driver, roundtrip

HEADER = """\
#include "graph/operator_reg.h"
namespace ge {
REG_OP(FillLike)
    .INPUT(shape, TensorType({DT_INT32}))
    .OUTPUT(y, TensorType({DT_FLOAT, DT_INT32}))
    .ATTR(dtype, Int, DT_FLOAT)
    .ATTR(init, Bool, 0)
    .OP_END_FACTORY_REG(FillLike)

REG_OP(RoiPyramid)
    .INPUT(rois, TensorType({DT_FLOAT16, DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT16, DT_FLOAT}))
    .ATTR(spatial_scale, ListFloat, {1.f / 4, 1.f / 8, 1.f / 16, 1.f / 32})
    .ATTR(ratio, Float, (1 + 2) / 2 * 0.5f)
    .OP_END_FACTORY_REG(RoiPyramid)

REG_OP(ShapedQueue)
    .OUTPUT(handle, TensorType({DT_RESOURCE}))
    .ATTR(element_shape, ListInt, ge::UNKNOWN_RANK)
    .ATTR(any_shape, ListInt, UNKNOWN_SHAPE)
    .ATTR(dims, ListInt, {ge::UNKNOWN_DIM, 2})
    .ATTR(rank, Int, UNKNOWN_DIM_NUM)
    .OP_END_FACTORY_REG(ShapedQueue)

REG_OP(WideCast)
    .INPUT(x, TensorType({DT_FLOAT64, DT_FLOAT32}))
    .INPUT(w, TensorType({float16}))
    .OUTPUT(y, TensorType({DT_DOUBLE, float32}))
    .OP_END_FACTORY_REG(WideCast)

REG_OP(Data)
    .INPUT(x, TensorType::ALL())
    .OUTPUT(y, TensorType::ALL())
    .ATTR(index, Int, 0)
    .OP_END_FACTORY_REG(Data)

REG_OP(PatchesLike)
    .INPUT(x, TensorType::REALNUMBERTYPE())
    .OUTPUT(y, TensorType({DT_COMPLEXT64}))
    .OP_END_FACTORY_REG(PatchesLike)
}  // namespace ge
"""
DIAGNOSTICS = """\
forms.h:6:23: warning[I304]: FillLike: attr 'dtype': the Int default DT_FLOAT is imported as the number GE stores (DT_FLOAT = 0), named in a YAML comment
  hint: make the attr a Type attr if it holds a dtype
forms.h:7:23: warning[I309]: FillLike: attr 'init': the Bool default 0 is imported as false
  hint: write false in the header
forms.h:13:38: warning[I310]: RoiPyramid: attr 'spatial_scale': the ListFloat default 1.f/4 is a constant expression, imported as its value 0.25, as C++ computes it
  hint: write 0.25 in the header, or keep the expression: the spec keeps the value
forms.h:13:47: warning[I310]: RoiPyramid: attr 'spatial_scale': the ListFloat default 1.f/8 is a constant expression, imported as its value 0.125, as C++ computes it
  hint: write 0.125 in the header, or keep the expression: the spec keeps the value
forms.h:13:56: warning[I310]: RoiPyramid: attr 'spatial_scale': the ListFloat default 1.f/16 is a constant expression, imported as its value 0.0625, as C++ computes it
  hint: write 0.0625 in the header, or keep the expression: the spec keeps the value
forms.h:13:66: warning[I310]: RoiPyramid: attr 'spatial_scale': the ListFloat default 1.f/32 is a constant expression, imported as its value 0.03125, as C++ computes it
  hint: write 0.03125 in the header, or keep the expression: the spec keeps the value
forms.h:14:25: warning[I310]: RoiPyramid: attr 'ratio': the Float default (1+2)/2*0.5f is a constant expression, imported as its value 0.5, as C++ computes it
  hint: write 0.5 in the header, or keep the expression: the spec keeps the value
forms.h:19:35: warning[I311]: ShapedQueue: attr 'element_shape': the ListInt default names GE's constant UNKNOWN_RANK (graph/types.h), imported as its value [-2] and named in a YAML comment
  hint: nothing to do; write [-2] in the header to silence this
forms.h:20:31: warning[I311]: ShapedQueue: attr 'any_shape': the ListInt default names GE's constant UNKNOWN_SHAPE (graph/types.h), imported as its value [-1] and named in a YAML comment
  hint: nothing to do; write [-1] in the header to silence this
forms.h:21:31: warning[I311]: ShapedQueue: attr 'dims': the ListInt default names GE's constant UNKNOWN_DIM (graph/types.h), imported as its value -1 and named in a YAML comment
  hint: nothing to do; write -1 in the header to silence this
forms.h:22:22: warning[I311]: ShapedQueue: attr 'rank': the Int default names GE's constant UNKNOWN_DIM_NUM (graph/types.h), imported as its value -2 and named in a YAML comment
  hint: nothing to do; write -2 in the header to silence this
forms.h:26:27: warning[I302]: WideCast: input 'x': DT_FLOAT64 read as DT_DOUBLE (float64), as GE's string table reads it
  hint: write DT_DOUBLE in the header
forms.h:26:39: warning[I302]: WideCast: input 'x': DT_FLOAT32 read as DT_FLOAT (float32), as GE's string table reads it
  hint: write DT_FLOAT in the header
forms.h:27:27: warning[I302]: WideCast: input 'w': float16 read as DT_FLOAT16 (float16), as GE's string table reads it
  hint: write DT_FLOAT16 in the header
forms.h:28:39: warning[I302]: WideCast: output 'y': float32 read as DT_FLOAT (float32), as GE's string table reads it
  hint: write DT_FLOAT in the header
forms.h:31:8: error[I208]: Data: gen-ops would refuse its spec (E308 Data: op type 'Data' is a node type the runtime itself creates or treats specially (AippData, AnnData, AnyData, Const, Constant, Data, NetOutput, RefData, Variable)); the op is not imported, so that the rest of the module generates
  hint: rename the op in REG_OP (and where it is used), or leave it in its header and import the others; docs/diagnostics.md explains each E-code
forms.h:38:15: error[I203]: PatchesLike: input 'x': cannot read the type expression TensorType::REALNUMBERTYPE(): 'TensorType::REALNUMBERTYPE()' is not a named set
  hint: did you mean TensorType::RealNumberType()? (named sets are case-sensitive)
forms.h:39:28: error[I202]: PatchesLike: output 'y': DT_COMPLEXT64 is not a DataType enumerator or named set (the macros only stringify it, so GE never notices)
  hint: did you mean DT_COMPLEX64 (complex64)?
"""
SPECS = {
    "fill_like.yaml": """\
# Imported by gen-ops import from forms.h:3.
op: FillLike
module: real
inputs:
  - {name: shape, dtype: int32}
outputs:
  - {name: y, dtype: [float32, int32]}
attrs:
  - {name: dtype, type: int, default: 0}  # DT_FLOAT
  - {name: init, type: bool, default: false}
""",
    "roi_pyramid.yaml": """\
# Imported by gen-ops import from forms.h:10.
op: RoiPyramid
module: real
inputs:
  - {name: rois, dtype: [float16, float32]}
outputs:
  - {name: y, dtype: [float16, float32]}
attrs:
  - {name: spatial_scale, type: list_float, default: [0.25, 0.125, 0.0625, 0.03125]}  # evaluated from {1.f/4, 1.f/8, 1.f/16, 1.f/32}
  - {name: ratio, type: float, default: 0.5}  # evaluated from (1+2)/2*0.5f
""",
    "shaped_queue.yaml": """\
# Imported by gen-ops import from forms.h:17.
op: ShapedQueue
module: real
outputs:
  - {name: handle, dtype: resource}
attrs:
  - {name: element_shape, type: list_int, default: [-2]}  # UNKNOWN_RANK
  - {name: any_shape, type: list_int, default: [-1]}  # UNKNOWN_SHAPE
  - {name: dims, type: list_int, default: [-1, 2]}  # UNKNOWN_DIM
  - {name: rank, type: int, default: -2}  # UNKNOWN_DIM_NUM
""",
    "wide_cast.yaml": """\
# Imported by gen-ops import from forms.h:25.
op: WideCast
module: real
inputs:
  - {name: x, dtype: [float64, float32]}
  - {name: w, dtype: float16}
outputs:
  - {name: y, dtype: [float64, float32]}
""",
}


@pytest.fixture
def header(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = Path("forms.h")
    path.write_text(HEADER, encoding="utf-8")
    return path


def imported(header: Path) -> driver.Result:
    return driver.plan(
        driver.Options(
            paths=(header,), out=Path("specs"), module="real", fix_dtypes=True
        )
    )


def test_diagnostics(header: Path) -> None:
    result = imported(header)
    assert "".join(d.format() + "\n" for d in result.diagnostics) == DIAGNOSTICS


def test_specs(header: Path) -> None:
    """Every spec but its first line (the $schema path depends on where the
    specs go)."""
    result = imported(header)
    written = {
        Path(f.path).name: "".join(f.text.splitlines(keepends=True)[1:])
        for f in result.files
    }
    assert written == SPECS


def test_gen_ops_takes_every_spec_written(header: Path) -> None:
    result = imported(header)
    driver.write(driver.Options(paths=(header,), out=Path("specs")), result)
    sink = Sink()
    ops = pipeline.load_and_check(pipeline.discover([Path("specs")], sink), sink)
    assert not sink.items, [d.format() for d in sink.items]
    assert sorted(op.op_type for op in ops) == [
        "FillLike",
        "RoiPyramid",
        "ShapedQueue",
        "WideCast",
    ]


def test_roundtrip(header: Path) -> None:
    report = roundtrip.run(
        roundtrip.Options(
            paths=(header,), rendered=Path("rendered"), module="real", fix_dtypes=True
        )
    )
    assert (report.same, report.differ, report.unrendered, report.not_imported) == (
        4,
        0,
        1,
        1,
    )
    r_codes = [(d.code, str(d.span)) for d in report.diagnostics if d.code[0] == "R"]
    assert r_codes == [("R101", "forms.h:31:8")]
