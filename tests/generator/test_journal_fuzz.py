"""Fuzzing the journal's reader and recovery (Note [Journal proof] in
gen_ops/emit/journal.py, Note [Write rule] in gen_ops/emit/transaction.py).

A real interrupted commit is made in ``out/`` (the commit stopped by an
injected error after the journal was written), with symlinks inside it that
point at a sibling directory ``victim/``. Its journal is then mutated at
random (bytes flipped, cut, inserted) and by structure (paths replaced by
escaping, absolute, symlinked, empty or huge ones; deep and huge values;
other trees, runs and digests), or replaced by a FIFO, a symlink, a
directory or a file over the size limit. Recovery either completes or
raises ``JournalRefused``/``WriteError``: never another exception, never a
hang, and ``victim/`` is byte for byte as it was.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gen_ops.emit import journal as journal_module
from gen_ops.emit import transaction
from gen_ops.emit.transaction import JOURNAL, Change, WriteError

SEED = 21
CASES = 160
NASTY: list[Any] = [
    "link/keep.txt",
    "link",
    "../victim/keep.txt",
    "/etc/hostname",
    str(Path("/tmp")),
    "",
    ".",
    "a//b",
    "a/./b",
    "x\0y",
    "sub/deep/../../../victim/keep.txt",
    "é" * 5000,
    "a/" * 3000 + "b",
    10**39,
    -1,
    1.5,
    None,
    True,
    [],
    {},
    ["a", "b"],
    ["link/secret.txt", "stolen.txt", "0" * 64],
    [".gen-ops-tmp-x.1-1", "x", "f" * 64],
]


def snapshot(root: Path) -> dict[str, bytes | str]:
    found: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        key = path.relative_to(root).as_posix()
        if path.is_symlink():
            found[key] = "-> " + os.readlink(path)
        elif path.is_file():
            found[key] = path.read_bytes()
        else:
            found[key] = "dir"
    return found


@contextlib.contextmanager
def alarm(seconds: int) -> Iterator[None]:
    """Fail instead of hanging."""

    def ring(*_: object) -> None:
        raise TimeoutError("recovery hung")

    old = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[], Path]:
    """A factory of interrupted trees ``out/`` beside ``victim/``."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "secret.txt").write_text("secret")
    (victim / "keep.txt").write_text("keep")
    (victim / "sub").mkdir()
    (victim / "sub/inner.txt").write_text("inner")
    count = iter(range(10**6))

    def make() -> Path:
        out = tmp_path / f"out{next(count)}"
        out.mkdir()
        (out / "sub/deep").mkdir(parents=True)
        (out / "old.txt").write_text("old")
        (out / "sub/deep/old.txt").write_text("old")
        os.symlink(victim, out / "link")
        os.symlink(victim / "keep.txt", out / "sub/keep_link")
        change = Change(
            [("a.txt", "a"), ("sub/b.txt", "b"), ("sub/deep/c.txt", "c")],
            ["old.txt", "sub/deep/old.txt"],
        )
        monkeypatch.setenv("GEN_OPS_FAULT", "commit:1:ENOSPC")
        with pytest.raises(OSError):
            transaction.apply(out, change)
        monkeypatch.delenv("GEN_OPS_FAULT")
        assert (out / JOURNAL).exists()
        return out

    return make


def recover(out: Path) -> None:
    """Recovery ends, or refuses with a WriteError; nothing else."""
    with alarm(20):
        try:
            transaction.recover(out)
        except WriteError as exc:
            assert str(exc) and "Traceback" not in str(exc)


def mutate_text(rng: random.Random, text: str) -> str:
    data = bytearray(text.encode("utf-8"))
    for _ in range(rng.randint(1, 6)):
        if not data:
            break
        where = rng.randrange(len(data))
        how = rng.randrange(4)
        if how == 0:
            data[where] = rng.randrange(256)
        elif how == 1:
            del data[where : where + rng.randint(1, 40)]
        elif how == 2:
            data[where:where] = rng.choice([b"[", b"{", b'"', b"..", b"/", b"9" * 60])
        else:
            data = data[:where]
    return data.decode("utf-8", "replace")


