"""Every diagnostic of ``gen-ops import`` (the I-codes), each pinned to the
place it points at: ``header:line:col``, 1-based.

CASES holds one or more small headers per code. Each case is written into a
temporary directory and imported through the library (``driver.plan``).
The code must be reported at exactly that place, on one printable line; an
error must keep its op (or its whole header, for I1xx) out of the import,
and a warning must not. The docs tests run every example of the I-code
sections of docs/diagnostics.md."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from textwrap import dedent

import pytest

from gen_ops.base.diagnostics import CODES, Severity
from gen_ops.commands import importing
from gen_ops.importer import driver
from gen_ops.importer.reimport import RECORD, record_text

REPO = Path(__file__).resolve().parents[2]
IMPORT_CODES = {code for code in CODES if code.startswith("I")}

Files = dict[str, str | bytes]


@dataclass(frozen=True)
class Case:
    code: str
    line: int
    col: int
    what: str
    files: Files
    where: str = "ops.h"
    args: tuple[str, ...] = ("ops.h",)  # the paths (and options) imported
    op: str | None = "A"  # the op the diagnostic is about (None: a header's)
    kept: tuple[str, ...] = ()  # ops still imported despite an error
    dirs: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return f"{self.code}-{re.sub(r'[^A-Za-z0-9]+', '-', self.what).strip('-')}"


def case(code: str, pos: str, what: str, text: str | Files, **extra: object) -> Case:
    files: Files = {"ops.h": text} if isinstance(text, str) else dict(text)
    files = {
        name: dedent(body).lstrip("\n") if isinstance(body, str) else body
        for name, body in files.items()
    }
    line, col = (int(part) for part in pos.split(":"))
    return Case(code, line, col, what, files, **extra)  # type: ignore[arg-type]


def op(body: str, name: str = "A") -> str:
    """A header with one op whose chain is ``body`` (REG_OP on line 3)."""
    chain = "".join(f"    {line}\n" for line in dedent(body).strip().splitlines())
    return (
        '#include "graph/operator_reg.h"\nnamespace ge {\n'
        f"REG_OP({name})\n{chain}"
        f"    .OP_END_FACTORY_REG({name})\n}}  // namespace ge\n"
    )


SIMPLE = """
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
"""

# What an earlier import wrote (the import record's base, Note [Import
# record]), and the team's edits of it: a conflicting dtype, and a doc.
BASE = """\
op: A
module: custom
inputs:
  - {name: x, dtype: float32}
outputs:
  - {name: y, dtype: float32}
