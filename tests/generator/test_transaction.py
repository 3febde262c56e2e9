"""A run changes the output directory completely or not at all (Note [One
transaction] in gen_ops/emit/transaction.py).

Each test makes a tree from the "old" specs, changes the specs (an edited op,
a new op in a new module, a removed op: writes, new directories and
removals), and stops the run at an exact point: a file where a directory must
go, an OSError injected into one write (GEN_OPS_FAULT, the writer's test
hook), or a signal the process sends itself at a given step. Afterwards the
tree is byte for byte the old one or the new one, an interrupted commit is
reported by --check and completed by the next run, and no temporary file
survives a run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gen_ops.cli import main
from gen_ops.emit.locking import LOCK_INFO
from gen_ops.emit.transaction import JOURNAL, TEMP_PREFIX

ADD = """\
op: AddOne
doc: Adds one.
inputs:
  - {name: x, dtype: float32}
outputs:
  - {name: y, dtype: float32}
infer_meta:
  y: {shape: same_as(x), dtype: x}
impl:
  capabilities: [execute]
"""
MUL = ADD.replace("AddOne", "MulTwo").replace("Adds one.", "Doubles.")
NEG = ADD.replace("AddOne", "NegOne").replace("Adds one.", "Negates.")
NEG = NEG.replace("op: NegOne\n", "op: NegOne\nmodule: extra\n")

Tree = dict[str, bytes]


def snapshot(out: Path) -> Tree:
    """Every file under ``out`` but the fast-path cache and the lock's
    information file (a killed run leaves it; Note [Tree lock])."""
    if not out.exists():
        return {}
    return {
        p.relative_to(out).as_posix(): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.name not in (".gen-ops-state.json", LOCK_INFO)
    }


def run(
    project: Path, *args: str, fault: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GEN_OPS_FAULT"}
    if fault is not None:
        env["GEN_OPS_FAULT"] = fault
    return subprocess.run(
        [sys.executable, "-m", "gen_ops", "--no-scaffold", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def trees(tmp_path: Path) -> tuple[Path, Tree, Tree]:
    """A project whose generated/ holds the old tree and whose specs are the
    new ones; the old and the new trees."""
    project = tmp_path / "project"
    specs = project / "specs"
    specs.mkdir(parents=True)
    (specs / "add_one.yaml").write_text(ADD)
    (specs / "mul_two.yaml").write_text(MUL)
    assert run(project).returncode == 0
    old = snapshot(project / "generated")
    # The new specs, rendered elsewhere for reference.
    (specs / "add_one.yaml").unlink()
    (specs / "mul_two.yaml").write_text(MUL.replace("Doubles.", "Times two."))
    (specs / "neg_one.yaml").write_text(NEG)
    assert run(project, "--out", "reference").returncode == 0
    new = snapshot(project / "reference")
    assert old != new and set(old) - set(new) and set(new) - set(old)
    return project, old, new


def temporaries(out: Path) -> list[str]:
    return sorted(
        p.relative_to(out).as_posix()
        for p in out.rglob("*")
        if p.name.startswith(TEMP_PREFIX) or p.name.endswith(".tmp")
    )


def test_the_reference_run_is_complete(trees: tuple[Path, Tree, Tree]) -> None:
    project, old, new = trees
    assert run(project).returncode == 0
    assert snapshot(project / "generated") == new
    assert run(project, "--check").returncode == 0


def test_a_blocked_directory_changes_nothing_and_names_the_file(
    trees: tuple[Path, Tree, Tree],
) -> None:
    """A file stands where the new module's directory must go."""
    project, old, new = trees
    out = project / "generated"
    (out / "include/extra").write_text("in the way\n")
    result = run(project)
    assert result.returncode == 3, result.stderr
    assert result.stderr == (
        "gen-ops: cannot write generated/include/extra/extra_ops.h: "
        "generated/include/extra is in the way: it is not a directory; "
        "generated was not changed\n"
    )
    assert snapshot(out) == {**old, "include/extra": b"in the way\n"}
    assert not (out / "python/ge/es/extra").exists()  # created, then removed
    assert temporaries(out) == []
    (out / "include/extra").unlink()
    assert run(project).returncode == 0
    assert snapshot(out) == new


def test_a_blocked_first_run_writes_nothing(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / "specs").mkdir(parents=True)
    (project / "specs/add_one.yaml").write_text(ADD)
    (project / "generated").mkdir()
    (project / "generated/python").write_text("in the way\n")
    result = run(project)
    assert result.returncode == 3
    assert "generated/python is in the way" in result.stderr
    assert snapshot(project / "generated") == {"python": b"in the way\n"}
    assert sorted(p.name for p in (project / "generated").iterdir()) == ["python"]


