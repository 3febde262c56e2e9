"""The load-time guard (Note [Our own loader] in ge/device/elf.py): a kernel
binary never runs code when it is loaded, whatever its dynamic section
says, and a damaged binary is refused without crashing the process.

The kernels here have a constructor that creates a marker file. A control
in each test shows that the system's dynamic loader does run it."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from elf_mutants import (
    DYN,
    _dynamic,
    _entries,
    _store,
    edit_init_array_beyond_segment,
    edit_zero_size_first,
)

from ge.device.kernels import BadKernelBinary, build_kernel, load_binary
from ge.device.toolchain import INCLUDE_DIR

ROOT = Path(__file__).resolve().parents[2]
FUZZ_MUTANTS = int(os.environ.get("GE_ELF_FUZZ_MUTANTS", "5000"))

SOURCE = """#include <fcntl.h>
#include <unistd.h>
#include "ge_kernel.h"

__attribute__((constructor)) static void guard_ctor(void) {
  int fd = creat(MARKER, 0600);
  if (fd >= 0) close(fd);
}

GE_KERNEL(k, GE_OUT(int64_t, GE_ELEMS(1))) { *GE_PTR(int64_t, 0) = 1; }
"""


# No constructor, but relocations of every kind a kernel has: relative ones
# (a table of pointers) and versioned imports from libm.
IMPORTS = """#include <math.h>
#include "ge_kernel.h"

static const float *const table[] = {(const float[]){1.0f}, (const float[]){2.0f}};

GE_KERNEL(k, GE_OUT(float, GE_COUNT_OF(1)), GE_SCALAR()) {
  float *o = GE_PTR(float, 0);
  for (uint64_t i = 0; i < args[1]; ++i)
    o[i] = expf((float)i) + sqrtf(*table[i & 1]);
}
"""


@pytest.fixture(scope="module")
def marker(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("guard") / "constructor-ran"


@pytest.fixture(scope="module")
def binaries(
    marker: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, bytes]:
    """The constructor kernel built as build_kernel builds (no start files:
    only .init_array) and as a plain gcc library is (DT_INIT, DT_FINI, both
    arrays, weak imports)."""
    plain_c = tmp_path_factory.mktemp("plain") / "plain.c"
    plain_c.write_text(SOURCE)
    plain_so = plain_c.with_suffix(".so")
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-O2", f"-I{INCLUDE_DIR}"]
        + [f'-DMARKER="{marker}"', "-o", str(plain_so), str(plain_c)],
        check=True,
    )
    return {
        "imports": build_kernel(IMPORTS, name="guard_imports"),
        "nostartfiles": build_kernel(
            SOURCE, defines={"MARKER": f'"{marker}"'}, name="guard"
        ),
        "startfiles": plain_so.read_bytes(),
    }


def system_loader_runs_it(data: bytes, path: Path, marker: Path) -> bool:
    """The control: does glibc's loader run the constructor of ``data``?"""
    path.write_bytes(data)
    subprocess.run(
        [sys.executable, "-c", "import ctypes, sys; ctypes.CDLL(sys.argv[1])", path],
        capture_output=True,
    )
    ran = marker.exists()
    if ran:
        marker.unlink()
    return ran


@pytest.mark.parametrize("variant", ["nostartfiles", "startfiles"])
def test_a_kernel_with_a_constructor_is_refused(
    binaries: dict[str, bytes], variant: str, marker: Path, tmp_path: Path
) -> None:
    assert system_loader_runs_it(binaries[variant], tmp_path / "k.so", marker)
    with pytest.raises(BadKernelBinary, match="initializer"):
        load_binary(binaries[variant])
    assert not marker.exists()


@pytest.mark.parametrize("edit", [edit_zero_size_first, edit_init_array_beyond_segment])
@pytest.mark.parametrize("variant", ["nostartfiles", "startfiles"])
def test_the_issues_edits_run_no_constructor(
    binaries: dict[str, bytes],
    variant: str,
    edit: Callable[[bytes], bytes],
    marker: Path,
    tmp_path: Path,
) -> None:
    """The two edits that made the old checker and glibc disagree: glibc
    still runs the constructor; the device refuses the file."""
    edited = edit(binaries[variant])
    assert system_loader_runs_it(edited, tmp_path / "edited.so", marker)
    with pytest.raises(BadKernelBinary):
        load_binary(edited)
    assert not marker.exists()


