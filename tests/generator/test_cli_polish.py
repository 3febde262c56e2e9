"""What is expected of a command-line tool of this kind (docs/cli.md): the
commands in --help, --version, JSON diagnostics, a cap on the diagnostics
shown, shell completion, and ge-atc taking the atc flags GE's samples pass."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ge_ir.version import __version__
from gen_ops.cli import main
from gen_ops.commands.registry import NAMES

BAD = """op: BadOne
module: custom
inputs:
  - {name: x, dtype: NoSuchType}
  - {name: y, dtype: AlsoNone}
  - {name: z, dtype: NorThis}
outputs:
  - {name: out, dtype: float32}
"""


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    text = capsys.readouterr().out
    for command in NAMES:
        assert f"\n  {command} " in text, command


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"gen-ops {__version__}"


def _bad(tmp_path: Path) -> Path:
    spec = tmp_path / "bad_one.yaml"
    spec.write_text(BAD)
    return spec


def test_json_diagnostics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = _bad(tmp_path)
    assert main(["validate", "--specs", str(spec), "--format", "json"]) == 2
    captured = capsys.readouterr()
    assert captured.err == ""  # one document on standard output, nothing else
    document = json.loads(captured.out)
    assert document["errors"] == 3 and document["spec_files"] == 1
    first = document["diagnostics"][0]
    assert first["file"].endswith("bad_one.yaml") and first["line"] == 4
    assert first["severity"] == "error" and first["code"].startswith("E")
    assert "NoSuchType" in first["message"] and first["hint"]


def test_the_error_cap_counts_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _bad(tmp_path)
    assert main(["validate", "--specs", str(spec), "--max-errors", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("error[E") == 1
    assert "gen-ops: 2 more diagnostic(s) not shown (--max-errors 0 shows all)" in err
    assert "gen-ops: 3 error(s), 0 warning(s) in 1 spec file(s)" in err
    assert main(["validate", "--specs", str(spec), "--max-errors", "0"]) == 2
    assert capsys.readouterr().err.count("error[E") == 3


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completion_offers_commands_and_options(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["completion", "bash"]) == 0
    script = tmp_path / "gen-ops.bash"
    script.write_text(capsys.readouterr().out)

    def complete(*words: str) -> list[str]:
        line = " ".join(["gen-ops", *words])
        probe = (
            f"source {script}; COMP_WORDS=({line}); "
            f"COMP_CWORD={len(words)}; _gen_ops; printf '%s\\n' \"${{COMPREPLY[@]}}\""
        )
        out = subprocess.run(
            ["bash", "-c", probe], capture_output=True, text=True, cwd=tmp_path
        )
        assert out.returncode == 0, out.stderr
        return out.stdout.split()

    assert "package" in complete("pa")
    assert complete("package", "--ver") == ["--version"]
    assert "--max-errors" in complete("validate", "--m")


def test_ge_atc_version_and_ignored_atc_flags(tmp_path: Path) -> None:
    def ge_atc(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "ge.offline.compile", *argv],
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )

    version = ge_atc("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"ge-atc {__version__}"
    result = ge_atc(
        *("--model", "missing.air", "--output", "m"),
        *("--framework=1", "--soc_version=Ascend910B", "--host_env_os=linux"),
        "--host_env_cpu=aarch64",
    )
    for flag in ("framework=1", "soc_version=Ascend910B", "host_env_os=linux"):
        assert f"ge-atc: note: --{flag} is ignored: " in result.stderr
    assert "--host_env_cpu=aarch64 is ignored" in result.stderr
    assert result.returncode == 1 and "missing.air" in result.stderr
