"""The kernel build cache (Note [Kernel cache] in ge/device/toolchain.py):
content-addressed entries checked on every read, written atomically, in a
directory that must be private; damaged or replaced entries are rebuilt."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from ge.device import toolchain
from ge.device.kernels import build_kernel, load_binary
from ge.device.toolchain import BuildError, KernelCacheWarning

SOURCE = """#include "ge_kernel.h"
GE_KERNEL(cache_k, GE_OUT(int64_t, GE_ELEMS(1))) { *GE_PTR(int64_t, 0) = 7; }
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private, empty cache directory; the in-process layer forgotten."""
    root = tmp_path / "cache"
    monkeypatch.setenv("GE_CPU_CACHE_DIR", str(root))
    toolchain.forget_memory()
    yield root
    toolchain.forget_memory()


@pytest.fixture
def compiles(cache: Path, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The compiler runs made while the test runs."""
    runs: list[list[str]] = []
    real = subprocess.run

    def counting(argv, *args, **kwargs):  # type: ignore[no-untyped-def]
        if "-shared" in argv:
            runs.append(list(argv))
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(toolchain.subprocess, "run", counting)
    return runs


def objects(cache: Path) -> list[Path]:
    return sorted((cache / "v2" / "objects").glob("*.so"))


def keys(cache: Path) -> list[Path]:
    return sorted((cache / "v2" / "keys").iterdir())


def build(tag: str) -> bytes:
    """A build of SOURCE that no other test shares."""
    return build_kernel(SOURCE + f"/* {tag} */\n", name="cache_k")


def test_entries_are_named_by_the_hash_of_their_bytes(
    cache: Path, compiles: list[list[str]]
) -> None:
    data = build("named")
    (entry,) = objects(cache)
    assert entry.name == hashlib.sha256(data).hexdigest() + ".so"
    assert entry.read_bytes() == data
    (key,) = keys(cache)
    assert key.read_text() == hashlib.sha256(data).hexdigest()
    assert oct(cache.stat().st_mode & 0o777) == oct(0o700)
    assert list((cache / "v2" / "objects").glob("*.tmp")) == []


def test_a_second_build_is_a_hit_in_memory_and_on_disk(
    cache: Path, compiles: list[list[str]]
) -> None:
    first = build("hit")
    assert build("hit") == first and len(compiles) == 1
    toolchain.forget_memory()  # a new process, as far as the cache can tell
    assert build("hit") == first and len(compiles) == 1
    build_kernel(SOURCE + "/* hit */\n", name="cache_k", defines={"EXTRA": 1})
    assert len(compiles) == 2 and "-DEXTRA=1" in compiles[1]


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: b"garbage", id="garbage"),
        pytest.param(lambda data: b"\x7fELF" + bytes(200), id="elf-magic-then-zeros"),
        pytest.param(lambda data: data[: len(data) // 2], id="truncated"),
        pytest.param(lambda data: b"", id="empty"),
        pytest.param(
            lambda data: data[:100] + bytes([data[100] ^ 1]) + data[101:],
            id="one-bit",
        ),
    ],
)
def test_a_damaged_entry_is_rebuilt_and_rewritten(
    cache: Path, compiles: list[list[str]], damage: object
) -> None:
    good = build("damaged")
    (entry,) = objects(cache)
    entry.write_bytes(damage(good))  # type: ignore[operator]
    toolchain.forget_memory()
    assert build("damaged") == good
    assert len(compiles) == 2
    assert entry.read_bytes() == good  # not served again, forever


def test_an_overwritten_entry_is_not_returned(
    cache: Path, compiles: list[list[str]]
) -> None:
    """Replacing the binary in place (the issue's `<key>.so` overwrite)."""
    good = build("overwritten")
    other = build_kernel(SOURCE.replace("7;", "8;"), name="cache_k")
    (entry,) = [p for p in objects(cache) if p.read_bytes() == good]
    entry.write_bytes(other)
    toolchain.forget_memory()
    assert build("overwritten") == good
    assert len(compiles) == 3


def test_an_entry_that_is_a_symlink_is_not_followed(
    cache: Path, compiles: list[list[str]], tmp_path: Path
) -> None:
    good = build("symlink")
    (entry,) = objects(cache)
    elsewhere = tmp_path / "elsewhere.so"
    elsewhere.write_bytes(good)
    entry.unlink()
    entry.symlink_to(elsewhere)
    toolchain.forget_memory()
    assert build("symlink") == good
    assert len(compiles) == 2
    assert not entry.is_symlink()


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o722])
def test_a_directory_others_can_write_is_not_used(
    cache: Path, compiles: list[list[str]], mode: int
) -> None:
    cache.mkdir()
    cache.chmod(mode)
    with pytest.warns(KernelCacheWarning, match="others can write to it") as info:
        data = build(f"shared-{mode:o}")
        assert build(f"shared-{mode:o}") == data
    assert len(info) == 1  # said once
    assert str(cache) in str(info[0].message)
    assert "chmod 700" in str(info[0].message)
    assert list(cache.iterdir()) == []  # nothing written there
    assert len(compiles) == 1  # kept in memory for the process


