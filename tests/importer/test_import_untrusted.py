"""Headers gen-ops did not write (Note [Headers are untrusted], Note [Bounded
expressions]): a loop of symbolic links as a header or as ``--out``, a FIFO,
a device, and defaults or type expressions nested thousands deep give
located diagnostics, never "internal error" (exit 4), and the import goes
on with the next header. Issue 21, finding 5."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

GOOD = """\
REG_OP(Relu)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(Relu)
"""

PARENS = "(" * 5000 + "1" + ")" * 5000
MINUSES = "-" * 20000 + "1"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gen_ops", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def loop(directory: Path, a: str = "a.h", b: str = "b.h") -> None:
    os.symlink(b, directory / a)
    os.symlink(a, directory / b)


def assert_no_internal_error(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode != 4, result.stderr
    assert "internal error" not in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("command", ["import", "roundtrip"])
def test_a_symlink_loop_named_as_header_is_i101(command: str, tmp_path: Path) -> None:
    loop(tmp_path)
    result = run(command, "a.h", cwd=tmp_path)
    assert_no_internal_error(result)
    assert result.returncode == 2
    assert "a.h:1:1: error[I101]: it is a loop of symbolic links" in result.stderr
    assert "hint: remove the loop" in result.stderr


def test_bad_files_in_a_directory_are_i101_and_the_rest_is_imported(
    tmp_path: Path,
) -> None:
    headers = tmp_path / "inc"
    headers.mkdir()
    (headers / "good.h").write_text(GOOD, encoding="utf-8")
    loop(headers)
    os.mkfifo(headers / "fifo.h")
    os.symlink("/dev/zero", headers / "zero.h")
    os.symlink("..", headers / "up.h")  # a link to a directory: not a header
    os.symlink(".", headers / "sub")  # a loop of directories: not followed
    result = run("import", "inc", "--out", "specs", cwd=tmp_path)
    assert_no_internal_error(result)
    assert result.returncode == 2
    for name, why in [
        ("a.h", "it is a loop of symbolic links"),
        ("b.h", "it is a loop of symbolic links"),
        ("fifo.h", "it is a FIFO"),
        ("zero.h", "it is a device"),
    ]:
        assert f"inc/{name}:1:1: error[I101]: {why}" in result.stderr
    assert "up.h" not in result.stderr
    assert (tmp_path / "specs" / "custom" / "relu.yaml").is_file()


def test_a_symlink_loop_as_out_is_i207(tmp_path: Path) -> None:
    (tmp_path / "good.h").write_text(GOOD, encoding="utf-8")
    loop(tmp_path, "o1", "o2")
    result = run("import", "good.h", "--out", "o1", cwd=tmp_path)
    assert_no_internal_error(result)
    assert result.returncode == 2
    assert "o1:1:1: error[I207]: --out o1 cannot hold the specs" in result.stderr


def test_a_symlink_loop_inside_out_is_a_write_error(tmp_path: Path) -> None:
    (tmp_path / "good.h").write_text(GOOD, encoding="utf-8")
    (tmp_path / "specs").mkdir()
    loop(tmp_path / "specs", "custom", "other")
    result = run("import", "good.h", "--out", "specs", cwd=tmp_path)
    assert_no_internal_error(result)
    assert result.returncode in (2, 3)


def test_roundtrip_rendered_into_a_symlink_loop(tmp_path: Path) -> None:
    (tmp_path / "good.h").write_text(GOOD, encoding="utf-8")
    loop(tmp_path, "r1", "r2")
    result = run("roundtrip", "good.h", "--rendered", "r1", cwd=tmp_path)
    assert_no_internal_error(result)
    assert result.returncode == 3
    assert "r1" in result.stderr


@pytest.mark.parametrize("expression", [PARENS, MINUSES], ids=["parens", "minus"])
@pytest.mark.parametrize("kind", ["Int", "Float", "Bool", "ListInt", "Bytes"])
def test_deep_default_expressions(expression: str, kind: str, tmp_path: Path) -> None:
    value = f"{{{expression}}}" if kind in ("ListInt", "Bytes") else expression
    header = GOOD.replace("    .OP_END", f"    .ATTR(a, {kind}, {value})\n    .OP_END")
    (tmp_path / "deep.h").write_text(header, encoding="utf-8")
    for command in ("import", "roundtrip"):
        result = run(command, "deep.h", "-q", cwd=tmp_path)
        assert_no_internal_error(result)
        if expression is PARENS:
            assert "deep.h:4:" in result.stderr and "[I305]" in result.stderr
            assert "nest more than 100 deep" in result.stderr
            if command == "import":
                assert len(result.stderr) < 2000  # the default is shortened
    if expression is MINUSES:
        # Signs are read in a loop: 20,000 of them are an even number.
        spec = (tmp_path / "specs" / "custom" / "relu.yaml").read_text("utf-8")
        assert "name: a" in spec


@pytest.mark.parametrize("expression", [PARENS, MINUSES], ids=["parens", "minus"])
def test_deep_type_expressions(expression: str, tmp_path: Path) -> None:
    header = GOOD.replace("TensorType({DT_FLOAT})", f"TensorType({expression})", 1)
    header = header.replace(
        "    .OP_END", f"    .DATATYPE(T, {expression})\n    .OP_END"
    )
    (tmp_path / "deep.h").write_text(header, encoding="utf-8")
    for command in ("import", "roundtrip"):
        result = run(command, "deep.h", "-q", cwd=tmp_path)
        assert_no_internal_error(result)
        assert result.returncode == 2
        assert "[I203]" in result.stderr


def test_nesting_within_the_limit_is_evaluated() -> None:
    from gen_ops.importer.c_literals import MAX_NESTING, FloatExpression, IntExpression
    from gen_ops.importer.syntax import NUM, PUNCT, Token

    def tokens(text: str) -> list[Token]:
        return [Token(NUM if c.isdigit() else PUNCT, c, i) for i, c in enumerate(text)]

    ok = "(" * MAX_NESTING + "-3" + ")" * MAX_NESTING
    assert IntExpression(tokens(ok), lambda name: None).value() == -3
    assert FloatExpression(tokens("-" * 5 + ok)).value() == 3


def test_a_fifo_where_a_spec_file_goes_does_not_hang(tmp_path: Path) -> None:
    (tmp_path / "good.h").write_text(GOOD, encoding="utf-8")
    (tmp_path / "specs" / "custom").mkdir(parents=True)
    os.mkfifo(tmp_path / "specs" / "custom" / "relu.yaml")
    result = subprocess.run(
        [sys.executable, "-m", "gen_ops", "import", "good.h"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert_no_internal_error(result)
    assert "error[I207]" in result.stderr
