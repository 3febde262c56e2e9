"""Staging with few system calls (Note [Few syscalls per staged file] in
gen_ops/emit/staging.py) keeps every guarantee of the transaction: temporary names
taken by another process are skipped, files get the mode ``open()`` gives,
directories in the way are found whether a directory is listed or each
destination is looked at, and the plan, the manifest and the journal are
what they were (byte for byte)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from gen_ops.emit import staging, transaction, writer
from gen_ops.emit.outputs import OutputFile, Target
from gen_ops.emit.staging import LIST_AT, TEMP_PREFIX, WriteError
from gen_ops.emit.transaction import Change, Journal
from gen_ops.emit.writer import Manifest


@pytest.fixture
def umask() -> Iterator[None]:
    saved = os.umask(0o022)
    yield
    os.umask(saved)


def names(directory: Path) -> list[str]:
    return sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*"))


def test_a_temporary_name_another_process_holds_is_skipped(tmp_path: Path) -> None:
    """Another process with the same id (another PID namespace, or a dead
    run's leftovers) holds the next names: they are skipped, not touched."""
    handle, first = staging.create_temp(str(tmp_path), "x.h", 4242)
    os.close(handle)
    assert first.startswith(f"{TEMP_PREFIX}x.h.4242-")
    number = int(first.rsplit("-", 1)[1])
    theirs = [tmp_path / f"{TEMP_PREFIX}x.h.4242-{number + k}" for k in (1, 2, 3)]
    for path in theirs:
        path.write_text("another process's file")
    handle, second = staging.create_temp(str(tmp_path), "x.h", 4242)
    os.close(handle)
    assert second == f"{TEMP_PREFIX}x.h.4242-{number + 4}"
    assert all(p.read_text() == "another process's file" for p in theirs)


def test_a_transaction_skips_and_keeps_another_process_s_temporaries(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    transaction.apply(out, Change([("a/one.txt", "1\n")], ()))
    probe, name = staging.create_temp(str(out / "a"), "probe", os.getpid())
    os.close(probe)
    os.unlink(out / "a" / name)
    number = int(name.rsplit("-", 1)[1])
    theirs = out / "a" / f"{TEMP_PREFIX}two.txt.{os.getpid()}-{number + 1}"
    theirs.write_text("staged by another run")
    transaction.apply(out, Change([("a/two.txt", "2\n")], ()))
    assert (out / "a/two.txt").read_text() == "2\n"
    assert theirs.read_text() == "staged by another run"
    assert names(out) == sorted(["a", "a/one.txt", "a/two.txt", f"a/{theirs.name}"])


def test_all_temporary_names_taken_is_a_write_error(tmp_path: Path) -> None:
    """The error names the file it could not stage."""
    handle, first = staging.create_temp(str(tmp_path), "x.h", 7)
    os.close(handle)
    number = int(first.rsplit("-", 1)[1])
    for k in range(1, staging._TRIES + 1):
        (tmp_path / f"{TEMP_PREFIX}x.h.7-{number + k}").touch()
    with pytest.raises(FileExistsError, match="temporary names beside it are taken"):
        staging.create_temp(str(tmp_path), "x.h", 7)


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002, 0o027])
def test_staged_files_have_the_mode_open_gives(
    tmp_path: Path, umask: None, mask: int
) -> None:
    os.umask(mask)
    with open(tmp_path / "plain", "w", encoding="utf-8") as stream:
        stream.write("x")
    expected = (tmp_path / "plain").stat().st_mode & 0o7777
    assert expected == 0o666 & ~mask
    transaction.apply(tmp_path / "out", Change([("d/staged.txt", "x")], ()))
    transaction.write_atomic(tmp_path / "atomic.txt", "x")
    assert (tmp_path / "out/d/staged.txt").stat().st_mode & 0o7777 == expected
    assert (tmp_path / "atomic.txt").stat().st_mode & 0o7777 == expected


def test_text_is_written_as_utf8_bytes(tmp_path: Path) -> None:
    text = "line \u00e9\u4e2d\U0001f600\r\nnext\n" * 10_000  # > one write's worth
    transaction.apply(tmp_path, Change([("t.txt", text)], ()))
    assert (tmp_path / "t.txt").read_bytes() == text.encode("utf-8")


def _many(directory: str, count: int) -> list[tuple[str, str]]:
    return [(f"{directory}/f{i}.txt", f"{i}\n") for i in range(count)]


