"""No header makes the importer raise: token soup built from REG_OP's own
pieces (and broken ones) gives diagnostics at real positions, never a
traceback, and whatever it imports is a spec gen-ops' reader reads."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gen_ops.base.diagnostics import CODES, Sink
from gen_ops.importer import driver
from gen_ops.spec.source import load_spec_text

PIECES = [
    "REG_OP", "(", ")", "{", "}", "[", "]", ",", "\uff0c", ";", ".", "::", "\n",
    " ", "\\\n", "/*", "*/", "/**", "//", '"', "'", '"T"', "#if 0\n", "#if X\n",
    "#ifndef G\n", "#else\n", "#endif\n", "#define A\n", "#include <a.h>\n",
    "namespace", "ge", "extern \"C++\"", "INPUT", "OUTPUT", "OPTIONAL_INPUT",
    "DYNAMIC_INPUT", "DYNAMIC_OUTPUT", "ATTR", "REQUIRED_ATTR", "GRAPH",
    "DYNAMIC_GRAPH", "DATATYPE", "OP_END_FACTORY_REG", "INFER_SHAPE_AND_TYPE",
    "TensorType", "ListTensorType", "Promote", "BasicType", "NumberType",
    "DT_FLOAT", "DT_INT32", "DT_FLOAT32", "DT_UNDEFINED", "float16", "T", "x",
    "y", "Op", "_Op", "Int", "Float", "Bool", "String", "Type", "Tensor",
    "ListInt", "ListListInt", "ListType", "Bytes", "AscendString", "1", "-1",
    "1e-5f", "0x1F", "1e39f", "(-9223372036854775807 - 1)", '"a\\tb"', "true",
    "std::numeric_limits<float>::infinity()", "ge::DataType(-1)", "@brief",
    "@par Inputs:", "@li x: doc", "*", "\t", "é", "\u202e",
]  # fmt: skip

DECLARATION = (
    "REG_OP(Op)\n    .INPUT(x, TensorType({DT_FLOAT}))\n"
    "    .OUTPUT(y, TensorType({DT_FLOAT}))\n    .OP_END_FACTORY_REG(Op)\n"
)


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    soup=st.lists(st.sampled_from(PIECES), max_size=60),
    at=st.integers(0, len(DECLARATION)),
    cut=st.integers(0, 12),
)
def test_any_header_gives_diagnostics_not_exceptions(
    soup: list[str], at: int, cut: int, tmp_path: Path
) -> None:
    # A real declaration with some of it cut out and soup put in its place.
    text = DECLARATION[:at] + "".join(soup) + DECLARATION[at + cut :]
    header = tmp_path / "soup.h"
    header.write_text(text, encoding="utf-8")
    lines = text.split("\n")
    result = driver.plan(
        driver.Options(paths=(header,), out=tmp_path / "out", overwrite=True)
    )
    for d in result.diagnostics:
        assert d.code in CODES
        assert 1 <= d.span.line <= len(lines), d.format()
        assert 1 <= d.span.col <= len(lines[d.span.line - 1]) + 1, d.format()
        assert d.format().replace("\n  hint: ", " ").isprintable()
    for spec in result.files:
        assert load_spec_text(spec.text.encode("utf-8"), "s.yaml", Sink())
