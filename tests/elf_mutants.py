"""Structure-aware mutations of a kernel binary, aimed at the dynamic
section (how a file makes two readers of it disagree) plus plain bit flips.

Run as a script, it loads ``count`` mutants of a binary in this process and
prints a JSON summary; tests/runtime/test_elf_guard.py runs it in a
subprocess so that a crash is seen as a crash.
"""

from __future__ import annotations

import json
import random
import struct
import sys
from collections import Counter
from collections.abc import Callable

PHDR, DYN = 56, 16
PT_DYNAMIC = 2
TAGS = [0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 17, 20, 22, 23, 25, 26, 27, 28]
TAGS += [30, 32, 33, 35, 36, 37, 0x6FFFFEF5, 0x6FFFFFF0, 0x6FFFFFFE, 0x6FFFFFFF]
DT_INIT_ARRAY, DT_INIT_ARRAYSZ = 25, 27


def _dynamic(data: bytearray) -> tuple[int, int, int]:
    """(program header offset, file offset, size) of PT_DYNAMIC."""
    (phoff,) = struct.unpack_from("<Q", data, 32)
    (phnum,) = struct.unpack_from("<H", data, 56)
    for i in range(phnum):
        at = phoff + i * PHDR
        if struct.unpack_from("<I", data, at)[0] == PT_DYNAMIC:
            offset, _, _, filesz = struct.unpack_from("<QQQQ", data, at + 8)
            return at, offset, filesz
    raise ValueError("no PT_DYNAMIC")


def _entries(data: bytearray, offset: int, size: int) -> list[tuple[int, int]]:
    return [struct.unpack_from("<qQ", data, offset + k) for k in range(0, size, DYN)]


def _store(data: bytearray, offset: int, entries: list[tuple[int, int]]) -> None:
    for k, (tag, value) in enumerate(entries):
        struct.pack_into("<qQ", data, offset + k * DYN, tag, value)


def _live(entries: list[tuple[int, int]]) -> int:
    """How many entries come before the first DT_NULL."""
    return next((k for k, (tag, _) in enumerate(entries) if tag == 0), len(entries))


def zero_size_first(rng: random.Random, data: bytearray) -> str:
    """A DT_INIT_ARRAYSZ of 0 first, the real one later (the issue's case)."""
    _, offset, size = _dynamic(data)
    entries = _entries(data, offset, size)
    entries.insert(rng.randrange(_live(entries) + 1), (DT_INIT_ARRAYSZ, 0))
    _store(data, offset, entries[: len(entries) - 1])
    return "zero-size-first"


def duplicate(rng: random.Random, data: bytearray) -> str:
    _, offset, size = _dynamic(data)
    entries = _entries(data, offset, size)
    live = max(_live(entries), 1)
    entry = entries[rng.randrange(live)]
    if rng.random() < 0.5:
        entry = (entry[0], rng.choice([0, 1, 8, entry[1] + 8, rng.getrandbits(64)]))
    entries.insert(rng.randrange(len(entries)), entry)
    _store(data, offset, entries[: len(entries) - 1])
    return "duplicate"


def shorten(rng: random.Random, data: bytearray) -> str:
    """PT_DYNAMIC made shorter, so later entries lie beyond its size."""
    at, _, size = _dynamic(data)
    new = rng.randrange(0, size + 1)
    new -= new % rng.choice([1, DYN])
    struct.pack_into("<QQ", data, at + 32, new, new)
    return "shorten"


