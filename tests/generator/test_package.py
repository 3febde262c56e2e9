"""gen-ops package (docs/packaging.md): what an op library wheel holds, and
the mistakes it refuses with a message that says what to do."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from test_package_contents import wheel_of

from ge_ir.version import __version__
from gen_ops.cli import main
from gen_ops.package_build import compatible_requirement

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_of_the_repository_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["package", "--module", "custom", "--version", "2.0", "-q"]
    argv += ["--specs", str(ROOT / "specs"), "--scaffold-dir", str(ROOT / "ops")]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    wheel = wheel_of(tmp_path, "2.0", "es_custom")
    assert (tmp_path / "es_custom-2.0.tar.gz").is_file()
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = archive.read("es_custom-2.0.dist-info/entry_points.txt")
        metadata = archive.read("es_custom-2.0.dist-info/METADATA").decode()
    assert {"es_custom/__init__.py", "es_custom/py.typed"} <= names
    assert {"ge_impl/custom/scale_custom.py", "ge_impl/custom/py.typed"} <= names
    assert "ge_impl/__init__.py" not in names  # a namespace every library shares
    assert not [n for n in names if n.startswith("ge/")]
    # ge.es.custom for type checkers; ge-stubs/py.typed is ge-ops' own
    assert "ge-stubs/es/custom/__init__.pyi" in names
    assert "ge-stubs/py.typed" not in names
    # author modules and kernels from three directories; never a script
    assert "es_custom/ops_3/kernels/scale_custom.c" in names
    assert "es_custom/ops/add_custom_op.py" in names
    assert not [n for n in names if n.endswith("/run.py")]
    assert b"[ge.es.plugins]\ncustom = es_custom\n" in entry_points
    assert b"custom = es_custom.ops\n" in entry_points
    (line,) = [x for x in metadata.splitlines() if x.startswith("Requires-Dist:")]
    requirement = Requirement(line.split(":", 1)[1])
    assert requirement.name == "ge-ops"
    assert (
        requirement.specifier
        == Requirement(compatible_requirement(__version__)).specifier
    )
    assert __version__ in requirement.specifier


def test_the_requirement_is_the_same_minor_while_0_x() -> None:
    assert compatible_requirement("0.1.0") == "ge-ops>=0.1.0,<0.2"
    assert compatible_requirement("0.3.2.dev1") == "ge-ops>=0.3.2,<0.4"
    assert compatible_requirement("1.4.0") == "ge-ops>=1.4.0,<2"


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--module", "custom", "--version", "one"], "is not a version (PEP 440)"),
        (["--module", "no-such", "--version", "1"], "cannot be a ge.es module name"),
        (["--module", "nothere", "--version", "1"], "no spec declares module"),
        (["--module", "math", "--version", "1"], "the runtime's built-in op library"),
    ],
)
def test_mistakes_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    specs = ["--specs", str(ROOT / "specs" / "scale_custom.yaml")]
    assert main(["package", *argv, *specs, "--out", str(tmp_path)]) == 2
    assert says in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_a_missing_author_module_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    specs = ["--specs", str(ROOT / "specs" / "scale_custom.yaml")]
    argv = ["package", "--module", "custom", "--version", "1", *specs]
    argv += ["--scaffold-dir", str(tmp_path / "nowhere"), "--out", str(tmp_path)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "the author module" in err and "scale_custom.py is missing" in err
    assert "run gen-ops" in err


def _package_without(module: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """gen-ops package in a process where ``module`` cannot be imported, as
    after ``pip install ge-ops`` without the ``package`` extra (a ``None``
    in sys.modules is how Python spells a module that is not there)."""
    program = (
        "import sys\n"
        f"sys.modules[{module!r}] = None\n"
        "from gen_ops.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    argv = ["package", "--module", "custom", "--version", "1"]
    argv += ["--specs", str(ROOT / "specs"), "--scaffold-dir", str(ROOT / "ops")]
    return subprocess.run(
        [sys.executable, "-c", program, *argv, "--out", str(tmp_path / "dist")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )


@pytest.mark.parametrize("module", ["build", "hatchling"])
def test_missing_packaging_tools_say_how_to_get_them(
    tmp_path: Path, module: str
) -> None:
    result = _package_without(module, tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert f"needs {module}" in result.stderr, result.stderr
    assert "pip install 'ge-ops[package]'" in result.stderr
    assert not (tmp_path / "dist").exists()


def test_running_models_needs_no_packaging_tools() -> None:
    """build and hatchling are the ``package`` extra's, never ge-ops' own
    requirements (finding 6 of issue 22); dev keeps them."""
    with open(ROOT / "pyproject.toml", "rb") as handle:
        project = tomllib.load(handle)["project"]
    names = {Requirement(r).name for r in project["dependencies"]}
    assert not names & {"build", "hatchling"}
    for extra in ("package", "dev"):
        extras = {Requirement(r).name for r in project["optional-dependencies"][extra]}
        assert {"build", "hatchling"} <= extras, extra
