"""``gen-ops package`` ships the module's C and C++ ES API (Note [ES library
config] in emit/package_layout.py): its headers and sources, libes_<m>.so
built against the ES runtime library where a C++ compiler is, and
es_<m>Config.cmake with es_<m>ConfigVersion.cmake, which
find_package(es_<m> VERSION) finds in the installed wheel; a wheel rebuilt
from the sdist builds libes_<m>.so too."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from test_package_contents import package, project

from ge.graph import Graph

HAS_CXX = shutil.which(os.environ.get("CXX", "g++")) is not None
CMAKE = shutil.which("cmake")

PROGRAM = r"""
#include "es_pk_ops.h"
int main(int, char **argv) {
  ge::es::EsGraphBuilder builder("pk");
  auto x = builder.CreateInput(0, "x", ge::DT_FLOAT, ge::FORMAT_ND, {4});
  auto graph = builder.BuildAndReset({ge::es::ScaleCustom(x)});
  return graph != nullptr && graph->SaveToFile(argv[1]) == ge::GRAPH_SUCCESS ? 0 : 1;
}
"""

CMAKELISTS = """\
cmake_minimum_required(VERSION 3.16)
project(uses_pk CXX)
find_package(es_pk 1.0 REQUIRED)
add_executable(uses_pk main.cpp)
target_link_libraries(uses_pk PRIVATE es_pk::es_pk)
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The wheel and sdist of module pk, and the wheel installed in a
    directory of its own."""
    tmp_path = tmp_path_factory.mktemp("pk")
    project(tmp_path)
    result = package(tmp_path, "--version", "1.0.0")
    assert result.returncode == 0, result.stderr
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    site = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            "--target",
            str(site),
            str(wheel),
        ],
        check=True,
    )
    return wheel, site


def test_the_wheel_holds_the_es_api(built: tuple[Path, Path]) -> None:
    wheel, _ = built
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert {
        "es_pk/include/es_ScaleCustom.h",
        "es_pk/include/es_ScaleCustom_c.h",
        "es_pk/include/es_pk_ops.h",
        "es_pk/include/es_pk_ops_c.h",
        "es_pk/include/es_log.h",
        "es_pk/src/es_ScaleCustom.cpp",
        "es_pk/cmake/es_pkConfig.cmake",
        "es_pk/cmake/es_pkConfigVersion.cmake",
    } <= names
    assert not any("es_all_ops" in n for n in names)  # pk is not "all"
    if HAS_CXX:
        assert "es_pk/lib/libes_pk.so" in names
        # a native library: tagged for this interpreter and platform
        assert not wheel.name.endswith("-py3-none-any.whl")
    else:
        assert wheel.name.endswith("-py3-none-any.whl")
    (sdist,) = wheel.parent.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        sources = archive.getnames()
    assert not any(n.endswith(".so") for n in sources)  # sources only
    assert "es_pk-1.0.0/hatch_build.py" in sources


def test_the_config_names_paths_that_exist(built: tuple[Path, Path]) -> None:
    _, site = built
    config = site / "es_pk" / "cmake" / "es_pkConfig.cmake"
    text = config.read_text(encoding="utf-8")
    root = config.parent.parent
    paths = re.findall(r'"\$\{_es_pk_root\}/([^"]+)"', text)
    assert paths == ["include", "lib/libes_pk.so"]
    assert (root / "include" / "es_pk_ops.h").is_file()
    if HAS_CXX:
        assert (root / "lib" / "libes_pk.so").is_file()


@pytest.mark.skipif(CMAKE is None or not HAS_CXX, reason="needs cmake and g++")
def test_find_package_builds_a_program_against_it(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    _, site = built
    source = tmp_path / "src"
    source.mkdir()
    (source / "main.cpp").write_text(PROGRAM)
    (source / "CMakeLists.txt").write_text(CMAKELISTS)
    build = tmp_path / "build"
    env = {**os.environ, "CXX": os.environ.get("CXX", "g++")}
    for command in (
        [
            str(CMAKE),
            "-S",
            str(source),
            "-B",
            str(build),
            f"-DCMAKE_PREFIX_PATH={site}",
            f"-DES_PYTHON={sys.executable}",
        ],
        [str(CMAKE), "--build", str(build)],
    ):
        result = subprocess.run(
            command, capture_output=True, text=True, env=env, check=False
        )
        assert result.returncode == 0, result.stdout + result.stderr
    path = tmp_path / "pk.air"
    subprocess.run([str(build / "uses_pk"), str(path)], check=True)
    (node,) = [n for n in Graph.load_from_air(path).nodes if n.type == "ScaleCustom"]
    assert node.type == "ScaleCustom"


FIND_VERSION = """\
cmake_minimum_required(VERSION 3.16)
project(wants_pk NONE)
find_package(es_pk ${WANT} REQUIRED)
message(STATUS "es_pk ${es_pk_VERSION}")
"""


@pytest.mark.skipif(CMAKE is None or not HAS_CXX, reason="needs cmake and g++")
@pytest.mark.parametrize(
    ("wanted", "found"),
    [
        ("1.0.0 EXACT", True),
        ("1", True),
        ("0.9", False),  # another major version
        ("1.1", False),  # newer than the package
        ("2.0", False),
    ],
)
def test_find_package_checks_the_version(
    built: tuple[Path, Path], tmp_path: Path, wanted: str, found: bool
) -> None:
    _, site = built
    (tmp_path / "CMakeLists.txt").write_text(FIND_VERSION)
    result = subprocess.run(
        [str(CMAKE), "-S", str(tmp_path), "-B", str(tmp_path / "build")]
        + [f"-DCMAKE_PREFIX_PATH={site}", f"-DES_PYTHON={sys.executable}"]
        + [f"-DWANT={wanted.replace(' ', ';')}"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (result.returncode == 0) is found, result.stdout + result.stderr
    if found:
        assert "es_pk 1.0.0" in result.stdout
    else:
        assert "es_pkConfig.cmake, version: 1.0.0" in result.stderr


@pytest.mark.skipif(not HAS_CXX, reason="needs g++ to build libes_pk.so")
def test_a_wheel_rebuilt_from_the_sdist_holds_the_library(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    wheel, _ = built
    (sdist,) = wheel.parent.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path, filter="data")
    (source,) = tmp_path.glob("es_pk-*")
    result = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation"]
        + ["--outdir", str(tmp_path / "dist"), str(source)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "ES_PYTHON": sys.executable},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    (rebuilt,) = (tmp_path / "dist").glob("*.whl")
    assert not rebuilt.name.endswith("-py3-none-any.whl")
    with zipfile.ZipFile(rebuilt) as archive:
        names = archive.namelist()
        assert names.count("es_pk/lib/libes_pk.so") == 1
        with zipfile.ZipFile(wheel) as first:
            assert set(names) - {n for n in names if ".dist-info/" in n} == {
                n for n in first.namelist() if ".dist-info/" not in n
            }
