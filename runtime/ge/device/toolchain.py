"""Building C into shared objects with the system compiler, with a cache.

``build_shared(source)`` returns the bytes of a shared object compiled from C
source by gcc (``$CC`` if set). Results are cached by a key (a hash of the
source, the flags, the libraries, the compiler's version and ge_kernel.h).

Note [Kernel cache]: the cache lives in ``$GE_CPU_CACHE_DIR`` (default: the
platform's user cache directory for ``ge-cpu``, ``~/.cache/ge-cpu`` on
Linux, from platformdirs), under ``v2/``:

- ``objects/<sha256>.so``: a binary, named by the hash of its bytes, and
  checked against that name every time it is read;
- ``keys/<key>``: the hash of the binary a build key produced.

Entries are written atomically (a temporary file, then a rename), so a
reader sees a whole entry or none. A damaged, truncated or replaced object
fails its hash and is built again (and rewritten). The directory must be
the user's own and not writable by group or others, and so must every
entry: anyone who can write there could otherwise plant a binary. A
directory that fails this is not used (a ``KernelCacheWarning`` says why
and how to fix it); builds are then kept in memory for the process.
The objects are capped at ``$GE_CPU_CACHE_MAX_MB`` megabytes (default
512): after each store the least recently used objects go until the rest
fit (a hit refreshes an object's time); a key whose object went builds
again. ``ge-cache`` shows and clears the cache (``cache_cli``).
Binaries are loaded by the device's own loader whatever the cache holds
(Note [Our own loader] in ``ge.device.elf``), so no entry can run code at
load time; the hash and the ownership rules keep a planted kernel out.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import stat
import subprocess
import tempfile
import threading
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

INCLUDE_DIR = Path(__file__).resolve().parent / "include"
# Shared objects for the device: position independent, no C runtime start
# files (so no initializer is linked in), only exported symbols visible,
# loops aligned (Note [Loop alignment]), -O3: gcc vectorises at -O3 (and
# not at -O2 before gcc 12's cheap model), which made the sample add kernel
# about 3.5x faster on the bench machine (docs/performance.md). No -march: the
# baseline ISA keeps binaries and model files portable, and x86-64-v2/v3
# measured no faster on these memory-bound kernels; a kernel built with more
# records its level (Note [ISA levels] in ge.device.isa).
LOOP_ALIGNMENT_FLAGS = ("-falign-loops=64",)
# The optimisation flags; the TileLang stand-in (examples/tilelang_kernel)
# builds its library with the same, so the foreign and annotated benches
# compare the same code (a test keeps them equal).
OPT_FLAGS = ("-O3", *LOOP_ALIGNMENT_FLAGS)
BASE_FLAGS = (
    "-shared",
    "-fPIC",
    *OPT_FLAGS,
    "-nostartfiles",
    "-fvisibility=hidden",
    "-std=gnu11",
)
# Note [Loop alignment]: at -O2 gcc aligns a loop to 16 bytes only when that
# costs at most 10 bytes of padding, else to 8, so where a kernel's hot loop
# falls inside the 64-byte fetch line is luck. A loop that straddles two
# lines runs at half speed on this project's bench machine (AMD EPYC: the
# 24-byte body of ``z[i] = x[i] + y[i]`` takes 2 cycles an element across a
# line, 1 within one; docs/performance.md, "Foreign kernel libraries
# against annotated ops").
# Every kernel is therefore built with its loops on a 64-byte line: a few
# bytes of padding, run once per loop entry. A compiler that rejects the
# flag (an older clang, say) builds without it; the cache key names the flag
# either way and includes the compiler's version, so it stays one function
# of (source, compiler).
LAYOUT = "v2"
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")


class BuildError(RuntimeError):
    """The compiler rejected a source; the message carries its diagnostics."""


class KernelCacheWarning(UserWarning):
    """The kernel cache directory cannot be trusted, so it is not used."""


DEFAULT_MAX_MB = 512


def cache_dir() -> Path:
    """The configured cache directory (it may not exist yet)."""
    configured = os.environ.get("GE_CPU_CACHE_DIR")
    if configured:
        return Path(configured)
    from platformdirs import user_cache_path

    return user_cache_path("ge-cpu", appauthor=False)


def cache_limit() -> int:
    """The cap on the objects' total size, in bytes (Note [Kernel cache])."""
    text = os.environ.get("GE_CPU_CACHE_MAX_MB", "")
    try:
        megabytes = float(text) if text.strip() else DEFAULT_MAX_MB
    except ValueError:
        megabytes = DEFAULT_MAX_MB
    return max(0, int(megabytes * 1024 * 1024))


