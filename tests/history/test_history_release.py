"""gen-ops release: the files GE's layout wants, byte for byte; the index
sorted by date; a version recorded once; one transaction, the index last."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers import ROOT
from history_helpers import Project, project  # noqa: F401

from gen_ops.emit.literals import json_text

SCALE = """\
op: Scale
module: vision
doc: y = x * alpha.
inputs:
  - {name: x, dtype: T, doc: The input.}
outputs:
  - {name: y, dtype: T}
dtypes:
  T: [float16, float32]
attrs:
  - {name: alpha, type: float, default: 1e-8}
  - {name: axes, type: list_int}
"""

OPERATORS = """\
{
  "operators": [
    {
      "op_type": "Scale",
      "inputs": [
        {
          "name": "x",
          "type": "INPUT",
          "dtype": "T",
          "doc": "The input."
        }
      ],
      "outputs": [
        {
          "name": "y",
          "type": "OUTPUT",
          "dtype": "T"
        }
      ],
      "attrs": [
        {
          "name": "alpha",
          "type": "Float",
          "required": false,
          "default_value": "1e-08"
        },
        {
          "name": "axes",
          "type": "ListInt",
          "required": true
        }
      ],
      "subgraphs": [],
      "doc": "y = x * alpha."
    }
  ]
}
"""


def test_the_files_of_a_release(project: Project) -> None:
    project.spec("scale.yaml", SCALE)
    run = project.release("1.0.0", "2026-01-10", "--branch", "release-1.0")
    assert run.out.startswith(
        "gen-ops release: recorded 1.0.0 (2026-01-10) with 1 op(s) in reg; the index "
        "lists 1 release(s) ("
    )
    assert sorted(
        p.relative_to(project.root / "reg").as_posix()
        for p in (project.root / "reg").rglob("*")
        if p.is_file()
    ) == ["index.json", "registry/1.0.0/metadata.json", "registry/1.0.0/operators.json"]
    text = (project.root / "reg/index.json").read_text()
    assert text == (
        '{\n  "version": "1.0.0",\n  "releases": [\n    {\n      "release_version": '
        '"1.0.0",\n      "release_date": "2026-01-10"\n    }\n  ]\n}\n'
    )
    assert (project.root / "reg/registry/1.0.0/metadata.json").read_text() == (
        '{\n  "release_version": "1.0.0",\n  "branch_name": "release-1.0"\n}\n'
    )
    assert (project.root / "reg/registry/1.0.0/operators.json").read_text() == OPERATORS


def test_the_operators_are_the_history_export(project: Project) -> None:
    """One place decides the format: the release holds what gen-ops renders
    into history/<module>/operators.json, less its banner."""
    project.spec("scale.yaml", SCALE)
    project.release("1.0.0", "2026-01-10")
    assert project.gen("--no-scaffold", "-q").status == 0
    export = project.read("generated/history/vision/operators.json")
    del export["generated_by"]
    released = (project.root / "reg/registry/1.0.0/operators.json").read_text()
    assert released == json_text(export)


def test_the_repository_specs_record_as_their_export(project: Project) -> None:
    specs = ROOT / "specs"
    run = project.gen(
        "release", "0.1.0", "--date", "2026-12-01", "--registry", "reg",
        "--specs", str(specs), "--module", "control",
    )  # fmt: skip
    assert run.status == 0, run.err
    export = json.loads((ROOT / "generated/history/control/operators.json").read_text())
    del export["generated_by"]
    assert project.read("reg/registry/0.1.0/operators.json") == export


def test_without_a_branch_the_metadata_has_none(project: Project) -> None:
    project.spec("scale.yaml", SCALE)
    project.release("1.0.0", "2026-01-10")
    assert project.read("reg/registry/1.0.0/metadata.json") == {
        "release_version": "1.0.0"
    }


def test_releases_are_listed_by_date(project: Project) -> None:
    project.spec("scale.yaml", SCALE)
    project.release("2.0.0", "2026-06-01")
    project.release("1.5.0", "2026-03-01")
    project.release("2.0.1", "2026-06-01")
    assert project.read("reg/index.json") == {
        "version": "1.0.0",
        "releases": [
            {"release_version": "1.5.0", "release_date": "2026-03-01"},
            {"release_version": "2.0.0", "release_date": "2026-06-01"},
            {"release_version": "2.0.1", "release_date": "2026-06-01"},
        ],
    }


def test_a_version_is_recorded_once(project: Project) -> None:
    project.spec("scale.yaml", SCALE)
    project.release("1.0.0", "2026-01-10")
    before = (project.root / "reg/registry/1.0.0/operators.json").read_text()
    project.spec("scale.yaml", SCALE.replace("y = x * alpha.", "Scales."))
    run = project.gen("release", "1.0.0", "--date", "2026-02-01", "--registry", "reg")
    assert run.status == 2
    assert run.lines == [
        "reg/index.json:5:26: error[H201]: releases[0]: release 1.0.0 is recorded "
        "already (dated 2026-01-10); a release is recorded once"
    ]
    assert run.hints == ["record the specs under a new version"]
    assert run.err.endswith("gen-ops release: 1.0.0 was not recorded\n")
    assert (project.root / "reg/registry/1.0.0/operators.json").read_text() == before


def test_entries_ge_skips_are_dropped_from_the_index(project: Project) -> None:
    project.spec("scale.yaml", SCALE)
    project.json(
        "reg/index.json",
        {
            "version": "1.0.0",
            "releases": [
                {"release_version": "0.9", "release_date": "2025-13-01"},
                {"release_version": "0.8"},
            ],
        },
    )
    run = project.release("1.0.0", "2026-01-10")
    assert [line.split(": warning")[1][:6] for line in run.lines] == [
        "[H103]",
        "[H102]",
    ]
    assert "2 index entr(ies) GE's reader skips were left out of index.json" in run.err
    assert project.read("reg/index.json")["releases"] == [
        {"release_version": "1.0.0", "release_date": "2026-01-10"}
    ]


def test_an_index_that_cannot_be_read_is_not_overwritten(project: Project) -> None:
    project.spec("scale.yaml", SCALE)
    project.json("reg/index.json", None, raw="{")
    run = project.gen("release", "1.0.0", "--registry", "reg")
    assert run.status == 2
    assert "error[H101]" in run.lines[0]
    assert (project.root / "reg/index.json").read_text() == "{"
    assert not (project.root / "reg/registry").exists()


def test_bad_arguments_are_usage_errors(project: Project) -> None:
    project.spec("scale.yaml", SCALE)
    for args, message in [
        (("1.0.0", "--date", "2026-13-01"), "the month 13 is not from 1 to 12"),
        (("1.0.0", "--date", "26-01-01"), "it is not YYYY-MM-DD"),
        (("../x",), "'../x' is not a version"),
        ((".hidden",), "'.hidden' is not a version"),
        (("1.0.0", "--branch", ""), "cannot be a branch name"),
        (("1.0.0", "--branch", "a\u202eb"), "cannot be a branch name"),
    ]:
        run = project.gen("release", *args, "--registry", "reg")
        assert run.status == 2, args
        assert message in run.err, run.err
    assert not (project.root / "reg").exists()
    missing = project.gen("release", "1.0.0")
    assert missing.status == 2 and "--registry" in missing.err


def test_invalid_specs_record_nothing(project: Project) -> None:
    project.spec("scale.yaml", SCALE.replace("float16", "float61"))
    run = project.gen("release", "1.0.0", "--registry", "reg")
    assert run.status == 2
    assert "error[E401]" in run.err
    assert run.err.endswith("gen-ops release: nothing was done\n")
    assert not (project.root / "reg").exists()


def test_module_selects_the_specs(project: Project) -> None:
    project.spec("scale.yaml", SCALE)
    project.spec("other.yaml", "op: Other\n")
    project.gen("release", "1.0.0", "--date", "2026-01-01", "--registry", "reg",
                "--module", "vision")  # fmt: skip
    ops = project.read("reg/registry/1.0.0/operators.json")["operators"]
    assert [op["op_type"] for op in ops] == ["Scale"]
    none = project.gen("release", "1.1.0", "--registry", "reg", "--module", "cv")
    assert none.status == 2
    assert "no spec'd op is in module cv" in none.err


def test_a_registry_path_in_the_way_is_a_write_error(project: Project) -> None:
    project.spec("scale.yaml", SCALE)
    (project.root / "reg").write_text("not a directory")
    run = project.gen("release", "1.0.0", "--registry", "reg")
    assert run.status == 3
    assert "reg is in the way: it is not a directory; reg was not changed" in run.err


def _release(cwd: Path, version: str, fault: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, GEN_OPS_FAULT=fault)
    return subprocess.run(
        [sys.executable, "-m", "gen_ops", "release", version, "--date", "2026-02-01",
         "--registry", "reg"],
        cwd=cwd, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_a_failed_write_leaves_the_registry_as_it_was(project: Project) -> None:
    project.spec("scale.yaml", SCALE)
    project.release("1.0.0", "2026-01-10")
    before = {p: p.read_bytes() for p in (project.root / "reg").rglob("*")
              if p.is_file()}  # fmt: skip
    result = _release(project.root, "1.1.0", "stage:3:ENOSPC")
    assert result.returncode == 3, result.stderr
    assert (
        "cannot write reg/index.json: No space left on device; reg was not changed"
        in (result.stderr)
    )
    after = {p: p.read_bytes() for p in (project.root / "reg").rglob("*")
             if p.is_file()}  # fmt: skip
    assert after == before


def test_the_index_is_renamed_last(project: Project) -> None:
    """Killed before the index is renamed: the release's files are in place
    and the index does not list them, so a reader sees the registry as it
    was; the next release finishes the commit first."""
    project.spec("scale.yaml", SCALE)
    project.release("1.0.0", "2026-01-10")
    index_before = (project.root / "reg/index.json").read_text()
    result = _release(project.root, "1.1.0", "commit:3:SIGKILL")
    assert result.returncode == -9
    assert (project.root / "reg/registry/1.1.0/operators.json").is_file()
    assert (project.root / "reg/index.json").read_text() == index_before
    reader = project.compat("--release-version", "1.0.0")
    assert reader.status == 0 and "H1" not in reader.err
    again = project.gen("release", "1.2.0", "--date", "2026-03-01", "--registry", "reg")
    assert again.status == 0
    assert "finished what an interrupted release left (1 file(s))" in again.err
    assert [
        r["release_version"] for r in project.read("reg/index.json")["releases"]
    ] == [
        "1.0.0",
        "1.1.0",
        "1.2.0",
    ]
    assert not list((project.root / "reg").rglob(".gen-ops-*"))
