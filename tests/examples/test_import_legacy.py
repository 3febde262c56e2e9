"""examples/import_legacy: the legacy header imported with --fix-dtypes,
checked by roundtrip, generated, and a graph of six of its ops run on the
CPU device against numpy, all in a process of its own as `make demo` runs
it; and the header's defects really are defects without --fix-dtypes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples/import_legacy"
HEADER = "examples/import_legacy/legacy_ops.h"

# Every diagnostic of the import, in order: what was normalised.
WARNINGS = [
    (39, 28, "I302", "LegacyScale: output 'y': DT_FLOAT32 read as DT_FLOAT"),
    (73, 15, "I301", "LegacyRelu: input 'x': read TensorType(DT_FLOAT, DT_FLOAT16"),
    (73, 48, "I302", "LegacyRelu: input 'x': DT_BFLOAT16 read as DT_BF16"),
    (74, 16, "I301", "LegacyRelu: output 'y': read TensorType(DT_FLOAT, DT_FLOAT16"),
    (74, 49, "I302", "LegacyRelu: output 'y': DT_BFLOAT16 read as DT_BF16"),
    (126, 15, "I301", "_LegacyIdentity: input 'x': read TensorType({BasicType(), "),
    (127, 16, "I301", "_LegacyIdentity: output 'y': read TensorType({BasicType(), "),
    (146, 23, "I301", "LegacyArgMax: input 'dimension': read DT_INT32 as [int32]"),
    (148, 23, "I304", "LegacyArgMax: attr 'dtype': the Int default DT_INT32"),
    (173, 15, "I301", "LegacyPad: input 'x': read TensorType({RealNumberType"),
    (174, 16, "I301", "LegacyPad: output 'y': read TensorType({RealNumberType"),
    (188, 23, "I301", "Assert: input 'condition': read TensorType{DT_BOOL}"),
]
DIAGNOSTIC = re.compile(r"^(\S+):(\d+):(\d+): (warning|error)\[(\w+)\]: (.*)$")


def diagnostics(stderr: str) -> list[tuple[str, int, int, str, str, str]]:
    return [
        (m[1], int(m[2]), int(m[3]), m[4], m[5], m[6])
        for m in map(DIAGNOSTIC.match, stderr.splitlines())
        if m
    ]


def env() -> dict[str, str]:
    return {
        k: v
        for k, v in os.environ.items()
        if k not in ("ASCEND_CUSTOM_OPP_PATH", "PYTHONPATH")
    }


def run_example(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "examples/import_legacy/run.py", *args],
        cwd=ROOT,
        env=env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_example_imports_generates_and_runs(tmp_path: Path) -> None:
    result = run_example(str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    summary = lines[1]
    assert summary.startswith(
        "gen-ops import: 1 header(s), 10 op(s) imported; 10 file(s) written, "
        "0 unchanged; 0 error(s), 12 warning(s) ("
    ), summary
    assert lines[2].startswith(
        "gen-ops roundtrip: 1 header(s), 10 op(s): 10 the same, 0 differ, "
        "0 cannot be rendered; 0 error(s), 12 warning(s) ("
    ), lines[2]
    assert lines[3].endswith(
        "infer_meta and impl added to 6: _LegacyIdentity, LegacyAddN, "
        "LegacyAssignAdd, LegacyMul, LegacyRelu, LegacyScale"
    )
    assert lines[-3:] == [
        "[import_legacy] float32  shape=[4, 5]   ops=6 max_abs_err=0.0e+00 PASS",
        "[import_legacy] float16  shape=[4, 5]   ops=6 max_abs_err=0.0e+00 PASS",
        "[import_legacy] PASS",
    ]
    # The import's warnings, nothing else (run.py shows roundtrip's summary only).
    expected = [
        (HEADER, line, col, "warning", code, text) for line, col, code, text in WARNINGS
    ]
    got = diagnostics(result.stderr)
    assert [d[:5] for d in got] == [e[:5] for e in expected]
    for (_, _, _, _, _, message), (*_, start) in zip(got, expected):
        assert message.startswith(start), message


def test_the_imported_specs_keep_the_headers_forms(tmp_path: Path) -> None:
    assert run_example(str(tmp_path)).returncode == 0
    specs = tmp_path / "specs/legacy"
    assert sorted(p.name for p in specs.iterdir()) == [
        "_legacy_identity.yaml",
        "assert_.yaml",
        "legacy_add_n.yaml",
        "legacy_arg_max.yaml",
        "legacy_assign_add.yaml",
        "legacy_mul.yaml",
        "legacy_pad.yaml",
        "legacy_relu.yaml",
        "legacy_scale.yaml",
        "legacy_split.yaml",
    ]
    mul = yaml.safe_load((specs / "legacy_mul.yaml").read_text())
    assert mul["dtypes"]["T3"] == {"promote": ["T1", "T2"]}
    assert "    default: 3  # DT_INT32\n" in (specs / "legacy_arg_max.yaml").read_text()
    relu = yaml.safe_load((specs / "legacy_relu.yaml").read_text())
    assert relu["inputs"][0]["dtype"] == ["float32", "float16", "bfloat16"]
    ref = yaml.safe_load((specs / "legacy_assign_add.yaml").read_text())
    assert [i["name"] for i in ref["inputs"]] == ["ref", "value"]
    assert [o["name"] for o in ref["outputs"]] == ["ref"]
    assert ref["impl"] == {"capabilities": ["execute"]}  # additions.yaml's
    scale = yaml.safe_load((specs / "legacy_scale.yaml").read_text())
    assert scale["doc"].startswith("Scales and shifts a tensor: y = x * alpha + beta.")
    assert scale["inputs"][0]["doc"] == "A tensor of type float32 or float16."
    generated = tmp_path / "generated/python/ge/es/legacy"
    assert (generated / "assert_.py").exists()
    assert (generated / "_legacy_identity.py").exists()


def test_the_example_writes_nothing_into_the_checkout() -> None:
    def files() -> set[Path]:
        return {
            p.relative_to(EXAMPLE)
            for p in EXAMPLE.rglob("*")
            if "__pycache__" not in p.parts
        }

    before = files()
    result = run_example()
    assert result.returncode == 0, result.stdout + result.stderr
    assert files() == before
    assert not (ROOT / "specs/legacy").exists()
    assert not (ROOT / "generated/python/ge/es/legacy").exists()


def test_without_fix_dtypes_the_defects_are_errors(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "gen_ops", "import", HEADER]
        + ["--module", "legacy", "--out", str(tmp_path)],
        cwd=ROOT,
        env=env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    errors = [d for d in diagnostics(result.stderr) if d[3] == "error"]
    assert [(d[1], d[2], d[4]) for d in errors] == [
        (39, 28, "I202"),
        (73, 48, "I202"),
        (74, 49, "I202"),
    ]
    assert "DT_FLOAT32" in errors[0][5] and "DT_BFLOAT16" in errors[1][5]
    assert not (tmp_path / "legacy/legacy_scale.yaml").exists()
    assert not (tmp_path / "legacy/legacy_relu.yaml").exists()
    assert (tmp_path / "legacy/legacy_mul.yaml").exists()
