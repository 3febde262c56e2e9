"""Reading registries in exactly the layout GE's history protocol documents
(docs/ge-compat.md, "History registry"), written here from the documented
schema as GE's writer lays it out: indent 2, keys in sorted order, dtype
symbols as the headers spelled them, defaults as JSON literals in strings.

Then one test per rule of GE's reader: what it skips, with the warning
located at the offending value of the file (its line and column, and its
JSON path in the message)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from history_helpers import Project, project  # noqa: F401

from gen_ops.base.diagnostics import Sink
from gen_ops.history import operators, registry
from gen_ops.history.records import AttrRecord, Element, OpRecord

INDEX = {
    "releases": [
        {"release_date": "2025-06-30", "release_version": "8.0.RC1"},
        {"release_date": "2025-09-30", "release_version": "8.0.RC2"},
    ],
    "version": "1.0.0",
}
CONCAT_V1 = {
    "attrs": [
        {"default_value": "0", "name": "axis", "required": False, "type": "Int"},
        {"name": "N", "required": True, "type": "Int"},
    ],
    "inputs": [{"dtype": "T", "name": "x", "type": "DYNAMIC_INPUT"}],
    "op_type": "ConcatV",
    "outputs": [{"dtype": "T", "name": "y", "type": "OUTPUT"}],
    "subgraphs": [],
}
ZOO = {
    "attrs": [
        {"default_value": '"abc"', "name": "s", "required": False, "type": "String"},
        {"default_value": "true", "name": "b", "required": False, "type": "Bool"},
        {"default_value": '"DT_INT64"', "name": "t", "required": False, "type": "Type"},
        {
            "default_value": '["DT_FLOAT","DT_DOUBLE"]',
            "name": "ts",
            "required": False,
            "type": "ListType",
        },
        {
            "default_value": "[[1,2],[3]]",
            "name": "lli",
            "required": False,
            "type": "ListListInt",
        },
        {
            "default_value": '"Tensor()"',
            "name": "value",
            "required": False,
            "type": "Tensor",
        },
    ],
    "inputs": [
        {"dtype": "TensorType::NumberType()", "name": "x", "type": "INPUT"},
        {"name": "bias", "type": "OPTIONAL_INPUT"},
    ],
    "op_type": "Zoo",
    "outputs": [
        {"dtype": "TensorType({DT_FLOAT16, DT_FLOAT})", "name": "y", "type": "OUTPUT"}
    ],
    "subgraphs": [{"name": "then_branch", "type": "STATIC"}],
}


def ge_registry(project: Project, rc2_ops: list[dict[str, Any]] | None = None) -> None:
    """Two releases of a package "math" as GE's extract_history writes them."""
    project.json("reg/index.json", INDEX)
    project.json(
        "reg/registry/8.0.RC1/metadata.json",
        {"branch_name": "release-8.0", "release_version": "8.0.RC1"},
    )
    project.json("reg/registry/8.0.RC1/operators.json", {"operators": [CONCAT_V1, ZOO]})
    project.json("reg/registry/8.0.RC2/metadata.json", {"release_version": "8.0.RC2"})
    concat = copy.deepcopy(CONCAT_V1)
    concat["inputs"].append({"dtype": "T", "name": "extra", "type": "OPTIONAL_INPUT"})
    project.json(
        "reg/registry/8.0.RC2/operators.json",
        {"operators": rc2_ops if rc2_ops is not None else [concat, ZOO]},
    )


def test_a_ge_registry_reads_as_written(project: Project) -> None:
    ge_registry(project)
    sink = Sink()
    index = registry.read(Path("reg"), sink)
    assert sink.items == []
    assert index is not None and index.version == "1.0.0"
    assert [(r.version, r.date.text, r.branch) for r in index.releases] == [
        ("8.0.RC1", "2025-06-30", "release-8.0"),
        ("8.0.RC2", "2025-09-30", None),
    ]
    ops = operators.read(index.root, index.releases[0], sink)
    assert ops is not None and sorted(ops.raw) == ["ConcatV", "Zoo"]
    zoo = ops.record("Zoo", sink)
    assert zoo == OpRecord(
        "Zoo",
        (
            Element("x", "INPUT", "TensorType::NumberType()", ""),
            Element("bias", "OPTIONAL_INPUT", None, ""),
        ),
        (Element("y", "OUTPUT", "TensorType({DT_FLOAT16, DT_FLOAT})", ""),),
        (
            AttrRecord("s", "String", False, '"abc"', ""),
            AttrRecord("b", "Bool", False, "true", ""),
            AttrRecord("t", "Type", False, '"DT_INT64"', ""),
            AttrRecord("ts", "ListType", False, '["DT_FLOAT","DT_DOUBLE"]', ""),
            AttrRecord("lli", "ListListInt", False, "[[1,2],[3]]", ""),
            AttrRecord("value", "Tensor", False, '"Tensor()"', ""),
        ),
        (Element("then_branch", "STATIC", None, ""),),
        None,  # GE records no docs
        None,
    )
    assert sink.items == []


