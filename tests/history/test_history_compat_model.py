"""The result of gen-ops compat as a library: per op, what each release of
the window recorded (its parameters, in IR order, with their kinds), the
current record, and each finding with the releases it shows against. A
follow-up that keeps old call shapes in builders asks it "for op X, which
parameters did release R have, and how did they bind"."""

from __future__ import annotations

from pathlib import Path

from helpers import load_ops
from history_helpers import Project, project  # noqa: F401

from gen_ops.base.diagnostics import Sink
from gen_ops.history import compat, registry
from gen_ops.history.records import AttrRecord, Element
from gen_ops.history.rules import Rule, Verdict

V1 = """\
op: Mix
inputs:
  - {name: a, dtype: float32}
  - {name: b, dtype: float32, optional: true}
outputs:
  - {name: y, dtype: float32}
attrs:
  - {name: k, type: int}
"""
V2 = V1.replace("  - {name: k, type: int}\n", "  - {name: k, type: int}\n"
                "  - {name: w, type: float, default: 0.5}\n")  # fmt: skip
V3 = V2.replace("  - {name: b, dtype: float32, optional: true}\n", "")


def test_per_release_parameters(project: Project) -> None:
    project.spec("mix.yaml", V1)
    project.release("1.0.0", "2026-01-01")
    project.spec("mix.yaml", V2)
    project.release("1.1.0", "2026-02-01")
    project.release("1.2.0", "2026-03-01")  # the same op as 1.1.0
    project.spec("mix.yaml", V3)
    sink = Sink()
    index = registry.read(Path("reg"), sink)
    assert index is not None
    ops, _ = load_ops(project.root / "specs")
    report = compat.check(index, index.releases, ops, sink)
    assert not sink.items
    mix = report.op("Mix")
    assert mix is not None and mix.spec is ops[0]
    assert [v.release.version for v in mix.versions] == ["1.0.0", "1.1.0", "1.2.0"]
    first, second, third = (v.record for v in mix.versions)
    assert first.inputs == (
        Element("a", "INPUT", "TensorType({DT_FLOAT})", ""),
        Element("b", "OPTIONAL_INPUT", "TensorType({DT_FLOAT})", ""),
    )
    assert [(i.name, i.optional, i.dynamic) for i in first.inputs] == [
        ("a", False, False),
        ("b", True, False),
    ]
    assert first.attrs == (AttrRecord("k", "Int", True, None, ""),)
    assert second.attrs[1] == AttrRecord("w", "Float", False, "0.5", "")
    assert third is second  # an unchanged entry is read once
    assert mix.current is not None and [i.name for i in mix.current.inputs] == ["a"]
    found = {(f.rule, tuple(r.version for r in f.releases)) for f in mix.findings}
    assert found == {
        (Rule.INPUT_REMOVED, ("1.0.0", "1.1.0", "1.2.0")),
        (Rule.NEW_OPTIONAL_ATTR, ("1.0.0",)),
    }
    assert [f.rule.verdict for f in mix.findings if f.breaking] == [Verdict.BREAKING]
    assert [(op.op_type, f.rule) for op, f in report.unintended] == [
        ("Mix", Rule.INPUT_REMOVED)
    ]
