"""The header corpus (tests/importer/headers) imported, compared byte for
byte with the specs and diagnostics in tests/importer/expected.

Each scenario is one ``gen-ops import`` run, planned into its expected
directory (``--out expected/<scenario>``), so the ``$schema`` lines are the
ones a real run there writes. Every imported spec is then validated and
rendered by gen-ops itself, each scenario's whole tree imported in Python
and its REG_OP headers compiled with g++ (the forms GE's own headers use:
Promote, ListTensorType, named-set unions, ``_If``, ``If``, ``Shape``, an
input ``name``, DT_UNDEFINED).

After an intended change, regenerate and review the diff:

    .venv/bin/python tests/importer/test_import_golden.py --update
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gen_ops import pipeline
from gen_ops.base.diagnostics import Sink
from gen_ops.emit.outputs import Target
from gen_ops.importer import driver

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EXPECTED = HERE / "expected"

SCENARIOS: dict[str, dict[str, object]] = {
    # Every header, each its own module: every form, defect and duplicate.
    "per_header": {"paths": ("headers",), "module_per_header": True},
    # The GE string-table fix and a --prefer choice.
    "fixed": {
        "paths": ("headers/bad_dtypes.h", "headers/dup_a.h", "headers/dup_b.h"),
        "fix_dtypes": True,
        "prefer": ("headers/dup_b.h",),
    },
}


@pytest.fixture(autouse=True)
def _here(monkeypatch: pytest.MonkeyPatch) -> None:
    """Header paths in specs and diagnostics are relative to this directory."""
    monkeypatch.chdir(HERE)


def options(name: str) -> driver.Options:
    extra = dict(SCENARIOS[name])
    paths = tuple(Path(p) for p in extra.pop("paths"))  # type: ignore[attr-defined]
    return driver.Options(
        paths=paths,
        out=Path("expected") / name,
        overwrite=True,
        jobs=1,
        **extra,  # type: ignore[arg-type]
    )


def on_disk(name: str) -> dict[str, str]:
    root = EXPECTED / name
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*.yaml"))
    }


def listing(result: driver.Result) -> str:
    return "".join(d.format() + "\n" for d in result.diagnostics)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_specs_match_goldens(name: str) -> None:
    result = driver.plan(options(name))
    planned = {f.path: f.text for f in result.files}
    expected = on_disk(name)
    assert sorted(planned) == sorted(expected)
    for path, text in planned.items():
        assert text == expected[path], path


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_diagnostics_match_goldens(name: str) -> None:
    result = driver.plan(options(name))
    expected = (EXPECTED / f"{name}.txt").read_text(encoding="utf-8")
    assert listing(result) == expected


def golden_specs() -> Iterator[str]:
    for name in sorted(SCENARIOS):
        for path in on_disk(name):
            yield f"{name}/{path}"


@pytest.mark.parametrize("spec", list(golden_specs()))
def test_spec_validates_and_renders(spec: str) -> None:
    sink = Sink()
    files = pipeline.discover([EXPECTED / spec], sink)
    ops = pipeline.load_and_check(files, sink)
    assert not sink.has_errors, "\n".join(d.format() for d in sink.sorted())
    assert [op.op_type for op in ops]
    rendered = pipeline.render(ops, frozenset(Target))
    for output in rendered:
        if output.path.endswith(".py"):
            compile(output.content, output.path, "exec")


IMPORT_ALL = """
import importlib, sys
for name in sys.argv[1:]:
    module = importlib.import_module(name)
    for exported in getattr(module, "__all__", ()):
        assert callable(getattr(module, exported)), (name, exported)
print("imported", len(sys.argv) - 1)
"""


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_tree_imports_and_compiles(name: str, tmp_path: Path) -> None:
    """A scenario's specs rendered together: every builder and impl module
    imports (file stems that are keywords, names with a leading _), and
    every REG_OP header compiles against tests/cpp/graph/operator_reg.h."""
    sink = Sink()
    files = pipeline.discover([EXPECTED / name], sink)
    ops = pipeline.load_and_check(files, sink)
    assert not sink.has_errors, "\n".join(d.format() for d in sink.sorted())
    out = tmp_path / "out"
    for output in pipeline.render(ops, frozenset(Target)):
        target = out / output.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(output.content, encoding="utf-8")
    modules = sorted({f"ge.es.{op.module}" for op in ops}) + [
        f"ge.es.{op.module}.{op.file_stem}" for op in ops
    ]
    modules += [
        p.relative_to(out / "python").with_suffix("").as_posix().replace("/", ".")
        for p in sorted((out / "python/ge_impl").rglob("*.py"))
        if p.name != "__init__.py"
    ]
    env = dict(os.environ, PYTHONPATH=str(out / "python"))
    result = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL, *modules],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"imported {len(modules)}"
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ is not on PATH: the headers cannot be checked")
    for source in sorted((out / "src").glob("*.cc")):
        check = subprocess.run(
            [gxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Werror"]
            + ["-I", str(ROOT / "tests/cpp"), "-I", str(out / "include")]
            + ["-x", "c++", str(source)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert check.returncode == 0, check.stderr


def test_every_header_is_in_a_scenario() -> None:
    headers = {p.name for p in (HERE / "headers").rglob("*.h*")}
    assert len(headers) >= 15


def update() -> None:
    """Rewrite the goldens from what the importer gives now."""
    os.chdir(HERE)
    for name in SCENARIOS:
        shutil.rmtree(EXPECTED / name, ignore_errors=True)
        result = driver.plan(options(name))
        for spec in result.files:
            target = EXPECTED / name / spec.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(spec.text, encoding="utf-8")
        (EXPECTED / f"{name}.txt").write_text(listing(result), encoding="utf-8")
        print(f"{name}: {len(result.files)} spec(s), {len(result.diagnostics)} line(s)")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        raise SystemExit("usage: test_import_golden.py --update")
    update()