@pytest.mark.parametrize("count", [1, LIST_AT - 1, LIST_AT, 3 * LIST_AT])
def test_a_directory_in_the_way_is_found_listed_or_not(
    tmp_path: Path, count: int
) -> None:
    """An existing directory receiving ``count`` files: listed when it gets
    LIST_AT or more, each destination looked at otherwise."""
    out = tmp_path / "out"
    (out / "d").mkdir(parents=True)
    (out / "d/keep.txt").write_text("kept\n")
    (out / f"d/f{count - 1}.txt").mkdir()  # where the last file must go
    before = names(out)
    with pytest.raises(WriteError) as caught:
        transaction.apply(out, Change(_many("d", count), ()))
    assert str(caught.value) == (
        f"cannot write {out}/d/f{count - 1}.txt: a directory is in the way"
    )
    assert names(out) == before


@pytest.mark.parametrize("count", [1, LIST_AT])
def test_a_symlink_to_a_directory_at_a_file_path_is_replaced(
    tmp_path: Path, count: int
) -> None:
    """As before: only a real directory is in the way; a link is replaced."""
    out = tmp_path / "out"
    (out / "d").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (out / "d/f0.txt").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    transaction.apply(out, Change(_many("d", count), ()))
    assert (out / "d/f0.txt").read_text() == "0\n"
    assert not (out / "d/f0.txt").is_symlink()
    assert (tmp_path / "elsewhere").is_dir()


def test_a_directory_the_stage_created_is_in_the_way_of_a_file(
    tmp_path: Path,
) -> None:
    """A change that puts a file where it made a directory: nothing stays."""
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(WriteError) as caught:
        transaction.apply(out, Change([("a/b/c.txt", "c"), ("a/b", "b")], ()))
    assert str(caught.value) == f"cannot write {out}/a/b: a directory is in the way"
    assert names(out) == []


def test_a_file_where_a_directory_must_go_is_named(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "a").mkdir(parents=True)
    (out / "a/b").write_text("in the way")
    with pytest.raises(WriteError) as caught:
        transaction.apply(out, Change([("x.txt", "x"), ("a/b/c/d.txt", "d")], ()))
    assert caught.value.reason.endswith("/a/b is in the way: it is not a directory")
    assert names(out) == ["a", "a/b"]


def test_missing_parents_of_the_output_directory_are_created_and_undone(
    tmp_path: Path,
) -> None:
    out = tmp_path / "p/q/out"
    transaction.apply(out, Change([("x/y.txt", "y")], ()))
    assert (out / "x/y.txt").read_text() == "y"
    blocked = tmp_path / "r/s/out"
    with pytest.raises(WriteError):
        transaction.apply(blocked, Change([("x/y.txt", "y"), ("x", "in the way")], ()))
    assert not (tmp_path / "r").exists()


def test_a_relative_output_directory_and_unclean_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    transaction.apply(Path("out"), Change([("./a//b.txt", "b"), ("c.txt", "c")], ()))
    assert names(tmp_path / "out") == ["a", "a/b.txt", "c.txt"]


# -- the plan reads only files that can exist ----------------------------------


def _naive_plan(out: Path, rendered: list[OutputFile]) -> tuple[list[str], int]:
    """What plan decided before: read every destination."""
    writes, unchanged = [], 0
    for file in rendered:
        try:
            same = (out / file.path).read_text(encoding="utf-8") == file.content
        except (OSError, UnicodeDecodeError):
            same = False
        if same:
            unchanged += 1
        else:
            writes.append(file.path)
    return writes, unchanged


def test_the_plan_is_what_reading_every_file_gives(tmp_path: Path) -> None:
    out = tmp_path / "out"
    big = [OutputFile(f"big/f{i}.txt", Target.DOCS, f"{i}\n") for i in range(20)]
    small = [OutputFile(f"small/f{i}.txt", Target.DOCS, f"{i}\n") for i in range(3)]
    new = [OutputFile(f"new/f{i}.txt", Target.DOCS, "n\n") for i in range(LIST_AT)]
    top = [OutputFile("top.txt", Target.DOCS, "t\n")]
    rendered = big + small + new + top
    assert writer.plan(out, rendered, set(Target)).unchanged == 0  # no out
    (out / "big").mkdir(parents=True)
    (out / "small").mkdir()
    (out / "new").write_text("a file where a directory is")
    for i in range(0, 20, 3):
        (out / f"big/f{i}.txt").write_text(f"{i}\n")  # unchanged
    (out / "big/f1.txt").write_text("changed\n")
    (out / "big/f2.txt").mkdir()  # a directory: not readable, written
    (out / "big/f4.txt").write_bytes(b"\xff\xfe")  # not UTF-8
    (out / "small/f0.txt").write_text("0\n")
    (out / "top.txt").write_text("t\n")
    the_plan = writer.plan(out, rendered, set(Target))
    writes, unchanged = _naive_plan(out, rendered)
    assert [f.path for f in the_plan.writes] == writes
    assert the_plan.unchanged == unchanged == 7 + 1 + 1
    assert "big/f1.txt" in writes and "big/f2.txt" in writes