def test_a_directory_at_a_file_path_changes_nothing(
    trees: tuple[Path, Tree, Tree],
) -> None:
    project, old, new = trees
    out = project / "generated"
    (out / "docs/ops/NegOne.md").mkdir(parents=True)
    result = run(project)
    assert result.returncode == 3
    assert result.stderr.startswith(
        "gen-ops: cannot write generated/docs/ops/NegOne.md: a directory is in the way"
    )
    assert snapshot(out) == old
    assert temporaries(out) == []


@pytest.mark.parametrize("step", [1, 4, 9])
def test_disk_full_names_the_file_and_changes_nothing(
    trees: tuple[Path, Tree, Tree], step: int
) -> None:
    project, old, new = trees
    out = project / "generated"
    result = run(project, fault=f"stage:{step}:ENOSPC")
    assert result.returncode == 3
    (line,) = result.stderr.splitlines()
    assert line.startswith("gen-ops: cannot write generated/")
    assert line.endswith(": No space left on device; generated was not changed")
    named = line.split("cannot write ", 1)[1].split(":", 1)[0]
    assert named.removeprefix("generated/") in new  # a file, not a directory
    assert snapshot(out) == old
    assert temporaries(out) == []


@pytest.mark.parametrize(
    "name, status", [("SIGINT", 130), ("SIGTERM", 143), ("SIGHUP", 129)]
)
def test_a_signal_while_staging_leaves_the_old_tree(
    trees: tuple[Path, Tree, Tree], name: str, status: int
) -> None:
    project, old, new = trees
    out = project / "generated"
    result = run(project, fault=f"stage:6:{name}")
    assert result.returncode == status
    assert result.stderr == f"gen-ops: interrupted by {name}\n"
    assert snapshot(out) == old
    assert temporaries(out) == []
    assert run(project).returncode == 0
    assert snapshot(out) == new


@pytest.mark.parametrize("name, status", [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_while_committing_is_held_until_the_tree_is_new(
    trees: tuple[Path, Tree, Tree], name: str, status: int
) -> None:
    project, old, new = trees
    out = project / "generated"
    result = run(project, fault=f"commit:2:{name}")
    assert result.returncode == status
    assert result.stderr == f"gen-ops: interrupted by {name}\n"
    assert snapshot(out) == new
    assert run(project, "--check").returncode == 0


def test_a_kill_while_committing_is_reported_and_completed(
    trees: tuple[Path, Tree, Tree],
) -> None:
    """SIGKILL cannot be held: the journal says what to finish."""
    project, old, new = trees
    out = project / "generated"
    result = run(project, fault="commit:3:SIGKILL")
    assert result.returncode == -signal.SIGKILL
    middle = snapshot(out)
    assert JOURNAL in middle and middle not in (old, new)
    check = run(project, "--check")
    assert check.returncode == 1
    assert (
        f"gen-ops: generated/{JOURNAL}: a run was interrupted while it renamed its "
        "files into place; the next run completes it\n"
    ) in check.stderr
    assert "left by an interrupted run; run gen-ops" in check.stderr
    again = run(project)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("gen-ops: repaired ")
    assert snapshot(out) == new
    assert temporaries(out) == []
    assert run(project, "--check").returncode == 0


def test_a_kill_while_staging_leaves_temporaries_that_the_next_run_removes(
    trees: tuple[Path, Tree, Tree],
) -> None:
    project, old, new = trees
    out = project / "generated"
    result = run(project, fault="stage:5:SIGKILL")
    assert result.returncode == -signal.SIGKILL
    left = temporaries(out)
    assert left and {k for k in snapshot(out) if k not in left} == set(old)
    check = run(project, "--check")
    assert check.returncode == 1
    assert all(f"{t}: a temporary file" in check.stderr for t in left)
    assert run(project).returncode == 0
    assert snapshot(out) == new and temporaries(out) == []


def test_temporaries_of_earlier_gen_ops_versions_are_removed(
    trees: tuple[Path, Tree, Tree],
) -> None:
    project, old, new = trees
    out = project / "generated"
    legacy = out / "include/custom/.mul_two.h.k2j4x9_a.tmp"
    legacy.write_text("half a header")
    mine = out / "include/custom/.notes.h.12345678.tmp"  # no notes.h: not ours
    mine.write_text("user file")
    assert run(project, "--check").returncode == 1
    assert run(project).returncode == 0
    assert not legacy.exists() and mine.exists()
    mine.unlink()
    assert snapshot(out) == new


def test_in_process_run_restores_the_signal_handlers(project_dir: Path) -> None:
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    assert main(["--no-scaffold", "--specs", str(project_dir / "specs")]) == 0
    assert {s: signal.getsignal(s) for s in before} == before


@pytest.fixture
def project_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs/add_one.yaml").write_text(ADD)
    monkeypatch.chdir(tmp_path)
    return tmp_path
