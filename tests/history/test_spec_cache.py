"""The spec cache (Note [Spec cache]): compat, changelog and release take
the model of an unchanged valid spec from it instead of loading the spec,
and what they report is what a run without it reports: a changed, renamed
or broken spec is loaded again, and a pack that is corrupt, written by
other code or open to others is ignored and written again."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest
from history_helpers import Project, Run, project  # noqa: F401

from gen_ops.spec import spec_cache
from gen_ops.spec.model import OpSpec

V1 = """\
op: Pad
inputs:
  - {name: x, dtype: float32}
  - {name: paddings, dtype: int64}
outputs:
  - {name: y, dtype: float32}
"""
V2 = V1.replace("  - {name: paddings, dtype: int64}\n", "")  # removes an input
BROKEN = V1.replace("dtype: int64", "dtype: int65")
OTHER = V1.replace("op: Pad", "op: Crop")

REMOVED = (
    "specs/pad.yaml:1:5: error[H301]: Pad: input 'paddings' removed; breaks "
    "callers of release 1.0.0"
)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv(spec_cache.ENV, str(directory))
    return directory


def released(project: Project) -> None:
    project.spec("pad.yaml", V1)
    project.release("1.0.0", "2026-01-01", "--no-cache")


def pack(cache: Path) -> Path:
    (found,) = cache.glob("specs-*.pickle")
    return found


def held(cache: Path) -> dict[str, OpSpec]:
    with pack(cache).open("rb") as stream:
        models: dict[str, OpSpec] = pickle.load(stream)["models"]
    return models


def same(a: Run, b: Run) -> bool:
    """The same report, the timing of the summary line aside."""
    return (a.status, a.lines, a.hints) == (b.status, b.lines, b.hints)


def test_a_second_run_takes_the_models_and_reports_the_same(
    project: Project, cache: Path
) -> None:
    released(project)
    project.spec("pad.yaml", V2)
    first = project.compat()
    assert first.status == 1 and first.lines == [REMOVED]
    assert [m.op_type for m in held(cache).values()] == ["Pad"]
    written = pack(cache).stat().st_mtime_ns
    second = project.compat()
    assert same(first, second)
    assert pack(cache).stat().st_mtime_ns == written  # nothing new to keep
    assert same(first, project.compat("--no-cache"))


def test_a_changed_spec_is_loaded_again(project: Project, cache: Path) -> None:
    released(project)
    assert project.compat().status == 0
    project.spec("pad.yaml", V2)
    run = project.compat()
    assert run.status == 1 and run.lines == [REMOVED]
    (model,) = held(cache).values()
    assert [i.name for i in model.inputs] == ["x"]


def test_the_same_bytes_under_another_name_are_loaded_again(
    project: Project, cache: Path
) -> None:
    released(project)
    project.spec("pad.yaml", V2)
    project.compat()
    os.rename(project.root / "specs/pad.yaml", project.root / "specs/pad2.yaml")
    run = project.compat()
    assert run.lines == [REMOVED.replace("pad.yaml", "pad2.yaml")]
    (model,) = held(cache).values()
    assert model.spec_path == "specs/pad2.yaml"


def test_a_broken_spec_is_reported_on_every_run(project: Project, cache: Path) -> None:
    released(project)
    project.spec("pad.yaml", BROKEN)
    runs = [project.compat(), project.compat()]
    for run in runs:
        assert run.status == 2
        assert run.lines == [
            "specs/pad.yaml:4:29: error[E402]: Pad: 'int65' is not a type "
            "variable, named set or dtype"
        ]
    assert same(runs[0], runs[1])
    assert list(cache.glob("specs-*.pickle")) == []  # nothing to keep


def test_a_duplicate_op_type_is_found_with_kept_models(
    project: Project, cache: Path
) -> None:
    released(project)
    assert project.compat().status == 0
    project.spec("pad_again.yaml", V1)  # the kept Pad and a loaded one
    run = project.compat()
    assert run.status == 2
    assert run.lines == [
        "specs/pad_again.yaml:1:5: error[E801]: op type 'Pad' is already defined "
        "in specs/pad.yaml:1:5"
    ]


def test_a_corrupt_pack_is_ignored_and_written_again(
    project: Project, cache: Path
) -> None:
    released(project)
    project.spec("pad.yaml", V2)
    first = project.compat()
    pack(cache).write_bytes(b"\x80\x05not a pickle")
    assert same(first, project.compat())
    assert [m.op_type for m in held(cache).values()] == ["Pad"]


def poison(cache: Path, context: str) -> None:
    """The pack with the model of another op (Crop) under Pad's key."""
    from helpers import load_ops

    data = pickle.loads(pack(cache).read_bytes())
    other = cache.parent / "other_specs"
    other.mkdir(exist_ok=True)
    (other / "crop.yaml").write_text(OTHER, encoding="utf-8")
    (crop,), _ = load_ops(other)
    data["models"] = {key: crop for key in data["models"]}
    data["context"] = context
    pack(cache).write_bytes(pickle.dumps(data))


def test_a_pack_of_other_code_is_not_used(project: Project, cache: Path) -> None:
    released(project)
    project.spec("pad.yaml", V2)
    first = project.compat()
    poison(cache, "another version of gen-ops")
    assert same(first, project.compat())
    assert [m.op_type for m in held(cache).values()] == ["Pad"]


def test_a_pack_others_can_write_is_not_used(project: Project, cache: Path) -> None:
    released(project)
    project.spec("pad.yaml", V2)
    first = project.compat()
    poison(cache, spec_cache._context())
    pack(cache).chmod(0o666)
    assert same(first, project.compat())
    assert [m.op_type for m in held(cache).values()] == ["Pad"]
    assert pack(cache).stat().st_mode & 0o077 == 0  # written again, private
    # The control: the same poisoned pack, private, is taken as it is.
    poison(cache, spec_cache._context())
    assert project.compat().lines != first.lines


def test_changelog_and_release_share_the_pack(project: Project, cache: Path) -> None:
    released(project)
    project.spec("pad.yaml", V2)
    project.gen("changelog", "--registry", "reg")
    assert [m.op_type for m in held(cache).values()] == ["Pad"]
    run = project.gen("changelog", "--registry", "reg")
    assert run.status == 0
    assert run.out == project.gen("changelog", "--registry", "reg", "--no-cache").out


def test_an_unusable_cache_directory_loads_every_spec(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    released(project)
    project.spec("pad.yaml", V2)
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)  # others could swap the pack
    monkeypatch.setenv(spec_cache.ENV, str(shared))
    run = project.compat()
    assert run.status == 1 and run.lines == [REMOVED]
    assert list(shared.iterdir()) == []
