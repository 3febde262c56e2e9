"""Hatchling build hook: compile the native launcher into the wheel.

``runtime/ge/device/native.c`` becomes ``ge/device/_native.so``, built with
the flags the device's own loader accepts (``ge.device.toolchain``), and the
wheel is tagged for this platform (``py3-none-<platform>``: the launcher
links no libpython, so one wheel serves every Python 3 of the platform). In
an editable install the binary is written beside native.c instead, so the
checkout runs models without a compiler too. The binary records the
SHA-256 of the source it came from; the runtime uses it only while that
matches native.c (``ge.device.native``). See docs/packaging.md.
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


def _toolchain(root: Path) -> ModuleType:
    """ge.device.toolchain, loaded from its file (the package is not
    installed while it is being built; the module needs only the stdlib)."""
    path = root / DEVICE / "toolchain.py"
    spec = importlib.util.spec_from_file_location("_ge_ops_build_toolchain", path)
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


def platform_tag() -> str:
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


class NativeLauncherHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        data = build_native(root)
        if version == "editable":
            (root / DEVICE / BINARY).write_bytes(data)
            return
        self._tmp = tempfile.TemporaryDirectory(prefix="ge-ops-native-")
        built = Path(self._tmp.name) / BINARY
        built.write_bytes(data)
        build_data["force_include"][str(built)] = f"ge/device/{BINARY}"
        build_data["pure_python"] = False
        build_data["tag"] = f"py3-none-{platform_tag()}"

    def finalize(
        self, version: str, build_data: dict[str, Any], artifact_path: str
    ) -> None:
        tmp = getattr(self, "_tmp", None)
        if tmp is not None:
            tmp.cleanup()
