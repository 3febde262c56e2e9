"""Every render option that changes output is honoured by ``--check``
(issue 22, finding 4), and none can be forgotten (Note [Render options]).

The structural half: every option of the render parser is read into a
``RenderOptions`` field or named as not changing output, every field
changes the render's key (but those marked out of it), and every ``output``
field has an example below that a render followed by ``--check`` with the
same options must pass (and ``--check`` without it must fail, so the
example really changes output). And an option added to ``RenderOptions``
(here by a subclass, touching no list) is in the key and in ``--check``.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from pathlib import Path

import pytest
from history_helpers import Project, project  # noqa: F401

from gen_ops import render_run
from gen_ops.base.diagnostics import Sink
from gen_ops.commands.render import parser as render_parser
from gen_ops.emit import state
from gen_ops.emit.outputs import Target
from gen_ops.render_options import NOT_RENDER_OPTIONS, RenderOptions, meta
from gen_ops.render_run import Outcome
from gen_ops.spec.model import OpSpec

A = "op: A\ninputs:\n  - {name: x, dtype: [float32]}\noutputs:\n  - {name: y, dtype: [float32]}\n"
B = "op: B\ninputs:\n  - {name: x, dtype: [float32]}\noutputs:\n  - {name: y, dtype: [float32]}\n"

# One example per ``output`` field: the options that set it.
EXAMPLES: dict[str, list[str]] = {
    "only": ["--only", "python,docs"],
    "excluded": ["--exclude-ops", "B"],
    "registry": ["--registry", "reg"],
    "h_guard_prefix": ["--h-guard-prefix", "TEAM"],
}


def fields_by_role(role: str) -> set[str]:
    return {
        f.name for f in dataclasses.fields(RenderOptions) if f.metadata["role"] == role
    }


def test_every_render_option_is_a_field_or_named_as_not_changing_output() -> None:
    parser = render_parser()
    dests = {
        action.dest
        for action in parser._actions
        if action.dest not in (argparse.SUPPRESS, "help", "version")
    }
    read = {
        option
        for item in dataclasses.fields(RenderOptions)
        for option in item.metadata["options"]
    }
    assert read.isdisjoint(NOT_RENDER_OPTIONS)
    assert dests == read | NOT_RENDER_OPTIONS, (
        "a render option is neither read into RenderOptions nor named in "
        "NOT_RENDER_OPTIONS (Note [Render options])"
    )
    roles = {f.metadata["role"] for f in dataclasses.fields(RenderOptions)}
    assert roles <= {"output", "place", "scaffold", "input", "run"}
    # Only what cannot change the rendered files stays out of the key.
    for item in dataclasses.fields(RenderOptions):
        if not item.metadata["key"]:
            assert item.metadata["role"] in ("input", "run"), item.name


def test_every_field_changes_the_key(tmp_path: Path) -> None:
    (tmp_path / "reg").mkdir()
    base = RenderOptions(
        out=tmp_path / "out",
        only=frozenset(Target),
        excluded=frozenset(),
        registry=None,
        h_guard_prefix="",
        scaffold_dir="ops",
    )
    other = {
        "out": tmp_path / "elsewhere",
        "only": frozenset({Target.PYTHON}),
        "excluded": frozenset({"A"}),
        "registry": tmp_path / "reg",
        "h_guard_prefix": "TEAM",
        "scaffold_dir": None,
        "specs": (tmp_path / "elsewhere",),
        "check": True,
        "lock_timeout": 1.0,
    }
    assert set(other) == {f.name for f in dataclasses.fields(RenderOptions)}
    key = base.key(state.Hasher({}))
    for item in dataclasses.fields(RenderOptions):
        changed = dataclasses.replace(base, **{item.name: other[item.name]})
        differs = changed.key(state.Hasher({})) != key
        assert differs == item.metadata["key"], item.name
    registry = dataclasses.replace(base, registry=tmp_path / "reg")
    before = registry.key(state.Hasher({}))
    (tmp_path / "reg" / "index.json").write_text("{}")
    assert registry.key(state.Hasher({})) != before  # its content counts


def test_every_output_field_has_an_example() -> None:
    assert set(EXAMPLES) == fields_by_role("output")


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_check_honours_each_output_option(project: Project, name: str) -> None:
    project.spec("a.yaml", A)
    project.spec("b.yaml", B)
    project.release("1.0.0", "2026-01-01")
    options = ["--out", "gen", "--no-scaffold", "-q"]
    run = project.gen(*options, *EXAMPLES[name])
    assert run.status == 0, run.err
    run = project.gen(*options, "--check", *EXAMPLES[name])
    assert run.status == 0, run.out + run.err
    assert project.gen(*options, "--check").status == 1  # it changes output


def test_check_after_a_registry_render(project: Project) -> None:
    """The issue's case: --check --registry after a registry render."""
    project.spec("a.yaml", A)
    project.release("1.0.0", "2026-01-01")
    assert project.gen("--out", "gen", "--no-scaffold", "--registry", "reg").status == 0
    run = project.gen("--out", "gen", "--no-scaffold", "--registry", "reg", "--check")
    assert run.status == 0, run.out + run.err
    assert "up to date" in run.out


@dataclasses.dataclass(frozen=True)
class WithTitle(RenderOptions):
    """A toy option: a title appended to every op's doc. Declared like any
    field of RenderOptions, in no list, and honoured in ``prepare`` only."""

    title: str = dataclasses.field(default="", metadata=meta("output", "title"))

    def prepare(self, ops: Sequence[OpSpec], sink: Sink) -> list[OpSpec]:
        return [
            dataclasses.replace(op, doc=f"{op.doc} {self.title}")
            for op in super().prepare(ops, sink)
        ]


def test_a_new_option_is_in_the_key_and_in_check(project: Project) -> None:
    project.spec("a.yaml", A)
    args = render_parser().parse_args(["--out", "gen", "--no-scaffold", "-q"])
    base = RenderOptions.from_args(args)
    toy = WithTitle(**{f.name: getattr(base, f.name) for f in dataclasses.fields(base)})
    titled = dataclasses.replace(toy, title="(toy title)")
    hasher = state.Hasher({})
    assert "title=(toy title)" in titled.key(hasher)
    assert titled.key(hasher) != toy.key(hasher)

    assert render_run.render(base).outcome is Outcome.WRITTEN
    assert render_run.render(base).outcome is Outcome.UP_TO_DATE
    # Another value of the option is another key: no fast path, no cache.
    assert render_run.render(titled).outcome is Outcome.WRITTEN
    page = (project.root / "gen" / "docs" / "ops" / "A.md").read_text()
    assert "(toy title)" in page
    assert render_run.render(titled).outcome is Outcome.UP_TO_DATE
    # --check renders with the option too: current with it, drift without.
    checked = render_run.render(dataclasses.replace(titled, check=True))
    assert checked.outcome is Outcome.CURRENT, checked.diff
    drift = render_run.render(dataclasses.replace(base, check=True))
    assert drift.outcome is Outcome.DRIFT and "(toy title)" in drift.diff