ZOO_SPEC = """\
op: Zoo
doc: An op of every kind of default.
inputs:
  - {name: x, dtype: NumberType, doc: The input.}
  - {name: bias, dtype: float32, optional: true}
outputs:
  - {name: y, dtype: [float32, float16]}
attrs:
  - {name: s, type: str, default: abc}
  - {name: b, type: bool, default: true}
  - {name: t, type: dtype, default: int64}
  - {name: ts, type: list_dtype, default: [float32, float64]}
  - {name: lli, type: list_list_int, default: [[1, 2], [3]]}
  - {name: value, type: tensor, default: null}
graphs:
  - {name: then_branch}
"""
CONCAT_SPEC = """\
op: ConcatV
inputs:
  - {name: x, dtype: T, dynamic: true}
  - {name: extra, dtype: T, optional: true}
outputs:
  - {name: y, dtype: T}
dtypes:
  T: [float32]
attrs:
  - {name: axis, type: int, default: 0}
  - {name: N, type: int}
"""


def test_specs_that_match_a_ge_registry_show_no_change(project: Project) -> None:
    """GE's spellings (a set in header order, defaults as GE prints them,
    a missing dtype) read as our specs' own, and docs GE does not record are
    no change."""
    ge_registry(project)
    project.spec("zoo.yaml", ZOO_SPEC)
    project.spec("concat.yaml", CONCAT_SPEC)
    run = project.compat("--release-version", "8.0.RC2")
    assert (run.status, run.lines) == (
        0,
        [
            "specs/concat.yaml:4:12: note[H401]: ConcatV: new optional input 'extra', "
            "compared with release 8.0.RC1"
        ],
    ), run.err


def test_changes_against_a_ge_registry(project: Project) -> None:
    ge_registry(project)
    project.spec("zoo.yaml", ZOO_SPEC.replace("default: abc", "default: abd"))
    project.spec("concat.yaml", CONCAT_SPEC.replace("  - {name: N, type: int}\n", ""))
    run = project.compat("--release-version", "8.0.RC2")
    assert run.lines == [
        "specs/concat.yaml:1:5: error[H311]: ConcatV: attr 'N' removed; breaks "
        "callers of releases 8.0.RC1 and 8.0.RC2",
        "specs/concat.yaml:4:12: note[H401]: ConcatV: new optional input 'extra', "
        "compared with release 8.0.RC1",
        "specs/zoo.yaml:9:12: warning[H412]: Zoo: attr 's' default changed from "
        "'\"abc\"' to '\"abd\"', compared with releases 8.0.RC1 and 8.0.RC2",
    ]
    assert run.status == 1


def test_an_op_missing_from_a_release_is_skipped_for_it(project: Project) -> None:
    ge_registry(project, rc2_ops=[ZOO])
    project.spec("zoo.yaml", ZOO_SPEC)
    project.spec("concat.yaml", CONCAT_SPEC)
    run = project.compat("--release-version", "8.0.RC2")
    assert run.lines == [
        "specs/concat.yaml:4:12: note[H401]: ConcatV: new optional input 'extra', "
        "compared with release 8.0.RC1"
    ]
    sink = Sink()
    index = registry.read(Path("reg"), sink)
    assert index is not None
    from gen_ops.history import compat

    report = compat.check(
        index, index.releases, [], sink, frozenset({"ConcatV", "Zoo"})
    )
    concat = report.op("ConcatV")
    assert concat is not None
    assert [v.release.version for v in concat.versions] == ["8.0.RC1"]


# -- the reader's rules ------------------------------------------------------


