"""What an op library wheel holds, and where (``gen-ops package``).

Note [Op library wheels]: GE's ``add_es_library_and_whl`` names the wheel of
module ``m`` ``es_m`` and registers it under ``ge.es.plugins`` as
``m = es_m...``; ``ge.es`` then serves it as ``ge.es.m``. A wheel made here
follows that and adds the implementations:

- ``es_<m>/``: the module's builders (gen-ops' ``python/ge/es/<m>/``; its
  imports are relative, so it works under either name) and ``py.typed``;
- ``es_<m>/ops/``: the author modules with what they use beside them: helper
  modules whose names start with ``_``, and every file and directory that
  is not Python (kernels, data). Other ``.py`` files are left out (the
  runtime would import them as op modules: a ``run.py`` beside the op would
  run). Registered under ``ge.custom_op.plugins`` as ``m = es_<m>.ops``,
  which the runtime loads as it loads an ASCEND_CUSTOM_OPP_PATH directory.
  Author modules in several directories make ``ops``, ``ops_2``, ... and
  entry points ``m``, ``m.2``, ...;
- ``ge_impl/<m>/``: the generated prototypes and bases, which the author
  modules import as ``ge_impl.<m>.<stem>``. ``ge_impl`` itself gets no
  ``__init__.py`` (a namespace package), so several op library wheels
  share it and none owns a file another needs;
- ``ge-stubs/es/<m>/__init__.pyi``: types ``ge.es.<m>`` for type checkers,
  which never run entry points (Note [Typing ge.es plugins]).
- ``es_<m>/include/``, ``es_<m>/src/``: the module's C and C++ ES API
  (gen-ops' ``es/``, without the ``es_all_ops`` aggregates of a module
  not named ``all``), ``es_<m>/lib/libes_<m>.so`` built from those
  sources against the ES runtime library when a C++ compiler is there
  (``package_build``), and ``es_<m>/cmake/es_<m>Config.cmake``, so that
  CMake's ``find_package(es_<m>)`` finds them (Note [ES library config]).

Note [Typing ge.es plugins]: ``from ge.es.<m> import Op`` is served at run
time by the entry point, which mypy and pyright cannot see. PEP 561 lets a
stub package ``ge-stubs`` add modules to ``ge`` when its ``py.typed`` says
``partial``: the checker takes ``ge.es.<m>`` from the stub and everything
else from ``ge`` itself. Each op library ships only its own
``ge-stubs/es/<m>/__init__.pyi`` (re-exporting ``es_<m>``'s names), and the
ge-ops wheel owns ``ge-stubs/py.typed``, so no two wheels hold the same
file and removing one library removes only its stub. (Without ``partial``
the stub package would hide the rest of ``ge`` from pyright.)

Nothing lands in ``ge/``: installing or removing an op library never
touches a file of ge-ops.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from gen_ops.emit.outputs import OutputFile
from gen_ops.emit.writer import MANIFEST

BUILDERS = "python/ge/es/{module}/"
ES_INCLUDE = "es/include/"
ES_SOURCES = "es/src/"
STUBS = "ge-stubs"
PROTOTYPES = "python/ge_impl/{module}/"
ES_GROUP = "ge.es.plugins"
OPS_GROUP = "ge.custom_op.plugins"
_SKIPPED = ("__pycache__", ".pytest_cache", ".mypy_cache")


def distribution(module: str) -> str:
    return f"es_{module}"


@dataclass(frozen=True)
class Library:
    """One op library to package."""

    module: str
    version: str  # normalised
    requires: str  # the ge-ops requirement, e.g. "ge-ops>=0.1.0,<0.2"
    summary: str
    authors: tuple[tuple[Path, tuple[Path, ...]], ...]  # (directory, modules)
    # paths never shipped from an author directory (Note [What an ops
    # directory ships]), resolved
    excluded: frozenset[Path] = frozenset()

    def ops_packages(self) -> list[tuple[str, str, Path, tuple[Path, ...]]]:
        """(entry point name, package, directory, author modules) per
        author directory."""
        name = distribution(self.module)
        return [
            (
                self.module if i == 1 else f"{self.module}.{i}",
                f"{name}.ops" if i == 1 else f"{name}.ops_{i}",
                directory,
                modules,
            )
            for i, (directory, modules) in enumerate(self.authors, start=1)
        ]


def _copy_rendered(files: Iterable[OutputFile], prefix: str, target: Path) -> int:
    count = 0
    for file in files:
        if file.path.startswith(prefix):
            destination = target / file.path[len(prefix) :]
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_text(file.content, encoding="utf-8")
            count += 1
    return count


def es_library(module: str) -> str:
    """The file name of a module's C/C++ ES library."""
    return f"lib{distribution(module)}.so"