def move_after_null(rng: random.Random, data: bytearray) -> str:
    _, offset, size = _dynamic(data)
    entries = _entries(data, offset, size)
    live = _live(entries)
    if live == 0 or live >= len(entries) - 1:
        return "move-after-null (no room)"
    entry = entries.pop(rng.randrange(live))
    entries.insert(rng.randrange(live, len(entries) + 1), entry)
    _store(data, offset, entries[: (size // DYN)])
    return "move-after-null"


def drop(rng: random.Random, data: bytearray) -> str:
    _, offset, size = _dynamic(data)
    entries = _entries(data, offset, size)
    live = _live(entries)
    if live:
        entries.pop(rng.randrange(live))
        entries.append((0, 0))
    _store(data, offset, entries)
    return "drop"


def retag(rng: random.Random, data: bytearray) -> str:
    _, offset, size = _dynamic(data)
    entries = _entries(data, offset, size)
    k = rng.randrange(len(entries))
    entries[k] = (rng.choice(TAGS), entries[k][1])
    _store(data, offset, entries)
    return "retag"


def revalue(rng: random.Random, data: bytearray) -> str:
    _, offset, size = _dynamic(data)
    entries = _entries(data, offset, size)
    k = rng.randrange(max(_live(entries), 1))
    tag, value = entries[k]
    choices = [0, 1, value + 8, value - 8, value * 2, len(data), rng.getrandbits(64)]
    entries[k] = (tag, rng.choice(choices) % (1 << 64))
    _store(data, offset, entries)
    return "revalue"


def swap(rng: random.Random, data: bytearray) -> str:
    _, offset, size = _dynamic(data)
    entries = _entries(data, offset, size)
    i, j = rng.randrange(len(entries)), rng.randrange(len(entries))
    entries[i], entries[j] = entries[j], entries[i]
    _store(data, offset, entries)
    return "swap"


def move_segment(rng: random.Random, data: bytearray) -> str:
    """PT_DYNAMIC's offset and address moved together (a second copy)."""
    at, _, _ = _dynamic(data)
    delta = rng.choice([-DYN, DYN, -4096, 4096, rng.randrange(-64, 64)])
    offset, vaddr = struct.unpack_from("<QQ", data, at + 8)
    struct.pack_into(
        "<QQ", data, at + 8, (offset + delta) % (1 << 64), (vaddr + delta) % (1 << 64)
    )
    return "move-segment"


def bit_flips(rng: random.Random, data: bytearray) -> str:
    for _ in range(rng.randint(1, 8)):
        at = rng.randrange(len(data))
        data[at] ^= 1 << rng.randrange(8)
    return "bit-flips"


MUTATIONS: list[Callable[[random.Random, bytearray], str]] = [
    zero_size_first,
    duplicate,
    shorten,
    move_after_null,
    drop,
    retag,
    revalue,
    swap,
    move_segment,
    bit_flips,
]


def mutant(original: bytes, seed: int) -> tuple[bytes, str]:
    rng = random.Random(seed)
    data = bytearray(original)
    names = []
    for _ in range(rng.randint(1, 3)):
        mutation = rng.choice(MUTATIONS)
        try:
            names.append(mutation(rng, data))
        except Exception:  # an earlier mutation moved things; not a finding
            names.append(f"{mutation.__name__} (skipped)")
    return bytes(data), "+".join(names)


def main(path: str, count: int, first_seed: int, function: str) -> None:
    from ge.device.kernels import BadKernelBinary, load_binary

    original = open(path, "rb").read()
    outcomes: Counter[str] = Counter()
    unexpected: list[str] = []
    for seed in range(first_seed, first_seed + count):
        data, how = mutant(original, seed)
        try:
            binary = load_binary(data)
        except BadKernelBinary:
            outcomes["refused"] += 1
            continue
        except Exception as exc:  # anything else is a finding
            unexpected.append(f"seed {seed} ({how}): {type(exc).__name__}: {exc}")
            continue
        try:
            binary.get_function(function)
            outcomes["loaded"] += 1
        except LookupError:
            outcomes["loaded, kernel refused"] += 1
        except Exception as exc:
            unexpected.append(f"seed {seed} ({how}): {type(exc).__name__}: {exc}")
    print(json.dumps({"outcomes": outcomes, "unexpected": unexpected}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])


# -- the two edits, deterministic ------------------------------------------


def edit_zero_size_first(original: bytes) -> bytes:
    """A DT_INIT_ARRAYSZ of 0 as the first entry; the real one stays later
    (glibc keeps the last copy of a tag, a first-copy reader sees 0)."""
    data = bytearray(original)
    _, offset, size = _dynamic(data)
    entries = _entries(data, offset, size)
    entries.insert(0, (DT_INIT_ARRAYSZ, 0))
    _store(data, offset, entries[: len(entries) - 1])
    return bytes(data)


def edit_init_array_beyond_segment(original: bytes) -> bytes:
    """The init-array entries moved last, and PT_DYNAMIC's size cut just
    before them (glibc reads to DT_NULL whatever the size says)."""
    data = bytearray(original)
    at, offset, size = _dynamic(data)
    entries = _entries(data, offset, size)
    live = entries[: _live(entries)]
    init = [e for e in live if e[0] in (DT_INIT_ARRAY, DT_INIT_ARRAYSZ)]
    rest = [e for e in live if e[0] not in (DT_INIT_ARRAY, DT_INIT_ARRAYSZ)]
    ordered = rest + init + [(0, 0)] * (len(entries) - len(live))
    _store(data, offset, ordered)
    struct.pack_into("<QQ", data, at + 32, len(rest) * DYN, len(rest) * DYN)
    return bytes(data)
