"""Module names that would shadow ``ge.es`` are refused wherever a module is
named (Note [Reserved module names] in ge_ir.names; issue 21, finding 7): a
spec's ``module`` (E304, at the key, with a hint), ``gen-ops import
--module`` (a usage error) and ``--module-per-header`` (I108 at the
header), and ``gen-ops package --module``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

NAMES = ["_calls", "control_dependency_scope", "GraphBuilder", "tensor_holder"]
HEADER = """\
REG_OP(Relu)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(Relu)
"""


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gen_ops", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize("name", NAMES)
def test_spec_module_is_refused(name: str, tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "relu.yaml").write_text(
        f"op: Relu\nmodule: {name}\ninputs:\n  - {{name: x, dtype: float32}}\n"
        "outputs:\n  - {name: y, dtype: float32}\n",
        encoding="utf-8",
    )
    for command in ((), ("validate",)):
        result = run(*command, cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        assert (
            f"specs/relu.yaml:2:9: error[E304]: Relu: module '{name}'" in result.stderr
        )
        assert "hint: choose another module name" in result.stderr
    assert not (tmp_path / "generated").exists()


@pytest.mark.parametrize("name", NAMES)
def test_import_module_is_refused(name: str, tmp_path: Path) -> None:
    (tmp_path / f"{name}.h").write_text(HEADER, encoding="utf-8")
    named = run("import", "--module", name, f"{name}.h", cwd=tmp_path)
    assert named.returncode == 2
    assert f"argument --module: module '{name}'" in named.stderr
    per_header = run("import", "--module-per-header", f"{name}.h", cwd=tmp_path)
    assert per_header.returncode == 2
    assert f"{name}.h:1:1: error[I108]: the header's stem" in per_header.stderr
    assert "hint: rename the header" in per_header.stderr
    assert not (tmp_path / "specs").exists()


@pytest.mark.parametrize("name", NAMES)
def test_package_module_is_refused(name: str, tmp_path: Path) -> None:
    result = run("package", "--module", name, "--version", "1.0", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert f"--module '{name}' cannot be a ge.es module name" in result.stderr
    assert "internal error" not in result.stderr
    assert not (tmp_path / "dist").exists()
