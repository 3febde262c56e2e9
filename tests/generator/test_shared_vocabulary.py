"""gen-ops shares its vocabulary with the runtime through ge_ir, a package
that imports nothing of ``ge``: gen-ops runs without the runtime (next to
CANN's own ``ge``), the schema spells ge_ir's name rules, and a change to
any ge_ir file makes gen-ops render again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import ge_ir
from ge_ir.names import IDENTIFIER, OP_TYPE
from gen_ops.base.resources import schema_path

ROOT = Path(__file__).resolve().parents[2]


def test_the_schema_spells_the_shared_name_rules() -> None:
    schema = json.loads(schema_path().read_text())
    assert schema["properties"]["op"]["pattern"] == f"^{OP_TYPE}$"
    assert schema["$defs"]["identifier"]["pattern"] == f"^{IDENTIFIER}$"


def test_ge_ir_imports_nothing_of_ge() -> None:
    code = (
        "import sys, ge_ir.types, ge_ir.attrs, ge_ir.named_attrs, ge_ir.names\n"
        "print(sorted(m for m in sys.modules if m == 'ge' or m.startswith('ge.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_gen_ops_runs_with_another_ge_first_on_the_path(tmp_path: Path) -> None:
    """A stand-in ``ge`` that fails on import, first on sys.path (as CANN's
    own would be): validate, render, --check, new and package all work."""
    fake = tmp_path / "fake" / "ge"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(
        "raise ImportError('this is not the ge runtime')\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(fake.parent), *sys.path])}
    specs = ROOT / "specs"
    out = tmp_path / "out"
    for argv in (
        ["validate", "--specs", str(specs)],
        ["--specs", str(specs), "--out", str(out), "--no-scaffold", "-q"],
        ["--check", "--specs", str(specs), "--out", str(out), "--no-scaffold", "-q"],
        ["new", "StandInCustom", "--specs", str(tmp_path / "new")],
        [
            "package",
            *("--module", "control", "--version", "1.0", "-q"),
            *("--specs", str(specs), "--out", str(tmp_path / "dist")),
        ],
    ):
        result = subprocess.run(
            [sys.executable, "-m", "gen_ops", *argv],
            env=env,
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )
        assert result.returncode == 0, (argv, result.stderr)
    assert (out / "python" / "ge" / "es" / "custom" / "add_custom.py").exists()
    assert (tmp_path / "new" / "stand_in_custom.yaml").exists()
    assert list((tmp_path / "dist").glob("es_control-1.0-py3-none-any.whl"))


def test_changing_a_shared_file_renders_again(tmp_path: Path) -> None:
    """The fast path's fingerprint covers every ge_ir file: one changed
    byte there, and `gen-ops` renders instead of saying "up to date"."""
    from gen_ops.base import fingerprint

    package = Path(ge_ir.__file__).resolve().parent
    copy = tmp_path / "ge_ir"
    copy.mkdir()
    for path in package.glob("*.py"):
        (copy / path.name).write_bytes(path.read_bytes())
    code = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import ge_ir; assert ge_ir.__file__.startswith(sys.argv[1])\n"
        "from gen_ops.base import fingerprint; print(fingerprint.code_digest())"
    )

    def digest() -> str:
        return subprocess.run(
            [sys.executable, "-c", code, str(tmp_path)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()

    before = digest()
    assert before == fingerprint.code_digest()
    names = copy / "names.py"
    names.write_text(names.read_text() + "\n# a change\n")
    assert digest() != before
