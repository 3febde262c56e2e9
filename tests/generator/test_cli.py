"""The gen-ops command line: commands, exit statuses, the writer's promises
(only changed files, stale files removed, nothing outside the manifest
touched), scaffolding once, and no traceback for any input."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

from gen_ops.cli import main
from gen_ops.emit.writer import MANIFEST

ADD = """\
op: AddOne
doc: Adds one.
inputs:
  - {name: x, dtype: float32}
outputs:
  - {name: y, dtype: float32}
infer_meta:
  y:
    shape: same_as(x)
    dtype: x
impl:
  capabilities: [execute]
"""
MUL = ADD.replace("AddOne", "MulTwo").replace("Adds one.", "Doubles.")


def gen(*args: str) -> int:
    return main(list(args))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs/add_one.yaml").write_text(ADD)
    (tmp_path / "specs/mul_two.yaml").write_text(MUL)
    return tmp_path


def files(out: Path) -> dict[str, bytes]:
    return {
        p.relative_to(out).as_posix(): p.read_bytes()
        for p in out.rglob("*")
        if p.is_file() and p.name != ".gen-ops-state.json"
    }


@pytest.mark.parametrize("command", [[], ["validate"], ["new"], ["schema"]])
def test_help_for_every_command(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert gen(*command, "--help") == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: gen-ops")
    assert "--specs" in out or command in (["new"], ["schema"])


def test_render_then_check_then_drift(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert gen() == 0
    out = project / "generated"
    assert (out / "python/ge/es/custom/add_one.py").is_file()
    assert (out / "include/custom/mul_two.h").is_file()
    assert gen("--check") == 0
    (out / "include/custom/add_one.h").write_text("// edited\n")
    capsys.readouterr()
    assert gen("--check") == 1
    diff = capsys.readouterr().out
    assert "--- a/include/custom/add_one.h" in diff and "-// edited" in diff
    assert (out / "include/custom/add_one.h").read_text() == "// edited\n"  # untouched


def test_only_changed_files_are_rewritten(project: Path) -> None:
    assert gen("--no-scaffold") == 0
    out = project / "generated"
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    (project / "specs/mul_two.yaml").write_text(MUL.replace("Doubles.", "Times two."))
    os.utime(project / "specs/add_one.yaml")
    assert gen("--no-scaffold") == 0
    changed = {
        p.relative_to(out).as_posix()
        for p in out.rglob("*")
        if p.is_file() and p in before and p.stat().st_mtime_ns != before[p]
    }
    assert "python/ge/es/custom/add_one.py" not in changed
    assert "python/ge/es/custom/mul_two.py" in changed


def test_files_of_a_removed_op_are_deleted_and_nothing_else(project: Path) -> None:
    assert gen("--no-scaffold") == 0
    out = project / "generated"
    mine = out / "python/ge/es/custom/notes.txt"
    mine.write_text("not gen-ops'")
    (project / "specs/mul_two.yaml").unlink()
    assert gen("--no-scaffold") == 0
    assert not (out / "python/ge/es/custom/mul_two.py").exists()
    assert not (out / "include/custom/mul_two.h").exists()
    assert not (out / "docs/ops/MulTwo.md").exists()
    assert mine.read_text() == "not gen-ops'"
    manifest = json.loads((out / MANIFEST).read_text())
    assert not any("mul_two" in path for path in manifest["files"])


def test_only_selects_targets_without_dropping_the_others(project: Path) -> None:
    assert gen("--no-scaffold") == 0
    out = project / "generated"
    (project / "specs/mul_two.yaml").unlink()
    assert gen("--no-scaffold", "--only", "cpp") == 0
    assert not (out / "include/custom/mul_two.h").exists()
    assert (out / "python/ge/es/custom/mul_two.py").exists()  # not selected
    assert gen("--only", "python,cobol") == 2


def test_exclude_ops(project: Path) -> None:
    assert gen("--no-scaffold", "--exclude-ops", " MulTwo , ") == 0
    out = project / "generated"
    assert (out / "python/ge/es/custom/add_one.py").exists()
    assert not (out / "python/ge/es/custom/mul_two.py").exists()


def test_author_modules_are_scaffolded_once(project: Path) -> None:
    assert gen() == 0
    author = project / "ops/custom/add_one.py"
    assert "class AddOne(AddOneBase)" in author.read_text()
    author.write_text("# mine\n")
    (project / "specs/add_one.yaml").write_text(ADD.replace("Adds one.", "Adds 1."))
    assert gen() == 0
    assert author.read_text() == "# mine\n"
    assert gen("--scaffold-dir", "elsewhere") == 0
    assert (project / "elsewhere/custom/add_one.py").exists()


def test_author_modules_go_to_the_project_root_from_any_directory(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project root is the parent of the specs directory here (no
    pyproject.toml above it): running from elsewhere scaffolds there too, and
    never a second set under the current directory."""
    elsewhere = project / "deep/down"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    assert gen("--specs", "../../specs", "--out", "../../generated") == 0
    assert (project / "ops/custom/add_one.py").is_file()
    assert not (elsewhere / "ops").exists()
    monkeypatch.chdir(project)
    before = sorted(p.relative_to(project) for p in project.rglob("*.py"))
    assert gen() == 0
    after = sorted(p.relative_to(project) for p in project.rglob("*.py"))
    assert after == before  # nothing scaffolded twice


