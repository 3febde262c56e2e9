"""Ops whose kernels come from foreign libraries (Note [Foreign libraries]
in ``ge.device.foreign``), and GE's PortableOp: ``serialize`` /
``deserialize``.

- ``ForeignLaunchInfo`` is what ``add_launch`` takes for a launch of
  ``call(pointer..., stream)`` from a library: the library's bytes and the
  function's name. The kernel arguments (inputs and outputs, in the spec's
  ``call_args`` order) are appended as for any launch.
- ``PortableLibraries`` is the base of generated implementations of such
  ops: it keeps the op's libraries by key (``add_library``, ``library``),
  and its ``serialize`` / ``deserialize`` write and read GE's TileLang
  offline format byte for byte (Note [Portable payload] in
  ``ge.device.portable``). ge-atc calls ``serialize`` and puts the bytes in
  the model file; loading a model restores them with the same reader and
  never calls the op's Python.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

# ge.device.portable and ge.device.foreign (the loader, the toolchain) are
# imported on use: contexts imports ForeignLaunchInfo, so ge.custom_op stays light.

__all__ = ["ForeignLaunchInfo", "LibraryConfig", "PortableLibraries"]


class ForeignLaunchInfo:
    """One launch of a foreign library's function (GE's ``call`` convention:
    ``void call(pointer..., stream)``), run natively by the task table."""

    __slots__ = ("library", "function", "stream_id")

    def __init__(self, *, library: bytes, function: str = "call", stream_id: int = 0):
        if not isinstance(library, (bytes, bytearray)) or not library:
            raise TypeError(
                "library must be the non-empty bytes of a shared object, got "
                f"{type(library).__name__}"
            )
        if not isinstance(function, str) or not function.isidentifier():
            raise ValueError(f"function must be a C identifier, got {function!r}")
        if (
            isinstance(stream_id, bool)
            or not isinstance(stream_id, int)
            or stream_id < 0
        ):
            raise ValueError(f"stream_id must be an int >= 0, got {stream_id!r}")
        self.library = bytes(library)
        self.function = function
        self.stream_id = stream_id

    def __repr__(self) -> str:
        return (
            f"ForeignLaunchInfo(library=<{len(self.library)} bytes>, "
            f"function={self.function!r}, stream_id={self.stream_id})"
        )


@dataclass(frozen=True)
class LibraryConfig:
    """What a generated ``declare_launch_args`` of a library op asks the
    author for: the key of the library these tensors use."""

    key: str


_guard = threading.Lock()


class PortableLibraries:
    """The libraries of one op implementation, by key, and GE's PortableOp
    pair over them. Thread-safe; needs no ``__init__`` call."""

    FUNCTION = "call"

    def _libraries(self) -> tuple[threading.Lock, dict[str, bytes]]:
        with _guard:
            state = self.__dict__.get("_ge_portable")
            if state is None:
                state = (threading.Lock(), {})
                self.__dict__["_ge_portable"] = state
            return state

    def add_library(self, key: str, data: bytes) -> None:
        """Keep library ``data`` under ``key`` (checked: an ELF shared object
        for this machine exporting the op's function; ValueError if not)."""
        if not isinstance(key, str) or not key:
            raise ValueError(f"a library key is a non-empty str, got {key!r}")
        from ge.device.elf import BadKernelBinary
        from ge.device.foreign import check_library

        try:
            check_library(data, self.FUNCTION)
        except BadKernelBinary as exc:
            raise ValueError(
                f"library {key!r} of {type(self).__name__}: {exc}"
            ) from None
        lock, entries = self._libraries()
        with lock:
            entries[key] = bytes(data)

    def has_library(self, key: str) -> bool:
        lock, entries = self._libraries()
        with lock:
            return key in entries

    def library(self, key: str) -> bytes:
        """The library kept under ``key``; KeyError naming the known keys."""
        lock, entries = self._libraries()
        with lock:
            if key not in entries:
                raise KeyError(
                    f"{type(self).__name__} has no library for key {key!r} (known: "
                    f"{sorted(entries)}); compile it or add_library it first"
                )
            return entries[key]

    def library_keys(self) -> list[str]:
        lock, entries = self._libraries()
        with lock:
            return list(entries)

    def serialize(self) -> bytes:
        """GE's PortableOp::Serialize: every library, in the seed's format."""
        from ge.device import portable

        lock, entries = self._libraries()
        with lock:
            return portable.encode(dict(entries))

    def deserialize(self, data: bytes) -> None:
        """GE's PortableOp::Deserialize: restore the libraries of ``data``
        (integrity rules of Note [Portable payload]; each library loaded);
        on any failure nothing changes."""
        from ge.device import portable

        restored = portable.restore(data, self.FUNCTION)
        entries = {key: lib.data for key, lib in restored.items()}
        lock, current = self._libraries()
        with lock:
            current.clear()
            current.update(entries)
