"""Note [Shared records]: what an entry of a release shares with the current
op's entry, or with the release before's, is taken from that record and not
checked again; and sharing never lets through an entry GE's reader refuses
(Python's ``==`` takes 1 for true)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import load_ops
from history_helpers import Project, project  # noqa: F401

from gen_ops.base.diagnostics import Sink
from gen_ops.history import compat, diff, registry
from gen_ops.history.compat import OpCompat
from gen_ops.history.records import Invalid, OpRecord, of_spec, parse
from gen_ops.history.rules import Rule

MIX = """\
op: Mix
doc: Mixes two tensors.
inputs:
  - {name: a, dtype: float32, doc: The first.}
  - {name: b, dtype: float32, optional: true}
outputs:
  - {name: y, dtype: float32}
attrs:
  - {name: k, type: int}
  - {name: w, type: float, default: 0.5}
"""
OPS = "reg/registry/1.1.0/operators.json"


def _releases(project: Project, change: Callable[[dict[str, Any]], None]) -> None:
    """Releases 1.0.0 and 1.1.0 of MIX, 1.1.0's entry changed by ``change``."""
    project.spec("mix.yaml", MIX)
    project.release("1.0.0", "2026-01-01")
    project.release("1.1.0", "2026-02-01")
    data = project.read(OPS)
    change(data["operators"][0])
    project.json(OPS, data)


def _check(project: Project) -> tuple[OpCompat, Sink]:
    sink = Sink()
    index = registry.read(Path("reg"), sink)
    assert index is not None
    ops, _ = load_ops(project.root / "specs")
    mix = compat.check(index, index.releases, ops, sink).op("Mix")
    assert mix is not None and mix.current is not None
    return mix, sink


def _doc(entry: dict[str, Any]) -> None:
    entry["doc"] = "Mixes two tensors, as 1.1.0 said it."


def test_an_entry_differing_in_its_doc_shares_the_lists(project: Project) -> None:
    _releases(project, _doc)
    mix, sink = _check(project)
    assert not sink.items
    first, second = (v.record for v in mix.versions)
    assert first is mix.current  # the same entry: the same record
    assert second is not mix.current and second.doc != mix.current.doc
    assert second.inputs is mix.current.inputs
    assert second.attrs is mix.current.attrs
    assert [f.change.text(str) for f in mix.findings] == ["doc of the op changed"]
    assert [r.version for r in mix.findings[0].releases] == ["1.1.0"]


def _flag(value: Any, doc: bool) -> Callable[[dict[str, Any]], None]:
    def change(entry: dict[str, Any]) -> None:
        entry["attrs"][1]["required"] = value
        if doc:
            _doc(entry)

    return change


@pytest.mark.parametrize("doc", [False, True], ids=["same doc", "another doc"])
@pytest.mark.parametrize("value, kind", [(0, "a number"), (0.0, "a number")])
def test_a_flag_equal_only_to_pythons_eye_is_refused(
    value: Any, kind: str, doc: bool, project: Project
) -> None:
    # 0 == false in Python: the entry would equal the current op's, but GE's
    # reader refuses a required that is not a boolean (H108).
    _releases(project, _flag(value, doc))
    mix, sink = _check(project)
    assert [v.release.version for v in mix.versions] == ["1.0.0"]
    assert [d.format().split("\n")[0].split(": ", 1)[1] for d in sink.items] == [
        "warning[H108]: operators[0].attrs[1].required: required must be true or "
        f"false, not {kind}; GE's reader skips this op in release 1.1.0"
    ]


def test_a_list_shared_with_the_release_before(project: Project) -> None:
    ops, _ = load_ops(_spec(project))
    entry, current = of_spec(ops[0])
    older = entry | {"doc": "Old.", "inputs": entry["inputs"][:1]}
    before = parse(older)
    assert isinstance(before, OpRecord)
    known = [(entry, current), (older, before)]
    record = parse(older | {"doc": "Newer."}, (), known)
    assert isinstance(record, OpRecord) and record.doc == "Newer."
    assert record.inputs is before.inputs and record.attrs is current.attrs
    assert parse(dict(older), (), known) is before
    bad = older | {
        "attrs": [a | {"required": int(a["required"])} for a in entry["attrs"]]
    }
    assert parse(bad, (), known) == Invalid(
        ("attrs", 0, "required"), "required must be true or false, not a number"
    )


def _spec(project: Project) -> Path:
    project.spec("mix.yaml", MIX)
    return project.root / "specs"


def test_shared_lists_compare_as_unchanged() -> None:
    # The rules still see every change of a list that is not shared.
    entry = {
        "op_type": "Mix",
        "inputs": [{"name": "a", "type": "INPUT"}],
        "outputs": [{"name": "y", "type": "OUTPUT"}],
        "attrs": [],
        "subgraphs": [],
        "doc": "",
    }
    old = parse(entry)
    assert isinstance(old, OpRecord)
    moved = entry | {"inputs": [{"name": "b", "type": "INPUT"}] + entry["inputs"]}
    new = parse(moved, (), [(entry, old)])
    assert isinstance(new, OpRecord) and new.outputs is old.outputs
    assert [c.rule for c in diff.compare(old, new)] == [Rule.INPUT_NEEDED]
