"""The render cache (Note [Render cache] in gen_ops/render_cache.py): after
any change, a render that loads only the changed specs writes exactly what a
render from scratch writes, and the checks across specs still see every
spec."""

from __future__ import annotations

import datetime
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT

from gen_ops.base import fingerprint
from gen_ops.cli import main
from gen_ops.emit import render, state
from gen_ops.emit.writer import MANIFEST
from gen_ops.lowering.facts import OpFacts
from gen_ops.lowering.targets import facts_of
from gen_ops.pipeline import load_and_check
from gen_ops.render_cache import Cache

MODULES = ["alpha", "beta", "gamma"]


def synthetic(i: int, module: str, doc: str = "") -> str:
    """A spec whose features vary with i (as bench/gen_scaling.py's)."""
    kind = i % 4
    lines = [
        f"op: Synth{i:03d}Op",
        f"module: {module}",
        f"doc: Synthetic op {i}. {doc}",
        "dtypes:",
        "  T: [float32, float16]",
        "inputs:",
        "  - {name: x, dtype: T, doc: The input.}",
    ]
    if kind == 1:
        lines.append("  - {name: bias, dtype: T, optional: true}")
    lines += ["outputs:", "  - {name: y, dtype: T}"]
    if kind == 2:
        lines.append("  - {name: z, dtype: T}")
    lines += ["attrs:", "  - {name: alpha, type: float, default: 0.5}"]
    if kind != 3:
        lines += ["infer_meta:", "  y:", "    shape: same_as(x)", "    dtype: x"]
        if kind == 2:
            lines += ["  z:", "    shape: same_as(x)", "    dtype: x"]
    if kind == 0:
        lines += ["impl:", "  capabilities: [execute]"]
    return "\n".join(lines) + "\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The repository's specs and a dozen synthetic ones over three modules."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / "specs", tmp_path / "specs")
    for i in range(12):
        path = tmp_path / "specs" / "synth" / f"synth_{i:03d}.yaml"
        path.parent.mkdir(exist_ok=True)
        path.write_text(synthetic(i, MODULES[i % 3]))
    return tmp_path


def tree(out: Path) -> dict[str, bytes]:
    return {
        p.relative_to(out).as_posix(): p.read_bytes()
        for p in out.rglob("*")
        if p.is_file() and p.name != state.STATE
    }


def run(*args: str) -> int:
    return main(["--specs", "specs", "--no-scaffold", *args])


def incremental(capsys: pytest.CaptureFixture[str]) -> str:
    """Render into out (with its cache); what it printed."""
    capsys.readouterr()
    assert run("--out", "out") == 0, capsys.readouterr().err
    return capsys.readouterr().out


def assert_as_from_scratch(project: Path) -> None:
    scratch = project / "scratch"
    shutil.rmtree(scratch, ignore_errors=True)
    assert run("--out", "scratch", "-q") == 0
    assert tree(project / "out") == tree(scratch)
    assert run("--out", "out", "--check", "-q") == 0


def rendered_count(printed: str) -> int | None:
    """How many ops the run rendered, when it kept some, besides those of
    specs with warnings (rendered every time, so that their warnings show)."""
    found = re.search(r"\((\d+) rendered, \d+ unchanged\)", printed)
    return int(found.group(1)) - warned() if found else None


def warned() -> int:
    """The specs (under specs/) that load with a warning."""
    from gen_ops.base.diagnostics import Sink
    from gen_ops.spec.discovery import discover

    sink = Sink()
    load_and_check(discover([Path("specs")], sink), sink)
    return len({d.span.path for d in sink.items})