@dataclass(frozen=True)
class Skip:
    """A registry spoilt by ``spoil``; reading it reports ``line`` (whose
    place holds ``token``) and keeps the releases ``kept``."""

    what: str
    spoil: Callable[[Project], None]
    line: str
    token: str
    kept: tuple[str, ...] = ("8.0.RC1", "8.0.RC2")


def _index(change: Callable[[dict[str, Any]], None]) -> Callable[[Project], None]:
    def spoil(project: Project) -> None:
        data = copy.deepcopy(INDEX)
        change(data)
        project.json("reg/index.json", data)

    return spoil


def _entry(key: str, value: Any) -> Callable[[Project], None]:
    def change(data: dict[str, Any]) -> None:
        if value is None:
            del data["releases"][1][key]
        else:
            data["releases"][1][key] = value

    return _index(change)


def _raw(path: str, text: str) -> Callable[[Project], None]:
    def spoil(project: Project) -> None:
        project.json(path, None, raw=text)

    return spoil


def _file(path: str, data: Any) -> Callable[[Project], None]:
    def spoil(project: Project) -> None:
        if data is None:
            (project.root / path).unlink()
        else:
            project.json(path, data)

    return spoil


IDX = "reg/index.json"
M = "reg/registry/8.0.RC2/metadata.json"
RC1 = ("8.0.RC1",)
SKIPS_RC2 = "; GE's reader skips releases[1]"

# fmt: off
SKIPS = [
    Skip("entry not an object", _index(lambda d: d["releases"].__setitem__(1, "8.0.RC2")),
         f"{IDX}:7:5: warning[H102]: releases[1]: is not an object{SKIPS_RC2}",
         '"8.0.RC2"', RC1),
    Skip("no release_version", _entry("release_version", None),
         f"{IDX}:7:5: warning[H102]: releases[1]: has no release_version string"
         f"{SKIPS_RC2}", "{", RC1),
    Skip("no release_date", _entry("release_date", None),
         f"{IDX}:7:5: warning[H102]: releases[1]: has no release_date string{SKIPS_RC2}",
         "{", RC1),
    Skip("release_version not a string", _entry("release_version", 8),
         f"{IDX}:9:26: warning[H102]: releases[1].release_version: release_version "
         f"is not a non-empty string{SKIPS_RC2}", "8", RC1),
    Skip("empty release_date", _entry("release_date", ""),
         f"{IDX}:8:23: warning[H102]: releases[1].release_date: release_date is not "
         f"a non-empty string{SKIPS_RC2}", '""', RC1),
    Skip("version with a separator", _entry("release_version", "../8.0"),
         f"{IDX}:9:26: warning[H102]: releases[1].release_version: '../8.0' cannot be "
         f"a release: it holds a path separator{SKIPS_RC2}", '"../8.0"', RC1),
    Skip("date not YYYY-MM-DD", _entry("release_date", "2025/09/30"),
         f"{IDX}:8:23: warning[H103]: releases[1].release_date: '2025/09/30' is not a "
         f"date GE reads: it is not YYYY-MM-DD{SKIPS_RC2}", '"2025/09/30"', RC1),
    Skip("date of one-digit month", _entry("release_date", "2025-9-30"),
         f"{IDX}:8:23: warning[H103]: releases[1].release_date: '2025-9-30' is not a "
         f"date GE reads: it is not YYYY-MM-DD{SKIPS_RC2}", '"2025-9-30"', RC1),
    Skip("year before 1900", _entry("release_date", "1899-12-31"),
         f"{IDX}:8:23: warning[H103]: releases[1].release_date: '1899-12-31' is not a "
         f"date GE reads: the year 1899 is not from 1900 to 9999{SKIPS_RC2}",
         '"1899-12-31"', RC1),
    Skip("month 13", _entry("release_date", "2025-13-01"),
         f"{IDX}:8:23: warning[H103]: releases[1].release_date: '2025-13-01' is not a "
         f"date GE reads: the month 13 is not from 1 to 12{SKIPS_RC2}",
         '"2025-13-01"', RC1),
    Skip("month 0", _entry("release_date", "2025-00-10"),
         f"{IDX}:8:23: warning[H103]: releases[1].release_date: '2025-00-10' is not a "
         f"date GE reads: the month 0 is not from 1 to 12{SKIPS_RC2}",
         '"2025-00-10"', RC1),
    Skip("day 32", _entry("release_date", "2025-09-32"),
         f"{IDX}:8:23: warning[H103]: releases[1].release_date: '2025-09-32' is not a "
         f"date GE reads: the day 32 is not from 1 to 31{SKIPS_RC2}",
         '"2025-09-32"', RC1),
    Skip("day 0", _entry("release_date", "2025-09-00"),
         f"{IDX}:8:23: warning[H103]: releases[1].release_date: '2025-09-00' is not a "
         f"date GE reads: the day 0 is not from 1 to 31{SKIPS_RC2}",
         '"2025-09-00"', RC1),
    Skip("version listed twice", _entry("release_version", "8.0.RC1"),
         f"{IDX}:9:26: warning[H104]: releases[1].release_version: release 8.0.RC1 is "
         f"listed before, at releases[0]{SKIPS_RC2}", '"8.0.RC1"', RC1),
    Skip("metadata missing", _file(M, None),
         f"{M}:1:1: warning[H105]: release 8.0.RC2: its metadata cannot be read: it "
         "does not exist; GE's reader skips the release", "", RC1),
    Skip("metadata not JSON", _raw(M, '{"release_version": "8.0.RC2",}'),
         f"{M}:1:31: warning[H105]: release 8.0.RC2: its metadata cannot be read: it "
         "is not JSON: Expecting property name enclosed in double quotes; GE's "
         "reader skips the release", "}", RC1),
    Skip("metadata not an object", _file(M, ["8.0.RC2"]),
         f"{M}:1:1: warning[H105]: release 8.0.RC2: the file: the metadata must be an "
         "object; GE's reader skips the release", "[", RC1),
    Skip("metadata without release_version", _file(M, {"branch_name": "b"}),
         f"{M}:1:1: warning[H105]: release 8.0.RC2: the file: there is no "
         "release_version string; GE's reader skips the release", "{", RC1),
    Skip("metadata branch_name not a string",
         _file(M, {"branch_name": 1, "release_version": "8.0.RC2"}),
         f"{M}:2:18: warning[H105]: release 8.0.RC2: branch_name: branch_name is not "
         "a string; GE's reader skips the release", "1", RC1),
    Skip("metadata names another release", _file(M, {"release_version": "8.0.RC1"}),
         f"{M}:2:22: warning[H106]: release_version: the metadata of release 8.0.RC2 "
         "names release '8.0.RC1'; GE's reader skips the release", '"8.0.RC1"', RC1),
]
# fmt: on


