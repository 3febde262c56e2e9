"""Ship your ops (issue 12's acceptance): the ge-ops wheel in a fresh
environment, a module named ``custom`` generated from specs outside the
checkout, packaged with ``gen-ops package``, installed, run with no
environment variable, taken offline to a process with no compiler and a
read-only home, type-checked, and uninstalled without touching ge-ops.

Slow (a wheel build and a few installs, about a minute); one worker runs the
whole group (``--dist loadgroup``), sharing one environment.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import importlib.util
import os
import shutil
import stat
import sys
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from shipping import HERE, ROOT, Env, make_env, run

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ship")]

LIBRARY = HERE / "library"
PROGRAMS = HERE / "programs"


@dataclass
class Shipped:
    env: Env
    work: Path  # the user's project, outside the checkout
    library: Path  # the es_custom wheel
    model: Path  # the offline model of a graph of its ops
    online: str  # what the graph's run printed


def _project(root: Path) -> Path:
    """A user's project: one spec, its author module and kernel."""
    (root / "specs").mkdir(parents=True)
    shutil.copy(LIBRARY / "ship_add_custom.yaml", root / "specs")
    shutil.copytree(LIBRARY / "ops", root / "ops")
    return root


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shipped]:
    tmp = tmp_path_factory.mktemp("ship")
    env, _ = make_env(tmp)
    work = _project(tmp / "project")
    environ = env.environ()
    gen_ops = str(env.bin / "gen-ops")
    run([gen_ops, "--out", "generated"], env=environ, cwd=work)
    assert (work / "generated/python/ge/es/custom/ship_add_custom.py").is_file()
    run(
        [
            gen_ops,
            "package",
            "--module",
            "custom",
            "--version",
            "1.0.0",
            "--out",
            "dist",
        ],
        env=environ,
        cwd=work,
    )
    (library,) = (work / "dist").glob("es_custom-1.0.0-*.whl")
    assert (work / "dist/es_custom-1.0.0.tar.gz").is_file()
    env.install(library, cwd=work)
    elsewhere = tmp / "elsewhere"  # not the project: nothing of it on the path
    elsewhere.mkdir()
    air = elsewhere / "ship.air"
    online = run(
        [env.python, str(PROGRAMS / "run_online.py"), str(air)],
        env=environ,
        cwd=elsewhere,
    )
    run(
        [str(env.bin / "ge-atc"), "--model", str(air), "--output", "ship"],
        env=environ,
        cwd=elsewhere,
    )
    yield Shipped(env, work, library, elsewhere / "ship.om", online.stdout)


def test_the_ge_ops_wheel_holds_no_sample_op(shipped: Shipped) -> None:
    site = shipped.env.site_packages()
    record = _record(site)
    assert not [p for p in record if "custom/" in p and "custom_op/" not in p]
    assert not [p for p in record if p.startswith("es_")]
    # of the repository's modules only the built-in math ops (Note [Built-in ops])
    impl = {p for p in record if p.startswith("ge_impl/")}
    assert impl and all(p.startswith("ge_impl/math/") for p in impl), impl
    assert "ge_impl/__init__.py" not in impl  # a namespace op libraries share
    assert {"ge_impl/math/add.py", "ge_impl/math/py.typed"} <= impl
    assert {"ge/es/math/__init__.py", "ge/_builtin_ops/math/add.py"} <= set(record)
    # the C/C++ ES runtime's headers and sources (python -m ge.es --includes)
    native = {p for p in record if p.startswith("ge/es/native/")}
    assert {
        "ge/es/native/include/eager_style_graph_builder/c/esb_funcs.h",
        "ge/es/native/src/graph.cpp",
    } <= native, sorted(native)
    assert "ge/_builtin_ops/math/_elementwise.py" in record
    assert not [p for p in record if p.startswith(("ge/es/custom/", "ge/es/state/"))]
    for package in ("ge", "ge_ir", "gen_ops"):
        assert f"{package}/py.typed" in record
    assert "ge/device/_native.so" in record
    # The fast run path's extension, built wherever the Python headers are.
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    assert ("ge/engine/_hotpath.abi3.so" in record) == headers.exists()


