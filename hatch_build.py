"""Hatchling build hook: compile the native launcher into the wheel.

``runtime/ge/device/native.c`` becomes ``ge/device/_native.so``, built with
the flags the device's own loader accepts (``ge.device.toolchain``), and the
wheel is tagged for this platform (``py3-none-<platform>``: the launcher
links no libpython, so one wheel serves every Python 3 of the platform). In
an editable install the binary is written beside native.c instead, so the
checkout runs models without a compiler too. The binary records the
SHA-256 of the source it came from; the runtime uses it only while that
matches native.c (``ge.device.native``). The fast run path's CPython
extension, ``runtime/ge/engine/hotpath.c``, becomes
``ge/engine/_hotpath.abi3.so`` the same way when this Python's headers are
there (the wheel is then tagged ``cp311-abi3-<platform>``; Note [Fast run
path] in ``ge.engine.hotpath``). The built-in math ops' prototypes ship as
``ge_impl/math`` (pyproject.toml maps them); the hook adds their
``py.typed``, which the generated tree does not hold. See docs/packaging.md.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import sysconfig
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

DEVICE = Path("runtime") / "ge" / "device"
BINARY = "_native.so"
ENGINE = Path("runtime") / "ge" / "engine"
HOTPATH = "_hotpath.abi3.so"


def _toolchain(root: Path) -> ModuleType:
    """ge.device.toolchain, loaded from its file (the package is not
    installed while it is being built; the module needs only the stdlib)."""
    return _load(root / DEVICE / "toolchain.py", "_ge_ops_build_toolchain")


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def build_native(root: Path) -> bytes:
    """The launcher's bytes, compiled from the checkout's native.c."""
    source = (root / DEVICE / "native.c").read_bytes()
    digest = hashlib.sha256(source).hexdigest()
    toolchain = _toolchain(root)
    return toolchain.compile_uncached(
        source.decode("utf-8"),
        defines={"GE_NATIVE_SOURCE": f'"{digest}"'},
        name="ge_native",
    )


def build_hotpath(root: Path) -> bytes | None:
    """The fast run path's extension (ge/engine/hotpath.c, limited API),
    or None when it cannot be built here (no Python headers): runs then take
    the Python path (Note [Fast run path] in ge/engine/hotpath.py)."""
    hotpath = _load(root / ENGINE / "hotpath.py", "_ge_ops_build_hotpath")
    source = (root / ENGINE / "hotpath.c").read_bytes()
    digest = hashlib.sha256(source).hexdigest()
    toolchain = _toolchain(root)
    try:
        data: bytes = toolchain.compile_uncached(
            source.decode("utf-8"), flags=hotpath.build_flags(digest), name="hotpath"
        )
    except (toolchain.BuildError, OSError):  # no compiler or headers: without it
        return None
    return data


def platform_tag() -> str:
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


class NativeLauncherHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        data = build_native(root)
        extension = build_hotpath(root)
        if version == "editable":
            (root / DEVICE / BINARY).write_bytes(data)
            if extension is not None:
                (root / ENGINE / HOTPATH).write_bytes(extension)
            return
        self._tmp = tempfile.TemporaryDirectory(prefix="ge-ops-native-")
        typed = Path(self._tmp.name) / "py.typed"
        typed.write_bytes(b"")
        build_data["force_include"][str(typed)] = "ge_impl/math/py.typed"
        built = Path(self._tmp.name) / BINARY
        built.write_bytes(data)
        build_data["force_include"][str(built)] = f"ge/device/{BINARY}"
        build_data["pure_python"] = False
        build_data["tag"] = f"py3-none-{platform_tag()}"
        if extension is not None:  # the stable ABI of CPython 3.11 and later
            fast = Path(self._tmp.name) / HOTPATH
            fast.write_bytes(extension)
            build_data["force_include"][str(fast)] = f"ge/engine/{HOTPATH}"
            build_data["tag"] = f"cp311-abi3-{platform_tag()}"

    def finalize(
        self, version: str, build_data: dict[str, Any], artifact_path: str
    ) -> None:
        tmp = getattr(self, "_tmp", None)
        if tmp is not None:
            tmp.cleanup()