def test_one_edit_renders_one_op(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    incremental(capsys)
    spec = project / "specs/synth/synth_004.yaml"
    spec.write_text(synthetic(4, "beta", "Changed."))
    assert rendered_count(incremental(capsys)) == 1
    assert_as_from_scratch(project)
    assert "up to date" in incremental(capsys)


def _edit(rng: random.Random, project: Path, step: int) -> str:
    synth = sorted((project / "specs/synth").glob("*.yaml"))
    spec = rng.choice(synth)
    number = int(spec.stem.split("_")[1])
    module = re.search(r"^module: (\w+)$", spec.read_text(), re.M)
    assert module is not None
    action = rng.choice(
        ["doc", "add", "remove", "move", "rename", "output", "delete-output"]
    )
    if action == "doc":
        spec.write_text(synthetic(number, module.group(1), f"Edit {step}."))
    elif action == "add":
        new = 100 + step
        path = spec.parent / f"synth_{new:03d}.yaml"
        path.write_text(synthetic(new, rng.choice(MODULES)))
    elif action == "remove" and len(synth) > 2:
        spec.unlink()
    elif action == "move":
        others = [m for m in MODULES + ["delta"] if m != module.group(1)]
        spec.write_text(synthetic(number, rng.choice(others)))
    elif action == "rename":
        spec.write_text(
            synthetic(number, module.group(1)).replace(
                f"Synth{number:03d}Op", f"Renamed{number:03d}Op{step}"
            )
        )
    elif action in ("output", "delete-output"):
        outputs = sorted(p for p in (project / "out").rglob("*.py") if p.is_file())
        victim = rng.choice(outputs)
        if action == "output":
            victim.write_text(victim.read_text() + "# edited by hand\n")
        else:
            victim.unlink()
    return action


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_changes_render_as_from_scratch(
    project: Path, capsys: pytest.CaptureFixture[str], seed: int
) -> None:
    rng = random.Random(seed)
    incremental(capsys)
    kept_some = False
    for step in range(6):
        action = _edit(rng, project, step)
        printed = incremental(capsys)
        kept_some = kept_some or rendered_count(printed) is not None
        try:
            assert_as_from_scratch(project)
        except AssertionError:
            pytest.fail(f"seed {seed}, step {step} ({action}): output differs")
    assert kept_some


def test_a_template_edit_renders_everything_again(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    incremental(capsys)
    templates = project / "templates"
    shutil.copytree(render.template_dir(), templates)
    page = templates / "docs/op.md.j2"
    page.write_text(page.read_text() + "\nEdited template.\n")
    monkeypatch.setattr(render, "template_dir", lambda: templates)
    monkeypatch.setattr(fingerprint, "template_dir", lambda: templates)
    render.environment.cache_clear()
    fingerprint.code_digest.cache_clear()
    try:
        printed = incremental(capsys)
        assert rendered_count(printed) is None  # nothing kept
        assert "Edited template." in (project / "out/docs/ops/AddCustom.md").read_text()
        assert_as_from_scratch(project)
    finally:
        render.environment.cache_clear()
        fingerprint.code_digest.cache_clear()


def test_another_generator_renders_everything_again(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    incremental(capsys)
    (project / "specs/synth/synth_001.yaml").write_text(synthetic(1, "beta", "New."))
    monkeypatch.setattr(state, "code_digest", lambda: "another gen-ops")
    assert rendered_count(incremental(capsys)) is None
    assert_as_from_scratch(project)


def _errors(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    assert run("--out", "out", *args) == 2
    return capsys.readouterr().err


@pytest.mark.parametrize(
    "text, code",
    [
        (synthetic(5, "alpha"), "E801"),  # Synth005Op again (module gamma there)
        (synthetic(7, "beta").replace("Synth007Op", "SYNTH007Op"), "E802"),
    ],
)
def test_a_clash_with_an_unchanged_spec_is_found(
    project: Path, capsys: pytest.CaptureFixture[str], text: str, code: str
) -> None:
    incremental(capsys)
    (project / "specs/synth/zz_clash.yaml").write_text(text)
    cached = _errors(capsys)
    assert code in cached
    (project / "out" / state.STATE).unlink()
    assert _errors(capsys) == cached  # the same diagnostics as without cache
    # Nothing was written, and the cache still serves once the clash is gone.
    (project / "specs/synth/zz_clash.yaml").unlink()
    incremental(capsys)
    assert_as_from_scratch(project)


def test_check_still_finds_drift_after_an_incremental_run(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    incremental(capsys)
    (project / "specs/synth/synth_002.yaml").write_text(synthetic(2, "gamma", "X."))
    assert rendered_count(incremental(capsys)) == 1
    assert run("--out", "out", "--check", "-q") == 0
    page = project / "out/docs/ops/Synth002Op.md"
    page.write_text(page.read_text() + "drift\n")
    capsys.readouterr()
    assert run("--out", "out", "--check", "-q") == 1
    assert "Synth002Op.md" in capsys.readouterr().out
    # A render restores the page (its stat changed: the op is rendered again).
    assert rendered_count(incremental(capsys)) == 1
    assert_as_from_scratch(project)


def test_scaffolding_a_deleted_author_module_again(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def scaffolded() -> str:
        capsys.readouterr()
        assert main(["--specs", "specs", "--out", "out"]) == 0
        return capsys.readouterr().out

    assert "ops/alpha/synth000_op.py" in scaffolded()
    author = project / "ops/alpha/synth000_op.py"
    author.unlink()
    (project / "specs/synth/synth_003.yaml").write_text(synthetic(3, "alpha", "Y."))
    printed = scaffolded()
    assert "ops/alpha/synth000_op.py" in printed
    assert rendered_count(printed) == 2  # the edited op and the one scaffolded
    assert author.is_file()


def test_facts_survive_the_cache(project: Path) -> None:
    from gen_ops.base.diagnostics import Sink
    from gen_ops.spec.discovery import discover

    sink = Sink()
    ops = load_and_check(discover([Path("specs")], sink), sink)
    assert ops
    for op in ops:
        facts = facts_of(op)
        assert OpFacts.from_json(facts.to_json()) == facts
    assert Cache.from_text('{"version": 0, "context": ""}') is None
    assert Cache.from_text("garbage") is None


def test_an_unreadable_cache_line_means_a_full_render(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    incremental(capsys)
    path = project / "out" / state.STATE
    first = path.read_text().partition("\n")[0]
    path.write_text(first + "\n{not json\n")
    (project / "specs/synth/synth_006.yaml").write_text(synthetic(6, "alpha", "Z."))
    assert rendered_count(incremental(capsys)) is None
    assert_as_from_scratch(project)
    assert (project / "out" / MANIFEST).is_file()


def _release(version: str, days_ago: int, specs: Path) -> int:
    day = datetime.date.today() - datetime.timedelta(days=days_ago)
    return main(
        ["release", version, "--date", day.isoformat(), "--registry", "reg"]
        + ["--specs", str(specs)]
    )


def test_a_new_release_renders_the_builders_of_unchanged_specs_again(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A registry is part of the render's context: once a release records
    Synth001Op without ``extra``, that input becomes keyword-only in its
    builder, although its spec did not change."""
    spec = project / "specs/synth/synth_001.yaml"
    before = spec.read_text()
    first, old = project / "first_specs", project / "old_specs"
    first.mkdir()
    old.mkdir()
    shutil.copy(project / "specs/synth/synth_002.yaml", first)
    (old / "synth_001.yaml").write_text(before)
    spec.write_text(
        before.replace(
            "  - {name: bias, dtype: T, optional: true}\n",
            "  - {name: bias, dtype: T, optional: true}\n"
            "  - {name: extra, dtype: T, optional: true}\n",
        )
    )
    assert _release("1.0.0", 60, first) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert run("--out", "out", "--registry", "reg") == 0, capsys.readouterr().err
    builder = next((project / "out/python/ge/es").rglob("synth001_op.py")).read_text()
    assert _release("1.1.0", 30, old) == 0, capsys.readouterr().err
    assert run("--out", "out", "--registry", "reg") == 0, capsys.readouterr().err
    assert "up to date" not in capsys.readouterr().out
    again = next((project / "out/python/ge/es").rglob("synth001_op.py")).read_text()
    assert again != builder
    shutil.rmtree(project / "scratch", ignore_errors=True)
    assert run("--out", "scratch", "-q", "--registry", "reg") == 0
    assert tree(project / "out") == tree(project / "scratch")


def _tamper_keeping_stat(path: Path) -> str:
    """Change a file's bytes but not its size or modification time, so that
    it stands "as recorded" (Note [Render cache]); the text written."""
    info = path.stat()
    text = path.read_text()
    tampered = text.replace("gen-ops", "GEN-OPS", 1)
    assert tampered != text and len(tampered) == len(text)
    path.write_text(tampered)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    return tampered


def test_only_a_changed_module_renders_its_shared_files(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An edit in module beta renders beta's shared files (and the docs
    index, which every op shares), and keeps alpha's as they stand: a file
    of alpha whose bytes changed behind the cache's back is left alone,
    until an alpha spec changes."""
    incremental(capsys)
    out = project / "out"
    alpha = [
        out / "python/ge/es/alpha/__init__.py",
        out / "include/alpha/alpha_ops.h",
        out / "src/alpha_op_proto.cc",
        out / "history/alpha/operators.json",
    ]
    beta = out / "python/ge/es/beta/__init__.py"
    tampered = {path: _tamper_keeping_stat(path) for path in alpha + [beta]}
    index = out / "docs/ops/README.md"
    tampered_index = _tamper_keeping_stat(index)
    spec = project / "specs/synth/synth_004.yaml"  # module beta
    spec.write_text(synthetic(4, "beta", "Changed."))
    assert rendered_count(incremental(capsys)) == 1
    for path in alpha:
        assert path.read_text() == tampered[path], path
    assert beta.read_text() != tampered[beta]
    assert index.read_text() != tampered_index
    (project / "specs/synth/synth_000.yaml").write_text(synthetic(0, "alpha", "Y."))
    assert rendered_count(incremental(capsys)) == 1
    assert_as_from_scratch(project)


def test_a_missing_shared_file_of_an_unchanged_module_is_rendered_again(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    incremental(capsys)
    (project / "out/history/alpha/operators.json").unlink()
    (project / "out/include/gamma/gamma_ops.h").write_text("// edited by hand\n")
    (project / "specs/synth/synth_004.yaml").write_text(synthetic(4, "beta", "Z."))
    assert rendered_count(incremental(capsys)) == 1
    assert_as_from_scratch(project)


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text.replace('"history":', '"history":1+', 1),  # bad JSON
        lambda text: re.sub(r'"history":(\d+)', r'"history":1\1', text, count=1),
        lambda text: text[:-100],  # a history text cut short
        lambda text: text + "more\n",  # text after the last history
        lambda text: text.replace('"entries":', '"entries":1', 1),
        lambda text: re.sub(r'"history":\d+', '"history":-1', text, count=1),
    ],
)
def test_a_damaged_cache_means_a_full_render(
    project: Path, capsys: pytest.CaptureFixture[str], damage: Any
) -> None:
    incremental(capsys)
    path = project / "out" / state.STATE
    text = path.read_text()
    damaged = damage(text)
    assert damaged != text
    path.write_text(damaged)
    (project / "specs/synth/synth_006.yaml").write_text(synthetic(6, "alpha", "Z."))
    assert rendered_count(incremental(capsys)) is None
    assert_as_from_scratch(project)


def test_the_cache_text_round_trips(project: Path) -> None:
    from gen_ops.base.diagnostics import Sink, Span
    from gen_ops.render_cache import Entry
    from gen_ops.spec.discovery import discover

    sink = Sink()
    ops = load_and_check(discover([Path("specs")], sink), sink)
    entries = {
        f"specs/{op.op_type}.yaml": Entry(
            "0" * 64, "d", "l", "/p", Span("d", 1, 5), facts_of(op)
        )
        for op in ops
    }
    cache = Cache("ctx", entries)
    again = Cache.from_text(cache.to_text())
    assert again is not None and again.entries == entries and again.context == "ctx"
    # Lines read are written back as they were: the same text again.
    assert again.to_text() == cache.to_text()
    assert Cache.from_text(Cache("ctx", {}).to_text()) == Cache("ctx", {}, {})


def test_op_outputs_name_the_files_each_lowering_renders(project: Path) -> None:
    from gen_ops.base.diagnostics import Sink
    from gen_ops.lowering.targets import LOWERINGS
    from gen_ops.pipeline import op_outputs
    from gen_ops.spec.discovery import discover

    sink = Sink()
    ops = load_and_check(discover([Path("specs")], sink), sink)
    assert any(not facts_of(op).impl_renders for op in ops)
    for op in ops:
        for target, lowerings in LOWERINGS.items():
            rendered = [path for lower in lowerings for path, _ in lower.op_files(op)]
            assert [p for p, _ in op_outputs(facts_of(op), [target])] == rendered


def _recorded_hashes(project: Path) -> dict[str, Any]:
    recorded = state.read(project / "out")
    assert recorded is not None
    return recorded.hashes


def test_a_spec_just_written_has_no_digest_kept(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Note [Known digests]: a file changed within SETTLED_NS of the run
    could change again in the same clock tick, so its digest is not kept."""
    incremental(capsys)
    assert _recorded_hashes(project) == {}


def test_a_kept_digest_stands_for_an_unchanged_spec(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(state, "SETTLED_NS", 0)
    incremental(capsys)
    hashes = _recorded_hashes(project)
    spec = str(Path("specs/synth/synth_003.yaml"))
    assert spec in hashes and len(hashes) == len(list(Path("specs").rglob("*.yaml")))
    assert "up to date" in incremental(capsys)
    # The next run takes the recorded digest without reading the spec: a
    # (tampered) recorded digest is what it sees, so the spec is loaded
    # again, and the output is still what the specs give.
    path = project / "out" / state.STATE
    text = path.read_text()
    path.write_text(text.replace(hashes[spec][4], "0" * 64, 1))
    assert rendered_count(incremental(capsys)) == 1
    assert_as_from_scratch(project)


def test_a_spec_changed_behind_its_modification_time_is_seen(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same size, modification time set back by hand: the change time
    moved, so the spec is read and rendered again."""
    monkeypatch.setattr(state, "SETTLED_NS", 0)
    incremental(capsys)
    spec = project / "specs/synth/synth_003.yaml"
    info = spec.stat()
    text = spec.read_text()
    changed = text.replace("Synthetic op 3.", "Synthetic op 9.")
    assert len(changed) == len(text) and changed != text
    spec.write_text(changed)
    os.utime(spec, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert rendered_count(incremental(capsys)) == 1
    assert "Synthetic op 9." in (project / "out/docs/ops/Synth003Op.md").read_text()
    assert_as_from_scratch(project)


def test_one_edit_per_process_renders_one_op_every_time(project: Path) -> None:
    """Run after run, each in its own gen-ops process (writing bytecode, as
    a user's does), an edit to one spec renders that op alone: nothing a
    process leaves behind (bytecode files, the template cache, the spec
    cache) may change the render's context and make it render everything."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["GEN_OPS_CACHE_DIR"] = str(project / "cache")
    command = [sys.executable, "-m", "gen_ops", "--specs", "specs", "--no-scaffold"]
    command += ["--out", "out"]

    def render() -> str:
        done = subprocess.run(
            command, env=env, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    render()
    for step in range(6):
        number = 3 * step % 12
        module = MODULES[number % 3]
        spec = project / f"specs/synth/synth_{number:03d}.yaml"
        spec.write_text(synthetic(number, module, f"Step {step}."))
        assert rendered_count(render()) == 1, f"step {step}"
    assert "up to date" in render()
    assert_as_from_scratch(project)


@pytest.mark.parametrize("change", ["delete", "move"])
def test_a_warned_spec_leaving_its_module_renders_the_module_again(
    project: Path, capsys: pytest.CaptureFixture[str], change: str
) -> None:
    """A spec with a warning is never in the cache, so the cache alone
    cannot tell that its module lost it: module custom's shared files,
    rendered with AttrZooCustom, are rendered again when it goes."""
    incremental(capsys)
    spec = project / "specs/attr_zoo_custom.yaml"
    if change == "delete":
        spec.unlink()
    else:
        spec.write_text(spec.read_text().replace("module: custom", "module: alpha"))
    incremental(capsys)
    assert_as_from_scratch(project)