def compiler() -> str:
    name = os.environ.get("CC", "gcc")
    path = shutil.which(name)
    if path is None:
        raise BuildError(f"no C compiler: {name!r} is not on PATH (set CC)")
    return path


@lru_cache(maxsize=4)
def _compiler_version(path: str) -> str:
    result = subprocess.run(
        [path, "--version"], capture_output=True, text=True, check=False
    )
    return result.stdout.splitlines()[0] if result.stdout else path


@lru_cache(maxsize=1)
def _header_text() -> str:
    return (INCLUDE_DIR / "ge_kernel.h").read_text()


# -- the cache -----------------------------------------------------------------------

_memory: dict[str, bytes] = {}  # key -> binary, for this process
_lock = threading.Lock()
_key_locks: dict[str, threading.Lock] = {}
_warned: set[str] = set()


def _untrusted(info: os.stat_result, is_dir: bool) -> str | None:
    """Why a cache directory or entry cannot be trusted; None if it can."""
    if is_dir and not stat.S_ISDIR(info.st_mode):
        return "it is not a directory"
    if not is_dir and not stat.S_ISREG(info.st_mode):
        return "it is not a regular file"
    if info.st_uid != os.getuid():
        return f"it belongs to user {info.st_uid}, not to you ({os.getuid()})"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return "others can write to it"
    return None


def private_dir(path: Path) -> Path | None:
    """``path`` created if missing (mode 0700) and checked; None (with a
    warning, once per path) if it cannot be trusted."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        why = _untrusted(os.lstat(path), is_dir=True)
    except OSError as exc:
        why = f"it cannot be created or read ({exc.strerror})"
    if why is None:
        return path
    with _lock:
        if str(path) not in _warned:
            _warned.add(str(path))
            warnings.warn(
                f"kernel cache {path} is not used: {why}. Builds are kept in memory "
                "for this process only. Use a directory only you can write "
                "(chmod 700), or set GE_CPU_CACHE_DIR to one.",
                KernelCacheWarning,
                stacklevel=4,
            )
    return None


def _read_private(path: Path) -> bytes | None:
    """The bytes of a cache entry that is ours and private; else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        if _untrusted(os.fstat(fd), is_dir=False) is not None:
            return None
        return handle.read()


def _write_atomic(path: Path, data: bytes) -> None:
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temp, 0o644)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def cache_lookup(key: str) -> bytes | None:
    """The binary built for ``key``, if the cache holds a sound one."""
    with _lock:
        data = _memory.get(key)
    if data is not None:
        return data
    root = private_dir(cache_dir())
    if root is None:
        return None
    digest = _read_private(root / LAYOUT / "keys" / key)
    if digest is None:
        return None
    name = digest.decode("ascii", "replace").strip()
    path = root / LAYOUT / "objects" / f"{name}.so"
    data = _read_private(path)
    if data is None or hashlib.sha256(data).hexdigest() != name:
        return None  # missing, damaged or replaced: built again
    try:
        os.utime(path)  # recently used: the last to go (Note [Kernel cache])
    except OSError:
        pass
    with _lock:
        _memory[key] = data
    return data