def _text_at(project: Project, line: str) -> str:
    """The text the diagnostic ``line`` points at."""
    place = line.split(": ", 1)[0]
    path, row, col = place.rsplit(":", 2)
    text = (
        (project.root / path).read_text(encoding="utf-8")
        if (project.root / path).exists()
        else ""
    )
    lines = text.splitlines() or [""]
    return lines[int(row) - 1][int(col) - 1 :]


@pytest.mark.parametrize("case", SKIPS, ids=lambda s: s.what)
def test_the_reader_skips(case: Skip, project: Project) -> None:
    ge_registry(project)
    case.spoil(project)
    sink = Sink()
    index = registry.read(Path("reg"), sink)
    assert index is not None
    assert [d.format().split("\n")[0] for d in sink.sorted()] == [case.line]
    assert sink.items[0].hint
    assert _text_at(project, case.line).startswith(case.token)
    assert tuple(r.version for r in index.releases) == case.kept


# fmt: off
UNREADABLE = [
    ("index missing", _file(IDX, None),
     f"{IDX}:1:1: error[H101]: the registry's index cannot be read: it does not exist"),
    ("index not JSON", _raw(IDX, '{"version": "1.0.0", "releases": [}'),
     f"{IDX}:1:35: error[H101]: the registry's index cannot be read: it is not JSON: "
     "Expecting value"),
    ("index not UTF-8", _raw(IDX, ""), ""),  # replaced below by bytes
    ("index a list", _file(IDX, [INDEX]), f"{IDX}:1:1: error[H101]: the file: the index "
     "must be an object"),
    ("no version", _index(lambda d: d.pop("version")),
     f"{IDX}:1:1: error[H101]: the file: there is no version string"),
    ("version not a string", _index(lambda d: d.__setitem__("version", 1)),
     f"{IDX}:12:14: error[H101]: version: there is no version string"),
    ("no releases", _index(lambda d: d.pop("releases")),
     f"{IDX}:1:1: error[H101]: the file: there is no releases list"),
    ("releases not a list", _index(lambda d: d.__setitem__("releases", {})),
     f"{IDX}:2:15: error[H101]: releases: there is no releases list"),
]
# fmt: on