def test_running_models_pulls_no_packaging_tool(shipped: Shipped) -> None:
    """build and hatchling only with the package extra (issue 22, finding 6)."""
    site = shipped.env.site_packages()
    (dist_info,) = site.glob("ge_ops-*.dist-info")
    requires = [
        Requirement(line.split(":", 1)[1])
        for line in (dist_info / "METADATA").read_text().splitlines()
        if line.startswith("Requires-Dist:")
    ]
    for tool in ("build", "hatchling"):
        (found,) = [
            r for r in requires if r.name == tool and "package" in str(r.marker)
        ]
        assert not found.marker.evaluate({"extra": ""}), found
    plain = {r.name for r in requires if r.marker is None}
    assert not plain & {"build", "hatchling"}, plain


def test_builtin_ops_run_from_the_wheel_alone(shipped: Shipped, tmp_path: Path) -> None:
    """TensorHolder arithmetic and every op of ge.es.math against numpy, from
    a temporary directory, no environment variable, and every module of the
    process from the installed wheels (issue 22, finding 1)."""
    program = shutil.copy(PROGRAMS / "run_builtin.py", tmp_path)  # not the checkout's
    out = run(
        [shipped.env.python, str(program), str(ROOT)],
        env=shipped.env.environ(),
        cwd=tmp_path,
    )
    assert "builtin ok" in out.stdout, out.stdout
    assert "MatMul ok" in out.stdout and "arithmetic ok" in out.stdout


def test_a_graph_of_the_installed_library_runs_with_no_env_var(
    shipped: Shipped,
) -> None:
    assert "online ok" in shipped.online
    # and the module is served as GE serves a gen_esb wheel
    out = run(
        [
            shipped.env.python,
            "-c",
            "import ge.es, es_custom; print(ge.es.list_plugins(), "
            "ge.es.get_plugin('custom') is es_custom)",
        ],
        env=shipped.env.environ(),
        cwd=shipped.work.parent,
    )
    assert out.stdout.split() == ["['custom']", "True"], out.stdout


