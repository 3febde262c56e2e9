"""The importer's parts on their own: positions through splices, C literals,
doc blocks, dtype names, and YAML that gen-ops' own reader reads back as
exactly what was written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ge_ir.attrs import AttrType
from gen_ops.base.diagnostics import Sink, Span
from gen_ops.importer import c_literals, docblock, driver, dtype_names
from gen_ops.importer.lexer import SourceText, tokenize
from gen_ops.importer.model import (
    Attr,
    Default,
    DtypeList,
    ImportedOp,
    OpShape,
    Slot,
)
from gen_ops.importer.syntax import DIRECTIVE, DOC, Token
from gen_ops.importer.yaml_writer import WIDTH, plain_ok, spec_text
from gen_ops.spec.source import load_spec_text

# -- the lexer ---------------------------------------------------------------


def lex(text: str) -> tuple[SourceText, list[Token]]:
    source = SourceText.of("h.h", text)
    tokens, whole = tokenize(source, Sink())
    assert whole
    return source, tokens


def test_positions_survive_splices() -> None:
    source, tokens = lex("a \\\n  b \\  \n c\n  d\n")
    where = {t.text: source.position(t.offset) for t in tokens}
    assert where == {"a": (1, 1), "b": (2, 3), "c": (3, 2), "d": (4, 3)}


def test_splice_continues_a_line_comment() -> None:
    _, tokens = lex("// a comment \\\nREG_OP(Hidden)\nREG_OP(Seen)\n")
    assert [t.text for t in tokens] == ["REG_OP", "(", "Seen", ")"]


def test_splice_inside_a_token_joins_it() -> None:
    _, tokens = lex("DT_FLO\\\nAT16\n")
    assert [t.text for t in tokens] == ["DT_FLOAT16"]


def test_crlf_lines() -> None:
    source, tokens = lex("a\r\n  b\r\n")
    assert [source.position(t.offset) for t in tokens] == [(1, 1), (2, 3)]


def test_directives_and_doc_comments() -> None:
    _, tokens = lex(
        "/** doc */\n#if X /* a\ncomment */ && Y\nz\n  #  endif\n#include <a'b.h>\n"
    )
    kinds = [(t.kind, t.text) for t in tokens]
    assert kinds == [
        (DOC, "/** doc */"),
        (DIRECTIVE, "if"),
        ("id", "z"),
        (DIRECTIVE, "endif"),
        (DIRECTIVE, "include"),
    ]
    assert [a.text for a in tokens[1].args] == ["X", "&", "&", "Y"]


def test_empty_block_comment_is_not_a_doc() -> None:
    _, tokens = lex("/**/ x /***/ y\n")
    assert [(t.kind, t.text) for t in tokens] == [
        ("id", "x"),
        (DOC, "/***/"),
        ("id", "y"),
    ]


# -- C literals ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text, value",
    [("0", 0), ("42", 42), ("0x1F", 31), ("017", 15), ("0b101", 5), ("1'000", 1000),
     ("7LL", 7), ("7ull", 7), ("9223372036854775807", (1 << 63) - 1)],
)  # fmt: skip
def test_int_literals(text: str, value: int) -> None:
    assert c_literals.int_literal(text) == value


@pytest.mark.parametrize(
    "text, spelled",
    [("1e-5f", "1e-5"), ("0.0001", "0.0001"), ("1.0", "1.0"), ("1.f", "1."),
     (".5F", ".5"), ("2.5e+3L", "2.5e+3"), ("1", "1")],
)  # fmt: skip
def test_float_spellings(text: str, spelled: str) -> None:
    assert c_literals.float_spelling(text) == spelled


@pytest.mark.parametrize("text", ["0x1p3", "1e", "abc", "1.0.0"])
def test_not_floats(text: str) -> None:
    with pytest.raises(c_literals.NotALiteral):
        c_literals.float_spelling(text)


def test_string_escapes() -> None:
    _, tokens = lex(r'"a\tb\"\\\?\x41\101\0" u8"\303\251" "\u00e9"' + "\n")
    assert c_literals.string_literal(tokens) == 'a\tb"\\?AA\x00éé'


def test_int_expression() -> None:
    _, tokens = lex("(-9223372036854775807 - 1)\n")
    expression = c_literals.IntExpression(tokens, lambda name: None)
    assert expression.value() == -(1 << 63)


# -- dtype names -----------------------------------------------------------------


@pytest.mark.parametrize(
    "name, meant",
    [("DT_FLOAT32", "DT_FLOAT"), ("DT_BFLOAT16", "DT_BF16"), ("DT_FLOAT64", "DT_DOUBLE"),
     ("DT_FP8_E5M2", "DT_FLOAT8_E5M2"), ("DT_FP8_E4M3FN", "DT_FLOAT8_E4M3FN"),
     ("DI_UINT16", "DT_UINT16"), ("DT_B16", "DT_BF16"), ("DT_RESOURSE", "DT_RESOURCE"),
     ("DT_Int32", "DT_INT32"), ("DT_FLOAT8_E4M3_FN", "DT_FLOAT8_E4M3FN"),
     ("REALNUMBERTYPE", "RealNumberType"), ("float16", "DT_FLOAT16"),
     ("float", "DT_FLOAT"), ("T", None)],
)  # fmt: skip
def test_what_a_wrong_name_means(name: str, meant: str | None) -> None:
    reading = dtype_names.read(name)
    assert not reading.known
    assert reading.suggestion == meant


def test_only_ge_string_table_aliases_are_fixable() -> None:
    """One rule: a name of GE's string table, bare or as DT_ and upper case."""
    names = ("DT_FLOAT32", "DT_BFLOAT16", "DT_FLOAT64", "DT_B16", "DT_FP16",
             "DT_COMPLEXT64", "float16", "float32", "float", "Float16",
             "DT_Float64", "REALNUMBERTYPE")  # fmt: skip
    fixable = {n: dtype_names.read(n).alias for n in names}
    assert {n: a.name for n, a in fixable.items() if a is not None} == {
        "DT_FLOAT32": "DT_FLOAT",
        "DT_BFLOAT16": "DT_BF16",
        "DT_FLOAT64": "DT_DOUBLE",
        "float16": "DT_FLOAT16",
        "float32": "DT_FLOAT",
    }
    assert dtype_names.read("DT_COMPLEXT64").suggestion == "DT_COMPLEX64"
    assert dtype_names.named_set_suggestion("REALNUMBERTYPE") == "RealNumberType"