def test_the_plan_in_an_unlistable_directory_reads_each_file(
    tmp_path: Path,
) -> None:
    if os.geteuid() == 0:
        pytest.skip("root lists any directory")
    out = tmp_path / "out"
    (out / "d").mkdir(parents=True)
    rendered = [OutputFile(f"d/f{i}.txt", Target.DOCS, f"{i}\n") for i in range(20)]
    (out / "d/f3.txt").write_text("3\n")
    (out / "d").chmod(0o300)  # search, no read: cannot be listed
    try:
        the_plan = writer.plan(out, rendered, set(Target))
    finally:
        (out / "d").chmod(0o700)
    assert the_plan.unchanged == 1


# -- the manifest and the journal, byte for byte -------------------------------

HOSTILE = [
    "python/ge/es/custom/add.py",
    'docs/ops/Quote"d.md',
    "docs/ops/back\\slash.md",
    "docs/ops/\u00e9t\u00e9.md",
    "docs/ops/tab\there.md",
    "docs/ops/line\nbreak.md",
    "docs/ops/\x7fdel.md",
]


@pytest.mark.parametrize("paths", [HOSTILE[:1], HOSTILE, HOSTILE[1:2], []])
def test_the_manifest_text_is_json_dumps_with_indent_2(paths: list[str]) -> None:
    files = {path: (list(Target)[i % 4], f"{i:064x}") for i, path in enumerate(paths)}
    expected = {
        "generated_by": "gen-ops; lists the files it owns here; do not edit",
        "files": {
            path: {"target": target.value, "sha256": digest}
            for path, (target, digest) in sorted(files.items())
        },
    }
    assert Manifest(files).text() == json.dumps(expected, indent=2) + "\n"


def test_a_manifest_digest_that_needs_escaping_is_escaped() -> None:
    files = {"a.txt": (Target.DOCS, 'not "hex"')}
    text = Manifest(files).text()
    assert json.loads(text)["files"]["a.txt"]["sha256"] == 'not "hex"'


def test_reading_a_manifest_drops_paths_outside_the_output(tmp_path: Path) -> None:
    safe = ["a.txt", "b/c.txt", "./d.txt", "e..f.txt", "line\nbreak.txt"]
    unsafe = ["/etc/passwd", "../up.txt", "b/../../up.txt", "", ".", "./", "//"]
    entry = {"target": "docs", "sha256": "0" * 64}
    data = {"generated_by": "x", "files": {p: entry for p in safe + unsafe}}
    (tmp_path / writer.MANIFEST).write_text(json.dumps(data))
    assert sorted(Manifest.read(tmp_path).files) == sorted(safe)
    clean = {"generated_by": "x", "files": {p: entry for p in safe[:4]}}
    (tmp_path / writer.MANIFEST).write_text(json.dumps(clean))
    assert sorted(Manifest.read(tmp_path).files) == sorted(safe[:4])


@pytest.mark.parametrize(
    "renames, deletes",
    [
        ((), ()),
        ((("a/.t.1", "a/t", "0" * 64),), ()),
        (
            (("a/.t.1", "a/t", "1" * 64), ('q"/.x', "q\u00e9/x\n", "2" * 64)),
            ("gone.txt", "b\\c"),
        ),
        ((), ("gone.txt",)),
    ],
)
@pytest.mark.parametrize("tree", ["/tmp/out", '/t\u00e9"\\mp'])
def test_the_journal_text_is_json_dumps_with_indent_1(
    renames: tuple[tuple[str, str, str], ...], deletes: tuple[str, ...], tree: str
) -> None:
    data = {
        "gen_ops_journal": 2,
        "tree": tree,
        "device": 2049,
        "inode": 1234567,
        "run": "42-0123456789abcdef",
        "renames": [list(entry) for entry in renames],
        "deletes": list(deletes),
    }
    journal = Journal(renames, deletes, tree, 2049, 1234567, "42-0123456789abcdef")
    assert journal.text() == json.dumps(data, indent=1) + "\n"
