"""One test per compatibility rule: a spec recorded as release 1.0.0, the
spec changed, and gen-ops compat's diagnostic at the current spec's
``file:line:col`` (a removed element at the op; a removed op in the
registry), with its message and its hint."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from history_helpers import Project, project  # noqa: F401

BASE = """\
op: Blend
doc: Mixes x and y.
inputs:
  - {name: x, dtype: float32}
  - {name: y, dtype: float32, optional: true}
outputs:
  - {name: z, dtype: float32}
attrs:
  - {name: alpha, type: float, default: 1.0}
  - {name: mode, type: str}
graphs:
  - {name: body}
"""

X = "  - {name: x, dtype: float32}\n"
Y = "  - {name: y, dtype: float32, optional: true}\n"
Z = "  - {name: z, dtype: float32}\n"
ALPHA = "  - {name: alpha, type: float, default: 1.0}\n"
MODE = "  - {name: mode, type: str}\n"
BODY = "  - {name: body}\n"


@dataclass(frozen=True)
class Rule:
    code: str
    what: str
    edits: tuple[tuple[str, str], ...]  # (old text, new text) applied to BASE
    diagnostics: tuple[str, ...]  # the lines compat prints, in order
    hint: str  # the first diagnostic's hint starts with this
    status: int = 1


def rule(
    code: str,
    what: str,
    edits: list[tuple[str, str]],
    *lines: str,
    hint: str,
    status: int = 1,
) -> Rule:
    return Rule(code, what, tuple(edits), lines, hint, status)


AT = "specs/blend.yaml"
R = "; breaks callers of release 1.0.0"
C = ", compared with release 1.0.0"

# fmt: off
RULES = [
    rule("H301", "input removed", [(Y, "")],
         f"{AT}:1:5: error[H301]: Blend: input 'y' removed{R}",
         hint="keep input 'y' (make it optional: true"),
    rule("H302", "input renamed", [(Y, Y.replace("name: y", "name: w"))],
         f"{AT}:5:12: error[H302]: Blend: input 'y' renamed to 'w'{R}",
         hint="keep the old name 'y'"),
    rule("H303", "inputs swapped", [(X + Y, Y + X)],
         f"{AT}:4:12: error[H303]: Blend: input 'y' moved from position 2 to 1{R}",
         f"{AT}:5:12: error[H303]: Blend: input 'x' moved from position 1 to 2{R}",
         hint="keep the inputs of the release in their order"),
    rule("H303", "optional input inserted",
         [(Y, "  - {name: w, dtype: float32, optional: true}\n" + Y)],
         f"{AT}:5:12: error[H303]: Blend: new input 'w' comes before input 'y' of "
         f"the release{R}",
         hint="keep the inputs of the release in their order"),
    rule("H304", "optional input made required", [(Y, Y.replace(", optional: true", ""))],
         f"{AT}:5:12: error[H304]: Blend: input 'y' changed from OPTIONAL_INPUT to "
         f"INPUT{R}",
         hint="keep input 'y' as it was (OPTIONAL_INPUT)"),
    rule("H304", "input made dynamic", [(X, X.replace("}", ", dynamic: true}"))],
         f"{AT}:4:12: error[H304]: Blend: input 'x' changed from INPUT to "
         f"DYNAMIC_INPUT{R}",
         hint="keep input 'x' as it was (INPUT)"),
    rule("H305", "new required input", [(Y, Y + "  - {name: w, dtype: float32}\n")],
         f"{AT}:6:12: error[H305]: Blend: new input 'w' is INPUT, not "
         f"OPTIONAL_INPUT{R}",
         hint="make it optional (optional: true)"),
    rule("H311", "attr removed", [(ALPHA, "")],
         f"{AT}:1:5: error[H311]: Blend: attr 'alpha' removed{R}",
         hint="keep attr 'alpha' (give it a default and ignore it)"),
    rule("H312", "attr renamed", [(MODE, MODE.replace("mode", "kind"))],
         f"{AT}:10:12: error[H312]: Blend: attr 'mode' renamed to 'kind'{R}",
         hint="keep the old name 'mode'"),
    rule("H313", "attrs swapped", [(ALPHA + MODE, MODE + ALPHA)],
         f"{AT}:9:12: error[H313]: Blend: attr 'mode' moved from position 2 to 1{R}",
         f"{AT}:10:12: error[H313]: Blend: attr 'alpha' moved from position 1 to 2{R}",
         hint="keep the attrs of the release in their order"),
    rule("H314", "attr retyped", [(ALPHA, "  - {name: alpha, type: int, default: 1}\n")],
         f"{AT}:9:12: error[H314]: Blend: attr 'alpha' type changed from Float to "
         f"Int{R}",
         hint="keep attr 'alpha' of type Float"),
    rule("H315", "optional attr made required", [(ALPHA, "  - {name: alpha, type: float}\n")],
         f"{AT}:9:12: error[H315]: Blend: attr 'alpha' changed from optional to "
         f"required{R}",
         hint="keep attr 'alpha' optional as in the release"),
    rule("H315", "required attr given a default",
         [(MODE, "  - {name: mode, type: str, default: fast}\n")],
         f"{AT}:10:12: error[H315]: Blend: attr 'mode' changed from required to "
         f"optional{R}",
         hint="keep attr 'mode' required as in the release"),
    rule("H316", "new required attr", [(MODE, MODE + "  - {name: k, type: int}\n")],
         f"{AT}:11:12: error[H316]: Blend: new attr 'k' is required{R}",
         hint="give attr 'k' a default"),
    rule("H321", "output renamed", [(Z, Z.replace("name: z", "name: out"))],
         f"{AT}:7:12: error[H321]: Blend: output 'z' renamed to 'out'{R}",
         hint="keep the outputs of the release as they were"),
    rule("H321", "output added", [(Z, Z + "  - {name: w, dtype: float32}\n")],
         f"{AT}:8:12: error[H321]: Blend: new output 'w'{R}",
         hint="keep the outputs of the release as they were"),
    rule("H321", "output dtype changed", [(Z, Z.replace("float32", "float16"))],
         f"{AT}:7:12: error[H321]: Blend: output 'z' dtype changed from "
         f"'TensorType({{DT_FLOAT}})' to 'TensorType({{DT_FLOAT16}})'{R}",
         hint="keep the outputs of the release as they were"),
    rule("H321", "output made dynamic", [(Z, Z.replace("}", ", dynamic: true}"))],
         f"{AT}:7:12: error[H321]: Blend: output 'z' changed from OUTPUT to "
         f"DYNAMIC_OUTPUT{R}",
         hint="keep the outputs of the release as they were"),
    rule("H322", "subgraph removed", [("graphs:\n" + BODY, "")],
         f"{AT}:1:5: error[H322]: Blend: subgraph 'body' removed{R}",
         hint="keep the subgraphs of the release as they were"),
    rule("H322", "subgraph made dynamic", [(BODY, "  - {name: body, dynamic: true}\n")],
         f"{AT}:12:12: error[H322]: Blend: subgraph 'body' changed from STATIC to "
         f"DYNAMIC{R}",
         hint="keep the subgraphs of the release as they were"),
    rule("H401", "new optional input",
         [(Y, Y + "  - {name: w, dtype: float32, optional: true}\n")],
         f"{AT}:6:12: note[H401]: Blend: new optional input 'w'{C}",
         hint="nothing to do", status=0),
    rule("H402", "new optional attr",
         [(MODE, MODE + "  - {name: k, type: int, default: 0}\n")],
         f"{AT}:11:12: note[H402]: Blend: new optional attr 'k'{C}",
         hint="nothing to do", status=0),
    rule("H403", "doc of the op", [("Mixes x and y.", "Mixes x with y.")],
         f"{AT}:1:5: note[H403]: Blend: doc of the op changed{C}",
         hint="nothing to do", status=0),
    rule("H403", "doc of an input", [(X, X.replace("}", ", doc: The first.}"))],
         f"{AT}:4:12: note[H403]: Blend: doc of input 'x' changed{C}",
         hint="nothing to do", status=0),
    rule("H405", "op deprecated", [("doc:", 'deprecated: "1.1.0"\ndoc:')],
         f"{AT}:1:5: note[H405]: Blend: op deprecated in 1.1.0{C}",
         hint="nothing to do", status=0),
    rule("H406", "input deprecated", [(Y, Y.replace("}", ", deprecated: 1.1.0}"))],
         f"{AT}:5:12: note[H406]: Blend: input 'y' deprecated in 1.1.0{C}",
         hint="nothing to do: callers of the release still work, with a "
         "DeprecationWarning", status=0),
    rule("H406", "attr deprecated",
         [(ALPHA, ALPHA.replace("}", ", deprecated: 1.1.0}"))],
         f"{AT}:9:12: note[H406]: Blend: attr 'alpha' deprecated in 1.1.0{C}",
         hint="nothing to do", status=0),
    rule("H411", "input dtype changed", [(X, X.replace("float32", "[float32, float16]"))],
         f"{AT}:4:12: warning[H411]: Blend: input 'x' dtype changed from "
         f"'TensorType({{DT_FLOAT}})' to 'TensorType({{DT_FLOAT, DT_FLOAT16}})'{C}",
         hint="make sure every dtype callers of the release pass is still allowed",
         status=0),
    rule("H412", "attr default changed", [(ALPHA, ALPHA.replace("1.0", "0.5"))],
         f"{AT}:9:12: warning[H412]: Blend: attr 'alpha' default changed from '1.0' "
         f"to '0.5'{C}",
         hint="callers that leave attr 'alpha' out now get '0.5'; keep '1.0'",
         status=0),
    rule("H413", "attr renamed, the old name kept",
         [(ALPHA, "  - {name: weight, type: float, default: 1.0,\n"
                  "     renamed_from: [{name: alpha, release: 1.1.0}]}\n")],
         f"{AT}:9:12: warning[H413]: Blend: attr 'alpha' renamed to 'weight', the "
         f"old name kept as an alias{C}",
         hint="Python callers of the release that pass 'alpha' by keyword still work",
         status=0),
    rule("H413", "input renamed, the old name kept",
         [(Y, "  - {name: w, dtype: float32, optional: true,\n"
              "     renamed_from: [{name: y, release: 1.1.0}]}\n")],
         f"{AT}:5:12: warning[H413]: Blend: input 'y' renamed to 'w', the old name "
         f"kept as an alias{C}",
         hint="Python callers of the release that pass 'y' by keyword", status=0),
]
# fmt: on


def _edited(edits: tuple[tuple[str, str], ...]) -> str:
    text = BASE
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize("case", RULES, ids=lambda r: f"{r.code}-{r.what}")
def test_rule(case: Rule, project: Project) -> None:
    project.spec("blend.yaml", BASE)
    project.release("1.0.0", "2026-01-10")
    project.spec("blend.yaml", _edited(case.edits))
    run = project.compat("--release-version", "1.0.0")
    assert run.lines == list(case.diagnostics), run.err
    assert run.hints[0].startswith(case.hint), run.hints[0]
    assert run.status == case.status, run.err


def test_every_change_code_has_a_rule_test() -> None:
    from gen_ops.base.diagnostics import CODES

    tested = {r.code for r in RULES} | {"H331", "H404"}  # below
    changes = {c for c in CODES if c[:2] in ("H3", "H4") and c != "H300"}
    assert changes == tested


def test_a_breaking_hint_says_how_to_mark_the_break(project: Project) -> None:
    project.spec("blend.yaml", BASE)
    project.release("1.0.0", "2026-01-10")
    project.spec("blend.yaml", BASE.replace(Y, ""))
    run = project.compat("--release-version", "1.0.0")
    assert run.hints == [
        "keep input 'y' (make it optional: true if the op no longer needs it); or, "
        'if the break is intended, mark it in the spec: breaking: [{release: "1.0.0", '
        "reason: ...}]"
    ]


def test_op_removed_is_located_in_the_registry(project: Project) -> None:
    project.spec("blend.yaml", BASE)
    project.spec("keep.yaml", "op: Keep\n")
    project.release("1.0.0", "2026-01-10")
    project.drop("blend.yaml")
    run = project.compat("--release-version", "1.0.0")
    assert run.lines == [
        "reg/registry/1.0.0/operators.json:4:18: error[H331]: Blend: op removed: no "
        "spec defines it; breaks callers of release 1.0.0"
    ]
    assert run.hints == [
        "keep the op's spec (deprecated: VERSION says it is going), or pass "
        "--allow-removed Blend to gen-ops compat if the removal is intended"
    ]
    assert run.status == 1
    allowed = project.compat("--release-version", "1.0.0", "--allow-removed", "Blend")
    assert allowed.lines == [
        "reg/registry/1.0.0/operators.json:4:18: warning[H300]: Blend: op removed: no "
        "spec defines it; breaks callers of release 1.0.0 (H331); allowed by "
        "--allow-removed"
    ]
    assert allowed.status == 0


def test_new_op(project: Project) -> None:
    project.spec("blend.yaml", BASE)
    project.release("1.0.0", "2026-01-10")
    project.spec("fresh.yaml", "op: Fresh\n")
    run = project.compat("--release-version", "1.0.0")
    assert run.lines == [
        "specs/fresh.yaml:1:5: note[H404]: Fresh: new op, compared with release 1.0.0"
    ]
    assert run.status == 0
    assert project.compat("--release-version", "1.0.0", "-q").err == ""


def test_no_change_no_finding(project: Project) -> None:
    project.spec("blend.yaml", BASE)
    project.release("1.0.0", "2026-01-10")
    run = project.compat("--release-version", "1.0.0")
    assert (run.status, run.lines) == (0, [])
    assert run.err.startswith(
        "gen-ops compat: 1 op(s) compared with release 1.0.0: 0 breaking change(s), "
        "0 marked intended, 0 compatible or to review ("
    )


def test_a_change_against_several_releases_is_one_finding(project: Project) -> None:
    project.spec("blend.yaml", BASE)
    project.release("1.0.0", "2026-01-10")
    project.spec("blend.yaml", BASE.replace("Mixes x and y.", "Mixes."))
    project.release("1.1.0", "2026-02-10")
    project.spec("blend.yaml", BASE.replace(Y, "").replace("Mixes x and y.", "Mixes."))
    run = project.compat("--release-version", "1.1.0")
    assert run.lines == [
        f"{AT}:1:5: error[H301]: Blend: input 'y' removed; breaks callers of releases "
        "1.0.0 and 1.1.0",
        f"{AT}:1:5: note[H403]: Blend: doc of the op changed, compared with release "
        "1.0.0",
    ]


def test_dtype_sets_compare_as_sets(project: Project) -> None:
    """GE writes a TensorType as the header spelled it; the same set in
    another order or spacing is no change."""
    project.spec(
        "blend.yaml", BASE.replace(X, X.replace("float32", "[float16, float32]"))
    )
    project.release("1.0.0", "2026-01-10")
    entries = project.read("reg/registry/1.0.0/operators.json")
    entries["operators"][0]["inputs"][0][
        "dtype"
    ] = "TensorType({ DT_FLOAT16,DT_FLOAT })"
    project.json("reg/registry/1.0.0/operators.json", entries)
    assert project.compat("--release-version", "1.0.0").lines == []


def test_defaults_compare_as_json_values(project: Project) -> None:
    project.spec("blend.yaml", BASE)
    project.release("1.0.0", "2026-01-10")
    entries = project.read("reg/registry/1.0.0/operators.json")
    entries["operators"][0]["attrs"][0]["default_value"] = "1"  # GE may print 1.0 so
    project.json("reg/registry/1.0.0/operators.json", entries)
    assert project.compat("--release-version", "1.0.0").lines == []


def test_a_first_doc_is_a_doc_change(project: Project) -> None:
    """gen-ops records the op's doc even when it is empty, so a doc written
    later shows; a registry without docs (GE's) shows none."""
    project.spec("keep.yaml", "op: Keep\n")
    project.release("1.0.0", "2026-01-10")
    project.spec("keep.yaml", "op: Keep\ndoc: Now documented.\n")
    assert project.compat("--release-version", "1.0.0").lines == [
        "specs/keep.yaml:1:5: note[H403]: Keep: doc of the op changed, compared with "
        "release 1.0.0"
    ]
    entries = project.read("reg/registry/1.0.0/operators.json")
    assert entries["operators"][0] == {
        "op_type": "Keep",
        "inputs": [],
        "outputs": [],
        "attrs": [],
        "subgraphs": [],
        "doc": "",
    }
    del entries["operators"][0]["doc"]
    project.json("reg/registry/1.0.0/operators.json", entries)
    assert project.compat("--release-version", "1.0.0").lines == []
