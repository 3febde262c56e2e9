"""The instruction-set level kernels need and the level this CPU has.

Note [ISA levels]: ge_kernel.h exports ``ge_isa_level`` from every kernel,
computed from the compiler's own macros (``__AVX2__``, ``__SSE4_2__``...),
so it names what the flags the kernel was built with let the compiler use:
1 for x86-64, 2 for x86-64-v2, 3 for x86-64-v3, 4 for x86-64-v4 (any one
feature of a level counts as the level; other machines are level 1). A
binary whose level is above this CPU's is refused when it is loaded, and a
model file records the highest level of its kernels (``isa_level`` in its
plan) and is refused before any kernel is mapped: a clear error, never an
illegal instruction.
"""

from __future__ import annotations

import platform
from functools import lru_cache

from ge.device.elf import BadKernelBinary

NAMES = {1: "x86-64", 2: "x86-64-v2", 3: "x86-64-v3", 4: "x86-64-v4"}
# /proc/cpuinfo flags of each level (pni is SSE3, abm is LZCNT).
_NEEDS = {
    2: {"cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3", "pni"},
    3: {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"},
    4: {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"},
}


class IsaError(BadKernelBinary):
    """Kernels need instructions this CPU does not have (a binary the device
    refuses to load, as any other)."""


def name(level: int) -> str:
    return NAMES.get(level, f"level {level}")


def _cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as info:
            for line in info:
                if line.startswith("flags"):
                    return set(line.partition(":")[2].split())
    except OSError:
        pass
    return set()


@lru_cache(maxsize=1)
def host_level() -> int:
    """This CPU's level (1 when not x86-64, or when its flags are unknown)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return 1
    flags, level = _cpu_flags(), 1
    for candidate in (2, 3, 4):
        if not _NEEDS[candidate] <= flags:
            break
        level = candidate
    return level


def check_level(level: int, what: str) -> None:
    """Refuse ``what`` if it needs a level above this CPU's (a level that
    does not exist is damage)."""
    if level not in NAMES and level > 1:
        raise BadKernelBinary(f"{what} records ISA level {level}, which does not exist")
    if level > host_level():
        raise IsaError(
            f"{what} needs {name(level)} instructions; this CPU has "
            f"{name(host_level())} only, so its kernels cannot run here (rebuild "
            f"them without -march flags beyond {name(host_level())})"
        )
