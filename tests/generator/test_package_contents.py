"""What ``gen-ops package`` ships and how it writes (issue 21, finding 6;
Note [What an ops directory ships], Note [Package writes]): no symbolic link
is followed, an author module at the project root ships neither specs nor
generated trees nor earlier builds, and the wheel and sdist of one build
land together or not at all."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPEC = """\
op: ScaleCustom
module: pk
inputs:
  - {name: x, dtype: float32}
outputs:
  - {name: y, dtype: float32}
infer_meta:
  y: {shape: same_as(x), dtype: x}
impl:
  capabilities: [execute]
  author: AUTHOR
"""
AUTHOR = (ROOT / "ops" / "custom" / "scale_custom.py").read_text(encoding="utf-8")


def project(tmp_path: Path, author: str = "ops/pk/scale_custom.py") -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'mine'\n")
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "scale_custom.yaml").write_text(
        SPEC.replace("AUTHOR", author), encoding="utf-8"
    )
    module = tmp_path / author
    module.parent.mkdir(parents=True, exist_ok=True)
    module.write_text(AUTHOR.replace("custom", "pk"), encoding="utf-8")
    return module.parent


def package(
    tmp_path: Path, *extra: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gen_ops", "package", "--module", "pk", *extra],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
    )


def wheel_of(dist: Path, version: str, name: str = "es_pk") -> Path:
    """The one wheel of ``version`` in ``dist``: py3-none-any, or tagged for
    this platform when it holds the native ES library (a C++ compiler)."""
    (wheel,) = dist.glob(f"{name}-{version}-*.whl")
    return wheel


def wheel_names(path: Path) -> set[str]:
    with zipfile.ZipFile(path) as archive:
        return set(archive.namelist())


@pytest.mark.parametrize("kind", ["file", "dir", "loop"])
def test_symlinks_in_the_ops_directory_are_refused(kind: str, tmp_path: Path) -> None:
    ops = project(tmp_path)
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "id_rsa").write_text("PRIVATE KEY")
    if kind == "file":
        os.symlink(secret / "id_rsa", ops / "kernel.bin")
    elif kind == "dir":
        (ops / "kernels").mkdir()
        os.symlink(secret, ops / "kernels" / "data")
    else:
        os.symlink("l2", ops / "l1")
        os.symlink("l1", ops / "l2")
    result = package(tmp_path, "--version", "1.0")
    assert result.returncode == 2, result.stderr
    assert "a symbolic link, which gen-ops never follows" in result.stderr
    assert "nothing was built" in result.stderr
    assert not (tmp_path / "dist").exists() or not list((tmp_path / "dist").iterdir())


def test_a_symlinked_author_module_is_refused(tmp_path: Path) -> None:
    ops = project(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (ops / "scale_custom.py").rename(elsewhere / "scale_custom.py")
    os.symlink(elsewhere / "scale_custom.py", ops / "scale_custom.py")
    result = package(tmp_path, "--version", "1.0")
    assert result.returncode == 2, result.stderr
    assert "is a symbolic link" in result.stderr


def test_a_fifo_in_the_ops_directory_is_refused(tmp_path: Path) -> None:
    ops = project(tmp_path)
    os.mkfifo(ops / "pipe")
    result = package(tmp_path, "--version", "1.0")
    assert result.returncode == 2, result.stderr
    assert "not a regular file or a directory" in result.stderr


def test_author_module_at_the_project_root_ships_only_its_files(
    tmp_path: Path,
) -> None:
    project(tmp_path, author="scale_custom.py")
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "scale.c").write_text("int k;\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "junk.o").write_text("")
    (tmp_path / "mine.egg-info").mkdir()
    (tmp_path / "mine.egg-info" / "PKG-INFO").write_text("")
    assert (
        subprocess.run(
            [sys.executable, "-m", "gen_ops", "--out", "generated"],
            cwd=tmp_path,
            capture_output=True,
            check=False,
        ).returncode
        == 0
    )
    assert (tmp_path / "generated").is_dir()
    first = package(tmp_path, "--version", "1.0")
    assert first.returncode == 0, first.stderr
    second = package(tmp_path, "--version", "1.1")
    assert second.returncode == 0, second.stderr
    names = wheel_names(wheel_of(tmp_path / "dist", "1.1"))
    ops = sorted(n for n in names if n.startswith("es_pk/ops/"))
    assert ops == [
        "es_pk/ops/__init__.py",
        "es_pk/ops/kernels/scale.c",
        "es_pk/ops/scale_custom.py",
    ], ops
    with zipfile.ZipFile(wheel_of(tmp_path / "dist", "1.1")) as w:
        assert not [n for n in w.namelist() if "generated" in n or "specs" in n]


def test_a_failure_or_signal_mid_build_leaves_the_previous_pair(
    tmp_path: Path,
) -> None:
    project(tmp_path)
    first = package(tmp_path, "--version", "1.0")
    assert first.returncode == 0, first.stderr
    dist = tmp_path / "dist"
    before = {p.name: p.read_bytes() for p in dist.iterdir()}
    assert sorted(before) == [wheel_of(dist, "1.0").name, "es_pk-1.0.tar.gz"]
    (tmp_path / "ops" / "pk" / "data.txt").write_text("new in this build")
    for fault, status in [
        ("package:1:SIGTERM", 143),  # the sdist staged, the wheel not
        ("package:2:SIGTERM", 143),
        ("package:2:ENOSPC", 3),
    ]:
        result = package(tmp_path, "--version", "1.0", env={"GEN_OPS_FAULT": fault})
        assert result.returncode == status, (fault, result.stderr)
        assert "internal error" not in result.stderr
        after = {p.name: p.read_bytes() for p in dist.iterdir()}
        assert after == before, fault  # no temporary file, no half pair
    # Signals held during the commit: both new files land.
    done = package(
        tmp_path, "--version", "1.0", env={"GEN_OPS_FAULT": "commit:2:SIGTERM"}
    )
    assert done.returncode == 143, done.stderr
    assert sorted(p.name for p in dist.iterdir()) == sorted(before)
    assert "es_pk/ops/data.txt" in wheel_names(wheel_of(dist, "1.0"))
    with zipfile.ZipFile(wheel_of(dist, "1.0")):
        pass
    import tarfile

    with tarfile.open(dist / "es_pk-1.0.tar.gz") as sdist:
        assert any(n.endswith("ops/data.txt") for n in sdist.getnames())


def test_out_that_is_a_symlink_loop_is_refused(tmp_path: Path) -> None:
    project(tmp_path)
    os.symlink("o2", tmp_path / "o1")
    os.symlink("o1", tmp_path / "o2")
    result = package(tmp_path, "--version", "1.0", "--out", "o1")
    assert result.returncode == 2, result.stderr
    assert "--out o1 is a symbolic link that loops" in result.stderr
