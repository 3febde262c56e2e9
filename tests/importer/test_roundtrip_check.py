"""``gen-ops roundtrip``: every R-code, located in both headers; the exit
statuses; the rendered directory; the header corpus.

A difference comes from a header gen-ops cannot render identically (CASES),
or from a test-only alteration of the parsed model (ALTERED): the header's
op is imported, changed (``dataclasses.replace``), written as a spec by the
importer's own writer, and handed to ``roundtrip.check_op``, which renders
it with gen-ops' renderer, imports the rendered header with the importer
and compares it with the unchanged op. Nothing of ours is replaced. Each
diagnostic must stand at its place in the original header, name its place
in the rendered header, and that place must hold the element's name (or
its type, or its default, or the REG_OP name of an op that lacks it).

The corpus (tests/importer/headers) is compared byte for byte with
tests/importer/expected/roundtrip.txt; after an intended change:

    .venv/bin/python tests/importer/test_roundtrip_check.py --update
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from textwrap import dedent
from typing import Any

import pytest

from ge_ir.attrs import AttrType
from gen_ops.base.diagnostics import CODES, Diagnostic, Severity, Sink
from gen_ops.cli import main
from gen_ops.importer import roundtrip
from gen_ops.importer.driver import import_header
from gen_ops.importer.headers import HeaderFile
from gen_ops.importer.model import (
    Default,
    DtypeList,
    ImportedOp,
    NamedSet,
    Number,
)
from gen_ops.importer.yaml_writer import spec_text

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
EXPECTED = HERE / "expected" / "roundtrip.txt"
ROUNDTRIP_CODES = {code for code in CODES if code.startswith("R")}
# A place in the message: the rendered header's file:line:col.
RENDERED_PLACE = re.compile(r"(rendered/\S+\.h):(\d+):(\d+)")


def header(body: str, name: str = "A") -> str:
    """A header with one op whose chain is ``body`` (REG_OP on line 3,
    its first element on line 4)."""
    chain = "".join(f"    {line}\n" for line in dedent(body).strip().splitlines())
    return (
        '#include "graph/operator_reg.h"\nnamespace ge {\n'
        f"REG_OP({name})\n{chain}"
        f"    .OP_END_FACTORY_REG({name})\n}}  // namespace ge\n"
    )


BASE = header("""
    .INPUT(x, "T")
    .OPTIONAL_INPUT(bias, TensorType({DT_FLOAT}))
    .OUTPUT(y, "T")
    .REQUIRED_ATTR(axis, Int)
    .ATTR(eps, Float, 1e-5f)
    .GRAPH(body)
    .DATATYPE(T, TensorType({DT_FLOAT, DT_FLOAT16}))
""")


@dataclass(frozen=True)
class Case:
    """``code`` at ``ops.h:<here>``, where the text starts with ``mine``,
    naming ``rendered/...:<there>``, where it starts with ``theirs``
    (nothing there: no place in the rendered header)."""

    code: str
    here: str
    mine: str
    there: str
    theirs: str
    what: str
    text: str
    change: Callable[[ImportedOp], ImportedOp] | None = None

    @property
    def id(self) -> str:
        return f"{self.code}-{re.sub(r'[^A-Za-z0-9]+', '-', self.what).strip('-')}"


def shape(**fields: Callable[[Any], Any]) -> Callable[[ImportedOp], ImportedOp]:
    """A change of the op's shape: each field a function of the old value."""

    def change(op: ImportedOp) -> ImportedOp:
        new = {k: f(getattr(op.shape, k)) for k, f in fields.items()}
        return dataclasses.replace(op, shape=dataclasses.replace(op.shape, **new))

    return change


def at(index: int, **fields: Any) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    """A change of item ``index`` of a tuple of dataclasses."""

    def change(items: tuple[Any, ...]) -> tuple[Any, ...]:
        item = dataclasses.replace(items[index], **fields)
        return items[:index] + (item,) + items[index + 1 :]

    return change