def test_an_offline_model_runs_with_no_compiler_and_a_read_only_home(
    shipped: Shipped, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(stat.S_IRUSR | stat.S_IXUSR)
    path = str(shipped.env.bin)  # the environment's scripts: no gcc, cc or ld
    try:
        out = run(
            [shipped.env.python, str(PROGRAMS / "run_offline.py"), str(shipped.model)],
            env=shipped.env.environ(PATH=path, HOME=str(home)),
            cwd=tmp_path,
        )
    finally:
        home.chmod(stat.S_IRWXU)
    assert "offline ok" in out.stdout
    assert not any(home.iterdir())  # nothing was written to the home


def test_mypy_checks_user_code_against_the_installed_wheels(
    shipped: Shipped, tmp_path: Path
) -> None:
    def mypy(program: str) -> tuple[int, str]:
        result = run(
            [
                shipped.env.python,
                "-m",
                "mypy",
                "--no-incremental",
                "--cache-dir",
                str(tmp_path / "cache"),
                "--strict",
                str(PROGRAMS / program),
            ],
            env=shipped.env.environ(),
            cwd=tmp_path,
            check=False,
        )
        return result.returncode, result.stdout + result.stderr

    status, output = mypy("typed_user.py")
    assert status == 0, output
    status, output = mypy("typed_error.py")
    assert status == 1, output
    assert 'typed_error.py:11: error: Argument "name" to "ShipAddCustom"' in output


def _checker(shipped: Shipped, checker: str, program: str, cache: Path) -> str:
    """mypy (in the shipped environment) or pyright (of the test's own
    environment, resolving imports as the shipped Python does); neither
    with MYPYPATH or a configuration file."""
    if checker == "mypy":
        command = [shipped.env.python, "-m", "mypy", "--no-incremental"]
        command += ["--cache-dir", str(cache), "--strict", str(PROGRAMS / program)]
        environ = shipped.env.environ()
    else:
        if importlib.util.find_spec("pyright") is None:
            pytest.skip("pyright is not installed in the test's environment")
        command = [sys.executable, "-m", "pyright", "--pythonpath"]
        command += [shipped.env.python, str(PROGRAMS / program)]
        environ = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = run(command, env=environ, cwd=cache.parent, check=False)
    return f"exit {result.returncode}\n{result.stdout}{result.stderr}"


@pytest.mark.parametrize("checker", ["mypy", "pyright"])
def test_the_ge_es_name_of_an_op_library_type_checks(
    shipped: Shipped, tmp_path: Path, checker: str
) -> None:
    """Issue 22 finding 3: ``from ge.es.custom import ...`` is typed through
    the library's ``ge-stubs`` (Note [Typing ge.es plugins]), and the rest
    of ``ge`` still comes from ge-ops itself."""
    output = _checker(shipped, checker, "typed_plugin_user.py", tmp_path / "cache")
    assert output.startswith("exit 0\n"), output
    output = _checker(shipped, checker, "typed_plugin_error.py", tmp_path / "cache")
    assert output.startswith("exit 1\n"), output
    assert "typed_plugin_error.py:10" in output and '"name"' in output, output


def test_the_stubs_belong_to_one_wheel_each(shipped: Shipped) -> None:
    """ge-ops owns ``ge-stubs/py.typed`` (partial); the op library owns only
    its own stub, so removing it leaves the other wheels' files alone."""
    site = shipped.env.site_packages()
    assert "ge-stubs/py.typed" in _record(site)
    assert (site / "ge-stubs/py.typed").read_text() == "partial\n"
    assert (site / "ge-stubs/es/custom/__init__.pyi").is_file()


def test_uninstalling_the_library_leaves_ge_ops_whole(shipped: Shipped) -> None:
    env, site = shipped.env, shipped.env.site_packages()
    before = _hashes(site, _record(site))
    env.pip("uninstall", "--yes", "es_custom", cwd=shipped.work)
    try:
        assert _hashes(site, _record(site)) == before
        assert not (site / "es_custom").exists()
        # pip may leave the empty namespace directory behind, never a file;
        # ge_impl/math is ge-ops' own (the built-in ops)
        left = [p for p in (site / "ge_impl").rglob("*") if p.is_file()]
        assert all(p.relative_to(site / "ge_impl").parts[0] == "math" for p in left)
        assert [p for p in (site / "ge-stubs").rglob("*") if p.is_file()] == [
            site / "ge-stubs/py.typed"
        ]
        out = run(
            [
                env.python,
                "-c",
                "import ge.es; print(ge.es.list_plugins());"
                "from ge.custom_op import bootstrap;"
                "print(bootstrap.load_custom_op_plugins())",
            ],
            env=env.environ(),
            cwd=shipped.work.parent,
        )
        assert out.stdout.split() == ["[]", "[]"], out.stdout
        run([str(env.bin / "gen-ops"), "validate"], env=env.environ(), cwd=shipped.work)
        run([str(env.bin / "ge-atc"), "--version"], env=env.environ(), cwd=shipped.work)
    finally:
        env.install(shipped.library, cwd=shipped.work)


def _record(site: Path) -> list[str]:
    (dist_info,) = site.glob("ge_ops-*.dist-info")
    with open(dist_info / "RECORD", newline="") as handle:
        return [row[0] for row in csv.reader(handle)]


def _hashes(site: Path, paths: list[str]) -> dict[str, str]:
    out = {}
    for path in paths:
        file = site / path
        if file.is_file() and not path.endswith(".pyc"):
            digest = hashlib.sha256(file.read_bytes()).digest()
            out[path] = base64.urlsafe_b64encode(digest).decode()
    return out


def test_the_es_flags_of_the_installed_wheel_build_a_cpp_program(
    shipped: Shipped, tmp_path: Path
) -> None:
    """``python -m ge.es --includes/--libs`` from the installed wheel (not the
    checkout) give flags that build and run a C++ program of the ES API."""
    if shutil.which("g++") is None:
        pytest.skip("no g++ on PATH: the ES runtime library cannot be built")
    environ = shipped.env.environ(XDG_CACHE_HOME=str(tmp_path / "cache"))
    flags = {
        kind: run(
            [shipped.env.python, "-m", "ge.es", f"--{kind}"], env=environ, cwd=tmp_path
        ).stdout.split()
        for kind in ("includes", "libs")
    }
    site = str(shipped.env.site_packages())
    assert any(f.startswith("-I") and f[2:].startswith(site) for f in flags["includes"])
    source = tmp_path / "main.cpp"
    source.write_text(
        '#include "eager_style_graph_builder/cpp/es_graph_builder.h"\n'
        "int main() {\n"
        '  ge::es::EsGraphBuilder builder("g");\n'
        "  return 0;\n"
        "}\n",
        encoding="utf-8",
    )
    program = tmp_path / "main"
    built = run(
        ["g++", "-std=c++17", str(source), *flags["includes"], "-o", str(program)]
        + flags["libs"],
        env=environ,
        cwd=tmp_path,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    assert run([str(program)], env=environ, cwd=tmp_path).returncode == 0