@pytest.mark.parametrize(
    "what, spoil, line", UNREADABLE, ids=[u[0] for u in UNREADABLE]
)
def test_an_index_that_cannot_be_read(
    what: str, spoil: Callable[[Project], None], line: str, project: Project
) -> None:
    ge_registry(project)
    spoil(project)
    if what == "index not UTF-8":
        (project.root / IDX).write_bytes(b'{"version": "1.0\xff"}')
        line = (
            f"{IDX}:1:17: error[H101]: the registry's index cannot be read: it is not "
            "UTF-8 (invalid start byte)"
        )
    sink = Sink()
    assert registry.read(Path("reg"), sink) is None
    assert [d.format().split("\n")[0] for d in sink.items] == [line]
    project.spec("zoo.yaml", ZOO_SPEC)
    run = project.compat("--release-version", "8.0.RC1")
    assert run.status == 2
    assert run.lines == [line]


def test_a_utf8_byte_order_mark_is_read(project: Project) -> None:
    ge_registry(project)
    text = (project.root / IDX).read_text(encoding="utf-8")
    (project.root / IDX).write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    sink = Sink()
    index = registry.read(Path("reg"), sink)
    assert index is not None and len(index.releases) == 2 and not sink.items


OPS = "reg/registry/8.0.RC2/operators.json"


def _op(change: Callable[[dict[str, Any]], None]) -> list[dict[str, Any]]:
    zoo = copy.deepcopy(ZOO)
    change(zoo)
    return [CONCAT_V1, zoo]


# fmt: off
BAD_OPS = [
    ("entry not an object", [CONCAT_V1, "Zoo"], "operators[1]: must be an object, "
     "not a string", '"Zoo"'),
    ("no op_type", _op(lambda z: z.pop("op_type")), "operators[1]: has no 'op_type'",
     "{"),
    ("no inputs", _op(lambda z: z.pop("inputs")), "operators[1]: has no 'inputs'", "{"),
    ("inputs not a list", _op(lambda z: z.__setitem__("inputs", {})),
     "operators[1].inputs: must be a list, not an object", "{}"),
    ("input without a name", _op(lambda z: z["inputs"][0].pop("name")),
     "operators[1].inputs[0]: has no 'name'", "{"),
    ("input of an unknown type", _op(lambda z: z["inputs"][0].__setitem__("type", "REQUIRED")),
     "operators[1].inputs[0].type: type must be one of INPUT, OPTIONAL_INPUT, "
     "DYNAMIC_INPUT, not 'REQUIRED'", '"REQUIRED"'),
    ("dtype not a string", _op(lambda z: z["inputs"][0].__setitem__("dtype", ["T"])),
     "operators[1].inputs[0].dtype: dtype must be a string, not a list", "["),
    ("output of an input's type", _op(lambda z: z["outputs"][0].__setitem__("type", "INPUT")),
     "operators[1].outputs[0].type: type must be one of OUTPUT, DYNAMIC_OUTPUT, "
     "not 'INPUT'", '"INPUT"'),
    ("subgraph type", _op(lambda z: z["subgraphs"][0].__setitem__("type", "GRAPH")),
     "operators[1].subgraphs[0].type: type must be one of STATIC, DYNAMIC, not "
     "'GRAPH'", '"GRAPH"'),
    ("attr without required", _op(lambda z: z["attrs"][0].pop("required")),
     "operators[1].attrs[0]: has no 'required'", "{"),
    ("required not a boolean", _op(lambda z: z["attrs"][0].__setitem__("required", "no")),
     "operators[1].attrs[0].required: required must be true or false, not a "
     "string", '"no"'),
    ("default_value not a string", _op(lambda z: z["attrs"][1].__setitem__("default_value", True)),
     "operators[1].attrs[1].default_value: default_value must be a JSON literal in "
     "a string, not a boolean", "true"),
    ("attr type empty", _op(lambda z: z["attrs"][0].__setitem__("type", "")),
     "operators[1].attrs[0].type: type must be a non-empty string, not an empty "
     "string", '""'),
    ("a name twice", _op(lambda z: z["inputs"][1].__setitem__("name", "x")),
     "operators[1].inputs[1].name: names 'x' a second time", '"x"'),
]
# fmt: on


