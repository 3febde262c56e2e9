"""One generated module as an installable op library: what ``gen-ops
package`` builds (Note [Op library wheels] in ``package_layout``;
docs/packaging.md; the command line is ``gen_ops.commands.package``).

The module's specs are checked and rendered in memory (builders and
prototypes), staged with the author modules as a hatchling project, and
built by pypa/build into a wheel and an sdist. Nothing is written outside
``--out``.

Note [Package writes]: the wheel and the sdist of one build land in
``--out`` together or not at all. Both are built in a temporary directory,
copied into ``--out`` under gen-ops' temporary names, and renamed into place
through a journal (``transaction.Journal``, Note [One transaction]) with
SIGINT, SIGTERM and SIGHUP held. A failure or signal before the journal
removes the temporary files, leaving the previous build's pair as it was; a
SIGKILL after it is finished by the next run of ``gen-ops package`` (or of
anything that recovers ``--out``). ``GEN_OPS_FAULT=package:N:ACTION`` (tests
only) acts once the N-th file (1 the sdist, 2 the wheel) is staged.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gen_ops import __version__
from gen_ops.emit.outputs import Target
from gen_ops.emit.package_layout import (
    Library,
    LinkInOps,
    distribution,
    es_library,
    stage,
)
from gen_ops.spec import discovery

if TYPE_CHECKING:
    from gen_ops.spec.discovery import SpecFile
    from gen_ops.spec.model import OpSpec


class PackageError(Exception):
    """A problem the user fixes; the message says what and how."""


def compatible_requirement(version: str) -> str:
    """ge-ops versions whose generated-code API matches this one: the same
    minor release while the major is 0, else the same major."""
    from packaging.version import Version

    current = Version(version)
    major, minor = current.major, current.minor
    upper = f"{major}.{minor + 1}" if major == 0 else f"{major + 1}"
    return f"ge-ops>={current.base_version},<{upper}"


def checked_version(text: str) -> str:
    """``--version``: a PEP 440 version, normalised."""
    from packaging.version import InvalidVersion, Version

    try:
        return str(Version(text))
    except InvalidVersion:
        raise PackageError(
            f"--version {text!r} is not a version (PEP 440); write e.g. 1.0.0"
        ) from None


def checked_module(text: str) -> str:
    """``--module``: a module an op library may have."""
    from ge_ir.names import is_identifier, library_module_refusal

    refusal = library_module_refusal(text) if is_identifier(text) else None
    if not is_identifier(text) or refusal is not None:
        raise PackageError(
            f"--module {text!r} cannot be a ge.es module name: "
            + (refusal or "a letter, then letters, digits and _")
            + "; choose another module name"
        )
    return text


def _authors(
    ops: list[OpSpec], scaffold_dir: str
) -> tuple[tuple[Path, tuple[Path, ...]], ...]:
    """(directory, author modules) pairs, in directory order."""
    from gen_ops.scaffold import author_paths

    paths = author_paths(ops, scaffold_dir)
    missing = [p for p in paths if not p.is_file()]
    if missing:
        raise PackageError(
            f"the author module {discovery.display(missing[0])} is missing "
            f"({len(missing)} in all); run gen-ops (it scaffolds them) and "
            "implement them first"
        )
    links = [p for p in paths if p.is_symlink()]
    if links:
        raise PackageError(
            f"the author module {discovery.display(links[0])} is a symbolic link, "
            "which gen-ops package never follows; put the module itself there"
        )
    by_dir: dict[Path, set[Path]] = {}
    for path in paths:
        resolved = path.parent.resolve() / path.name
        by_dir.setdefault(resolved.parent, set()).add(resolved)
    return tuple((d, tuple(sorted(m))) for d, m in sorted(by_dir.items()))


def _excluded(
    out: Path, specs: Sequence[Path], files: Sequence[SpecFile]
) -> frozenset[Path]:
    """What never ships from an author directory besides what the layout
    leaves out (Note [What an ops directory ships]): the --out directory,
    the --specs paths, every spec file and its directory."""
    paths: list[Path] = [out, *specs]
    for file in files:
        paths += [file.path, file.path.parent]
    return frozenset(_resolved(p) for p in paths)


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a loop of links: matches nothing
        return Path(os.path.abspath(path))


def install(built: list[Path], out: Path, lock_timeout: float) -> list[Path]:
    """Move the wheel and sdist built in a staging directory into ``out`` as
    one transaction (Note [Package writes]), holding ``out``'s lock (Note
    [Tree lock]); their paths in ``out``."""
    from gen_ops.emit import locking

    out.mkdir(parents=True, exist_ok=True)
    with locking.hold(out, "gen-ops package", lock_timeout):
        _install(built, out)
    return [out / path.name for path in built]


def _install(built: list[Path], out: Path) -> None:
    from gen_ops.base import interrupts
    from gen_ops.emit import transaction
    from gen_ops.emit.journal import Journal
    from gen_ops.emit.staging import TEMP_PREFIX, act, fault

    transaction.recover(out)  # an earlier interrupted package run
    fault_at, fault_action = fault("package")
    staged: list[tuple[str, str, str]] = []
    try:
        for number, path in enumerate(built, start=1):
            temp = f"{TEMP_PREFIX}{path.name}.{os.getpid()}-{number}"
            data = path.read_bytes()
            staged.append((temp, path.name, hashlib.sha256(data).hexdigest()))
            with open(out / temp, "xb") as handle:
                handle.write(data)
            if number == fault_at:
                act(fault_action)
        journal = Journal.new(out, tuple(staged), ())
        with interrupts.held():
            transaction.write_atomic(out / transaction.JOURNAL, journal.text())
            staged = []  # from here on the journal says what to finish
            transaction.recover(out)
    finally:
        for temp, _, _ in staged:
            with contextlib.suppress(OSError):
                (out / temp).unlink()


# What gen-ops package builds with: the ``package`` extra of ge-ops, which a
# runtime-only install (pip install ge-ops) does not pull.
TOOLS = (("build", "pypa/build"), ("hatchling", "hatchling"))
EXTRA_HINT = "pip install 'ge-ops[package]'"


def require_tools() -> None:
    """PackageError naming the first build tool this Python cannot import,
    and how to get them all."""
    import importlib.util

    for module, what in TOOLS:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise PackageError(
                f"gen-ops package needs {module} ({what}), which is not installed "
                f"for {sys.executable}; the build tools are an optional extra of "
                f"ge-ops: {EXTRA_HINT}"
            )


def native_library(package: Path, module: str) -> Path | None:
    """Build ``lib/libes_<m>.so`` in the staged ``package`` from its ES
    sources (``src/*.cpp``) against the ES runtime library, when the module
    has sources, a C++ compiler (``$CXX``, default ``g++``) is on PATH and
    ``python -m ge.es`` gives the ES runtime library; its path, or None.
    PackageError when the compiler fails (Note [ES library config])."""
    import shutil
    import subprocess

    sources = sorted((package / "src").glob("*.cpp"))
    compiler = shutil.which(os.environ.get("CXX", "g++"))
    if not sources or compiler is None:
        return None
    flags = subprocess.run(
        [sys.executable, "-m", "ge.es", "--includes", "--library-dir"],
        capture_output=True,
        text=True,
        check=False,
    )
    import shlex

    words = shlex.split(flags.stdout) if flags.returncode == 0 else []
    if not words or not words[-1].startswith("/"):
        # No ge runtime here (gen-ops runs without one), or it could not
        # build libge_es.so: the wheel ships the headers and sources only.
        return None
    library = package / "lib" / es_library(module)
    library.parent.mkdir()
    command = [
        compiler,
        *words[:-1],
        "-O2",
        "-fPIC",
        "-shared",
        f"-Wl,-soname,{library.name}",
        f"-I{package / 'include'}",
        *map(str, sources),
        f"-L{words[-1]}",
        "-lge_es",
        "-o",
        str(library),
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise PackageError(
            f"building {library.name} from the module's ES sources failed:\n"
            f"{shlex.join(command)}\n{result.stderr}"
        )
    return library


def _built(root: Path, out: Path) -> list[Path]:
    try:
        from build import BuildBackendException, ProjectBuilder
        from pyproject_hooks import quiet_subprocess_runner
    except ImportError as exc:
        raise PackageError(
            f"gen-ops package needs build ({exc}); the build tools are an optional "
            f"extra of ge-ops: {EXTRA_HINT}"
        ) from None
    builder = ProjectBuilder(
        root, python_executable=sys.executable, runner=quiet_subprocess_runner
    )
    out.mkdir(parents=True, exist_ok=True)
    built = []
    try:
        for kind in ("sdist", "wheel"):
            built.append(Path(builder.build(kind, out)))
    except BuildBackendException as exc:
        raise PackageError(
            f"the build backend (hatchling) failed: {exc.exception}; is hatchling "
            f"installed next to ge-ops ({EXTRA_HINT})?"
        ) from None
    return built


def build(
    module: str,
    version: str,
    summary: str | None,
    ops: list[OpSpec],
    scaffold_dir: str,
    excluded: tuple[Path, Sequence[Path], Sequence[SpecFile]],
    lock_timeout: float,
) -> list[Path]:
    """Build the library of ``module`` (``ops``, checked and valid) into
    ``out`` (the first of ``excluded``: ``--out``, the ``--specs`` roots
    and the spec files, none of which ships); the wheel's and sdist's
    paths. PackageError, WriteError, LockTimeout or OSError when it
    cannot."""
    from gen_ops import pipeline

    out = excluded[0]
    rendered = pipeline.render(ops, frozenset({Target.PYTHON, Target.IMPL, Target.ES}))
    library = Library(
        module=module,
        version=version,
        requires=compatible_requirement(__version__),
        summary=summary
        or f"GE op library {module}: {len(ops)} op(s) for ge.es.{module}",
        authors=_authors(ops, scaffold_dir),
        excluded=_excluded(*excluded),
    )
    with tempfile.TemporaryDirectory(prefix="gen-ops-package-") as tmp:
        root = Path(tmp) / distribution(module)
        root.mkdir()
        try:
            stage(library, rendered, root)
        except LinkInOps as exc:
            raise PackageError(
                f"{discovery.display(exc.path)} is {exc.what}; nothing was "
                "built. Put the file itself there, or move it out of the "
                "directory of the author modules"
            ) from None
        native_library(root / distribution(module), module)
        return install(_built(root, Path(tmp) / "dist"), out, lock_timeout)
