"""The generated REG_OP headers are valid GE grammar.

Every header under generated/include and tests/golden/expected/include, and
every generated/src/*.cc, is syntax-checked by g++ against two stand-ins for
GE's "graph/operator_reg.h": tests/cpp/ge_external (the declarations of GE's
external graph headers, whose REG_OP macros expand exactly as GE's; only
declarations, as GE's library defines the rest) and tests/cpp/graph (the
project's smaller stand-in, which also defines what it declares, so programs
link and run). The second half of the module proves that each stand-in
checks what it claims: GE's valid spellings compile, and each invalid one
fails, for the intended reason, next to a control that differs only in the
faulty part and compiles.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "generated"
GOLDEN_INCLUDE = ROOT / "tests/golden/expected/include"
GXX = shutil.which("g++")
# The include directory of each stand-in, relative to the repository root.
STAND_INS = {"ge-external": "tests/cpp/ge_external", "stand-in": "tests/cpp"}
# The command of the check, run from the repository root (paths relative to it).
GXX_FLAGS = ("-std=c++17", "-fsyntax-only", "-Wall", "-Werror")
TIMEOUT_S = 60

pytestmark = pytest.mark.skipif(
    GXX is None, reason="g++ is not on PATH: the generated C++ cannot be checked"
)


def gxx(
    source: Path, stand_in: str, include: Path = GENERATED / "include"
) -> subprocess.CompletedProcess[str]:
    """Syntax-check one file as a C++ translation unit against a stand-in."""
    assert GXX is not None
    return subprocess.run(
        [
            GXX,
            *GXX_FLAGS,
            "-I",
            STAND_INS[stand_in],
            "-I",
            os.path.relpath(include, ROOT),
            "-x",
            "c++",
            str(source),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
        env={**os.environ, "LC_ALL": "C"},  # plain ASCII quotes in diagnostics
        stdin=subprocess.DEVNULL,
    )


def compile_text(
    tmp_path: Path, text: str, stand_in: str, name: str = "snippet.cc"
) -> subprocess.CompletedProcess[str]:
    source = tmp_path / name
    source.write_text(text, encoding="utf-8")
    return gxx(source, stand_in)


def describe(result: subprocess.CompletedProcess[str]) -> str:
    return f"g++ exited {result.returncode}\n{result.stderr}"


stand_ins = pytest.mark.parametrize("stand_in", list(STAND_INS))


# --- the generated files ------------------------------------------------------


def generated_cpp() -> list[tuple[Path, Path]]:
    """Each generated C++ file, with the include directory it needs."""
    headers = sorted((GENERATED / "include").rglob("*.h"))
    sources = sorted((GENERATED / "src").glob("*.cc"))
    golden = sorted(GOLDEN_INCLUDE.rglob("*.h"))
    return [(p, GENERATED / "include") for p in headers + sources] + [
        (p, GOLDEN_INCLUDE) for p in golden
    ]


def test_there_is_generated_cpp_to_check() -> None:
    files = [path for path, _ in generated_cpp()]
    assert any(f.suffix == ".h" for f in files), "no header under generated/include"
    assert any(f.suffix == ".cc" for f in files), "no .cc under generated/src"
    assert any(GOLDEN_INCLUDE in f.parents for f in files), "no golden header"


@stand_ins
@pytest.mark.parametrize(
    "path,include",
    [pytest.param(p, i, id=p.relative_to(ROOT).as_posix()) for p, i in generated_cpp()],
)
def test_generated_file_compiles(path: Path, include: Path, stand_in: str) -> None:
    result = gxx(path, stand_in, include)
    assert result.returncode == 0, describe(result)


GOLDEN = ROOT / "tests/golden/expected"


@stand_ins
def test_the_golden_module_compiles(stand_in: str) -> None:
    """tests/golden/expected's proto .cc, which includes every golden header
    (Promote, ListTensorType, unions, _GeNamesOp, Shape, While, ...) in one
    translation unit, so an op class hiding a name from a later header
    fails."""
    (source,) = sorted((GOLDEN / "src").glob("*.cc"))
    result = gxx(source, stand_in, GOLDEN / "include")
    assert result.returncode == 0, describe(result)


# --- the stand-in header: valid spellings ------------------------------------


def in_ge(body: str, prelude: str = "") -> str:
    """A translation unit with `body` inside namespace ge, as gen-ops lays out."""
    return (
        f'{prelude}#include "graph/operator_reg.h"\n\n'
        f"namespace ge {{\n{body}\n}}  // namespace ge\n"
    )


def probe(elements: str, end: str = "Probe") -> str:
    """Op Probe: one input, one output, one DATATYPE, plus `elements`."""
    return in_ge(f"""REG_OP(Probe)
    .INPUT(x, "T")
    .OUTPUT(y, "T")
    {elements}
    .DATATYPE(T, TensorType({{DT_FLOAT}}))
    .OP_END_FACTORY_REG({end});""")


EVERY_ELEMENT = """REG_OP(AnnotatedAddCustom)
    .INPUT(x1, "T")
    .OPTIONAL_INPUT(bias, TensorType({DT_FLOAT, DT_FLOAT16}))
    .DYNAMIC_INPUT(xs, TensorType::NumberType())
    .OUTPUT(output0, "T")
    .DYNAMIC_OUTPUT(ys, "T")
    .REQUIRED_ATTR(num_split, Int)
    .ATTR(eps, Float, 1e-8)
    .ATTR(perm, ListInt, {0, 1})
    .ATTR(lli, ListListInt, {{}, {2, 3}})
    .ATTR(mode, String, "constant")
    .ATTR(t, Tensor, Tensor())
    .ATTR(by, Bytes, {0x00, 0x61})
    .ATTR(dt, Type, DT_BF16)
    .ATTR(ldt, ListType, {DT_FLOAT, DT_INT64})
    .GRAPH(then_branch)
    .DYNAMIC_GRAPH(branches)
    .INFER_SHAPE_AND_TYPE()
    .DATATYPE(T, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(AnnotatedAddCustom);"""

# GE's own spellings of the default of every attr type but NamedAttrs and
# ListNamedAttrs, which GE's external headers cannot declare (see INVALID).
EVERY_ATTR_TYPE = """REG_OP(AttrTypes)
    .INPUT(x, TensorType::ALL())
    .OUTPUT(y, TensorType::ALL())
    .ATTR(axis, Int, -1)
    .ATTR(alpha, Float, 1.0)
    .ATTR(eps, Float, 1e-8f)
    .ATTR(mode, String, "adam")
    .ATTR(ascend, AscendString, "adam")
    .ATTR(b, Bool, false)
    .ATTR(dt, Type, DT_FLOAT)
    .ATTR(t, Tensor, Tensor())
    .ATTR(perm, ListInt, {0, 1})
    .ATTR(lf, ListFloat, {0.1, 0.2})
    .ATTR(lb, ListBool, {false, true})
    .ATTR(ls, ListString, {"a", "b"})
    .ATTR(las, ListAscendString, {"a", "b"})
    .ATTR(ldt, ListType, {DT_FLOAT, DT_DOUBLE})
    .ATTR(lli, ListListInt, {{}, {2, 3}, {}})
    .ATTR(lt, ListTensor, {Tensor(), Tensor()})
    .ATTR(by, Bytes, {0x00, 0x61, 255})
    .OP_END_FACTORY_REG(AttrTypes);"""

EMPTY_LISTS = """REG_OP(EmptyLists)
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .ATTR(li, ListInt, {})
    .ATTR(lf, ListFloat, {})
    .ATTR(lb, ListBool, {})
    .ATTR(ls, ListString, {})
    .ATTR(las, ListAscendString, {})
    .ATTR(ldt, ListType, {})
    .ATTR(lli, ListListInt, {})
    .ATTR(lt, ListTensor, {})
    .ATTR(by, Bytes, {})
    .ATTR(s, String, "")
    .OP_END_FACTORY_REG(EmptyLists);"""

EVERY_REQUIRED_ATTR_TYPE = """REG_OP(RequiredAttrTypes)
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .REQUIRED_ATTR(i, Int)
    .REQUIRED_ATTR(f, Float)
    .REQUIRED_ATTR(s, String)
    .REQUIRED_ATTR(as, AscendString)
    .REQUIRED_ATTR(b, Bool)
    .REQUIRED_ATTR(t, Tensor)
    .REQUIRED_ATTR(dt, Type)
    .REQUIRED_ATTR(li, ListInt)
    .REQUIRED_ATTR(lf, ListFloat)
    .REQUIRED_ATTR(ls, ListString)
    .REQUIRED_ATTR(las, ListAscendString)
    .REQUIRED_ATTR(lb, ListBool)
    .REQUIRED_ATTR(lt, ListTensor)
    .REQUIRED_ATTR(by, Bytes)
    .REQUIRED_ATTR(lli, ListListInt)
    .REQUIRED_ATTR(ldt, ListType)
    .OP_END_FACTORY_REG(RequiredAttrTypes);"""

EXTREME_NUMBERS = """REG_OP(ExtremeNumbers)
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .ATTR(i_min, Int, (-9223372036854775807 - 1))
    .ATTR(i_max, Int, 9223372036854775807)
    .ATTR(li, ListInt, {(-9223372036854775807 - 1), 9223372036854775807})
    .ATTR(inf, Float, std::numeric_limits<float>::infinity())
    .ATTR(ninf, Float, -std::numeric_limits<float>::infinity())
    .ATTR(nan, Float, std::numeric_limits<float>::quiet_NaN())
    .ATTR(lf, ListFloat, {std::numeric_limits<float>::infinity(), 3.4e38, -1e-45})
    .OP_END_FACTORY_REG(ExtremeNumbers);"""

TWO_OPS = """REG_OP(First)
    .INPUT(x, "T")
    .OUTPUT(y, "T")
    .ATTR(axis, Int, 0)
    .DATATYPE(T, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(First);

REG_OP(Second)
    .INPUT(x, "T")
    .OUTPUT(y, "T")
    .ATTR(axis, Int, 1)
    .DATATYPE(T, TensorType({DT_INT32}))
    .OP_END_FACTORY_REG(Second);"""

NO_INPUTS = """REG_OP(NoInputs)
    .OUTPUT(y, TensorType({DT_FLOAT, DT_INT64}))
    .REQUIRED_ATTR(shape, ListInt)
    .ATTR(value, Float, 0.0)
    .OP_END_FACTORY_REG(NoInputs);

REG_OP(NoElements)
    .OP_END_FACTORY_REG(NoElements);"""

# An input and an output of one name (a ref pair); an attr may share it too.
REF_PAIR = """REG_OP(AssignAdd)
    .INPUT(ref, TensorType::NumberType())
    .INPUT(value, TensorType::NumberType())
    .OUTPUT(ref, TensorType::NumberType())
    .ATTR(value, Bool, false)
    .OP_END_FACTORY_REG(AssignAdd);"""

DTYPE_SPELLINGS = """REG_OP(DtypeSpellings)
    .INPUT(a, TensorType::ALL())
    .INPUT(b, TensorType::QuantifiedType())
    .INPUT(c, TensorType::OrdinaryType())
    .INPUT(d, TensorType::BasicType())
    .INPUT(e, TensorType::NumberType())
    .INPUT(f, TensorType::RealNumberType())
    .INPUT(g, TensorType::ComplexDataType())
    .INPUT(h, TensorType::IntegerDataType())
    .INPUT(i, TensorType::SignedDataType())
    .INPUT(j, TensorType::UnsignedDataType())
    .INPUT(k, TensorType::FloatingDataType())
    .INPUT(l, TensorType::IndexNumberType())
    .INPUT(m, TensorType::UnaryDataType())
    .INPUT(n, TensorType::FLOAT())
    .INPUT(o, TensorType({DT_HIFLOAT4, DT_FLOAT8_E4M3FN, DT_INT4, DT_UINT1}))
    .DYNAMIC_INPUT(p, "TList")
    .OUTPUT(y, "T1")
    .OUTPUT(z, "T3")
    .DATATYPE(T1, TensorType({DT_FLOAT, DT_FLOAT16}))
    .DATATYPE(T2, TensorType(DT_FLOAT))
    .DATATYPE(T3, Promote({"T1", "T2"}))
    .DATATYPE(T4, TensorType::RealNumberType())
    .DATATYPE(TList, ListTensorType(TensorType::BasicType()))
    .OP_END_FACTORY_REG(DtypeSpellings);"""

# The accessors GE pastes from element names exist and can be called.
ACCESSORS = EVERY_ELEMENT + """

inline void UseAccessors(Operator &src) {
  op::AnnotatedAddCustom op("node");
  AscendString name;
  op::AnnotatedAddCustom::name_in_x1(name);
  op::AnnotatedAddCustom::name_in_bias(name);
  op::AnnotatedAddCustom::name_out_output0(name);
  op::AnnotatedAddCustom::name_attr_eps(name);
  op::AnnotatedAddCustom::name_graph_then_branch(name);
  op::AnnotatedAddCustom::name_graph_branches(name);
  op.set_input_x1(src).set_input_bias(src);
  (void)op.get_input_desc_x1();
  (void)op.get_output_desc_output0();
  op.create_dynamic_input_xs(2).create_dynamic_output_ys(2);
  op.create_dynamic_subgraph_branches(3);
  (void)op.get_subgraph_builder_then_branch();
  op.set_attr_eps(1e-5f).set_attr_perm({1, 0}).set_attr_num_split(2);
  float eps = op.get_attr_eps();
  std::vector<int64_t> perm = op.get_attr_perm();
  DataType dt = op.get_attr_dt();
  (void)eps;
  (void)perm;
  (void)dt;
}"""

# Element names are only pasted and stringified, never expanded: keywords
# and macro names (errno, EOF, stdin) are fine, in GE as here.
ODD_NAMES = """REG_OP(OddNames)
    .INPUT(errno, "T")
    .INPUT(default, "T")
    .OUTPUT(EOF, "T")
    .OUTPUT(class, "T")
    .ATTR(int, Int, 0)
    .ATTR(stdin, Int, 0)
    .GRAPH(new)
    .DATATYPE(T, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(OddNames);"""

# What GE itself accepts, so the stand-in must too: a bare one-element brace
# list in DATATYPE (`auto` makes it an initializer_list<DataType>, which
# converts implicitly to TensorType) and an INPUT and a DYNAMIC_INPUT of one
# name (they paste no common member). gen-ops writes neither.
GE_LENIENCIES = """REG_OP(Lenient)
    .INPUT(x, "T")
    .DYNAMIC_INPUT(x, "T")
    .OUTPUT(y, "T")
    .DYNAMIC_OUTPUT(y, "T")
    .DATATYPE(T, {DT_FLOAT})
    .OP_END_FACTORY_REG(Lenient);"""

VALID = [
    pytest.param(in_ge(EVERY_ELEMENT), id="every-element-kind"),
    pytest.param(in_ge(EVERY_ATTR_TYPE), id="every-attr-type-ge-defaults"),
    pytest.param(in_ge(EMPTY_LISTS), id="empty-list-defaults"),
    pytest.param(in_ge(EVERY_REQUIRED_ATTR_TYPE), id="every-required-attr-type"),
    pytest.param(in_ge(EXTREME_NUMBERS, "#include <limits>\n"), id="int64-min-inf-nan"),
    pytest.param(in_ge(TWO_OPS), id="two-ops-one-translation-unit"),
    pytest.param(in_ge(NO_INPUTS), id="op-without-inputs"),
    pytest.param(in_ge(REF_PAIR), id="input-and-output-share-a-name"),
    pytest.param(in_ge(DTYPE_SPELLINGS), id="dtype-spellings"),
    pytest.param(in_ge(ACCESSORS), id="pasted-accessors"),
    pytest.param(
        in_ge(ODD_NAMES, "#include <cerrno>\n#include <cstdio>\n"),
        id="element-names-that-are-keywords-or-macros",
    ),
    pytest.param(in_ge(GE_LENIENCIES), id="ge-leniencies"),
]


@stand_ins
@pytest.mark.parametrize("text", VALID)
def test_valid_ge_grammar_compiles(tmp_path: Path, text: str, stand_in: str) -> None:
    result = compile_text(tmp_path, text, stand_in)
    assert result.returncode == 0, describe(result)


@stand_ins
def test_header_is_self_contained_and_guarded(tmp_path: Path, stand_in: str) -> None:
    text = '#include "graph/operator_reg.h"\n#include "graph/operator_reg.h"\n'
    result = compile_text(tmp_path, text, stand_in)
    assert result.returncode == 0, describe(result)


# --- the stand-in header: invalid spellings ----------------------------------


@dataclass(frozen=True)
class Invalid:
    """`bad` must fail with stderr matching `error`; `control` is the same
    translation unit with the fault corrected, and must compile. A case that
    `needs_macro` runs only where the C++ library defines that macro."""

    id: str
    control: str
    bad: str
    error: str
    needs_macro: str | None = None


def element(id: str, control: str, bad: str, error: str) -> Invalid:
    return Invalid(id, probe(control), probe(bad), error)


@functools.cache
def library_defines(macro: str) -> bool:
    text = (
        f"#include <string>\n#ifndef {macro}\n#error {macro} is not defined\n#endif\n"
    )
    with tempfile.TemporaryDirectory() as tmp:
        return compile_text(Path(tmp), text, "stand-in").returncode == 0


ARITY = r'macro "{}" passed 3 arguments, but takes just 2'
REDECLARED = r"cannot be overloaded"
INCOMPLETE = r"incomplete type .*NamedAttrs|NamedAttrs.* is incomplete"

INVALID = [
    # Dtype arguments: a bare brace list splits into several macro arguments.
    element(
        "bare-braces-in-INPUT",
        ".INPUT(x2, TensorType({DT_FLOAT, DT_FLOAT16}))",
        ".INPUT(x2, {DT_FLOAT, DT_FLOAT16})",
        ARITY.format("INPUT"),
    ),
    element(
        "bare-braces-in-DYNAMIC_OUTPUT",
        ".DYNAMIC_OUTPUT(ys, TensorType({DT_FLOAT, DT_FLOAT16}))",
        ".DYNAMIC_OUTPUT(ys, {DT_FLOAT, DT_FLOAT16})",
        ARITY.format("DYNAMIC_OUTPUT"),
    ),
    element(
        "bare-braces-in-DATATYPE",
        ".DATATYPE(U, TensorType({DT_FLOAT, DT_FLOAT16}))",
        ".DATATYPE(U, {DT_FLOAT, DT_FLOAT16})",
        ARITY.format("DATATYPE"),
    ),
    # DATATYPE's range must be a TensorType, ListTensorType or Promote.
    element(
        "DATATYPE-of-a-bare-dtype",
        ".DATATYPE(U, TensorType(DT_FLOAT))",
        ".DATATYPE(U, DT_FLOAT)",
        r"no matching function for call to .*DataTypeRegister",
    ),
    element(
        "DATATYPE-of-a-brace-list-of-ints",
        ".DATATYPE(U, TensorType({DT_FLOAT}))",
        ".DATATYPE(U, {0})",
        r"no matching function for call to .*DataTypeRegister",
    ),
    # Attr defaults must be of the attr's type.
    element(
        "Int-attr-with-a-string-default",
        ".ATTR(a, Int, 1)",
        '.ATTR(a, Int, "a")',
        r"invalid conversion from .const char\*. to .*OpInt",
    ),
    element(
        "Float-attr-with-a-string-default",
        ".ATTR(a, Float, 1.0)",
        '.ATTR(a, Float, "1.0")',
        r"cannot convert .const char\*. to .*OpFloat",
    ),
    element(
        "Type-attr-with-an-int-default",
        ".ATTR(a, Type, DT_INT32)",
        ".ATTR(a, Type, 3)",
        r"invalid conversion from .int. to .*(OpType|DataType)",
    ),
    element(
        "String-attr-with-a-number-default",
        '.ATTR(a, String, "1")',
        ".ATTR(a, String, 1)",
        r"conversion from .int. to non-scalar type .*OpString",
    ),
    element(
        # One element: two const char* would pick vector's iterator-pair
        # constructor, which GE accepts as well.
        "ListInt-attr-with-a-string-element",
        ".ATTR(a, ListInt, {1})",
        '.ATTR(a, ListInt, {"1"})',
        r"could not convert|invalid conversion from .const char\*.",
    ),
    element(
        "ListListInt-attr-with-a-flat-list",
        ".ATTR(a, ListListInt, {{1, 2}})",
        ".ATTR(a, ListListInt, {1, 2})",
        r"could not convert|conversion from .* to non-scalar type .*OpListListInt",
    ),
    element(
        "ListFloat-default-out-of-float-range",
        ".ATTR(a, ListFloat, {3.4e38})",
        ".ATTR(a, ListFloat, {3.5e38})",
        r"narrowing conversion",
    ),
    element(
        "Bytes-default-out-of-byte-range",
        ".ATTR(a, Bytes, {255})",
        ".ATTR(a, Bytes, {256})",
        r"narrowing conversion",
    ),
    element(
        # `Tensor({})` is ambiguous among Tensor's constructors, as in GE.
        "Tensor-attr-with-a-brace-default",
        ".ATTR(t, Tensor, Tensor())",
        ".ATTR(t, Tensor, {})",
        r"call of overloaded .Tensor\(<brace-enclosed initializer list>\). is ambiguous",
    ),
    element(
        "ATTR-without-a-default",
        ".ATTR(a, Int, 0)",
        ".ATTR(a, Int)",
        r"expected primary-expression",
    ),
    # Attr type names must be GE's.
    element(
        "unknown-ATTR-type",
        ".ATTR(a, Int, 1)",
        ".ATTR(a, Integer, 1)",
        r"OpInteger",
    ),
    element(
        "unknown-REQUIRED_ATTR-type",
        ".REQUIRED_ATTR(a, String)",
        ".REQUIRED_ATTR(a, Str)",
        r"OpStr\b",
    ),
    element(
        "ListListFloat-is-no-GE-type",
        ".ATTR(a, ListListInt, {{1}})",
        ".ATTR(a, ListListFloat, {{1.0}})",
        r"OpListListFloat",
    ),
    # Element names: one member name per element kind.
    element(
        "two-INPUTs-of-one-name",
        '.INPUT(x2, "T")',
        '.INPUT(x, "T")',
        REDECLARED + r".*name_in_x",
    ),
    element(
        "INPUT-and-OPTIONAL_INPUT-of-one-name",
        '.OPTIONAL_INPUT(x2, "T")',
        '.OPTIONAL_INPUT(x, "T")',
        REDECLARED + r".*name_in_x",
    ),
    element(
        "two-DYNAMIC_INPUTs-of-one-name",
        '.DYNAMIC_INPUT(xs, "T") .DYNAMIC_INPUT(xs2, "T")',
        '.DYNAMIC_INPUT(xs, "T") .DYNAMIC_INPUT(xs, "T")',
        REDECLARED + r".*create_dynamic_input_xs",
    ),
    element(
        "two-OUTPUTs-of-one-name",
        '.OUTPUT(y2, "T")',
        '.OUTPUT(y, "T")',
        REDECLARED + r".*name_out_y",
    ),
    element(
        "two-ATTRs-of-one-name",
        ".ATTR(a, Int, 1) .ATTR(b, Float, 2.0)",
        ".ATTR(a, Int, 1) .ATTR(a, Float, 2.0)",
        REDECLARED + r".*name_attr_a",
    ),
    element(
        "ATTR-and-REQUIRED_ATTR-of-one-name",
        ".ATTR(a, Int, 1) .REQUIRED_ATTR(b, Int)",
        ".ATTR(a, Int, 1) .REQUIRED_ATTR(a, Int)",
        REDECLARED + r".*name_attr_a",
    ),
    element(
        "GRAPH-and-DYNAMIC_GRAPH-of-one-name",
        ".GRAPH(g) .DYNAMIC_GRAPH(gs)",
        ".GRAPH(g) .DYNAMIC_GRAPH(g)",
        REDECLARED + r".*name_graph_g",
    ),
    element(
        "two-DATATYPEs-of-one-name",
        ".DATATYPE(U, TensorType({DT_INT32}))",
        ".DATATYPE(T, TensorType({DT_INT32}))",
        REDECLARED + r".*__datatype_T",
    ),
    element(
        # GRAPH(g) pastes get_subgraph_builder_g, and so does GRAPH(builder_g)
        # (get_subgraph_<x>), with another return type.
        "GRAPHs-g-and-builder_g",
        ".GRAPH(g) .GRAPH(builder_h)",
        ".GRAPH(g) .GRAPH(builder_g)",
        REDECLARED + r".*get_subgraph_builder_g",
    ),
    # Names GE pastes its private methods from (__<Op>, __attr_<x>) must not
    # be system macros: glibc defines __P and __attr_access.
    Invalid(
        "op-type-pasted-into-a-system-macro",
        in_ge('REG_OP(Q)\n    .OUTPUT(y, "T")\n    .OP_END_FACTORY_REG(Q);'),
        in_ge('REG_OP(P)\n    .OUTPUT(y, "T")\n    .OP_END_FACTORY_REG(P);'),
        r"expected unqualified-id",
        needs_macro="__P",
    ),
    Invalid(
        "attr-name-pasted-into-a-system-macro",
        probe(".ATTR(acc, Int, 0)"),
        probe(".ATTR(access, Int, 0)"),
        r"expected unqualified-id",
        needs_macro="__attr_access",
    ),
    # An op type named like a GE type hides that type in namespace op: in its
    # own class and in every op after it.
    Invalid(
        "op-type-that-hides-TensorType",
        in_ge(
            TWO_OPS.replace("REG_OP(First)", "REG_OP(TensorTypes)").replace(
                "OP_END_FACTORY_REG(First)", "OP_END_FACTORY_REG(TensorTypes)"
            )
        ),
        in_ge(
            TWO_OPS.replace("REG_OP(First)", "REG_OP(TensorType)").replace(
                "OP_END_FACTORY_REG(First)", "OP_END_FACTORY_REG(TensorType)"
            )
        ),
        r"no matching function for call to .*DataTypeRegister\(const char \[2\], "
        r"ge::op::TensorType&\)",
    ),
    # OP_END_FACTORY_REG must name the op of its REG_OP.
    Invalid(
        "OP_END_FACTORY_REG-of-an-undeclared-name",
        probe("", end="Probe"),
        probe("", end="Prob"),
        r"'Prob' was not declared",
    ),
    Invalid(
        "OP_END_FACTORY_REG-of-another-op",
        in_ge(TWO_OPS),
        in_ge(
            TWO_OPS.replace("OP_END_FACTORY_REG(Second)", "OP_END_FACTORY_REG(First)")
        ),
        r"static assertion failed: (OP_END_FACTORY_REG\(First\) must name the op"
        r"|The class name entered into the OP_END_FACTORY_REG needs to be the same)",
    ),
    # GE's external headers only declare NamedAttrs (operator.h), so no attr of
    # type NamedAttrs or ListNamedAttrs compiles, whatever its default: the
    # getter returns an incomplete type, and a vector of one is never complete.
    element(
        "NamedAttrs-ATTR",
        ".ATTR(t, Tensor, Tensor())",
        ".ATTR(na, NamedAttrs, NamedAttrs())",
        INCOMPLETE,
    ),
    element(
        "NamedAttrs-ATTR-with-an-empty-brace-default",
        ".ATTR(t, Tensor, Tensor())",
        ".ATTR(na, NamedAttrs, {})",
        INCOMPLETE,
    ),
    element(
        "NamedAttrs-REQUIRED_ATTR",
        ".REQUIRED_ATTR(t, Tensor)",
        ".REQUIRED_ATTR(na, NamedAttrs)",
        INCOMPLETE,
    ),
    element(
        "ListNamedAttrs-ATTR",
        ".ATTR(lt, ListTensor, {})",
        ".ATTR(lna, ListNamedAttrs, {})",
        INCOMPLETE,
    ),
    element(
        "ListNamedAttrs-REQUIRED_ATTR",
        ".REQUIRED_ATTR(lt, ListTensor)",
        ".REQUIRED_ATTR(lna, ListNamedAttrs)",
        INCOMPLETE,
    ),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in INVALID])
@stand_ins
def test_invalid_ge_grammar_fails_for_the_intended_reason(
    tmp_path: Path, case: Invalid, stand_in: str
) -> None:
    if case.needs_macro and not library_defines(case.needs_macro):
        pytest.skip(f"the C++ library here does not define {case.needs_macro}")
    control = compile_text(tmp_path, case.control, stand_in, "control.cc")
    assert control.returncode == 0, "the control must compile:\n" + describe(control)
    bad = compile_text(tmp_path, case.bad, stand_in, "bad.cc")
    assert bad.returncode != 0, "g++ accepted:\n" + case.bad
    assert re.search(
        case.error, bad.stderr
    ), f"g++ failed, but stderr does not match {case.error!r}:\n{bad.stderr}"