# fmt: off
CASES = [
    # -- headers gen-ops cannot render identically --------------------------
    Case("R101", "3:8", "Const)", "", "", "reserved op type", header("""
        .OUTPUT(y, TensorType({DT_FLOAT}))
    """, name="Const")),
    Case("R101", "3:8", "A)", "", "", "graphs that paste one member", header("""
        .OUTPUT(y, TensorType({DT_FLOAT}))
        .GRAPH(g)
        .GRAPH(builder_g)
    """)),
    Case("R201", "6:11", "f,", "18:8", "A)", "named_attrs attr", header("""
        .INPUT(x, TensorType({DT_FLOAT}))
        .OUTPUT(y, TensorType({DT_FLOAT}))
        .ATTR(f, NamedAttrs, NamedAttrs())
    """)),
    Case("R205", "6:20", "ge::DataType(-1)", "21:20", "w, Type", "unreadable default",
         header("""
        .INPUT(x, TensorType({DT_FLOAT}))
        .OUTPUT(y, TensorType({DT_FLOAT}))
        .ATTR(w, Type, ge::DataType(-1))
    """)),
    # -- a test-only alteration of the parsed model --------------------------
    Case("R102", "3:8", "A)", "", "", "another op type", BASE,
         shape(op_type=lambda _: "B")),
    Case("R201", "4:12", "x,", "22:8", "A)", "an input left out", BASE,
         shape(inputs=lambda i: i[1:])),
    Case("R201", "3:8", "A)", "28:13", "z,", "an output added", BASE,
         shape(outputs=lambda o: o + (dataclasses.replace(o[0], name="z"),))),
    Case("R201", "7:20", "axis", "28:20", "axis", "attrs in another order", BASE,
         shape(attrs=lambda a: (a[1], a[0]))),
    Case("R202", "5:21", "bias", "25:12", "bias", "an optional input made required",
         BASE, shape(inputs=at(1, optional=False))),
    Case("R202", "9:12", "body", "29:20", "body", "a static graph made dynamic", BASE,
         shape(graphs=at(0, dynamic=True))),
    Case("R203", "5:27", "TensorType({DT_FLOAT}", "25:27", "TensorType({DT_INT32}",
         "an input's dtype", BASE, shape(inputs=at(1, dtype=DtypeList(("int32",))))),
    Case("R203", "10:18", "TensorType({DT_FLOAT,", "30:18",
         "TensorType::FloatingDataType()", "a type variable's range", BASE,
         shape(type_vars=at(0, range=NamedSet("FloatingDataType")))),
    Case("R204", "7:26", "Int)", "27:26", "Float)", "an attr's type", BASE,
         shape(attrs=at(0, type=AttrType.FLOAT))),
    Case("R205", "8:23", "1e-5f", "28:23", "1e-4", "another default", BASE,
         shape(attrs=at(1, default=Default(Number("1e-4"))))),
    Case("R205", "8:23", "1e-5f", "28:20", "eps, Float", "a default left out", BASE,
         shape(attrs=at(1, default=None))),
]
# fmt: on


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(case: Case) -> list[Diagnostic]:
    """Round-trip ``ops.h`` (of the current directory), changed by the case."""
    Path("ops.h").write_text(case.text, encoding="utf-8")
    sink = Sink()
    if case.change is None:
        report = roundtrip.run(roundtrip.Options((Path("ops.h"),), Path("rendered")))
        return report.diagnostics
    imported = import_header(
        HeaderFile(Path("ops.h"), "ops.h"), "custom", False, Path("rendered")
    )
    assert not imported.diagnostics, [d.format() for d in imported.diagnostics]
    (op,) = imported.ops
    text = spec_text(case.change(op), "schema.json", "ops.h:3")
    roundtrip.check_op(op, text, roundtrip.RenderedDir(Path("rendered")), sink)
    return sink.sorted()


def listing(found: list[Diagnostic]) -> str:
    return "\n".join(d.format() for d in found)


def _text_at(path: str, line: int, col: int) -> str:
    return Path(path).read_text(encoding="utf-8").splitlines()[line - 1][col - 1 :]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_difference_is_located_in_both_headers(case: Case, workdir: Path) -> None:
    found = check(case)
    mine = [d for d in found if d.code == case.code]
    assert [str(d.span) for d in mine] == [f"ops.h:{case.here}"], listing(found)
    (diagnostic,) = mine
    line, col = (int(n) for n in case.here.split(":"))
    assert _text_at("ops.h", line, col).startswith(case.mine)
    op = re.findall(r"REG_OP\((\w+)\)", case.text)[0]
    assert diagnostic.message.startswith(f"{op}: "), diagnostic.message
    assert diagnostic.hint
    assert diagnostic.format().replace("\n  hint: ", " ").isprintable()
    places = RENDERED_PLACE.findall(diagnostic.message)
    if case.there:
        ((path, line_there, col_there),) = places
        assert f"{line_there}:{col_there}" == case.there, diagnostic.message
        assert _text_at(path, int(line_there), int(col_there)).startswith(case.theirs)
    else:
        assert places == [], diagnostic.message
    # Nothing else differs.
    assert {d.code for d in found if d.code.startswith("R")} == {case.code}


def test_every_roundtrip_code_has_a_case() -> None:
    assert {c.code for c in CASES} == ROUNDTRIP_CODES
    for code in ROUNDTRIP_CODES:
        assert CODES[code].severity is Severity.ERROR


def test_case_ids_are_unique() -> None:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))