def test_the_project_root_is_the_nearest_pyproject(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Specs nested below a pyproject.toml: impl.author and the default
    scaffold directory are relative to the pyproject's directory, whatever the
    current directory and however --specs names them."""
    root = tmp_path / "proj"
    (root / "defs/nn").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (root / "defs/nn/add_one.yaml").write_text(ADD + "  author: impl/add_one.py\n")
    (root / "defs/nn/mul_two.yaml").write_text(MUL)
    monkeypatch.chdir(tmp_path)
    assert gen("--specs", "proj/defs/nn/add_one.yaml", "--out", "o1") == 0
    assert (root / "impl/add_one.py").is_file()
    monkeypatch.chdir(root / "defs")
    assert gen("--specs", "nn", "--out", "../o2") == 0
    assert (root / "ops/custom/mul_two.py").is_file()
    authors = [
        p.relative_to(root).as_posix()
        for p in root.rglob("*.py")
        if not p.is_relative_to(root / "o2")
    ]
    assert sorted(authors) == ["impl/add_one.py", "ops/custom/mul_two.py"]


def test_an_author_path_through_a_symlink_out_of_the_project_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = project.parent / (project.name + "_outside")
    outside.mkdir()
    (project / "ops").symlink_to(outside, target_is_directory=True)
    assert gen() == 3
    err = capsys.readouterr().err
    assert "outside the project" in err and "add_one.py" in err, err
    assert not any(outside.rglob("*"))


def test_no_change_run_is_skipped_and_detects_edits(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert gen("--no-scaffold") == 0
    capsys.readouterr()
    assert gen("--no-scaffold") == 0
    assert "up to date" in capsys.readouterr().out
    header = project / "generated/include/custom/add_one.h"
    header.write_text("// edited by hand\n")
    assert gen("--no-scaffold") == 0
    assert header.read_text() != "// edited by hand\n"


def test_validate_and_schema(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert gen("validate") == 0
    assert "2 op(s)" in capsys.readouterr().out
    assert gen("schema") == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["title"].startswith("GE custom operator spec")
    assert not (project / "generated").exists()


def test_new_writes_a_valid_starter_spec_once(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert gen("new", "ScaleCustom", "--module", "vision") == 0
    path = project / "specs/scale_custom.yaml"
    text = path.read_text()
    assert text.startswith("# yaml-language-server: $schema=")
    schema_ref = text.split("$schema=", 1)[1].splitlines()[0]
    assert (path.parent / schema_ref).resolve().is_file()
    assert gen("validate", "--specs", str(path)) == 0
    assert gen("new", "ScaleCustom") == 2  # never overwrites
    assert gen("new", "low-er") == 2
    assert gen("new", "Fine", "--module", "not-a-name") == 2


@pytest.mark.parametrize(
    "args, says",
    [
        (["RelNl\n"], "'RelNl\\n' is not an op type"),
        (["Rel\u202eNl"], "'Rel\\u202eNl' is not an op type"),
        (["Fine", "--module", "cu\n"], "'cu\\n' cannot be a module name"),
        (["Data"], "error[E308]: Data: op type 'Data' is a node type"),
        (["Tensor"], "error[E304]: Tensor: op type 'Tensor' is a name"),
        (["Fine", "--module", "graph_builder"], "error[E304]: Fine: module"),
        (["Fine", "--module", "class"], "error[E304]: Fine: module 'class'"),
    ],
)
def test_new_refuses_what_validate_refuses_and_writes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str], args: list[str], says: str
) -> None:
    before = sorted(p.name for p in (project / "specs").iterdir())
    assert gen("new", *args) == 2
    err = capsys.readouterr().err
    assert says in err, err
    assert "Traceback" not in err
    assert sorted(p.name for p in (project / "specs").iterdir()) == before


def test_invalid_specs_generate_nothing_and_exit_2(project: Path) -> None:
    (project / "specs/bad.yaml").write_text("op: Bad\ninputs: 3\n")
    assert gen() == 2
    assert not (project / "generated").exists()


def test_unwritable_output_is_exit_3(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "generated").write_text("a file, not a directory")
    assert gen("--no-scaffold") == 3
    assert "cannot write" in capsys.readouterr().err


def test_usage_errors_are_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert gen("--no-such-flag") == 2
    assert gen("--specs") == 2


def test_an_out_tree_imports_from_pythonpath(project: Path) -> None:
    assert gen("--no-scaffold", "--out", "elsewhere") == 0
    env = dict(os.environ, PYTHONPATH=str(project / "elsewhere/python"))
    code = (
        "import inspect; from ge.es.custom import AddOne, MulTwo; "
        "import ge_impl.custom.add_one as m; print(inspect.signature(AddOne), m.OP_TYPE)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "(x: 'TensorHolder | TensorLike', *, name: 'str | None' = None) "
        "-> 'TensorHolder' AddOne"
    )


GARBAGE = [
    b"",
    b"\x00\x01\x02\xff\xfe",
    b"\xef\xbb\xbfop: A\n",
    "op: Ünï\n".encode("utf-16"),
    b"[" * 5000 + b"]" * 5000,
    b"a: &a [*a]\n",
    b"op: !!python/object:os.system {}\n",
    b"- - - -\n" * 100,
    b"op: A\n" + b"x: " + b"y" * 200000 + b"\n",
    b"op: A\ndoc: |\n  " + "\u2028 \ud7ff".encode("utf-8") + b"\n",
    b"{op: A, inputs: [{name: x, dtype: {a: b}}]}",
    b"op: A\noutputs:\n  - {name: y, dtype: float32, count: len(}\n",
    b"%YAML 1.1\n---\nop: A\n...\n---\nop: B\n",
]


@pytest.mark.parametrize("data", GARBAGE, ids=range(len(GARBAGE)))
def test_no_traceback_for_any_file(data: bytes, tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_bytes(data)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "gen_ops",
            "--specs",
            str(spec),
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        timeout=60,
    )
    assert "Traceback" not in result.stderr
    assert "internal error" not in result.stderr
    assert result.returncode in (0, 2)


def test_random_mutations_never_crash(tmp_path: Path) -> None:
    """A seeded mutation loop over the real specs, in process (fast)."""
    from gen_ops import pipeline
    from gen_ops.base.diagnostics import Sink

    rng = random.Random(20261202)
    sources = [p.read_bytes() for p in sorted((ROOT / "specs").glob("*.yaml"))]
    for i in range(300):
        data = bytearray(rng.choice(sources))
        for _ in range(rng.randint(1, 8)):
            op = rng.randrange(4)
            at = rng.randrange(len(data) or 1)
            if op == 0 and data:
                data[at % len(data)] = rng.randrange(256)
            elif op == 1:
                data[at:at] = bytes(rng.choice(b"{}[]:,-'\"\n\t &*!|>%@`#"))
            elif op == 2 and data:
                del data[at : at + rng.randint(1, 20)]
            else:
                data[at:at] = data[rng.randrange(len(data) or 1) :][:30]
        spec = tmp_path / f"m{i}.yaml"
        spec.write_bytes(bytes(data))
        sink = Sink()
        files = pipeline.discover([spec], sink)
        ops = pipeline.load_and_check(files, sink)
        if not sink.has_errors:
            pipeline.render(ops, frozenset(pipeline.Target))
        spec.unlink()


def test_scaffolds_import_exactly_what_they_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every op of specs/, scaffolded afresh: no unused import, no missing one."""
    import ast
    import builtins

    monkeypatch.chdir(tmp_path)
    (tmp_path / "specs").mkdir()
    for spec in sorted((ROOT / "specs").glob("*.yaml")):
        text = "".join(
            line
            for line in spec.read_text().splitlines(keepends=True)
            if not line.lstrip().startswith("author:")
        )
        (tmp_path / "specs" / spec.name).write_text(text)
    assert gen("--quiet") == 0
    scaffolds = sorted((tmp_path / "ops").rglob("*.py"))
    assert len(scaffolds) >= 10
    for path in scaffolds:
        tree = ast.parse(path.read_text())
        imported = {
            (alias.asname or alias.name).split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for alias in node.names
        } - {"annotations"}
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        assert imported <= used, (path.name, sorted(imported - used))
        defined = imported | {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
        params = {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)}
        missing = used - defined - params - set(dir(builtins))
        assert not missing, (path.name, sorted(missing))


# -- no traceback for any input (every command) ------------------------------


def _run(
    args: list[str], cwd: Path, **kwargs: object
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gen_ops", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        **kwargs,  # type: ignore[arg-type]
    )


def _one_clear_message(result: subprocess.CompletedProcess[str]) -> str:
    err = result.stderr
    assert "Traceback" not in err and "internal error" not in err, err
    assert "Exception ignored" not in err, err
    assert err.strip(), "no message"
    return err


@pytest.mark.parametrize(
    "args, status, says",
    [
        (["--out", ""], 2, "--out: an empty path"),
        (["--specs", ""], 2, "--specs: an empty path"),
        (["--scaffold-dir", ""], 2, "--scaffold-dir: an empty path"),
        (["validate", "--specs", ""], 2, "--specs: an empty path"),
        (["new", "Fine", "--specs", ""], 2, "--specs: an empty path"),
        (["new"], 2, "the following arguments are required: Op"),
        (["new", "A B"], 2, "'A B' is not an op type"),
        (["schema", "extra"], 2, "unrecognized arguments: extra"),
        (["--only", ","], 2, "unknown target(s) (none)"),
        (["--bogus"], 2, "unrecognized arguments: --bogus"),
        (["validate", "--specs", "missing.yaml"], 2, "no such file or directory"),
        (["--specs", "fifo.yaml"], 2, "not a regular file"),
        (["validate", "--specs", "fifo.yaml"], 2, "not a regular file"),
        (["--check", "--specs", "fifo.yaml"], 2, "not a regular file"),
        (["validate", "--specs", "links"], 2, "not a regular file"),
        (["new", "Fine", "--specs", "afile"], 3, "afile is not a directory"),
        (["--specs", "specs", "--out", "afile", "--no-scaffold"], 3, "afile"),
        # A name longer than the file system allows, in every path argument.
        (["validate", "--specs", "y" * 300 + ".yaml"], 2, "File name too long"),
        (["--out", "o" * 300, "--no-scaffold"], 3, "File name too long"),
        (["--out", "o" * 300, "--check"], 1, "is out of date"),
        (["--scaffold-dir", "s" * 300], 3, "File name too long"),
        (["new", "A" + "a" * 300], 3, "File name too long"),
    ],
)
def test_bad_input_gives_one_clear_message(
    project: Path, args: list[str], status: int, says: str
) -> None:
    os.mkfifo(project / "fifo.yaml")
    (project / "links").mkdir()
    (project / "links/gone.yaml").symlink_to(project / "nowhere.yaml")
    (project / "afile").write_text("a file\n")
    result = _run(args, project)
    err = _one_clear_message(result)
    assert result.returncode == status, err
    assert says in err, err
    assert not (project / "docs").exists()  # nothing written in the cwd


def test_check_of_a_file_instead_of_a_directory_is_drift(project: Path) -> None:
    (project / "afile").write_text("a file\n")
    result = _run(["--check", "--out", "afile"], project)
    _one_clear_message(result)
    assert result.returncode == 1


@pytest.mark.parametrize(
    "args",
    [["schema"], ["--check", "--out", "elsewhere"], ["validate"]],
)
def test_a_closed_standard_output_ends_quietly(project: Path, args: list[str]) -> None:
    """Like `gen-ops schema | head -c 1`: the reader has gone."""
    read, write = os.pipe()
    os.close(read)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "gen_ops", *args],
            cwd=project,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write)
    assert result.returncode == 141, result.stderr
    assert result.stderr in ("", "gen-ops: 2 op(s) in 2 spec file(s) are valid\n")
    assert "Traceback" not in result.stderr


def test_a_terminal_that_cannot_show_the_text_gets_escapes(project: Path) -> None:
    """Diff and diagnostics hold spec text; a latin-1 terminal shows escapes."""
    (project / "specs/uni.yaml").write_text(
        'op: Uni\ndoc: "中文 ünï \\u202e"\ninputs:\n  - {name: x, dtype: flöat}\n'
    )
    env = dict(os.environ, PYTHONIOENCODING="latin-1")
    result = _run(["validate"], project, env=env, encoding="latin-1")
    err = _one_clear_message(result)
    assert result.returncode == 2
    assert "'flöat'" in err or "'fl\\xf6at'" in err
    (project / "specs/uni.yaml").write_text("op: Uni\ndoc: 中文 ünï\n")
    check = _run(["--check"], project, env=env, encoding="latin-1")
    _one_clear_message(check)
    assert check.returncode == 1
    assert "\\u4e2d\\u6587" in check.stdout