def test_an_entry_others_can_write_is_not_trusted(
    cache: Path, compiles: list[list[str]]
) -> None:
    good = build("entry-mode")
    (entry,) = objects(cache)
    entry.chmod(0o666)
    toolchain.forget_memory()
    assert build("entry-mode") == good
    assert len(compiles) == 2
    assert entry.stat().st_mode & 0o022 == 0  # rewritten privately


def test_a_directory_of_another_user_is_not_used(
    cache: Path, compiles: list[list[str]]
) -> None:
    if os.getuid() != 0:
        pytest.skip("giving a directory to another user needs root")
    cache.mkdir(mode=0o700)
    os.chown(cache, 54321, 54321)
    with pytest.warns(KernelCacheWarning, match="belongs to user 54321"):
        build("foreign-owner")
    assert list(cache.iterdir()) == []


def test_a_file_where_the_directory_should_be_is_not_used(
    cache: Path, compiles: list[list[str]]
) -> None:
    cache.write_text("not a directory")
    with pytest.warns(KernelCacheWarning, match="cannot be created or read"):
        assert build("file-in-the-way").startswith(b"\x7fELF")


def test_compiler_messages_name_the_users_file(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "kernels" / "my_kernel.c"
    source.parent.mkdir()
    (source.parent / "helper.h").write_text("#define HELPER 1\n")
    source.write_text('#include "helper.h"\nint f(void) { return undefined_name; }\n')
    with pytest.raises(BuildError) as info:
        build_kernel(source, name="my_kernel")
    message = str(info.value)
    assert f"{source}:2:" in message, message
    assert "ge-cpu-build-" not in message
    # Text sources are named after the build, without the temporary path.
    with pytest.raises(BuildError) as info:
        build_kernel("int g(void) { return nope; }\n", name="texty")
    assert "texty.c:1:" in str(info.value)
    assert "ge-cpu-build-" not in str(info.value)
    # A local header beside the file is found.
    source.write_text('#include "helper.h"\nint f(void) { return HELPER; }\n')
    assert build_kernel(source, name="my_kernel").startswith(b"\x7fELF")


def test_kernels_are_built_with_loops_on_64_byte_lines(
    compiles: list[list[str]],
) -> None:
    """Note [Loop alignment]: a kernel's hot loop does not straddle two
    fetch lines by chance."""
    assert build("aligned-loops").startswith(b"\x7fELF")
    [argv] = compiles
    assert "-falign-loops=64" in argv


def test_a_compiler_without_loop_alignment_builds_without_it(
    compiles: list[list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A compiler that rejects -falign-loops (an older clang, say) still
    builds kernels: the flag is dropped, nothing else changes."""
    gcc = toolchain.compiler()
    fake = tmp_path / "old-cc"
    fake.write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do case "$a" in -falign-loops*) '
        'echo "unknown argument: $a" >&2; exit 1;; esac; done\n'
        f'exec "{gcc}" "$@"\n'
    )
    fake.chmod(0o755)
    monkeypatch.setenv("CC", str(fake))
    toolchain._accepts.cache_clear()
    try:
        assert build("old-compiler").startswith(b"\x7fELF")
    finally:
        toolchain._accepts.cache_clear()
    [argv] = compiles
    assert argv[0] == str(fake)
    assert not [a for a in argv if a.startswith("-falign-loops")]


def test_build_names_cannot_leave_the_build_directory(cache: Path) -> None:
    for name in ("../escape", "a/b", "", ".hidden"):
        with pytest.raises(ValueError, match="a build name is"):
            build_kernel(SOURCE, name=name)


# The launcher built with gcc and cached, as when the prebuilt one is missing
# or stale (Note [Prebuilt launcher] in ge/device/native.py).
BUILT_LAUNCHER = (
    "from pathlib import Path\n"
    "import ge.device.native as native\n"
    "native.PREBUILT = Path('/nonexistent/_native.so')\n"
    "from ge.device.native import library\n"
)


def test_a_planted_launcher_runs_no_code(tmp_path: Path) -> None:
    """Someone who could write the cache plants, under the native launcher's
    key, a binary whose constructor would write a marker file. The launcher
    is loaded by the device's own loader, which never runs initializers:
    the plant is refused and the marker never appears."""
    marker = tmp_path / "marker"
    root = tmp_path / "cache"
    plant_c = tmp_path / "plant.c"
    plant_c.write_text(
        "#include <fcntl.h>\n"
        "__attribute__((constructor)) static void boom(void) "
        f'{{ creat("{marker}", 0600); }}\n'
        "void ge_launch(void) {} void ge_run(void) {} void ge_replay(void) {}\n"
    )
    plant_so = tmp_path / "plant.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", plant_so, plant_c], check=True)
    plant = plant_so.read_bytes()
    env = {**os.environ, "GE_CPU_CACHE_DIR": str(root)}
    # The real launcher, built and cached; then its entry replaced (with a
    # correct hash: whoever can write the directory can compute one).
    subprocess.run(
        [sys.executable, "-c", BUILT_LAUNCHER + "library()"],
        env=env,
        check=True,
    )
    # The launcher's build key (the other names the same binary by native.c
    # alone, for machines without a compiler: ge.device.native).
    (key,) = (
        k
        for k in (root / "v2" / "keys").iterdir()
        if not k.name.startswith("ge-native-")
    )
    digest = hashlib.sha256(plant).hexdigest()
    (root / "v2" / "objects" / f"{digest}.so").write_bytes(plant)
    key.write_text(digest)
    run = (
        "from ge.device.elf import BadKernelBinary\n" + BUILT_LAUNCHER + "try:\n"
        "    library()\n"
        "except BadKernelBinary as exc:\n"
        "    print('REFUSED', exc)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", run], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("REFUSED has an initializer"), result.stdout
    assert not marker.exists()
    # The control: the system's loader runs the constructor of that plant.
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import ctypes, sys; ctypes.CDLL(sys.argv[1])",
            plant_so,
        ],
        check=True,
    )
    assert marker.exists()


def test_no_warning_for_a_private_directory(cache: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        build("quiet")
    assert load_binary(build("quiet")).get_function("cache_k")


def test_threads_building_one_key_compile_it_once(
    cache: Path, compiles: list[list[str]]
) -> None:
    import threading

    results: list[bytes] = []
    start = threading.Barrier(8)

    def worker() -> None:
        start.wait()
        results.append(build("threads"))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 8 and len(set(results)) == 1
    assert len(compiles) == 1
    assert len(objects(cache)) == 1


def test_the_cache_is_capped_and_drops_the_least_recently_used(
    cache: Path, monkeypatch: pytest.MonkeyPatch, compiles: list[list[str]]
) -> None:
    def build(n: int) -> bytes:  # a different binary for every n
        return build_kernel(SOURCE.replace("= 7", f"= {n}"), name="cache_k")

    first = build(101)
    size = len(first)
    # room for two objects (every build of SOURCE is about the same size)
    monkeypatch.setenv("GE_CPU_CACHE_MAX_MB", str(2.5 * size / (1024 * 1024)))
    build(102)
    old = objects(cache)
    for path in old:  # make cap-1 the recently used one
        os.utime(path, (1, 1))
    toolchain.forget_memory()
    assert build(101) == first  # a hit, which refreshes its time
    build(103)  # the third object: the least recently used goes
    remaining = objects(cache)
    assert len(remaining) == 2
    assert hashlib.sha256(first).hexdigest() + ".so" in {p.name for p in remaining}
    assert len(keys(cache)) == 2  # the key of the object that went went too
    assert toolchain.cache_stats().size <= 2.5 * size


def test_ge_cache_shows_and_clears(cache: Path) -> None:
    import json

    build("ge-cache")
    env = {**os.environ, "GE_CPU_CACHE_DIR": str(cache)}

    def ge_cache(*argv: str) -> dict[str, object]:
        out = subprocess.run(
            [sys.executable, "-m", "ge.device.cache_cli", *argv, "--format", "json"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(out.stdout)

    shown = ge_cache("show")
    assert shown["directory"] == str(cache) and shown["usable"] is True
    assert shown["objects"] == 1 and shown["keys"] == 1 and shown["bytes"] > 0
    cleared = ge_cache("clear")
    assert cleared["freed_bytes"] == shown["bytes"] and cleared["objects"] == 0
    assert objects(cache) == [] and keys(cache) == []


def test_the_default_cache_is_the_user_cache_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("GE_CPU_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert toolchain.cache_dir() == tmp_path / "xdg" / "ge-cpu"