# -- doc blocks --------------------------------------------------------------------

DOC_BLOCK = r"""/**
*@brief Adds x1 and x2 . \n
* Element-wise.

*@par Inputs:
*Two inputs, including:
* @li x1: A tensor of
*     float16 or float32.
* @li x2: The same type as "x1". \n

*@par Outputs:
*y: The sum. \n

*@par Attributes:
*@li alpha: Scales x2.
*
*Constraint: alpha is finite.

*@attention Constraints:
* @li Shapes broadcast.
*@see Sub
*@par Third-party framework compatibility
*Compatible with the TensorFlow operator Add.
*/"""


def test_doc_block() -> None:
    params = {
        "input": frozenset({"x1", "x2"}),
        "output": frozenset({"y"}),
        "attr": frozenset({"alpha"}),
    }
    docs = docblock.read(DOC_BLOCK, 0, params)
    assert docs.doc == (
        "Adds x1 and x2 . Element-wise.\n\n"
        "Attributes: Constraint: alpha is finite.\n\n"
        "Attention: Constraints:\n- Shapes broadcast.\n\n"
        "See also: Sub\n\n"
        "Third-party framework compatibility: Compatible with the TensorFlow "
        "operator Add."
    )
    assert dict(docs.params) == {
        ("input", "x1"): "A tensor of float16 or float32.",
        ("input", "x2"): 'The same type as "x1".',
        ("output", "y"): "The sum.",
        ("attr", "alpha"): "Scales x2.",
    }
    assert docs.unmatched == ()


def test_doc_without_brief_takes_its_first_paragraph() -> None:
    docs = docblock.read("/**\n * Summary line\n * more.\n *\n * Detail.\n */", 0, {})
    assert docs.doc == "Summary line more.\n\nDetail."


# -- YAML --------------------------------------------------------------------------