def test_unchanged_model_comes_back_the_same(workdir: Path) -> None:
    """The control of every alteration: BASE unchanged differs in nothing."""
    found = check(Case("", "", "", "", "", "", BASE, lambda op: op))
    assert found == [], listing(found)


def test_r102_names_what_came_back(workdir: Path) -> None:
    (case,) = [c for c in CASES if c.code == "R102"]
    (diagnostic,) = check(case)
    assert diagnostic.message == (
        "A: the rendered header rendered/include/custom/b.h does not give the op "
        "back (it imports as REG_OP(B))"
    )


def test_r101_names_gen_ops_checks(workdir: Path) -> None:
    case = CASES[0]
    (diagnostic,) = check(case)
    assert diagnostic.message == (
        "Const: gen-ops cannot render this declaration; its spec fails gen-ops' "
        "checks (gen-ops import refuses it, I208): E308 Const: op type 'Const' is a "
        "node type the runtime itself "
        "creates or treats specially (AippData, AnnData, AnyData, Const, Constant, "
        "Data, NetOutput, RefData, Variable)"
    )
    assert not Path("rendered").exists()  # nothing was rendered


# -- the command ----------------------------------------------------------------


def run_cli(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    status = main(["roundtrip", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_exit_0_when_every_declaration_comes_back(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("ops.h").write_text(BASE, encoding="utf-8")
    status, out, err = run_cli(["ops.h", "--rendered", "rendered"], capsys)
    assert (status, err) == (0, "")
    assert re.fullmatch(
        r"gen-ops roundtrip: 1 header\(s\), 1 op\(s\): 1 the same, 0 differ, 0 cannot "
        r"be rendered; 0 error\(s\), 0 warning\(s\); rendered headers in rendered "
        r"\(\d+\.\d\d s\)\n",
        out,
    )
    assert Path("rendered/include/custom/a.h").is_file()
    assert run_cli(["ops.h", "-q", "--rendered", "r2"], capsys) == (0, "", "")


def test_exit_1_when_a_declaration_differs(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (case,) = [c for c in CASES if c.what == "unreadable default"]
    Path("ops.h").write_text(case.text, encoding="utf-8")
    status, out, err = run_cli(["ops.h", "--rendered", "rendered", "-q"], capsys)
    assert (status, out) == (1, "")
    lines = err.splitlines()
    assert lines[:4] == [
        "ops.h:6:20: warning[I305]: A: attr 'w': the default ge::DataType(-1) of this "
        "Type attr is not imported (ge::DataType(-1) is not a DataType enumerator); "
        "the spec's attr has no default",
        "  hint: give the attr a default in the spec, or write one GE can print",
        "ops.h:6:20: error[R205]: A: attr 'w': default ge::DataType(-1) (not "
        "imported) here, no default (REQUIRED_ATTR) in the rendered header "
        "rendered/include/custom/a.h:21:20",
        "  hint: the import could not read the default (I305), so the spec has "
        "none: write it as a literal in the header, or add it to the spec by hand",
    ]
    assert lines[4].startswith(
        "gen-ops roundtrip: 1 header(s), 1 op(s): 0 the same, 1 differ, 0 cannot be "
        "rendered; 1 error(s), 1 warning(s); rendered headers in rendered ("
    )


def test_exit_1_when_a_declaration_cannot_be_rendered(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("ops.h").write_text(CASES[0].text, encoding="utf-8")
    status, out, err = run_cli(["ops.h"], capsys)
    assert (status, out) == (1, "")
    assert "error[R101]" in err
    assert "0 differ, 1 cannot be rendered" in err
    assert "rendered headers in" not in err  # the temporary directory is gone


def test_exit_2_when_something_is_not_imported(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An import error outweighs a difference."""
    (case,) = [c for c in CASES if c.what == "named_attrs attr"]
    Path("ops.h").write_text(case.text, encoding="utf-8")
    Path("bad.h").write_text(header(".INPUTS(x, T)", name="B"), encoding="utf-8")
    status, out, err = run_cli(["ops.h", "bad.h", "--rendered", "rendered"], capsys)
    assert (status, out) == (2, "")
    assert "bad.h:4:6: error[I201]" in err and "error[R201]" in err
    assert "1 op(s): 0 the same, 1 differ, 0 cannot be rendered, 1 not imported" in err


def test_exit_2_on_usage_errors(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run_cli([], capsys)
    assert status == 2 and "usage: gen-ops roundtrip" in err
    status, _, err = run_cli(["x.h", "--module", "9x"], capsys)
    assert status == 2 and "cannot be a module name" in err


def test_exit_3_when_a_rendered_header_cannot_be_written(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("ops.h").write_text(BASE, encoding="utf-8")
    Path("rendered").write_text("a file where the directory goes\n")
    status, out, err = run_cli(["ops.h", "--rendered", "rendered"], capsys)
    assert (status, out) == (3, "")
    assert err.startswith("gen-ops roundtrip: cannot write rendered/include/custom/a.h")


def test_temporary_directory_is_kept_only_when_a_declaration_differs(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("ops.h").write_text(CASES[2].text, encoding="utf-8")
    status, _, err = run_cli(["ops.h"], capsys)
    assert status == 1
    kept = Path(re.findall(r"rendered headers in (\S+) \(", err)[0])
    assert (kept / "include/custom/a.h").is_file()
    assert "rendered/" not in err and f"{kept}" in err
    shutil.rmtree(kept)


def test_a_second_declaration_of_an_op_is_rendered_beside_the_first(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("one.h").write_text(BASE, encoding="utf-8")
    Path("two.h").write_text(CASES[2].text, encoding="utf-8")
    status, _, err = run_cli(["one.h", "two.h", "--rendered", "rendered"], capsys)
    assert status == 1
    assert "(REG_OP at rendered/include/custom/a.2.h:18:8)" in err
    assert Path("rendered/include/custom/a.h").is_file()


# -- the corpus ---------------------------------------------------------------

# Every declaration of tests/importer/headers that does not come back the
# same, and why. The I-code errors of the corpus are those of the import
# (tests/importer/expected/per_header.txt): those declarations are not
# checked.
EXPLAINED = {
    "AttrZooDemo": ({"R201"}, "named_attrs and list_named_attrs attrs (W905)"),
    "RequiredZooDemo": ({"R201"}, "named_attrs and list_named_attrs attrs (W905)"),
    "OddAttrsDemo": ({"R205"}, "defaults the import cannot read (I305)"),
}


def corpus_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    shutil.copytree(HERE / "headers", tmp_path / "headers")
    monkeypatch.chdir(tmp_path)
    report = roundtrip.run(
        roundtrip.Options((Path("headers"),), Path("rendered"), module_per_header=True)
    )
    return "".join(d.format() + "\n" for d in report.diagnostics)


def test_corpus_round_trips_but_the_explained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = corpus_output(tmp_path, monkeypatch)
    codes: dict[str, set[str]] = {}
    for match in re.finditer(r"error\[(R\d{3})\]: (\w+): ", text):
        codes.setdefault(match.group(2), set()).add(match.group(1))
    assert codes == {op: want for op, (want, _) in EXPLAINED.items()}
    assert text == EXPECTED.read_text(encoding="utf-8")


# -- docs/diagnostics.md -------------------------------------------------------


def doc_sections() -> dict[str, str]:
    text = (REPO / "docs/diagnostics.md").read_text(encoding="utf-8")
    parts = re.split(r"^### ([A-Z]\d{3})\b.*$", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def test_docs_have_a_section_per_roundtrip_code() -> None:
    text = (REPO / "docs/diagnostics.md").read_text(encoding="utf-8")
    headings = re.findall(r"^### (R\d{3})\b(.*)$", text, flags=re.M)
    assert sorted(code for code, _ in headings) == sorted(ROUNDTRIP_CODES)
    for code, title in headings:
        assert f"{code}{title}" == f"{code} {CODES[code].title}"


@pytest.mark.parametrize("code", sorted(ROUNDTRIP_CODES))
def test_docs_example_is_real(
    code: str, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each example (a ``c`` block, ops.h) run as ``gen-ops roundtrip ops.h
    --rendered rendered`` prints the ``text`` block under it (the summary
    line aside). A code with no ``c`` block, which no header gives, shows
    what its first test-only alteration of BASE (CASES) prints, and the
    section's preamble shows BASE."""
    blocks = re.findall(r"^```(\w+)\n(.*?)^```$", doc_sections()[code], re.M | re.S)
    sources = [body for kind, body in blocks if kind == "c"]
    (shown,) = [body for kind, body in blocks if kind == "text"]
    if sources:
        (source,) = sources
        Path("ops.h").write_text(source, encoding="utf-8")
        _, out, err = run_cli(["ops.h", "--rendered", "rendered"], capsys)
        printed = [
            line
            for line in (err + out).splitlines()
            if not line.startswith("gen-ops roundtrip: ")
        ]
    else:
        case = next(c for c in CASES if c.code == code and c.change is not None)
        printed = listing(check(case)).splitlines()
        preamble = (REPO / "docs/diagnostics.md").read_text(encoding="utf-8")
        assert f"```cpp\n{BASE}```" in preamble
    assert printed == shown.splitlines()


if __name__ == "__main__" and sys.argv[1:] == ["--update"]:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        EXPECTED.write_text(corpus_output(Path(tmp), mp), encoding="utf-8")
    print(f"wrote {EXPECTED}")