def _copy_es(files: Iterable[OutputFile], module: str, package: Path) -> int:
    """The module's C and C++ ES API into ``package``'s include/ and src/;
    how many sources."""
    aggregate = f"{ES_INCLUDE}es_all_ops"
    chosen = [f for f in files if module == "all" or not f.path.startswith(aggregate)]
    _copy_rendered(chosen, ES_INCLUDE, package / "include")
    return _copy_rendered(chosen, ES_SOURCES, package / "src")


# Note [ES library config]: es_<m>Config.cmake sits in es_<m>/cmake/ of the
# installed wheel, which find_package(es_<m>) searches under any prefix in
# CMAKE_PREFIX_PATH as <prefix>/<name>*/cmake/: the site-packages directory
# (or es_<m> itself) is enough. It names paths relative to itself only, so
# the wheel installs anywhere. The ES runtime library (libge_es.so, which
# libes_<m>.so needs) is not in the wheel: ge-ops builds it per compiler, so
# the config asks ``python -m ge.es --includes --library-dir`` of the Python
# in ES_PYTHON (a cache variable; python3 on PATH by default) where it is.
# Without libes_<m>.so (no compiler when the wheel was built) the package is
# not found, saying why. Targets: es_<m>::es_<m> (its include directory,
# the library, and es_<m>::ge_es, the runtime with its headers).
def cmake_config(module: str) -> str:
    """es_<m>Config.cmake (Note [ES library config])."""
    name = distribution(module)
    return (
        _CMAKE_CONFIG.replace("@NAME@", name)
        .replace("@LIB@", es_library(module))
        .replace("@MODULE@", module)
    )


_CMAKE_CONFIG = """\
# Written by gen-ops package: find_package(@NAME@) for the C and C++ ES API
# of ge.es.@MODULE@. Target @NAME@::@NAME@; ES_PYTHON is the Python whose ge
# runtime provides libge_es.so (python -m ge.es).
get_filename_component(_@NAME@_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(@NAME@_INCLUDE_DIRS "${_@NAME@_root}/include")
set(@NAME@_LIBRARY "${_@NAME@_root}/lib/@LIB@")
if(NOT EXISTS "${@NAME@_LIBRARY}")
  set(@NAME@_FOUND FALSE)
  set(@NAME@_NOT_FOUND_MESSAGE
      "${@NAME@_LIBRARY} is missing: the wheel was built without a C++ compiler")
  return()
endif()
if(NOT ES_PYTHON)
  find_program(ES_PYTHON NAMES python3 python)
endif()
set(ES_PYTHON "${ES_PYTHON}" CACHE FILEPATH "The Python of the ge runtime")
execute_process(
  COMMAND "${ES_PYTHON}" -m ge.es --includes --library-dir
  OUTPUT_VARIABLE _@NAME@_flags
  ERROR_VARIABLE _@NAME@_error
  RESULT_VARIABLE _@NAME@_status
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _@NAME@_status EQUAL 0)
  set(@NAME@_FOUND FALSE)
  set(@NAME@_NOT_FOUND_MESSAGE
      "${ES_PYTHON} -m ge.es failed (set ES_PYTHON): ${_@NAME@_error}")
  return()
endif()
separate_arguments(_@NAME@_words UNIX_COMMAND "${_@NAME@_flags}")
set(_@NAME@_runtime_includes "")
set(_@NAME@_runtime_dir "")
foreach(_@NAME@_word IN LISTS _@NAME@_words)
  if(_@NAME@_word MATCHES "^-I(.+)$")
    list(APPEND _@NAME@_runtime_includes "${CMAKE_MATCH_1}")
  elseif(NOT _@NAME@_word MATCHES "^-")
    set(_@NAME@_runtime_dir "${_@NAME@_word}")
  endif()
endforeach()
if(NOT TARGET @NAME@::@NAME@)
  add_library(@NAME@::ge_es SHARED IMPORTED)
  set_target_properties(@NAME@::ge_es PROPERTIES
    IMPORTED_LOCATION "${_@NAME@_runtime_dir}/libge_es.so"
    IMPORTED_NO_SONAME TRUE
    INTERFACE_INCLUDE_DIRECTORIES "${_@NAME@_runtime_includes}"
    INTERFACE_COMPILE_FEATURES cxx_std_17)
  add_library(@NAME@::@NAME@ SHARED IMPORTED)
  set_target_properties(@NAME@::@NAME@ PROPERTIES
    IMPORTED_LOCATION "${@NAME@_LIBRARY}"
    IMPORTED_SONAME "@LIB@"
    INTERFACE_INCLUDE_DIRECTORIES "${@NAME@_INCLUDE_DIRS}"
    INTERFACE_LINK_LIBRARIES @NAME@::ge_es)
endif()
set(@NAME@_LIBRARIES @NAME@::@NAME@)
set(@NAME@_FOUND TRUE)
"""


