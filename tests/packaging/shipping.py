"""A fresh virtual environment holding the ge-ops wheel and nothing else of
the checkout, for the tests of shipping (tests/packaging).

No network: the ge-ops wheel is built here (pypa/build, no isolation), and
its dependencies come from the test's own environment through a directory
of links to its site-packages, minus ge-ops' editable install. The new
environment sees that directory through a ``.pth`` line (a plain path: the
``.pth`` files inside it, ge-ops' editable one among them, are not read),
so pip finds every dependency installed and ``--no-index`` installs only
the wheels built here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
# What the checkout's editable install put in site-packages: never linked.
_OURS = ("_ge_ops.pth", "ge", "ge_ir", "gen_ops", "ge_impl")
# Variables that would let the checkout (or a user's setup) leak in.
_CLEARED = (
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONSTARTUP",
    "PYTHONUSERBASE",
    "ASCEND_CUSTOM_OPP_PATH",
    "MYPYPATH",
    "VIRTUAL_ENV",
    "GE_CPU_CACHE_DIR",
    "XDG_CACHE_HOME",
    "CC",
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_FIND_LINKS",
    "PIP_REQUIRE_VIRTUALENV",
)


def _ours(name: str) -> bool:
    return (
        name in _OURS
        or name.startswith(("ge_ops-", "ge_ops.", "es_", "__editable__"))
        or name.endswith(".pth")
    )


def run(
    command: list[str], *, env: dict[str, str], cwd: Path, check: bool = True
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        command, env=env, cwd=cwd, capture_output=True, text=True, check=False
    )
    if check and result.returncode != 0:
        raise AssertionError(
            f"{' '.join(command)} exited {result.returncode}\n"
            f"--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"
        )
    return result


@dataclass
class Env:
    """A virtual environment with ge-ops installed from its wheel."""

    root: Path
    wheels: Path  # --find-links for pip
    home: Path  # a writable HOME for its processes

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    @property
    def python(self) -> str:
        return str(self.bin / "python")

    def environ(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _CLEARED}
        env["PATH"] = f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}"
        env["HOME"] = str(self.home)
        env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
        env["PIP_NO_INPUT"] = "1"
        env.update(extra)
        return env

    def pip(self, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        """pip of the test's environment, acting on this one (``--python``)."""
        command = [sys.executable, "-m", "pip", "--python", self.python, *args]
        return run(command, env=self.environ(), cwd=cwd)

    def install(self, wheel: Path, cwd: Path) -> None:
        self.pip(
            "install",
            "--no-index",
            "--find-links",
            str(self.wheels),
            str(wheel),
            cwd=cwd,
        )

    def site_packages(self) -> Path:
        out = run(
            [
                self.python,
                "-c",
                "import sysconfig; print(sysconfig.get_paths()['purelib'])",
            ],
            env=self.environ(),
            cwd=self.root,
        )
        return Path(out.stdout.strip())


def build_ge_ops_wheel(out: Path) -> Path:
    """The ge-ops wheel, built from the checkout by its own build backend."""
    run(
        [
            sys.executable,
            "-m",
            "build",
            "--no-isolation",
            "--wheel",
            "--outdir",
            str(out),
            str(ROOT),
        ],
        env={k: v for k, v in os.environ.items() if k not in _CLEARED},
        cwd=out,
    )
    (wheel,) = out.glob("ge_ops-*.whl")
    return wheel


def link_dependencies(target: Path) -> Path:
    """Links to every distribution of this environment but ge-ops."""
    target.mkdir()
    site = Path(sysconfig.get_paths()["purelib"])
    for entry in sorted(site.iterdir()):
        if not _ours(entry.name):
            (target / entry.name).symlink_to(entry)
    return target


def make_env(tmp: Path) -> tuple[Env, Path]:
    """(the environment, the ge-ops wheel installed in it)."""
    wheels = tmp / "wheels"
    wheels.mkdir()
    wheel = build_ge_ops_wheel(wheels)
    root = tmp / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(root)
    home = tmp / "home"
    home.mkdir()
    env = Env(root, wheels, home)
    deps = link_dependencies(tmp / "deps")
    (env.site_packages() / "_test_dependencies.pth").write_text(f"{deps}\n")
    env.install(wheel, cwd=tmp)
    return env, wheel
