"""Fuzzing the registry readers: random and structured mutations of a valid
registry (index.json, metadata.json, operators.json: byte flips,
truncation, type swaps, huge and deep values, long integers, symlinks to
/dev/zero and to files outside the tree, FIFOs, directories in place of
files), each read by ``gen-ops compat --registry`` and ``gen-ops
--registry`` in process. Whatever the mutation: no traceback or internal
error, an exit status of the expected set, and no file outside the tree
touched. FIFOs (which would block this process if a reader opened them
blocking) run in processes of their own, with a timeout. Fixed seed."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from history_helpers import Project, project  # noqa: F401

SPEC = """\
op: ConcatV
inputs:
  - {name: x, dtype: T, dynamic: true}
outputs:
  - {name: y, dtype: T}
dtypes:
  T: [float32]
attrs:
  - {name: axis, type: int, default: 0}
  - {name: N, type: int}
"""
FILES = (
    "reg/index.json",
    "reg/registry/1.0.0/metadata.json",
    "reg/registry/1.0.0/operators.json",
)
STATUSES = {0, 1, 2}  # ok, breaking changes found, bad input
SEED = 21
ROUNDS = 400


def _snapshot(directory: Path) -> dict[str, tuple[int, int, bytes]]:
    return {
        str(p): (p.stat().st_mtime_ns, p.stat().st_size, p.read_bytes())
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def _values(rng: random.Random) -> Any:
    return rng.choice(
        [
            None,
            True,
            -1,
            10**39,
            1.5e308,
            "",
            "..",
            "../../outside",
            "x" * 10_000,
            [],
            {},
            [[[[]]]],
            {"op_type": None},
            "\x00",
            "2026-13-45",
        ]
    )


def _swap(data: Any, rng: random.Random, depth: int = 0) -> Any:
    """``data`` with one value somewhere replaced."""
    if isinstance(data, dict) and data and depth < 6 and rng.random() < 0.8:
        key = rng.choice(sorted(data))
        return {**data, key: _swap(data[key], rng, depth + 1)}
    if isinstance(data, list) and data and depth < 6 and rng.random() < 0.8:
        i = rng.randrange(len(data))
        return data[:i] + [_swap(data[i], rng, depth + 1)] + data[i + 1 :]
    return _values(rng)


def _mutate(text: bytes, rng: random.Random, outside: Path) -> Callable[[Path], None]:
    """One mutation of a file whose valid contents are ``text``."""
    kind = rng.choice(
        ["flip", "truncate", "swap", "swap", "deep", "long int", "huge string"]
        + ["dev zero", "outside", "directory", "dangling", "empty", "bom"]
    )

    def write(data: bytes) -> Callable[[Path], None]:
        return lambda path: path.write_bytes(data)

    if kind == "flip":
        data = bytearray(text)
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return write(bytes(data))
    if kind == "truncate":
        return write(text[: rng.randrange(len(text))])
    if kind == "swap":
        return write(json.dumps(_swap(json.loads(text), rng)).encode())
    if kind == "deep":
        n = rng.choice([50, 500, 990, 5000, 200_000])
        return write(b'{"operators": ' + b"[" * n + b"]" * n + b"}")
    if kind == "long int":
        return write(text.replace(b'"', b"9" * rng.choice([41, 4300, 5000]) + b' "', 1))
    if kind == "huge string":
        return write(b'{"version": "' + b"x" * 3_000_000 + b'"}')
    if kind == "dev zero":
        return lambda path: path.symlink_to("/dev/zero")
    if kind == "outside":
        return lambda path: path.symlink_to(outside / rng.choice(["a.json", "b"]))
    if kind == "directory":
        return lambda path: path.mkdir()
    if kind == "dangling":
        return lambda path: path.symlink_to(outside / "missing")
    if kind == "empty":
        return write(b"")
    return write(b"\xef\xbb\xbf" + text)


@pytest.fixture
def base(project: Project, tmp_path_factory: pytest.TempPathFactory) -> Path:
    project.spec("concat.yaml", SPEC)
    project.release("1.0.0", "2026-01-01")
    shutil.copytree(project.root / "reg", project.root / "reg.valid")
    outside = tmp_path_factory.mktemp("outside")
    (outside / "a.json").write_text('{"version": "1.0.0", "releases": []}')
    (outside / "b").write_text("not json")
    return outside


def _check(run_status: int, err: str, what: str) -> None:
    assert run_status in STATUSES, (what, err)
    assert "internal error" not in err and "Traceback" not in err, (what, err)


def test_mutated_registries_are_read_without_a_crash(
    base: Path, project: Project
) -> None:
    rng = random.Random(SEED)
    outside_before = _snapshot(base)
    valid = {f: (project.root / "reg.valid" / f[4:]).read_bytes() for f in FILES}
    for round_ in range(ROUNDS):
        shutil.rmtree(project.root / "reg")
        shutil.copytree(project.root / "reg.valid", project.root / "reg")
        for file in rng.sample(FILES, rng.randint(1, 2)):
            path = project.root / file
            mutate = _mutate(valid[file], rng, base)
            path.unlink()
            mutate(path)
        what = f"round {round_}"
        run = project.compat()
        _check(run.status, run.err, what)
        if round_ % 4 == 0:  # the render reads the registry the same way
            render = project.gen("--registry", "reg", "--out", "out")
            _check(render.status, render.err, what)
    assert _snapshot(base) == outside_before


@pytest.mark.parametrize("file", FILES)
def test_fifos_in_a_registry_fail_by_timeout_not_by_hanging(
    file: str, base: Path, project: Project
) -> None:
    (project.root / file).unlink()
    os.mkfifo(project.root / file)
    for args in (["compat"], ["--out", "out"]):
        result = subprocess.run(
            [sys.executable, "-m", "gen_ops", *args, "--registry", "reg"],
            cwd=project.root,
            capture_output=True,
            text=True,
            timeout=60,
        )
        _check(result.returncode, result.stderr, f"{file} {args}")
        assert f"{file}:1:1: " in result.stderr