def mutate_structure(rng: random.Random, data: dict[str, Any]) -> dict[str, Any]:
    value = rng.choice(NASTY)
    spot = rng.randrange(8)
    if spot == 0 and data["renames"]:
        entry = rng.choice(data["renames"])
        entry[rng.randrange(3)] = value
    elif spot == 1:
        data["deletes"].append(value)
    elif spot == 2:
        data["renames"].append(value)
    elif spot == 3:
        data[rng.choice(list(data))] = value
    elif spot == 4:
        data["renames"] = f"DEEP{rng.choice([50, 5000, 100000])}"
    elif spot == 5:
        data["tree"] = str(Path(data["tree"]).parent / "victim")
    elif spot == 6 and data["renames"]:
        # A rename that looks like this run's but reaches out of the tree.
        temp, final, sha = data["renames"][0]
        data["renames"][0] = [f"link/{temp.rpartition('/')[2]}", f"link/{final}", sha]
    else:
        data["run"] = f"{os.getpid() + 1}-{'a' * 16}"
    return data


def deep(levels: int) -> str:
    """A JSON value nested ``levels`` deep."""
    return "[" * levels + '"x"' + "]" * levels


def test_mutated_journals_never_escape_the_tree(
    world: Callable[[], Path], tmp_path: Path
) -> None:
    rng = random.Random(SEED)
    victim = tmp_path / "victim"
    before = snapshot(victim)
    recovered = refused = 0
    for case in range(CASES):
        out = world()
        text = (out / JOURNAL).read_text()
        if case % 2:
            new = mutate_text(rng, text)
        else:
            new = json.dumps(mutate_structure(rng, json.loads(text)), indent=1)
            new = re.sub(r'"DEEP(\d+)"', lambda m: deep(int(m.group(1))), new)
        (out / JOURNAL).write_text(new, encoding="utf-8")
        recover(out)
        if (out / JOURNAL).exists():
            refused += 1
        else:
            recovered += 1
        assert snapshot(victim) == before, (case, new[:500])
        assert (out / "link").is_symlink() and (out / "sub/keep_link").is_symlink()
    assert refused > CASES // 2  # most mutations are refused
    # Mutations that keep the journal valid (whitespace) still recover.
    out = world()
    (out / JOURNAL).write_text((out / JOURNAL).read_text().replace("\n", "\n\n"))
    recover(out)
    assert (out / "a.txt").read_text() == "a" and not (out / "old.txt").exists()


def test_an_untouched_journal_recovers(world: Callable[[], Path]) -> None:
    out = world()
    transaction.recover(out)
    assert (out / "sub/deep/c.txt").read_text() == "c"
    assert not (out / "sub/deep/old.txt").exists()
    assert not (out / JOURNAL).exists()


@pytest.mark.parametrize("kind", ["fifo", "symlink", "directory", "huge", "binary"])
def test_a_journal_that_is_not_a_plain_file_is_refused(
    world: Callable[[], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
) -> None:
    out = world()
    victim = tmp_path / "victim"
    text = (out / JOURNAL).read_text()
    (out / JOURNAL).unlink()
    if kind == "fifo":
        os.mkfifo(out / JOURNAL)
    elif kind == "symlink":
        (victim / "planted.json").write_text(text)
        os.symlink(victim / "planted.json", out / JOURNAL)
    elif kind == "directory":
        (out / JOURNAL).mkdir()
    elif kind == "huge":
        monkeypatch.setattr(journal_module, "LIMIT", 1000)
        (out / JOURNAL).write_text(text + " " * 2000)
    else:
        (out / JOURNAL).write_bytes(b"\xff\xfe" + text.encode())
    before = snapshot(victim)
    with alarm(20), pytest.raises(transaction.JournalRefused) as refusal:
        transaction.recover(out)
    assert f"{JOURNAL}:" in str(refusal.value) and ": error: " in str(refusal.value)
    assert snapshot(victim) == before
    assert (out / "old.txt").exists()  # nothing moved
