"""The three commands' command lines: help, exit statuses, and one line
(never a traceback) for registries that are not what they should be."""

from __future__ import annotations

import json

import pytest
from history_helpers import Project, project  # noqa: F401


@pytest.mark.parametrize("command", ["release", "compat", "changelog"])
def test_help(command: str, project: Project) -> None:
    run = project.gen(command, "--help")
    assert run.status == 0
    assert run.out.startswith(f"usage: gen-ops {command} ")
    assert "Exit status: 0 " in run.out


def test_the_render_help_names_them(project: Project) -> None:
    text = project.gen("--help").out
    for line in (
        "  release     record the current specs as a release in a history registry",
        "  compat      check the specs against the registry's releases for breaking "
        "changes",
        "  changelog   print what each release changed, in Markdown",
    ):
        assert line in text.splitlines()


def test_odd_registries_are_one_line_each(project: Project) -> None:
    project.spec("a.yaml", "op: A\n")
    (project.root / "file").write_text("x")
    run = project.compat("--registry", "file")
    assert run.status == 2
    assert run.lines == [
        "file/index.json:1:1: error[H101]: the registry's index cannot be read: "
        "cannot open it: Not a directory"
    ]
    (project.root / "dir/index.json").mkdir(parents=True)
    run = project.gen("compat", "--registry", "dir")
    assert run.status == 2
    assert run.lines == [
        "dir/index.json:1:1: error[H101]: the registry's index cannot be read: it is "
        "a directory, not a regular file; gen-ops reads only regular files here"
    ]
    project.release("1.0.0", "2026-01-01")
    (project.root / "reg/registry/1.1.0").mkdir()
    (project.root / "reg/registry/1.1.0/metadata.json").mkdir()
    blocked = project.gen("release", "1.1.0", "--registry", "reg")
    assert blocked.status == 3
    assert "a directory is in the way" in blocked.err
    assert "Traceback" not in blocked.err


def test_an_empty_registry_argument_is_a_usage_error(project: Project) -> None:
    project.spec("a.yaml", "op: A\n")
    run = project.gen("compat", "--registry", "")
    assert run.status == 2 and "an empty path" in run.err


def test_compat_diagnostics_as_json_and_capped(project: Project) -> None:
    project.spec("a.yaml", "op: A\ninputs:\n  - {name: x, dtype: [float32]}\n")
    project.spec("b.yaml", "op: B\ninputs:\n  - {name: x, dtype: [float32]}\n")
    project.release("1.0.0", "2026-01-01")
    project.spec("a.yaml", "op: A\n")
    project.spec("b.yaml", "op: B\n")
    run = project.gen("compat", "--registry", "reg", "--format", "json")
    assert run.status == 1
    document = json.loads(run.out)  # the one document (Note [JSON output])
    assert [(d["file"], d["code"]) for d in document["diagnostics"]] == [
        ("specs/a.yaml", "H301"),
        ("specs/b.yaml", "H301"),
    ]
    assert (document["errors"], document["warnings"]) == (2, 0)
    capped = project.gen("compat", "--registry", "reg", "--max-errors", "1")
    assert capped.status == 1
    lines = capped.err.splitlines()
    assert lines[0].startswith("specs/a.yaml:") and "error[H301]" in lines[0]
    assert "gen-ops: 1 more diagnostic(s) not shown (--max-errors 0 shows all)" in lines