@pytest.mark.parametrize(
    ("variant", "seed"),
    [("imports", 1), ("nostartfiles", 10**6), ("startfiles", 2 * 10**6)],
)
def test_fuzzed_dynamic_sections_never_run_code_or_crash(
    binaries: dict[str, bytes], variant: str, seed: int, marker: Path, tmp_path: Path
) -> None:
    """Structure-aware mutations (duplicated, moved, retagged, revalued
    entries, shortened or moved dynamic segments) and bit flips, loaded in
    a subprocess: every mutant is refused or loads; none crashes, none
    runs its constructor."""
    path = tmp_path / f"{variant}.so"
    path.write_bytes(binaries[variant])
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tests" / "elf_mutants.py"),
            str(path),
            str(FUZZ_MUTANTS),
            str(seed),
            "k",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    summary = json.loads(result.stdout)
    assert summary["unexpected"] == []
    outcomes = summary["outcomes"]
    assert sum(outcomes.values()) == FUZZ_MUTANTS
    assert outcomes.get("refused", 0) > FUZZ_MUTANTS // 2
    if variant == "imports":  # many mutants of a sound kernel still load
        assert outcomes.get("loaded", 0) > FUZZ_MUTANTS // 10
    assert not marker.exists()


# -- damage the fuzzing found, and its siblings, made by hand ------------------------


def _loads(data: bytes) -> list[tuple[int, int]]:
    """(program header offset, p_flags) of each PT_LOAD."""
    (phoff,) = struct.unpack_from("<Q", data, 32)
    (phnum,) = struct.unpack_from("<H", data, 56)
    out = []
    for i in range(phnum):
        at = phoff + 56 * i
        p_type, p_flags = struct.unpack_from("<II", data, at)
        if p_type == 1:
            out.append((at, p_flags))
    return out


def _with_flags(data: bytes, pick: Callable[[int], bool], flags: int) -> bytes:
    buffer = bytearray(data)
    for at, p_flags in _loads(data):
        if pick(p_flags):
            struct.pack_into("<I", buffer, at + 4, flags)
    return bytes(buffer)


def _dynamic_entries_edited(
    data: bytes, edit: Callable[[list[tuple[int, int]]], list[tuple[int, int]]]
) -> bytes:
    buffer = bytearray(data)
    _, offset, size = _dynamic(buffer)
    entries = edit(_entries(buffer, offset, size))
    _store(buffer, offset, entries[: size // DYN])
    return bytes(buffer)


def _strtab_twice(entries: list[tuple[int, int]]) -> list[tuple[int, int]]:
    strtab = next(e for e in entries if e[0] == 5)
    return [strtab, (5, strtab[1] + 1)] + entries


@pytest.mark.parametrize(
    ("damage", "error", "message"),
    [
        pytest.param(
            # Seed 539940 of the fuzzing: a flipped bit made the read-only
            # data unreadable, and reading the kernel's declaration there
            # crashed the process.
            lambda d: _with_flags(d, lambda f: f == 4, 0),
            LookupError,
            "lies outside the binary's readable data",
            id="unreadable-declaration",
        ),
        pytest.param(
            lambda d: _with_flags(d, lambda f: f == 5, 7),
            BadKernelBinary,
            "a loaded segment is both writable and executable",
            id="writable-code",
        ),
        pytest.param(
            lambda d: _dynamic_entries_edited(
                d, lambda es: [e for e in es if e[0]] + [(0x6FFFFEF5, 0)] * len(es)
            ),
            BadKernelBinary,
            "the dynamic section",
            id="no-dt-null",
        ),
        pytest.param(
            lambda d: _dynamic_entries_edited(d, _strtab_twice),
            BadKernelBinary,
            "the dynamic section has tag 5 twice",
            id="duplicate-tag",
        ),
    ],
)
def test_hand_made_damage_is_refused_cleanly(
    binaries: dict[str, bytes],
    damage: Callable[[bytes], bytes],
    error: type[Exception],
    message: str,
) -> None:
    data = damage(binaries["imports"])
    with pytest.raises(error, match=message):
        load_binary(data).get_function("k")


def test_an_unknown_argument_kind_is_refused_at_lookup() -> None:
    """The issue's `KeyError: 33`: a declaration the runtime does not know."""
    source = (
        '#include "ge_kernel.h"\n'
        "GE_EXPORT const ge_arg_decl odd_ge_args[] = {{33, 8, 0, 0, 0}};\n"
        "GE_EXPORT const uint32_t odd_ge_nargs = 1;\n"
        "GE_EXPORT void odd(uint32_t b, uint32_t n, const uint64_t *a) "
        "{ (void)b; (void)n; (void)a; }\n"
    )
    binary = load_binary(build_kernel(source, name="odd_kind"))
    with pytest.raises(LookupError, match="argument 0: unknown argument kind 33"):
        binary.get_function("odd")