# es_<m>ConfigVersion.cmake: find_package(es_<m> 1.2) takes the package when
# its version is at least the one asked for and has the same major number
# (CMake's SameMajorVersion rule), and EXACT asks for the same release. CMake
# compares dotted integers, so the PEP 440 version's release segment stands
# for it (1.2.0rc1 is 1.2.0 here). A version range, CMake 3.19's
# `1.2...<2`, is checked against its bounds.
def cmake_config_version(version: str) -> str:
    """es_<m>ConfigVersion.cmake for a library of ``version`` (PEP 440)."""
    match = re.match(r"\d+(?:\.\d+)*", version)
    release = match.group() if match else "0"
    return _CMAKE_CONFIG_VERSION.replace("@VERSION@", release).replace(
        "@MAJOR@", release.split(".")[0]
    )


_CMAKE_CONFIG_VERSION = """\
# Written by gen-ops package: the version find_package checks (same major
# number, at least the version asked for).
set(PACKAGE_VERSION "@VERSION@")
set(PACKAGE_VERSION_COMPATIBLE FALSE)
set(PACKAGE_VERSION_EXACT FALSE)
if(PACKAGE_FIND_VERSION_RANGE)
  if(PACKAGE_VERSION VERSION_GREATER_EQUAL PACKAGE_FIND_VERSION_MIN
     AND ((PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "INCLUDE"
           AND PACKAGE_VERSION VERSION_LESS_EQUAL PACKAGE_FIND_VERSION_MAX)
          OR (PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "EXCLUDE"
              AND PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION_MAX)))
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
  endif()
elseif(NOT PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION
       AND PACKAGE_FIND_VERSION_MAJOR STREQUAL "@MAJOR@")
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
"""


def _skipped(path: Path) -> bool:
    return (
        path.name in _SKIPPED
        or path.name.startswith(".")
        or path.suffix
        in (
            ".pyc",
            ".pyo",
        )
    )


# Note [What an ops directory ships]: an author directory can be anything up
# to the project root itself (``impl.author: op.py``), and gen-ops ships no
# file its docs do not list (docs/packaging.md, "What an op library wheel
# holds"). Walking it (iteratively: no depth limit but the filesystem's):
#
# - a symbolic link anywhere in it is refused (LinkInOps, exit status 2,
#   nothing built), never followed: ``kernel.bin -> ~/.ssh/id_rsa`` would
#   put that file in the wheel, and a link to a directory could reach
#   anything; so is anything but a regular file or a directory (a FIFO
#   would hang the copy). Refused rather than skipped: a wheel silently
#   without a kernel its author put there fails far from here;
# - left out: names starting with "." (``.git``, ``.venv``), ``__pycache__``
#   and compiled Python; at the top, ``dist``, ``build``, ``*.egg-info`` and
#   ``*.whl``, and in a project root (holding ``pyproject.toml``) every file
#   but the author and ``_`` helper modules; anywhere, ``excluded`` paths (the --out directory, the
#   --specs paths and the directories of the spec files) and directories
#   gen-ops rendered into (holding its manifest), so neither specs nor
#   generated trees nor earlier builds ship.
_TOP_LEFT_OUT = ("dist", "build")


class LinkInOps(Exception):
    """A symbolic link, or a file that is not regular, in an author
    directory (Note [What an ops directory ships])."""

    def __init__(self, path: Path, what: str) -> None:
        super().__init__(f"{path}: {what}")
        self.path = path
        self.what = what


def _left_out(child: Path, real: Path, top: bool, excluded: frozenset[Path]) -> bool:
    if _skipped(child) or real in excluded:
        return True
    if top and (
        child.name in _TOP_LEFT_OUT
        or child.name.endswith(".egg-info")
        or child.suffix == ".whl"
    ):
        return True
    return child.is_dir() and (child / MANIFEST).exists()


