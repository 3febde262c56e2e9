"""``gen-ops import`` through the real command line, in a subprocess: exit
statuses, the summary line, what is written (and what is not), atomic
writes, and the same output from worker processes as from one."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

GOOD = """\
#include "graph/operator_reg.h"
namespace ge {
/** @brief Rectified linear unit. */
REG_OP(Relu)
    .INPUT(x, TensorType({DT_FLOAT, DT_FLOAT16}))
    .OUTPUT(y, TensorType({DT_FLOAT, DT_FLOAT16}))
    .OP_END_FACTORY_REG(Relu)

REG_OP(Sigmoid)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(Sigmoid)
}  // namespace ge
"""
ODD = GOOD.replace("TensorType({DT_FLOAT}))\n    .OUTPUT", "DT_FLOAT)\n    .OUTPUT")
BAD_OP = (
    GOOD.replace("({DT_FLOAT}))\n    .OUTPUT", "({DT_FLOAT64}))\n    .OUTPUT")
    .replace("Relu", "BadRelu")
    .replace("Sigmoid", "BadSigmoid")
)
DEFECT = """\
namespace ge {
REG_OP(Tanh)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(Tanh)
/* never closed
"""


def gen_ops(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gen_ops", "import", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
    )


def tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def summary(text: str) -> str:
    """The summary line without its run time."""
    line = next(x for x in text.splitlines() if x.startswith("gen-ops import: "))
    return re.sub(r" \(\d+\.\d\d s\)$", "", line)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "good.h").write_text(GOOD)
    (tmp_path / "odd.h").write_text(ODD)
    (tmp_path / "bad_op.h").write_text(BAD_OP)
    (tmp_path / "defect.h").write_text(DEFECT)
    return tmp_path


def test_exit_0_when_everything_is_imported(work: Path) -> None:
    run = gen_ops("good.h", "--out", "specs", cwd=work)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    assert summary(run.stdout) == (
        "gen-ops import: 1 header(s), 2 op(s) imported; 2 file(s) written, "
        "0 unchanged; 0 error(s), 0 warning(s)"
    )
    assert sorted(tree(work / "specs")) == [
        ".gen-ops-import.json",  # what it wrote (Note [Import record])
        "custom/relu.yaml",
        "custom/sigmoid.yaml",
        "op-spec.schema.json",  # the schema their first lines name
    ]
    again = gen_ops("good.h", "--out", "specs", cwd=work)
    assert again.returncode == 0
    assert "0 file(s) written, 2 unchanged" in again.stdout


def test_quiet_prints_nothing_on_success(work: Path) -> None:
    run = gen_ops("good.h", "--out", "specs", "-q", cwd=work)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")


def test_warnings_exit_0_or_1_under_strict(work: Path) -> None:
    run = gen_ops("odd.h", "--out", "specs", cwd=work)
    assert run.returncode == 0
    assert "warning[I301]" in run.stderr
    strict = gen_ops("odd.h", "--out", "strict", "--strict", cwd=work)
    assert strict.returncode == 1
    assert summary(strict.stderr).endswith("0 error(s), 1 warning(s)")
    assert tree(work / "strict") == tree(work / "specs")  # written all the same


def test_exit_2_imports_the_rest(work: Path) -> None:
    run = gen_ops(".", "--out", "specs", "--module-per-header", cwd=work)
    assert run.returncode == 2
    # good.h and odd.h declare Relu and Sigmoid alike: imported once, from
    # the first header (good.h); bad_op.h's BadSigmoid and defect.h's Tanh
    # are not imported.
    assert summary(run.stderr) == (
        "gen-ops import: 4 header(s) (1 failed), 3 op(s) imported (2 duplicate(s) "
        "merged), 2 not imported; 3 file(s) written, 0 unchanged; 2 error(s), "
        "1 warning(s)"
    )
    written = tree(work / "specs")
    assert sorted(written) == [
        ".gen-ops-import.json",
        "bad_op/bad_relu.yaml",
        "good/relu.yaml",
        "good/sigmoid.yaml",
        "op-spec.schema.json",
    ]
    assert "defect.h:6:1: error[I103]" in run.stderr
    assert "bad_op.h:10:27: error[I202]" in run.stderr
    assert not any(k.startswith("defect/") for k in written)


def test_exit_3_when_a_file_cannot_be_written(work: Path) -> None:
    run = gen_ops(
        "good.h", "--out", "specs", cwd=work, env={"GEN_OPS_FAULT": "stage:2:ENOSPC"}
    )
    assert run.returncode == 3
    assert "no spec file was written" in run.stderr
    assert not (work / "specs").exists()  # staged files and directories undone
    (work / "blocked").write_text("a file where the output directory goes")
    blocked = gen_ops("good.h", "--out", "blocked", cwd=work)
    assert blocked.returncode == 3
    assert (work / "blocked").read_text().startswith("a file")


def test_no_journal_or_temporary_file_is_left(work: Path) -> None:
    assert gen_ops("good.h", "--out", "specs", cwd=work).returncode == 0
    names = [p.name for p in (work / "specs").rglob("*")]
    assert not any(
        n.startswith(".gen-ops") for n in names if n != ".gen-ops-import.json"
    ), names


def test_existing_files_are_kept_unless_overwrite(work: Path) -> None:
    target = work / "specs/custom/relu.yaml"
    target.parent.mkdir(parents=True)
    target.write_text("op: Relu\ndoc: mine\n")
    run = gen_ops("good.h", "--out", "specs", cwd=work)
    assert run.returncode == 2
    assert "error[I207]" in run.stderr
    assert target.read_text() == "op: Relu\ndoc: mine\n"
    assert (work / "specs/custom/sigmoid.yaml").is_file()
    forced = gen_ops("good.h", "--out", "specs", "--overwrite", cwd=work)
    assert forced.returncode == 0
    assert target.read_text().startswith("# yaml-language-server: $schema=")


def test_fix_dtypes_and_prefer(work: Path) -> None:
    (work / "f32.h").write_text(GOOD.replace("DT_FLOAT,", "DT_FLOAT32,"))
    plain = gen_ops("f32.h", "--out", "a", cwd=work)
    assert plain.returncode == 2 and "error[I202]" in plain.stderr
    fixed = gen_ops("f32.h", "--out", "b", "--fix-dtypes", cwd=work)
    assert fixed.returncode == 0 and "warning[I302]" in fixed.stderr
    assert "dtype: [float32, float16]" in (work / "b/custom/relu.yaml").read_text()
    both = gen_ops("good.h", "odd.h", "--out", "c", cwd=work)
    assert both.returncode == 0  # identical declarations: imported once
    assert "2 duplicate(s) merged" in both.stdout
    (work / "other.h").write_text(GOOD.replace("DT_FLOAT, DT_FLOAT16", "DT_INT32"))
    clash = gen_ops("good.h", "other.h", "--out", "d", cwd=work)
    assert clash.returncode == 2 and "error[I206]" in clash.stderr
    assert not (work / "d/custom/relu.yaml").exists()
    chosen = gen_ops("good.h", "other.h", "--out", "e", "--prefer", "other.h", cwd=work)
    assert chosen.returncode == 0 and "warning[I306]" in chosen.stderr
    assert "dtype: int32" in (work / "e/custom/relu.yaml").read_text()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--out", "specs"], "the following arguments are required: HEADER_OR_DIR"),
        (["good.h", "--module", "9lives"], "cannot be a module name"),
        (["good.h", "--module", "x", "--module-per-header"], "not allowed with"),
        (["good.h", "--prefer", "nowhere.h"], "neither FIRST, LAST nor an existing"),
        (["good.h", "--jobs", "0"], "is not a number of processes"),
        (["good.h", "--out", ""], "an empty path"),
    ],
)
def test_usage_errors_exit_2(work: Path, args: list[str], message: str) -> None:
    run = gen_ops(*args, cwd=work)
    assert run.returncode == 2
    assert run.stderr.startswith("usage: gen-ops import")
    assert message in run.stderr


def test_help(work: Path) -> None:
    run = gen_ops("--help", cwd=work)
    assert run.returncode == 0
    assert run.stdout.startswith("usage: gen-ops import")
    for option in ("--module-per-header", "--fix-dtypes", "--prefer", "--strict"):
        assert option in run.stdout


def test_worker_processes_give_the_same_output(tmp_path: Path) -> None:
    """Enough headers to use the pool: its output is byte for byte the
    serial run's, diagnostics included."""
    corpus = HERE / "headers"
    headers = tmp_path / "headers"
    for copy in range(3):
        for source in sorted(corpus.rglob("*.h*")):
            text = source.read_text(encoding="utf-8")
            text = re.sub(r"\b(REG_OP|OP_END_FACTORY_REG)\((\w+)\)",
                          rf"\1(\2Copy{copy})", text)  # fmt: skip
            target = headers / f"copy{copy}" / source.relative_to(corpus)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    assert sum(1 for _ in headers.rglob("*.h*")) >= 32  # driver.PARALLEL_FROM
    serial = gen_ops("headers", "--module-per-header", "--out", "one", "--jobs", "1",
                     cwd=tmp_path)  # fmt: skip
    pooled = gen_ops("headers", "--module-per-header", "--out", "two", "--jobs", "2",
                     cwd=tmp_path)  # fmt: skip
    assert serial.returncode == pooled.returncode == 2
    assert serial.stderr.splitlines()[:-1] == pooled.stderr.splitlines()[:-1]
    assert summary(serial.stderr) == summary(pooled.stderr)
    assert tree(tmp_path / "one") == tree(tmp_path / "two")


def test_the_schema_line_resolves_on_any_checkout(work: Path) -> None:
    """Issue 22 finding 5: the ``$schema`` line names a copy of the schema
    at the spec root (Note [Schema copy]), never a path into this machine's
    ge-ops install, so it resolves wherever the project is checked out."""
    from gen_ops.base.resources import schema_path

    run = gen_ops("good.h", "--out", "specs", cwd=work)
    assert run.returncode == 0, run.stderr
    moved = work / "elsewhere" / "checkout"
    moved.parent.mkdir()
    (work / "specs").rename(moved)  # another checkout of the user's project
    for spec in moved.rglob("*.yaml"):
        first = spec.read_text().splitlines()[0]
        reference = first.removeprefix("# yaml-language-server: $schema=")
        assert reference == "../op-spec.schema.json", first
        target = (spec.parent / reference).resolve()
        assert target == (moved / "op-spec.schema.json").resolve()
    copy = moved / "op-spec.schema.json"
    assert copy.read_text() == schema_path().read_text()


def test_a_reimport_replaces_an_old_schema_line_without_overwrite(work: Path) -> None:
    assert gen_ops("good.h", "--out", "specs", cwd=work).returncode == 0
    target = work / "specs/custom/relu.yaml"
    text = target.read_text()
    first, rest = text.split("\n", 1)
    target.write_text("# yaml-language-server: $schema=/old/site/op.json\n" + rest)
    (work / "specs/op-spec.schema.json").unlink()
    run = gen_ops("good.h", "--out", "specs", cwd=work)
    assert run.returncode == 0, run.stderr
    assert target.read_text() == text
    assert (work / "specs/op-spec.schema.json").is_file()
