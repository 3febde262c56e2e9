"""``--format json`` is one JSON document on standard output, on success
and on failure, for every command that takes it (issue 22, finding 5;
Note [JSON output])."""

from __future__ import annotations

import json
from typing import Any

import pytest
from history_helpers import Project, project  # noqa: F401

from gen_ops.commands import registry

A = (
    "op: A\ninputs:\n  - {name: x, dtype: [float32]}\n"
    "outputs:\n  - {name: y, dtype: [float32]}\n"
)
BAD = "op: A\ninputs:\n  - {name: x, dtype: [NoSuchType]}\n"

# Per command: (arguments that succeed, arguments that fail) in a project
# holding the spec A and a registry with release 1.0.0 of it.
CASES: dict[str, tuple[list[str], list[str]]] = {
    "render": (["--out", "gen", "--no-scaffold"], ["--out", "gen", "--bogus"]),
    "validate": ([], ["--specs", "missing"]),
    "package": (
        ["--module", "custom", "--version", "1.0", "--out", "dist"],
        ["--module", "custom", "--version", "one"],
    ),
    "release": (
        ["1.1.0", "--date", "2026-02-01", "--registry", "reg"],
        ["1.0.0", "--date", "2026-02-01", "--registry", "reg"],
    ),
    "compat": (["--registry", "reg"], ["--registry", "nowhere"]),
    "changelog": (["--registry", "reg"], ["--registry", "nowhere"]),
}


def document(project: Project, *argv: str) -> tuple[int, dict[str, Any]]:
    run = project.gen(*argv, "--format", "json")
    assert run.err == "", run.err
    lines = run.out.splitlines()
    assert len(lines) == 1, run.out  # one document, nothing else
    found = json.loads(lines[0])
    assert found["status"] == run.status and found["ok"] == (run.status == 0)
    return run.status, found


def test_every_json_command_has_cases() -> None:
    assert set(CASES) == {c.name for c in registry.commands() if c.json}


@pytest.mark.parametrize("command", sorted(CASES))
def test_one_document_on_success_and_on_failure(project: Project, command: str) -> None:
    project.spec("a.yaml", A)
    project.release("1.0.0", "2026-01-01")
    good, bad = CASES[command]
    argv = [] if command == "render" else [command]
    status, found = document(project, *argv, *good)
    assert status == 0, found
    assert found["command"] == command and found["errors"] == 0
    status, found = document(project, *argv, *bad)
    assert status != 0, found
    assert found["messages"] or found["diagnostics"], found


def test_validate_of_valid_specs_is_a_document(project: Project) -> None:
    """The issue's case: nothing on standard output but text before."""
    project.spec("a.yaml", A)
    status, found = document(project, "validate")
    assert status == 0
    assert (found["errors"], found["warnings"], found["spec_files"]) == (0, 0, 1)
    assert "are valid" in found["output"]


def test_diagnostics_are_in_the_document(project: Project) -> None:
    project.spec("a.yaml", BAD)
    status, found = document(project, "validate")
    assert status == 2 and found["errors"] >= 1
    first = found["diagnostics"][0]
    assert first["file"] == "specs/a.yaml" and first["code"].startswith("E")
    assert first["severity"] == "error" and first["line"] >= 1


def test_a_check_diff_is_the_documents_output(project: Project) -> None:
    project.spec("a.yaml", A)
    status, found = document(project, "--out", "gen", "--no-scaffold", "--check")
    assert status == 1
    assert found["output"].startswith("--- ") or "+++ " in found["output"]
    assert any("out of date" in line for line in found["messages"])