"""
CHANGED_X = ".INPUT(x, TensorType({DT_FLOAT16}))\n.OUTPUT(y, TensorType({DT_FLOAT}))"
RECORDED = {f"out/{RECORD}": record_text({"custom/a.yaml": BASE})}
TAMPERED = {
    f"out/{RECORD}": record_text({"custom/a.yaml": BASE}).replace(
        "dtype: float32}\\noutputs", "dtype: int64}\\noutputs"
    )
}

# fmt: off
CASES: list[Case] = [
    # -- I1xx: the header is not imported ---------------------------------
    case("I101", "1:1", "missing path", {}, where="missing.h", args=("missing.h",),
         op=None),
    case("I101", "8:7", "not UTF-8",
         {"ops.h": op(SIMPLE).encode() + b"// caf\xe9\n"}, op=None),
    case("I102", "1:1", "directory without headers", {"hdrs/notes.txt": "x\n"},
         where="hdrs", args=("hdrs",), op=None),
    case("I102", "1:1", "empty directory", {}, where="hdrs", args=("hdrs",),
         dirs=("hdrs",), op=None),
    case("I103", "8:1", "unterminated comment",
         op(SIMPLE) + "/* never closed\nREG_OP(B)\n", op=None),
    case("I104", "6:25", "unterminated string", op("""
        .INPUT(x, TensorType({DT_FLOAT}))
        .OUTPUT(y, TensorType({DT_FLOAT}))
        .ATTR(mode, String, "fast)
    """), op=None),
    case("I104", "4:22", "unterminated character literal",
         op(".ATTR(c, String, 'a)"), op=None),
    case("I105", "4:11", "missing parenthesis", op("""
        .INPUT(x, TensorType({DT_FLOAT})
        .OUTPUT(y, TensorType({DT_FLOAT}))
    """), op=None),
    case("I105", "3:13", "struct brace never closed", """
        #include "graph/operator_reg.h"
        namespace ge {
        struct Opts {
        REG_OP(A)
            .INPUT(x, TensorType({DT_FLOAT}))
            .OP_END_FACTORY_REG(A)
        }  // namespace ge
    """, op=None),
    case("I105", "4:1", "closing brace without an opening one",
         "namespace ge {\n}\n\n}\n", op=None),
    case("I106", "2:14", "namespace never closed", """
        #include "graph/operator_reg.h"
        namespace ge {
        REG_OP(A)
            .INPUT(x, TensorType({DT_FLOAT}))
            .OP_END_FACTORY_REG(A)
    """, op=None),
    case("I106", "1:18", "nested namespace never closed",
         "namespace ge::op {\n", op=None),
    case("I107", "1:1", "unterminated ifndef", "#ifndef OPS_H_\n#define OPS_H_\n"
         + op(SIMPLE), op=None),
    case("I107", "8:1", "endif without if", op(SIMPLE) + "#endif\n", op=None),
    case("I107", "8:1", "else without if", op(SIMPLE) + "# else\n", op=None),
    case("I108", "1:1", "header stem is not a module name",
         {"nn-norm.h": op(SIMPLE)}, where="nn-norm.h",
         args=("nn-norm.h", "--module-per-header"), op=None),
    case("I108", "1:1", "header stem is the built-in module",
         {"math.h": op(SIMPLE)}, where="math.h",
         args=("math.h", "--module-per-header"), op=None),
    # -- I2xx: the op is not imported ----------------------------------------
    case("I201", "5:6", "end names another op", """
        #include "graph/operator_reg.h"
        namespace ge {
        REG_OP(A)
            .INPUT(x, TensorType({DT_FLOAT}))
            .OP_END_FACTORY_REG(B)
        REG_OP(C)
            .INPUT(x, TensorType({DT_FLOAT}))
            .OP_END_FACTORY_REG(C)
        }  // namespace ge
    """, kept=("C",)),
    case("I201", "4:6", "unknown element", op(".INPUTS(x, TensorType({DT_FLOAT}))")),
    case("I201", "4:6", "too few arguments", op(".INPUT(x)")),
    case("I201", "4:6", "too many arguments", op(".GRAPH(g, h)")),
    case("I201", "4:6", "empty argument", op(".INPUT(x, )")),
    case("I201", "4:12", "first argument not a name",
         op('.INPUT("x", TensorType({DT_FLOAT}))')),
    case("I201", "3:8", "never ended", """
        namespace ge {
        REG_OP(B) .INPUT(x, TensorType({DT_FLOAT})) .OP_END_FACTORY_REG(B)
        REG_OP(A)
            .INPUT(x, TensorType({DT_FLOAT}))
        REG_OP(C) .INPUT(x, TensorType({DT_FLOAT})) .OP_END_FACTORY_REG(C)
        }
    """, kept=("B", "C")),
    case("I201", "4:5", "a token that is not an element", op("; .INPUT(x, T)")),
    case("I201", "3:1", "REG_OP without a name", "namespace ge {\n\nREG_OP(1)\n}\n",
         op=None),
    case("I202", "4:27", "DT_FLOAT64",
         op(".INPUT(x, TensorType({DT_FLOAT64}))")),
    case("I202", "4:27", "DT_FLOAT32 without --fix-dtypes",
         op(".INPUT(x, TensorType({DT_FLOAT32}))")),
    case("I202", "4:36", "lower-case name", op(".INPUT(x, TensorType({DT_INT8, float16}))")),
    case("I202", "4:27", "named set in upper case",
         op(".INPUT(x, TensorType({REALNUMBERTYPE}))")),
    case("I202", "4:27", "a marker", op(".INPUT(x, TensorType({DT_UNDEFINED}))")),
    case("I202", "4:21", "Type default", op(".ATTR(dt, Type, DT_FLOAT64)")),
    case("I202", "4:20", "Int default", op(".ATTR(dt, Int, DT_BFLOAT16)")),
    case("I203", "4:15", "arithmetic", op(".INPUT(x, TensorType({DT_FLOAT} + 1))")),
    case("I203", "4:15", "empty TensorType", op(".INPUT(x, TensorType())")),
    case("I203", "4:15", "Promote in an input", op('.INPUT(x, Promote({"a"}))')),
    case("I203", "5:18", "Promote of names that are not strings",
         op(".INPUT(x, \"T\")\n.DATATYPE(T, Promote({a, b}))")),
    case("I204", "4:15", "quoted variable not declared", op('.INPUT(x, "T")')),
    case("I204", "4:15", "bare variable not declared", op(".INPUT(x, TIndex)")),
    case("I204", "7:32", "Promote of an input's name",
         op('.INPUT(x1, "T")\n.OUTPUT(y, "P")\n.DATATYPE(T, TensorType({DT_FLOAT}))'
            '\n.DATATYPE(P, Promote({"T", "x1"}))')),
    case("I205", "4:14", "unknown attr type", op(".ATTR(x, Float32, 1.0)")),
    case("I206", "3:8", "declared differently in two headers", {
        "a.h": op(".INPUT(x, TensorType({DT_FLOAT}))"),
        "b.h": op(".INPUT(x, TensorType({DT_FLOAT16}))"),
    }, where="b.h", args=("a.h", "b.h")),
    case("I206", "6:8", "declared differently twice in one header", """
        namespace ge {
        REG_OP(A)
            .INPUT(x, TensorType({DT_FLOAT}))
            .OP_END_FACTORY_REG(A)

        REG_OP(A)
            .INPUT(x, TensorType({DT_INT32}))
            .OP_END_FACTORY_REG(A)
        }
    """),
    case("I207", "3:8", "spec file exists with other content", {
        "ops.h": op(SIMPLE), "out/custom/a.yaml": "op: A\n",
    }),
    case("I208", "3:8", "op type the runtime reserves",
         op(SIMPLE, name="Data") + op(SIMPLE, name="Keep").split("namespace ge {\n")[1]
         .join(["namespace ge {\n", ""]), op="Data", kept=("Keep",)),
    case("I208", "3:8", "op type Variable",
         op(SIMPLE, name="Variable"), op="Variable"),
    case("I207", "3:8", "two ops with one spec file", """
        namespace ge {
        REG_OP(AddX) .INPUT(x, TensorType({DT_FLOAT})) .OP_END_FACTORY_REG(AddX)
        REG_OP(Add_X) .INPUT(x, TensorType({DT_FLOAT})) .OP_END_FACTORY_REG(Add_X)
        }
    """, op="Add_X", kept=("AddX",)),
    case("I209", "4:15", "dtype changed in the file and in the header", {
        "ops.h": op(CHANGED_X), **RECORDED,
        "out/custom/a.yaml": BASE.replace("{name: x, dtype: float32}",
                                          "{name: x, dtype: int8}"),
    }, where="out/custom/a.yaml"),
    case("I209", "8:1", "edited file is no longer YAML", {
        "ops.h": op(CHANGED_X), **RECORDED,
        "out/custom/a.yaml": BASE + "attrs: [\n",
    }, where="out/custom/a.yaml"),
    case("I210", "5:3", "record entry edited by hand", {
        "ops.h": op(SIMPLE), **TAMPERED,
    }, where=f"out/{RECORD}", op=None),
    case("I210", "1:1", "record is not an object", {
        "ops.h": op(SIMPLE), f"out/{RECORD}": "[]\n",
    }, where=f"out/{RECORD}", op=None),
    # -- I3xx: imported, normalised ----------------------------------------
    case("I301", "4:15", "named set without TensorType and parentheses",
         op(".INPUT(x, TensorType({FloatingDataType, DT_BF16}))")),
    case("I301", "4:15", "TensorType without braces",
         op(".INPUT(x, TensorType(DT_FLOAT, DT_INT32))")),
    case("I301", "4:15", "TensorType without parentheses",
         op(".INPUT(x, TensorType{DT_FLOAT})")),
    case("I301", "4:15", "bare dtype", op(".INPUT(x, DT_INT32)")),
    case("I301", "4:15", "missing brace", op(".INPUT(x, TensorType({DT_FLOAT))")),
    case("I301", "4:15", "repeated dtype",
         op(".INPUT(x, TensorType({DT_FLOAT, DT_FLOAT}))")),
    case("I301", "4:15", "unquoted type variable",
         op(".INPUT(x, T)\n.DATATYPE(T, TensorType({DT_FLOAT}))")),
    case("I301", "5:18", "in DATATYPE", op(".INPUT(x, \"T\")\n.DATATYPE(T, DT_FLOAT)")),
    case("I302", "4:27", "DT_FLOAT32 with --fix-dtypes",
         op(".INPUT(x, TensorType({DT_FLOAT32}))"), args=("ops.h", "--fix-dtypes")),
    case("I302", "4:27", "DT_FLOAT64 with --fix-dtypes",
         op(".INPUT(x, TensorType({DT_FLOAT64}))"), args=("ops.h", "--fix-dtypes")),
    case("I302", "4:27", "bare float16 with --fix-dtypes",
         op(".INPUT(x, TensorType({float16}))"), args=("ops.h", "--fix-dtypes")),
    case("I202", "4:27", "bare float16 without --fix-dtypes",
         op(".INPUT(x, TensorType({float16}))")),
    case("I202", "4:27", "DT_COMPLEXT64 with --fix-dtypes",
         op(".INPUT(x, TensorType({DT_COMPLEXT64}))"), args=("ops.h", "--fix-dtypes")),
    case("I203", "4:15", "named set in the wrong case",
         op(".INPUT(x, TensorType::REALNUMBERTYPE())"), args=("ops.h", "--fix-dtypes")),
    case("I302", "4:21", "DT_BFLOAT16 default with --fix-dtypes",
         op(".ATTR(dt, Type, DT_BFLOAT16)"), args=("ops.h", "--fix-dtypes")),
    case("I303", "4:14", "AscendString", op('.ATTR(s, AscendString, "a")')),
    case("I303", "4:23", "ListAcendString", op(".REQUIRED_ATTR(s, ListAcendString)")),
    case("I304", "4:23", "Int default DT_INT32", op(".ATTR(dtype, Int, DT_INT32)")),
    case("I304", "4:28", "ListInt default of enumerators",
         op(".ATTR(dtypes, ListInt, {DT_FLOAT, DT_INT64})")),
    case("I305", "4:21", "DataType(-1)", op(".ATTR(dt, Type, ge::DataType(-1))")),
    case("I305", "4:21", "float out of float32", op(".ATTR(f, Float, 1e39f)")),
    case("I305", "4:19", "int expression", op(".ATTR(i, Int, 1 << 3)")),
    case("I305", "4:22", "tensor from data", op(".ATTR(t, Tensor, Tensor({}))")),
    case("I305", "4:24", "unbalanced list", op(".ATTR(li, ListInt, {1, {2})")),
    case("I306", "3:8", "preferred last", {
        "a.h": op(".INPUT(x, TensorType({DT_FLOAT}))"),
        "b.h": op(".INPUT(x, TensorType({DT_FLOAT16}))"),
    }, where="a.h", args=("a.h", "b.h", "--prefer", "LAST")),
    case("I306", "3:8", "preferred by path", {
        "a.h": op(".INPUT(x, TensorType({DT_FLOAT}))"),
        "b.h": op(".INPUT(x, TensorType({DT_FLOAT16}))"),
    }, where="b.h", args=("a.h", "b.h", "--prefer", "a.h")),
    case("I307", "6:8", "doc names no input", """
        namespace ge {
        /**
         * @brief A.
         * @par Inputs:
         * @li x: The input.
         * @li z: Not an input.
         */
        REG_OP(A)
            .INPUT(x, TensorType({DT_FLOAT}))
            .OP_END_FACTORY_REG(A)
        }
    """),
    case("I309", "4:23", "Bool default 0", op(".ATTR(init, Bool, 0)")),
    case("I309", "4:23", "Bool default 2", op(".ATTR(init, Bool, 2)")),
    case("I310", "4:30", "ListFloat of quotients",
         op(".ATTR(scale, ListFloat, {1.f / 4, 1.f / 8})")),
    case("I310", "4:21", "Float with parentheses", op(".ATTR(r, Float, -(1 + 2) * 0.5)")),
    case("I311", "4:27", "ListInt ge::UNKNOWN_RANK",
         op(".ATTR(shape, ListInt, ge::UNKNOWN_RANK)")),
    case("I311", "4:25", "Int UNKNOWN_DIM", op(".ATTR(dim, Int, ge::UNKNOWN_DIM)")),
    case("I312", "1:1", "two headers with one stem", {
        "nn/ops.h": op(SIMPLE), "cv/ops.h": op(SIMPLE, name="B"),
    }, where="cv/ops.h", args=("nn", "cv", "--module-per-header"), op=None,
       kept=("A", "B")),
    case("I305", "4:21", "Float expression of a function",
         op(".ATTR(r, Float, sqrt(2.f))")),
    case("I305", "4:21", "Float expression dividing by zero",
         op(".ATTR(r, Float, 1.f / 0)")),
    case("I305", "4:27", "ListInt named constant GE lacks",
         op(".ATTR(shape, ListInt, ge::KNOWN_RANK)")),
    case("I308", "4:35", "full-width comma",
         op(".INPUT(x, TensorType({DT_FLOAT\uff0cDT_INT32}))")),
    case("I308", "4:13", "full-width comma between arguments",
         op(".INPUT(x\uff0cTensorType({DT_FLOAT}))")),
]
# fmt: on


def names_op(code: str) -> bool:
    """I1xx, I308 and I312 are about a header's text; the rest about one op,
    and their messages start with it."""
    return not code.startswith("I1") and code not in ("I308", "I312")


def run(item: Case, workdir: Path) -> driver.Result:
    for name, body in item.files.items():
        path = workdir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            path.write_bytes(body)
        else:
            path.write_text(body, encoding="utf-8")
    for name in item.dirs:
        (workdir / name).mkdir(parents=True, exist_ok=True)
    args = importing.parser().parse_args([*item.args, "--out", "out", "--jobs", "1"])
    return driver.plan(
        driver.Options(
            paths=tuple(args.paths),
            out=args.out,
            module=args.module,
            module_per_header=args.module_per_header,
            fix_dtypes=args.fix_dtypes,
            prefer=tuple(args.prefer),
            overwrite=args.overwrite,
            jobs=1,
        )
    )


def listing(result: driver.Result) -> str:
    return "\n".join(d.format() for d in result.diagnostics)


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("item", CASES, ids=lambda c: c.id)
def test_diagnostic_position(item: Case, workdir: Path) -> None:
    result = run(item, workdir)
    place = f"{item.where}:{item.line}:{item.col}"
    found = [
        d for d in result.diagnostics if d.code == item.code and str(d.span) == place
    ]
    assert found, f"no {item.code} at {place}; got:\n{listing(result)}"
    for d in found:
        text = d.format().replace("\n  hint: ", " ")
        assert text.isprintable(), repr(text)
        assert d.hint, "every diagnostic says how to fix it"
        if item.op is not None and names_op(item.code):
            assert d.message.startswith(f"{item.op}: "), d.message


@pytest.mark.parametrize("item", CASES, ids=lambda c: c.id)
def test_what_is_imported(item: Case, workdir: Path) -> None:
    """An error keeps its op (its header, for I1xx) out; a warning keeps
    nothing out."""
    result = run(item, workdir)
    imported = sorted(f.op.op_type for f in result.files)
    if CODES[item.code].severity is Severity.ERROR:
        assert item.op not in imported or item.op is None
        assert imported == sorted(item.kept), listing(result)
    else:
        assert not result.errors, listing(result)
        want = sorted(item.kept) if item.op is None else [item.op]
        assert imported == want, listing(result)


# Near misses: each header must import without the code (nor any other
# diagnostic): a negative test per code that normalises or refuses a form.
QUIET: list[tuple[str, str, Files, tuple[str, ...]]] = [
    (
        "I209",
        "the file and the header changed different fields",
        {
            "ops.h": op(CHANGED_X),
            **RECORDED,
            "out/custom/a.yaml": BASE + "doc: Edited.\n",
        },
        ("ops.h",),
    ),
    (
        "I210",
        "a record the import wrote",
        {"ops.h": op(SIMPLE), **RECORDED, "out/custom/a.yaml": BASE},
        ("ops.h",),
    ),
    (
        "I208",
        "an op type near a reserved one",
        {"ops.h": op(SIMPLE, name="DataLike")},
        ("ops.h",),
    ),
    ("I309", "Bool written true", {"ops.h": op(".ATTR(init, Bool, true)")}, ("ops.h",)),
    (
        "I310",
        "Float literal with a sign",
        {"ops.h": op(".ATTR(r, Float, -0.25f)")},
        ("ops.h",),
    ),
    (
        "I310",
        "ListFloat of literals",
        {"ops.h": op(".ATTR(r, ListFloat, {0.25, 1e-5f})")},
        ("ops.h",),
    ),
    ("I311", "ListInt literal", {"ops.h": op(".ATTR(s, ListInt, {-2})")}, ("ops.h",)),
    (
        "I312",
        "two stems",
        {"nn/ops.h": op(SIMPLE), "cv/cv_ops.h": op(SIMPLE, "B")},
        ("nn", "cv", "--module-per-header"),
    ),
    (
        "I302",
        "DT_FLOAT with --fix-dtypes",
        {"ops.h": op(".INPUT(x, TensorType({DT_FLOAT, DT_DOUBLE}))")},
        ("ops.h", "--fix-dtypes"),
    ),
]


@pytest.mark.parametrize(
    "code, what, files, args", QUIET, ids=[f"{c}-{w}" for c, w, _, _ in QUIET]
)
def test_quiet(
    code: str, what: str, files: Files, args: tuple[str, ...], workdir: Path
) -> None:
    result = run(case(code, "1:1", what, files, args=args), workdir)
    assert not result.diagnostics, listing(result)
    assert result.files


def test_every_import_code_has_a_case() -> None:
    assert {c.code for c in CASES} == IMPORT_CODES


def test_case_ids_are_unique() -> None:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))


def test_import_codes_by_range() -> None:
    """I1xx and I2xx are errors, I3xx warnings (docs/diagnostics.md)."""
    for code in IMPORT_CODES:
        want = Severity.WARNING if code.startswith("I3") else Severity.ERROR
        assert CODES[code].severity is want, code


# -- docs/diagnostics.md -----------------------------------------------------

DOCS = REPO / "docs" / "diagnostics.md"


def doc_sections() -> dict[str, str]:
    parts = re.split(r"^### ([A-Z]\d{3})\b.*$", DOCS.read_text("utf-8"), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def test_docs_have_a_section_per_import_code() -> None:
    text = DOCS.read_text(encoding="utf-8")
    headings = re.findall(r"^### (I\d{3})\b(.*)$", text, flags=re.M)
    codes = [code for code, _ in headings]
    assert len(codes) == len(set(codes))
    assert set(codes) == IMPORT_CODES
    for code, title in headings:
        assert f"{code}{title}" == f"{code} {CODES[code].title}"


def _blocks(section: str) -> list[tuple[str, str]]:
    return re.findall(r"^```(\w+)\n(.*?)^```$", section, flags=re.M | re.S)


@pytest.mark.parametrize("code", sorted(IMPORT_CODES))
def test_docs_example_is_real(
    code: str, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each I-code's example, run, prints what the docs show under it.

    ``c`` blocks are headers (a first line ``// name.h`` names the file,
    else ``ops.h``), ``yaml`` and ``json`` blocks whose first line is
    ``# path`` are files that exist before the run. A ``text`` block is the output of
    ``gen-ops import <headers> --out specs``; a ``console`` block gives its
    commands (``$ ...``) and their output. Summary lines are not compared
    (they hold the run time)."""
    blocks = _blocks(doc_sections()[code])
    headers = []
    for kind, body in blocks:
        if kind not in ("c", "yaml", "json"):
            continue
        first, _, rest = body.partition("\n")
        named = re.fullmatch(r"(?://|#) (\S+)", first)
        name = named.group(1) if named else "ops.h"
        target = workdir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(rest if named else body, encoding="utf-8")
        if kind == "c":
            headers.append(name)
    (workdir / "empty").mkdir()
    shown = [body for kind, body in blocks if kind in ("text", "console")]
    assert len(shown) == 1, code
    if any(kind == "console" for kind, _ in blocks):
        script = shown[0]
        commands = re.findall(r"^\$ (.*)$", script, flags=re.M)
        expected = [line for line in script.splitlines() if not line.startswith("$ ")]
    else:
        commands = ["gen-ops import " + " ".join(headers) + " --out specs"]
        expected = shown[0].splitlines()
    printed: list[str] = []
    for command in commands:
        words = shlex.split(command)
        assert words[:2] == ["gen-ops", "import"], command
        from gen_ops.cli import main

        main(words[1:] + ["--jobs", "1"])
        captured = capsys.readouterr()
        printed += (captured.err + captured.out).splitlines()
    keep = [line for line in printed if not line.startswith("gen-ops import: ")]
    want = [line for line in expected if not line.startswith("gen-ops import: ")]
    assert keep == want
