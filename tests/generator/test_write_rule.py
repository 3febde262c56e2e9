"""The write rule (Note [Write rule] in gen_ops/emit/transaction.py): no write or
removal of gen-ops follows a symlink out of the tree it owns or acts outside
it, and a journal is recovered only when gen-ops can prove it wrote it; a
planted or tampered journal is refused with a located error and nothing is
touched. Each test points a symlink inside the tree at a sibling directory
(``victim/``) and checks that the sibling is byte for byte as it was.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

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
HEADER = """\
namespace ge {
REG_OP(Relu)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(Relu)
}  // namespace ge
"""
PLANTED = {"renames": [["link/secret.txt", "stolen.txt"]], "deletes": ["link/keep.txt"]}


def gen_ops(
    cwd: Path, *args: str, fault: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GEN_OPS_FAULT"}
    if fault is not None:
        env["GEN_OPS_FAULT"] = fault
    return subprocess.run(
        [sys.executable, "-m", "gen_ops", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every entry under ``root`` (symlinks by their target), but the lock's
    information file (Note [Tree lock]), which each run replaces."""
    found: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        key = path.relative_to(root).as_posix()
        if path.name == LOCK_INFO:
            continue
        if path.is_symlink():
            found[key] = "-> " + os.readlink(path)
        elif path.is_file():
            found[key] = path.read_bytes()
        else:
            found[key] = "dir"
    return found


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs/add_one.yaml").write_text(ADD)
    (tmp_path / "relu.h").write_text(HEADER)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "secret.txt").write_text("secret")
    (victim / "keep.txt").write_text("keep")
    return tmp_path


def plant(tree: Path, journal: object, link: str = "link") -> None:
    tree.mkdir(parents=True, exist_ok=True)
    os.symlink(tree.parent / "victim", tree / link)
    (tree / JOURNAL).write_text(json.dumps(journal))


def refused(run: subprocess.CompletedProcess[str], journal: str) -> None:
    """A located, traceback-free refusal naming the journal."""
    assert run.returncode == 3, run.stderr
    assert "Traceback" not in run.stderr
    assert f"{journal}:" in run.stderr and ": error: " in run.stderr, run.stderr


