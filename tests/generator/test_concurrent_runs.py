"""Concurrent runs on one tree (Note [Tree lock] in gen_ops/emit/locking.py):
eight ``gen-ops release`` of distinct versions into one registry and six
``gen-ops import`` into one ``--out``, started at once. Every release ends
in the index and every spec on disk, or the run that lost says why with a
non-zero exit; no run removes another's staged files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SPEC = """\
op: Op{n}
doc: Op number {n}.
inputs:
  - {{name: x, dtype: float32}}
outputs:
  - {{name: y, dtype: float32}}
infer_meta:
  y: {{shape: same_as(x), dtype: x}}
"""
DECL = """\
REG_OP(Imp{h}x{n})
    .INPUT(x, TensorType({{DT_FLOAT}}))
    .OUTPUT(y, TensorType({{DT_FLOAT}}))
    .OP_END_FACTORY_REG(Imp{h}x{n})
"""


def start(cwd: Path, *args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "GEN_OPS_FAULT"}
    return subprocess.Popen(
        [sys.executable, "-m", "gen_ops", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(runs: list[subprocess.Popen[str]]) -> list[tuple[int, str]]:
    done = []
    for run in runs:
        _, err = run.communicate(timeout=240)
        done.append((run.returncode, err))
    return done


def test_concurrent_releases_all_land_or_say_why(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    for n in range(20):
        (tmp_path / f"specs/op{n}.yaml").write_text(SPEC.format(n=n))
    versions = [f"2.0.{i}" for i in range(8)]
    runs = [
        start(tmp_path, "release", v, "--registry", "reg", "--date", "2026-01-01")
        for v in versions
    ]
    results = finish(runs)
    index = json.loads((tmp_path / "reg/index.json").read_text())
    listed = {r["release_version"] for r in index["releases"]}
    for version, (status, err) in zip(versions, results, strict=True):
        assert "Traceback" not in err
        if status == 0:
            assert version in listed, err
            assert (tmp_path / f"reg/registry/{version}/operators.json").is_file()
        else:
            assert version not in listed and "gen-ops release:" in err, err
    # With the lock's default timeout every one of them lands.
    assert listed == set(versions), [r[1] for r in results]
    assert not [p for p in (tmp_path / "reg").rglob(".gen-ops-tmp-*")]


def test_concurrent_imports_into_one_out_all_land_or_say_why(tmp_path: Path) -> None:
    headers = []
    for h in range(6):
        body = "".join(DECL.format(h=h, n=n) for n in range(5))
        (tmp_path / f"h{h}.h").write_text(
            f"namespace ge {{\n{body}}}  // namespace ge\n"
        )
        headers.append(f"h{h}.h")
    runs = [
        start(tmp_path, "import", h, "--out", "out", "--jobs", "1") for h in headers
    ]
    results = finish(runs)
    on_disk = {p.name for p in (tmp_path / "out").rglob("*.yaml")}
    for h, (status, err) in enumerate(results):
        assert "Traceback" not in err
        mine = {f"imp{h}x{n}.yaml" for n in range(5)}
        if status == 0:
            assert mine <= on_disk, (err, sorted(on_disk))
        else:
            assert "gen-ops import:" in err, err
    assert len(on_disk) == 30, (sorted(on_disk), [r[1] for r in results])
    assert not [p for p in (tmp_path / "out").rglob(".gen-ops-tmp-*")]


def test_a_locked_tree_is_waited_for_then_reported(tmp_path: Path) -> None:
    """The waiting message names the holder; after --lock-timeout the run
    stops with status 3 naming it and writes nothing; --check and an
    up-to-date render do not wait (they write nothing)."""
    from gen_ops.emit import locking

    (tmp_path / "specs").mkdir()
    (tmp_path / "specs/op1.yaml").write_text(SPEC.format(n=1))
    out = tmp_path / "generated"
    args = ("--no-scaffold", "--lock-timeout", "0.3")
    with locking.hold(out, "test holder"):
        run = start(tmp_path, *args)
        _, err = run.communicate(timeout=60)
        assert run.returncode == 3, err
        assert (
            f"gen-ops: waiting for generated/.gen-ops.lock (held by pid {os.getpid()}, "
            "test holder"
        ) in err
        assert "gen-ops: gave up waiting for generated/.gen-ops.lock after 0.3 s" in err
        assert not (out / ".gen-ops-manifest.json").exists()
        release = start(
            tmp_path,
            "release",
            "1.0.0",
            "--registry",
            "generated",
            "--lock-timeout",
            "0",
        )
        _, err = release.communicate(timeout=60)
        assert release.returncode == 3 and "gen-ops release: gave up" in err, err
    first = start(tmp_path, *args)
    assert first.wait(timeout=60) == 0
    with locking.hold(out, "test holder"):
        for extra in ([], ["--check"]):
            run = start(tmp_path, *args, *extra)
            _, err = run.communicate(timeout=60)
            assert run.returncode == 0 and "waiting" not in err, err
    assert not (out / locking.LOCK_INFO).exists()