def ops_files(
    directory: Path, modules: tuple[Path, ...], excluded: frozenset[Path]
) -> list[Path]:
    """The files of ``directory`` that ship beside its author ``modules``,
    relative to it (Note [What an ops directory ships]); LinkInOps for a
    symbolic link or a file that is not regular."""
    chosen = {m.name for m in modules}
    # A project root's own files (pyproject.toml, README, LICENSE) are not
    # the ops': from there only modules and directories ship.
    project_root = (directory / "pyproject.toml").is_file()
    found: list[Path] = []
    pending = [(Path(), directory.resolve())]
    while pending:
        relative, real = pending.pop()
        top = relative == Path()
        for child in sorted((directory / relative).iterdir()):
            if child.is_symlink():
                raise LinkInOps(child, "a symbolic link, which gen-ops never follows")
            if _left_out(child, real / child.name, top, excluded):
                continue
            if child.is_dir():
                package = (child / "__init__.py").exists()
                if not top or child.name.startswith("_") or not package:
                    pending.append((relative / child.name, real / child.name))
            elif not child.is_file():
                raise LinkInOps(child, "not a regular file or a directory")
            elif top and project_root and child.suffix != ".py":
                continue
            elif not top or child.suffix != ".py" or child.name[0] == "_":
                found.append(relative / child.name)
            elif child.name in chosen:
                found.append(relative / child.name)
    return sorted(found)


def _copy_ops(
    directory: Path,
    modules: tuple[Path, ...],
    target: Path,
    excluded: frozenset[Path] = frozenset(),
) -> None:
    """The author modules and what they use (see the module's note)."""
    target.mkdir(parents=True)
    for relative in ops_files(directory, modules, excluded):
        destination = target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(directory / relative, destination, follow_symlinks=False)


def _toml(value: str) -> str:
    return json.dumps(value)  # a JSON string is a TOML basic string


def pyproject(library: Library, roots: list[str]) -> str:
    """The op library's pyproject.toml (hatchling builds it, so the sdist
    rebuilds with any PEP 517 frontend)."""
    name = distribution(library.module)
    lines = [
        "# Written by gen-ops package. Rebuild with: python -m build",
        "[build-system]",
        'requires = ["hatchling>=1.27"]',
        'build-backend = "hatchling.build"',
        "",
        "[project]",
        f"name = {_toml(name)}",
        f"version = {_toml(library.version)}",
        f"description = {_toml(library.summary)}",
        'readme = "README.md"',
        'requires-python = ">=3.11"',
        f"dependencies = [{_toml(library.requires)}]",
        'classifiers = ["Programming Language :: Python :: 3", "Typing :: Typed"]',
        "",
        f'[project.entry-points."{ES_GROUP}"]',
        f"{library.module} = {_toml(name)}",
    ]
    if library.authors:
        lines += ["", f'[project.entry-points."{OPS_GROUP}"]']
        lines += [
            f"{_toml(entry)} = {_toml(package)}"
            for entry, package, _, _ in library.ops_packages()
        ]
    sdist = [*roots, "README.md", HATCH_HOOK]
    lines += [
        "",
        "[tool.hatch.build.targets.wheel]",
        f"only-include = [{', '.join(_toml(r) for r in roots)}]",
        "",
        "[tool.hatch.build.targets.wheel.hooks.custom]",
        "",
        "[tool.hatch.build.targets.sdist]",
        f"only-include = [{', '.join(_toml(r) for r in sdist)}]",
        f"exclude = [{_toml(name + '/lib')}]",
        "",
    ]
    return "\n".join(lines)


