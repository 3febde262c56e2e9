"""Issue 22, point 7: what the whole public corpus showed, on headers
written for these tests (modelled on the forms docs/importing.md and the
shared notes on real REG_OP headers describe, no real header's text).

- a named set in a list with other types (``TensorType({NumberType(),
  DT_VARIANT})``) is read as the union with a warning (I301), and gen-ops
  renders a union as an expression GE's headers compile;
- declarations that differ only in the order of a dtype list are one op;
- a namespace, or a ``#ifndef``, never closed is reported where the closing
  part is missing;
- an op with an error gets no I307 on its doc.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gen_ops import pipeline
from gen_ops.base.diagnostics import Sink
from gen_ops.emit.outputs import Target
from gen_ops.importer import driver, roundtrip
from gen_ops.lowering.reg_op import tensor_type
from gen_ops.spec.model import DtypeSet

ROOT = Path(__file__).resolve().parents[2]
GE_EXTERNAL = ROOT / "tests/cpp/ge_external"
GXX = shutil.which("g++")


def run(tmp_path: Path, **headers: str) -> driver.Result:
    for name, text in headers.items():
        (tmp_path / f"{name}.h").write_text(text, encoding="utf-8")
    return driver.plan(
        driver.Options(
            paths=tuple(sorted(tmp_path.glob("*.h"))), out=tmp_path / "specs"
        )
    )


def lines(result: driver.Result) -> list[str]:
    return [
        re.sub(r"^.*/(?=\w+\.h:)", "", d.format().splitlines()[0])
        for d in result.diagnostics
    ]


def codes(result: driver.Result) -> list[str]:
    return [d.code for d in result.diagnostics]


# -- a named set in a list ---------------------------------------------------

UNION = """\
namespace ge {
REG_OP(SumAll)
    .DYNAMIC_INPUT(x, TensorType({NumberType(), DT_VARIANT}))
    .OUTPUT(y, TensorType({NumberType(), DT_VARIANT}))
    .REQUIRED_ATTR(N, Int)
    .OP_END_FACTORY_REG(SumAll)
}  // namespace ge
"""


def test_named_set_in_a_list_is_the_union_with_a_warning(tmp_path: Path) -> None:
    result = run(tmp_path, ops=UNION)
    assert codes(result) == ["I301", "I301"]
    first = result.diagnostics[0]
    assert (first.span.line, first.span.col) == (3, 23)
    assert "read TensorType({NumberType(), DT_VARIANT}) as [NumberType, variant]" in (
        first.message
    )
    assert "C++ cannot evaluate" in first.message
    (spec,) = result.files
    assert "dtype: [NumberType, variant]" in spec.text


def test_a_list_of_dtypes_alone_needs_no_warning(tmp_path: Path) -> None:
    result = run(
        tmp_path,
        ops=UNION.replace("NumberType(), DT_VARIANT", "DT_FLOAT, DT_VARIANT"),
    )
    assert codes(result) == []


def test_union_renders_as_its_members() -> None:
    rendered = tensor_type(DtypeSet(("BasicType", "bool")))
    assert "BasicType" not in rendered
    assert rendered.startswith("TensorType({DT_FLOAT, DT_FLOAT16, ")
    assert rendered.endswith(", DT_BOOL})")
    # a named set alone keeps its name
    assert tensor_type(DtypeSet(("BasicType",))) == "TensorType::BasicType()"


def _compiles(tmp_path: Path, expression: str) -> subprocess.CompletedProcess[str]:
    assert GXX is not None
    source = tmp_path / "expr.cc"
    source.write_text(
        '#include "graph/types.h"\n'
        "namespace ge {\n"
        f"void use() {{ TensorType t = {expression}; (void)t; }}\n"
        "}  // namespace ge\n",
        encoding="utf-8",
    )
    return subprocess.run(
        [GXX, "-std=c++17", "-fsyntax-only", f"-I{GE_EXTERNAL}", str(source)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@pytest.mark.skipif(GXX is None, reason="g++ is not on PATH")
def test_rendered_union_compiles_and_the_header_form_does_not(
    tmp_path: Path,
) -> None:
    sink = Sink()
    spec = pipeline.check_text(
        "op: SumAll\nmodule: m\n"
        "inputs:\n  - {name: x, dtype: [NumberType, variant], dynamic: true}\n"
        "outputs:\n  - {name: y, dtype: [BasicType, bool]}\n",
        "m/sum_all.yaml",
        sink,
    )
    assert spec is not None, [d.format() for d in sink.items]
    files = pipeline.render([spec], frozenset({Target.CPP}))
    header = next(f.content for f in files if f.path.endswith("sum_all.h"))
    expressions = [
        line.split(", ", 1)[1].rsplit(")", 1)[0]
        for line in header.splitlines()
        if line.strip().startswith((".DYNAMIC_INPUT(x", ".OUTPUT(y"))
    ]
    assert len(expressions) == 2
    for expression in expressions:
        result = _compiles(tmp_path, expression)
        assert result.returncode == 0, (expression, result.stderr)
    # what some real headers write is no C++: the check has teeth
    wrong = _compiles(tmp_path, "TensorType({BasicType(), DT_BOOL})")
    assert wrong.returncode != 0


def test_union_round_trips_by_its_members(tmp_path: Path) -> None:
    (tmp_path / "ops.h").write_text(UNION, encoding="utf-8")
    report = roundtrip.run(
        roundtrip.Options((tmp_path / "ops.h",), tmp_path / "rendered")
    )
    assert (report.same, report.differ, report.unrendered) == (1, 0, 0)


# -- declared twice, in another order ----------------------------------------

ORDER_A = """\
namespace ge {
REG_OP(Distance)
    .INPUT(x, TensorType({DT_FLOAT16, DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT16, DT_FLOAT}))
    .ATTR(p, Float, 2.0)
    .OP_END_FACTORY_REG(Distance)
}  // namespace ge
"""
ORDER_B = ORDER_A.replace("DT_FLOAT16, DT_FLOAT", "DT_FLOAT, DT_FLOAT16")


def test_declarations_in_another_order_are_one_op(tmp_path: Path) -> None:
    result = run(tmp_path, a=ORDER_A, b=ORDER_B)
    assert codes(result) == []
    assert result.merged == 1 and result.not_imported == 0
    (spec,) = result.files
    assert "dtype: [float16, float32]" in spec.text  # the first one's order


def test_a_real_difference_is_still_named_past_an_order_only_one(
    tmp_path: Path,
) -> None:
    other = ORDER_B.replace(
        ".OUTPUT(y, TensorType({DT_FLOAT, DT_FLOAT16}))",
        ".OUTPUT(y, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))",
    )
    result = run(tmp_path, a=ORDER_A, b=other)
    assert codes(result) == ["I206"]
    assert (
        "(output 'y': dtype [float16, float32] there" in result.diagnostics[0].message
    )
    assert result.not_imported == 1


# -- syntax defects at their line --------------------------------------------

NAMESPACE_OPEN = """\
#ifndef DEMO_OPS_H_
#define DEMO_OPS_H_
#include "graph/operator_reg.h"
namespace ge {
REG_OP(Demo)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(Demo)  // namespace ge

#endif  // DEMO_OPS_H_
"""


def test_namespace_never_closed_is_reported_at_the_guard_endif(
    tmp_path: Path,
) -> None:
    result = run(tmp_path, ops=NAMESPACE_OPEN)
    assert lines(result) == [
        "ops.h:10:1: error[I106]: namespace ge is never closed: its '{' has no '}' "
        "before the #endif here, which closes the #if at line 1 around the '{' of "
        "line 4"
    ]


def test_namespace_never_closed_without_a_conditional_stays_at_its_brace(
    tmp_path: Path,
) -> None:
    text = "\n".join(NAMESPACE_OPEN.splitlines()[2:-2]) + "\n"
    result = run(tmp_path, ops=text)
    assert lines(result) == [
        "ops.h:2:14: error[I106]: namespace ge is never closed: its '{' has no '}' "
        "by the end of the header"
    ]


INNER_IFNDEF = """\
#ifndef DEMO_PROTO_H
#define DEMO_PROTO_H
namespace ge {
REG_OP(Demo)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(Demo)
#ifndef DEMO_EXTRA_DEF
#define DEMO_EXTRA_DEF
REG_OP(DemoExtra)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(DemoExtra)
}  // namespace ge
#endif  // DEMO_PROTO_H
"""


def test_inner_ifndef_never_closed_is_reported_at_its_line(tmp_path: Path) -> None:
    result = run(tmp_path, ops=INNER_IFNDEF)
    assert lines(result) == [
        "ops.h:8:1: error[I107]: #ifndef is never closed by #endif before the #endif "
        "at line 15, whose comment names DEMO_PROTO_H, which an outer #if tests"
    ]


def test_endif_without_a_naming_comment_is_paired_as_the_preprocessor_does(
    tmp_path: Path,
) -> None:
    result = run(
        tmp_path, ops=INNER_IFNDEF.replace("#endif  // DEMO_PROTO_H", "#endif")
    )
    assert lines(result) == [
        "ops.h:1:1: error[I107]: #ifndef is never closed by #endif"
    ]


def test_endif_naming_the_innermost_if_changes_nothing(tmp_path: Path) -> None:
    text = INNER_IFNDEF.replace("#endif  // DEMO_PROTO_H", "#endif  // DEMO_EXTRA_DEF")
    result = run(tmp_path, ops=text)
    assert lines(result) == [
        "ops.h:1:1: error[I107]: #ifndef is never closed by #endif"
    ]


def test_unterminated_comment_is_reported_where_it_opens(tmp_path: Path) -> None:
    result = run(tmp_path, ops="/**\n * licence\n */\n\n/*!\n * \\file ops.h\n")
    assert lines(result) == [
        "ops.h:5:1: error[I103]: this comment is never closed by */; the rest of "
        "the header is a comment"
    ]


# -- no I307 after an error ----------------------------------------------------

DOCUMENTED = """\
namespace ge {
/**
 * @brief Scales.
 * @par Inputs:
 * @li x: The input.
 * @li scale: The factor.
 * @par Outputs:
 * @li y: The result.
 */
REG_OP(Scale)
    .INPUT(x, TensorType({DT_FLOAT}))
    .INPUT(scale, TensorType({DT_FLOAT32}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(Scale)
}  // namespace ge
"""


def test_an_op_with_an_error_gets_no_doc_warning(tmp_path: Path) -> None:
    result = run(tmp_path, ops=DOCUMENTED)
    assert codes(result) == ["I202"]
    assert result.not_imported == 1


def test_a_valid_op_still_gets_its_doc_checked(tmp_path: Path) -> None:
    text = DOCUMENTED.replace("DT_FLOAT32", "DT_FLOAT").replace(
        "@li scale:", "@li factor:"
    )
    result = run(tmp_path, ops=text)
    assert codes(result) == ["I307"]
    assert "names 'factor'" in result.diagnostics[0].message