any_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=40,
)
words = st.lists(
    st.text(alphabet="abc:#,-[]{}'\"&* é\t", min_size=1, max_size=12), max_size=30
).map(" ".join)


def _op(doc: str, item_doc: str, default: Any) -> ImportedOp:
    shape = OpShape(
        "A",
        (),
        (Slot("x", DtypeList(("float32",))),),
        (),
        (
            Attr("s", AttrType.STR, Default(default)),
            Attr("ls", AttrType.LIST_STR, Default((default, default))),
        ),
        (),
    )
    docs = (("input", "x", item_doc), ("attr", "s", item_doc))
    return ImportedOp(shape, doc, docs, "custom", Span("h.h", 1, 1))


@settings(deadline=None)
@given(doc=st.one_of(any_text, words), item=st.one_of(any_text, words), value=any_text)
def test_yaml_reads_back_as_written(doc: str, item: str, value: str) -> None:
    doc = "\n".join(line.strip() for line in doc.strip().split("\n"))
    item = " ".join(item.split("\n")).strip()
    text = spec_text(_op(doc, item, value), "schema.json", "h.h:1")
    sink = Sink()
    loaded = load_spec_text(text.encode("utf-8"), "spec.yaml", sink)
    assert loaded is not None, [d.format() for d in sink.items]
    data = loaded.data
    assert data.get("doc", "") in (doc, doc + "\n")
    for section, index in (("inputs", 0), ("attrs", 0)):
        assert data[section][index].get("doc", "") == item
    assert data["attrs"][0]["default"] == value
    assert data["attrs"][1]["default"] == [value, value]


@given(text=any_text)
def test_plain_only_when_read_back_as_the_string(text: str) -> None:
    for flow in (True, False):
        if not plain_ok(text, flow):
            continue
        line = f"op: A\ndoc: [{text}]\n" if flow else f"op: A\ndoc: {text}\n"
        loaded = load_spec_text(line.encode("utf-8"), "spec.yaml", Sink())
        assert loaded is not None
        assert loaded.data["doc"] == ([text] if flow else text)


def test_long_docs_wrap() -> None:
    doc = " ".join(["word"] * 40)
    text = spec_text(_op("", doc, "a"), "schema.json", "h.h:1")
    assert max(len(line) for line in text.splitlines()[2:]) <= WIDTH


# -- where REG_OP may stand ----------------------------------------------------


def test_reg_op_inside_a_linkage_block(tmp_path: Path) -> None:
    """``extern "C++" {`` is namespace scope: no I105 there (a struct's
    brace is one, test_import_diagnostics)."""
    header = tmp_path / "ops.h"
    header.write_text(
        'extern "C++" {\nnamespace ge {\n'
        "REG_OP(A) .INPUT(x, TensorType({DT_FLOAT})) .OP_END_FACTORY_REG(A)\n"
        "}  // namespace ge\n}\n"
    )
    result = driver.plan(driver.Options(paths=(header,), out=tmp_path / "out"))
    assert not result.diagnostics
    assert [f.op.op_type for f in result.files] == ["A"]


# -- constant expressions of Float defaults (I310) -----------------------------


def evaluate(text: str) -> int | float:
    return c_literals.FloatExpression(lex(text)[1]).value()


@pytest.mark.parametrize(
    "text, value",
    [
        ("1.f / 4", 0.25),
        ("1.f / 3", 0.3333333432674408),  # float's quotient, exactly
        ("1.0 / 3", 1.0 / 3),  # double's
        ("1 / 3", 0),  # int / int truncates
        ("-7 / 2", -3),  # toward zero, as C++
        ("7 / 2 * 1.0", 3.0),
        ("-(2 - 3.5) * 2", 3.0),
        ("(1 + 2) / 2 * 0.5f", 0.5),
        ("0.1f + 0.2f", 0.30000001192092896),
    ],
)
def test_float_expression_as_cpp(text: str, value: float) -> None:
    result = evaluate(text)
    assert result == value and type(result) is type(value)


@pytest.mark.parametrize("text", ["1.f / 0", "sqrt(2.f)", "1 << 3", "1e38f * 10", "(1"])
def test_float_expression_refused(text: str) -> None:
    with pytest.raises(c_literals.NotALiteral):
        evaluate(text)