COMMANDS = {
    "release": (["release", "1.0.0", "--registry", "reg"], "reg"),
    "render": (["--no-scaffold"], "generated"),
    "import": (["import", "relu.h", "--out", "imported"], "imported"),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_planted_journal_through_a_symlink_is_refused(
    work: Path, command: str
) -> None:
    args, tree = COMMANDS[command]
    plant(work / tree, PLANTED)
    before = snapshot(work / "victim")
    run = gen_ops(work, *args)
    refused(run, f"{tree}/{JOURNAL}")
    assert snapshot(work / "victim") == before
    assert not (work / tree / "stolen.txt").exists()
    assert (work / tree / JOURNAL).exists()  # nothing touched, the journal kept


@pytest.mark.parametrize(
    "journal",
    [
        {"renames": [], "deletes": ["/etc/hostname"]},
        {"renames": [], "deletes": ["../victim/keep.txt"]},
        {"renames": [["../victim/secret.txt", "stolen.txt"]], "deletes": []},
        {"renames": [], "deletes": [".gen-ops-manifest.json"]},
        {"renames": [], "deletes": [JOURNAL]},
        [1, 2, 3],
        "not json",
    ],
    ids=[
        "absolute",
        "dotdot-delete",
        "dotdot-rename",
        "manifest",
        "itself",
        "list",
        "text",
    ],
)
def test_a_malformed_or_escaping_journal_is_refused(
    work: Path, journal: object
) -> None:
    out = work / "generated"
    out.mkdir()
    text = journal if isinstance(journal, str) else json.dumps(journal)
    (out / JOURNAL).write_text(text)
    before = snapshot(work / "victim")
    run = gen_ops(work, "--no-scaffold")
    refused(run, f"generated/{JOURNAL}")
    assert snapshot(work / "victim") == before
    assert (out / JOURNAL).read_text() == text


def test_a_journal_of_another_tree_is_refused(work: Path) -> None:
    """A real journal copied (with its staged files) into another tree does
    not name that tree: it is not recovered there."""
    assert gen_ops(work, "--no-scaffold").returncode == 0
    (work / "specs/add_one.yaml").write_text(ADD.replace("Adds one.", "Adds 1."))
    killed = gen_ops(work, "--no-scaffold", fault="commit:2:SIGKILL")
    assert killed.returncode == -signal.SIGKILL
    shutil.copytree(work / "generated", work / "copy", symlinks=True)
    before = snapshot(work / "copy")
    run = gen_ops(work, "--no-scaffold", "--out", "copy")
    refused(run, f"copy/{JOURNAL}")
    assert snapshot(work / "copy") == before
    # The tree it was written for is recovered.
    assert gen_ops(work, "--no-scaffold").returncode == 0
    assert not (work / "generated" / JOURNAL).exists()


def test_a_staged_file_that_became_a_symlink_is_refused(work: Path) -> None:
    assert gen_ops(work, "--no-scaffold").returncode == 0
    (work / "specs/add_one.yaml").write_text(ADD.replace("Adds one.", "Adds 1."))
    killed = gen_ops(work, "--no-scaffold", fault="commit:1:SIGKILL")
    assert killed.returncode == -signal.SIGKILL
    out = work / "generated"
    temps = [p for p in out.rglob(f"{TEMP_PREFIX}*") if p.is_file()]
    assert temps
    temps[0].unlink()
    os.symlink(work / "victim/secret.txt", temps[0])
    before = snapshot(work / "victim")
    run = gen_ops(work, "--no-scaffold")
    refused(run, f"generated/{JOURNAL}")
    assert snapshot(work / "victim") == before
    assert not any(p.is_symlink() for p in out.rglob("*") if TEMP_PREFIX not in p.name)


def test_a_missing_staged_file_fails_loudly(work: Path) -> None:
    """A commit never skips a staged file that is gone (unless its
    destination already holds its content)."""
    assert gen_ops(work, "--no-scaffold").returncode == 0
    (work / "specs/add_one.yaml").write_text(ADD.replace("Adds one.", "Adds 1."))
    killed = gen_ops(work, "--no-scaffold", fault="commit:1:SIGKILL")
    assert killed.returncode == -signal.SIGKILL
    temps = list((work / "generated").rglob(f"{TEMP_PREFIX}*"))
    temps[-1].unlink()
    run = gen_ops(work, "--no-scaffold")
    refused(run, f"generated/{JOURNAL}")
    assert "missing" in run.stderr


def test_a_stale_temporary_symlink_is_removed_not_followed(work: Path) -> None:
    assert gen_ops(work, "--no-scaffold").returncode == 0
    out = work / "generated"
    stale = out / "src" / f"{TEMP_PREFIX}custom_op_proto.cc.999999-1"
    os.symlink(work / "victim/keep.txt", stale)
    (work / "specs/add_one.yaml").write_text(ADD.replace("Adds one.", "Adds 1."))
    before = snapshot(work / "victim")
    run = gen_ops(work, "--no-scaffold")
    assert run.returncode == 0, run.stderr
    assert not stale.is_symlink()
    assert snapshot(work / "victim") == before


def test_release_does_not_write_through_a_symlinked_version_dir(work: Path) -> None:
    (work / "reg/registry").mkdir(parents=True)
    os.symlink(work / "victim", work / "reg/registry/3.0.0")
    before = snapshot(work / "victim")
    run = gen_ops(work, "release", "3.0.0", "--registry", "reg")
    assert run.returncode == 3, run.stderr
    assert "Traceback" not in run.stderr
    assert "reg/registry/3.0.0" in run.stderr and "symbolic link" in run.stderr
    assert snapshot(work / "victim") == before
    assert not (work / "reg/index.json").exists()


def test_render_does_not_write_through_a_symlinked_subdirectory(work: Path) -> None:
    assert gen_ops(work, "--no-scaffold").returncode == 0
    out = work / "generated"
    shutil.rmtree(out / "src")
    os.symlink(work / "victim", out / "src")
    (work / "specs/add_one.yaml").write_text(ADD.replace("Adds one.", "Adds 1."))
    before = snapshot(work / "victim")
    run = gen_ops(work, "--no-scaffold")
    assert run.returncode == 3, run.stderr
    assert "generated/src" in run.stderr and "symbolic link" in run.stderr
    assert "Traceback" not in run.stderr
    assert snapshot(work / "victim") == before


def test_import_does_not_write_through_a_symlinked_subdirectory(work: Path) -> None:
    (work / "imported").mkdir()
    os.symlink(work / "victim", work / "imported/custom")
    before = snapshot(work / "victim")
    run = gen_ops(work, "import", "relu.h", "--out", "imported")
    assert run.returncode == 3, run.stderr
    assert "imported/custom" in run.stderr and "symbolic link" in run.stderr
    assert "Traceback" not in run.stderr
    assert snapshot(work / "victim") == before


def test_temporaries_behind_a_symlinked_folder_are_not_removed(work: Path) -> None:
    assert gen_ops(work, "--no-scaffold").returncode == 0
    theirs = work / "victim" / f"{TEMP_PREFIX}keep.txt.1-1"
    theirs.write_text("not gen-ops' to remove")
    os.symlink(work / "victim", work / "generated/link")
    (work / "specs/add_one.yaml").write_text(ADD.replace("Adds one.", "Adds 1."))
    before = snapshot(work / "victim")
    run = gen_ops(work, "--no-scaffold")
    assert run.returncode == 0, run.stderr
    assert snapshot(work / "victim") == before