def cache_store(key: str, data: bytes) -> None:
    """Remember ``data`` for ``key``: in memory, and on disk when the cache
    directory can be trusted (the disk cache is an optimisation: a failed
    write is not an error)."""
    with _lock:
        _memory[key] = data
    root = private_dir(cache_dir())
    if root is None:
        return
    digest = hashlib.sha256(data).hexdigest()
    try:
        objects = private_dir(root / LAYOUT / "objects")
        keys = private_dir(root / LAYOUT / "keys")
        if objects is None or keys is None:
            return
        _write_atomic(objects / f"{digest}.so", data)
        _write_atomic(keys / key, digest.encode("ascii"))
        trim(root, cache_limit())
    except OSError:
        pass


@dataclass(frozen=True)
class CacheStats:
    directory: Path
    usable: bool  # False: it failed the ownership checks (or cannot be made)
    objects: int
    keys: int
    size: int  # bytes of the objects
    limit: int

    def as_dict(self) -> dict[str, object]:
        return {
            "directory": str(self.directory),
            "usable": self.usable,
            "objects": self.objects,
            "keys": self.keys,
            "bytes": self.size,
            "limit_bytes": self.limit,
        }


def _entries(directory: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as scan:
            return [e for e in scan if e.is_file(follow_symlinks=False)]
    except OSError:
        return []


def trim(root: Path, limit: int) -> int:
    """Remove the least recently used objects until the rest fit in
    ``limit`` bytes, and the keys of removed objects; the bytes freed."""
    objects = _entries(root / LAYOUT / "objects")
    sized = sorted(
        ((e.stat(follow_symlinks=False), e) for e in objects),
        key=lambda pair: pair[0].st_mtime,
    )
    total = sum(info.st_size for info, _ in sized)
    freed = 0
    gone: set[str] = set()
    for info, entry in sized:
        if total - freed <= limit:
            break
        try:
            os.unlink(entry.path)
        except OSError:
            continue
        freed += info.st_size
        gone.add(entry.name.removesuffix(".so"))
    if gone:
        for key in _entries(root / LAYOUT / "keys"):
            data = _read_private(Path(key.path))
            if data is not None and data.decode("ascii", "replace").strip() in gone:
                with contextlib.suppress(OSError):
                    os.unlink(key.path)
    return freed


def cache_stats() -> CacheStats:
    """What the cache directory holds (``ge-cache show``)."""
    root = cache_dir()
    usable = not root.exists() or private_dir(root) is not None
    objects = _entries(root / LAYOUT / "objects")
    keys = _entries(root / LAYOUT / "keys")
    size = sum(e.stat(follow_symlinks=False).st_size for e in objects)
    return CacheStats(root, usable, len(objects), len(keys), size, cache_limit())


def clear_cache() -> int:
    """Remove every entry of the cache (``ge-cache clear``), the in-process
    layer too; the bytes freed. Only gen-ops' own layout is touched."""
    forget_memory()
    root = cache_dir()
    freed = 0
    for part in ("objects", "keys"):
        for entry in _entries(root / LAYOUT / part):
            size = entry.stat(follow_symlinks=False).st_size
            try:
                os.unlink(entry.path)
            except OSError:
                continue
            freed += size if part == "objects" else 0
    return freed


def forget_memory() -> None:
    """Drop the in-process layer (tests use it to reach the disk cache)."""
    with _lock:
        _memory.clear()


def _key_lock(key: str) -> threading.Lock:
    with _lock:
        return _key_locks.setdefault(key, threading.Lock())


# -- building ------------------------------------------------------------------------


def build_shared(
    source: str | os.PathLike[str],
    *,
    defines: Mapping[str, str | int | None] | None = None,
    flags: Sequence[str] = (),
    libs: Sequence[str] = (),
    name: str = "kernel",
) -> bytes:
    """Compile C ``source`` into a shared object linked with ``libs``
    (``"m"`` for ``-lm``) and return its bytes.

    ``source`` is C text, or the path of a C file: then the compiler's
    messages name that file, and ``#include "..."`` finds files beside it."""
    if not _NAME.fullmatch(name):
        raise ValueError(
            f"a build name is letters, digits, '_', '.' and '-', got {name!r}"
        )
    cc = compiler()
    text, extra = _source_text(source)
    all_flags = _flags(defines, extra, flags)
    digest = hashlib.sha256()
    for part in (
        text,
        "\0".join(all_flags),
        "\0".join(libs),
        _compiler_version(cc),
        _header_text(),
    ):
        digest.update(part.encode("utf-8") + b"\0")
    key = digest.hexdigest()
    with _key_lock(key):  # one build per key at a time
        cached = cache_lookup(key)
        if cached is not None:
            return cached
        data = _compile(cc, text, all_flags, libs, name)
        cache_store(key, data)
        return data


def _source_text(source: str | os.PathLike[str]) -> tuple[str, list[str]]:
    """The text to compile and the flags it needs. A file's text starts with
    a #line directive naming the file, so diagnostics point at it."""
    if isinstance(source, str):
        return source, []
    path = Path(source).resolve()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BuildError(f"cannot read kernel source {path}: {exc}") from None
    quoted = str(path).replace("\\", "\\\\").replace('"', '\\"')
    return f'#line 1 "{quoted}"\n{text}', ["-iquote", str(path.parent)]


def compile_uncached(
    text: str,
    *,
    name: str,
    defines: Mapping[str, str] | None = None,
    flags: Sequence[str] | None = None,
    cc: str | None = None,
) -> bytes:
    """Compile C ``text`` into a shared library with no cache, with the
    device's flags and ``defines``, or with ``flags`` instead (the build
    backend compiles the native launcher and the fast run path's extension
    with it, hatch_build.py; ge.engine.hotpath builds a stale extension)."""
    line = _flags(defines) if flags is None else list(flags)
    return _compile(cc or compiler(), text, line, (), name)


def _flags(
    defines: Mapping[str, str | int | None] | None,
    includes: Sequence[str] = (),
    flags: Sequence[str] = (),
) -> list[str]:
    """The device's compile line, in this order (the cache key hashes it):
    base flags, ge_kernel.h's directory, ``includes`` (a source file's
    -iquote), the defines, then the caller's ``flags``."""
    define_flags = [
        f"-D{key}" if value is None else f"-D{key}={value}"
        for key, value in sorted((defines or {}).items())
    ]
    return [*BASE_FLAGS, f"-I{INCLUDE_DIR}", *includes, *define_flags, *flags]


@lru_cache(maxsize=4)
def _accepts(cc: str, flag: str) -> bool:
    """Whether compiler ``cc`` accepts ``flag`` (one probe per process)."""
    try:
        result = subprocess.run(
            [cc, flag, "-x", "c", "-c", "-o", os.devnull, "-"],
            input="int ge_probe;\n",
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0


def _compile(
    cc: str, text: str, flags: list[str], libs: Sequence[str], name: str
) -> bytes:
    flags = [f for f in flags if f not in LOOP_ALIGNMENT_FLAGS or _accepts(cc, f)]
    with tempfile.TemporaryDirectory(prefix="ge-cpu-build-") as tmp:
        src = Path(tmp) / f"{name}.c"
        out = Path(tmp) / f"{name}.so"
        src.write_text(text, encoding="utf-8")
        # Run in the build directory with relative names, so a source given
        # as text is called <name>.c in messages, not a temporary path.
        result = subprocess.run(
            [cc, *flags, "-o", out.name, src.name, *(f"-l{lib}" for lib in libs)],
            capture_output=True,
            text=True,
            check=False,
            cwd=tmp,
        )
        if result.returncode != 0:
            raise BuildError(f"{cc} could not build {name}:\n{result.stderr.strip()}")
        return out.read_bytes()