@pytest.mark.parametrize(
    "what, ops, message, token", BAD_OPS, ids=[b[0] for b in BAD_OPS]
)
def test_an_invalid_op_is_skipped_in_its_release(
    what: str, ops: list[Any], message: str, token: str, project: Project
) -> None:
    ge_registry(project, rc2_ops=ops)
    project.spec("zoo.yaml", ZOO_SPEC)
    project.spec("concat.yaml", CONCAT_SPEC)
    run = project.compat("--release-version", "8.0.RC2")
    warning = [line for line in run.lines if "H108" in line]
    assert len(warning) == 1, run.err
    assert warning[0].split(": ", 1)[1] == (
        f"warning[H108]: {message}; GE's reader skips this op in release 8.0.RC2"
    )
    assert warning[0].startswith(OPS + ":")
    assert _text_at(project, warning[0]).startswith(token)
    assert run.status == 0  # Zoo of 8.0.RC1 is compared, and matches


def test_an_op_listed_twice_keeps_the_first(project: Project) -> None:
    ge_registry(project, rc2_ops=[CONCAT_V1, ZOO, CONCAT_V1 | {"attrs": []}])
    sink = Sink()
    index = registry.read(Path("reg"), sink)
    assert index is not None
    ops = operators.read(index.root, index.releases[1], sink)
    assert ops is not None
    record = ops.record("ConcatV", sink)
    assert record is not None and [a.name for a in record.attrs] == ["axis", "N"]
    assert [d.format().split("\n")[0] for d in sink.items] == [
        f"{OPS}:108:18: warning[H108]: operators[2].op_type: ConcatV is listed before, "
        "at operators[0]; this entry is skipped in release 8.0.RC2"
    ]
    assert _text_at(project, sink.items[0].format()).startswith('"ConcatV"')


# fmt: off
BAD_FILES = [
    ("operators missing", _file(OPS, None),
     f"{OPS}:1:1: warning[H107]: release 8.0.RC2: its operators cannot be read: it "
     "does not exist; the release is skipped"),
    ("operators not JSON", _raw(OPS, '{"operators": [}'),
     f"{OPS}:1:16: warning[H107]: release 8.0.RC2: its operators cannot be read: it "
     "is not JSON: Expecting value; the release is skipped"),
    ("no operators list", _file(OPS, {"ops": []}),
     f"{OPS}:1:1: warning[H107]: release 8.0.RC2: the file: there is no operators "
     "list; the release is skipped"),
    ("operators not a list", _file(OPS, {"operators": {}}),
     f"{OPS}:2:16: warning[H107]: release 8.0.RC2: operators: there is no operators "
     "list; the release is skipped"),
]
# fmt: on


@pytest.mark.parametrize("what, spoil, line", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_a_release_whose_operators_cannot_be_read_is_skipped(
    what: str, spoil: Callable[[Project], None], line: str, project: Project
) -> None:
    ge_registry(project)
    spoil(project)
    project.spec("zoo.yaml", ZOO_SPEC)
    project.spec("concat.yaml", CONCAT_SPEC)
    run = project.compat("--release-version", "8.0.RC2")
    assert run.lines == [
        line,
        "specs/concat.yaml:4:12: note[H401]: ConcatV: new optional input 'extra', "
        "compared with release 8.0.RC1",
    ]
    assert "compared with release 8.0.RC1:" in run.err


def test_text_of_a_registry_is_shown_escaped(project: Project) -> None:
    """A registry may hold any text; what gen-ops prints of it never holds
    an invisible or reordering character (Note [Invisible characters])."""
    zoo = copy.deepcopy(ZOO)
    zoo["attrs"][0]["type"] = "Str\u202eing"
    odd = CONCAT_V1 | {"op_type": "Odd\u2066"}
    ge_registry(project, rc2_ops=[CONCAT_V1, zoo, odd])
    project.spec("zoo.yaml", ZOO_SPEC)
    project.spec("concat.yaml", CONCAT_SPEC)
    run = project.compat("--release-version", "8.0.RC2")
    assert "type changed from Str\\u202eing to String" in run.err
    log = project.gen("changelog", "--registry", "reg")
    for text in (run.err, log.out, log.err):
        assert "\u202e" not in text and "\u2066" not in text
    assert "\\u202e" in log.out and "\\u2066" in log.out
