"""The pre-commit hook definitions (.pre-commit-hooks.yaml) run gen-ops
commands that exist and pass on this repository, as make test does."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_the_hooks_run_gen_ops_and_pass_here() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert [h["id"] for h in hooks] == ["gen-ops-validate", "gen-ops-check"]
    for hook in hooks:
        assert hook["language"] == "python" and hook["pass_filenames"] is False
        program, *argv = shlex.split(hook["entry"])
        assert program == "gen-ops"
        result = subprocess.run(
            [sys.executable, "-m", "gen_ops", *argv],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, (hook["id"], result.stderr)


def test_the_schema_has_a_stable_id() -> None:
    """Editors and other tools may key on the $id; it changes only with an
    incompatible spec format (docs/spec-reference.md, the schema line)."""
    import json

    from gen_ops.base.resources import schema_path

    assert json.loads(schema_path().read_text())["$id"] == "urn:ge-ops:op-spec:1"