# The op library's hatchling build hook: a wheel holding libes_<m>.so is
# tagged for this interpreter and platform, not py3-none-any; a wheel built
# from the sdist builds libes_<m>.so first where it can (the hook's comment).
HATCH_HOOK = "hatch_build.py"
_HATCH_HOOK_TEXT = """\
# Written by gen-ops package. The wheel holds the native ES library
# (@NAME@/lib/@LIB@) and is then tagged for this Python and platform. The
# sdist has no library: a wheel built from it builds one here, as gen-ops
# package does, when a C++ compiler ($CXX, default g++) and a Python whose
# ge runtime gives the ES runtime library ($ES_PYTHON, this Python, or
# python3 on PATH: python -m ge.es) are found; without them the wheel holds
# the headers and sources only.
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

LIBRARY = "@NAME@/lib/@LIB@"


def es_runtime_flags():
    for python in (os.environ.get("ES_PYTHON"), sys.executable, shutil.which("python3")):
        if not python:
            continue
        try:
            done = subprocess.run(
                [python, "-m", "ge.es", "--includes", "--library-dir"],
                capture_output=True, text=True, check=False,
            )
        except OSError:
            continue
        words = shlex.split(done.stdout) if done.returncode == 0 else []
        if words and words[-1].startswith("/"):
            return words
    return None


def build_library(root):
    package = root / "@NAME@"
    sources = sorted((package / "src").glob("*.cpp"))
    compiler = shutil.which(os.environ.get("CXX", "g++"))
    words = es_runtime_flags() if sources and compiler else None
    if words is None:
        return False
    library = root / LIBRARY
    library.parent.mkdir(exist_ok=True)
    subprocess.run(
        [compiler, *words[:-1], "-O2", "-fPIC", "-shared",
         "-Wl,-soname," + library.name, "-I" + str(package / "include"),
         *map(str, sources), "-L" + words[-1], "-lge_es", "-o", str(library)],
        check=True,
    )
    return True


class NativeLibraryTag(BuildHookInterface):
    def initialize(self, version, build_data):
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        if not (root / LIBRARY).is_file() and build_library(root):
            build_data["force_include"][str(root / LIBRARY)] = LIBRARY
        if (root / LIBRARY).is_file():
            build_data["pure_python"] = False
            build_data["infer_tag"] = True
"""


def hatch_hook(module: str) -> str:
    return _HATCH_HOOK_TEXT.replace("@NAME@", distribution(module)).replace(
        "@LIB@", es_library(module)
    )


def readme(library: Library) -> str:
    name = distribution(library.module)
    return (
        f"# {name}\n\n{library.summary}\n\n"
        f"Made by `gen-ops package` from op specs. After `pip install`, "
        f"`from ge.es.{library.module} import ...` builds graphs of its ops "
        f"(`from {name} import ...` is the same module, and what type checkers "
        "see), and compiling a graph loads their implementations; no "
        "environment variable is needed.\n"
    )


def stub_text(module: str) -> str:
    """``ge.es.<module>``'s stub (Note [Typing ge.es plugins])."""
    name = distribution(module)
    return (
        f'"""ge.es.{module} for type checkers: the same module as {name}, which '
        "the ge.es.plugins entry point serves under that name at run time "
        '(written by gen-ops package)."""\n\n'
        f"from {name} import *\n"
    )


def stage(library: Library, rendered: list[OutputFile], root: Path) -> None:
    """Write the op library's project into the empty directory ``root``."""
    name = distribution(library.module)
    package = root / name
    _copy_rendered(rendered, BUILDERS.format(module=library.module), package)
    (package / "py.typed").write_text("", encoding="utf-8")
    roots = [name, STUBS]
    stub = root / STUBS / "es" / library.module / "__init__.pyi"
    stub.parent.mkdir(parents=True)
    stub.write_text(stub_text(library.module), encoding="utf-8")
    if _copy_es(rendered, library.module, package):
        config = package / "cmake" / f"{name}Config.cmake"
        config.parent.mkdir()
        config.write_text(cmake_config(library.module), encoding="utf-8")
        version = package / "cmake" / f"{name}ConfigVersion.cmake"
        version.write_text(cmake_config_version(library.version), encoding="utf-8")
    prototypes = root / "ge_impl" / library.module
    if _copy_rendered(rendered, PROTOTYPES.format(module=library.module), prototypes):
        (prototypes / "py.typed").write_text("", encoding="utf-8")
        roots.append("ge_impl")
    for _, dotted, directory, modules in library.ops_packages():
        ops = root.joinpath(*dotted.split("."))
        _copy_ops(directory, modules, ops, library.excluded)
        (ops / "__init__.py").write_text(
            f'"""The implementations of module {library.module}: op modules the ge '
            f'runtime loads (entry point group {OPS_GROUP})."""\n',
            encoding="utf-8",
        )
    (root / "pyproject.toml").write_text(pyproject(library, roots), encoding="utf-8")
    (root / HATCH_HOOK).write_text(hatch_hook(library.module), encoding="utf-8")
    (root / "README.md").write_text(readme(library), encoding="utf-8")
