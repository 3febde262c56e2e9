"""The portable payload (GE's TileLang offline format): golden bytes, every
damage case refused without a crash, restores all or nothing, and a seeded
mutation fuzz in a subprocess."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from libraries import ROOT, UNRESOLVED, gcc_library

from ge.custom_op import PortableLibraries
from ge.device import foreign, portable
from ge.device.portable import PortableFormatError, decode, encode, restore

U32 = struct.Struct("<I")


def test_golden_bytes_of_a_two_entry_payload() -> None:
    data = encode({"4096": b"\x7fELF-a", "8192": b"lib-b"})
    assert data == bytes.fromhex(
        "4e4b504f"  # magic 0x4F504B4E, little-endian ("NKPO")
        "01000000"  # version 1
        "02000000"  # count 2
        "04000000"
        + b"4096".hex()
        + "06000000"
        + b"\x7fELF-a".hex()
        + "04000000"
        + b"8192".hex()
        + "05000000"
        + b"lib-b".hex()
    )
    assert decode(data) == {"4096": b"\x7fELF-a", "8192": b"lib-b"}
    assert list(decode(data)) == ["4096", "8192"]  # order kept


def field_ends(data: bytes) -> list[int]:
    """The offset where each field of a well-formed payload ends."""
    ends, at = [4, 8, 12], 12
    for _ in range(U32.unpack_from(data, 8)[0]):
        key_len = U32.unpack_from(data, at)[0]
        size = U32.unpack_from(data, at + 4 + key_len)[0]
        ends += [at + 4, at + 4 + key_len, at + 8 + key_len, at + 8 + key_len + size]
        at += 8 + key_len + size
    return ends


TWO = encode({"4096": b"first-library", "8192": b"second"})


@pytest.mark.parametrize("length", range(len(TWO)))
def test_every_truncation_is_refused(length: int) -> None:
    with pytest.raises(PortableFormatError):
        decode(TWO[:length])


def test_truncation_inside_every_field_names_it() -> None:
    for end in field_ends(TWO):
        with pytest.raises(PortableFormatError, match="truncated|claims|count"):
            decode(TWO[: end - 1])


def patched(data: bytes, offset: int, value: int) -> bytes:
    return data[:offset] + U32.pack(value) + data[offset + 4 :]


DAMAGE = [
    ("bad magic", patched(TWO, 0, 0x4F504B4F), "bad magic 0x4F504B4F"),
    ("bad version", patched(TWO, 4, 2), "version 2"),
    ("version 0", patched(TWO, 4, 0), "version 0"),
    ("zero count", patched(TWO, 8, 0), "count is 0"),
    ("huge count", patched(TWO, 8, 0xFFFFFFFF), "more than the remaining"),
    ("count one too many", patched(TWO, 8, 3), "truncated|claims|more than"),
    ("oversized key length", patched(TWO, 12, 0xFFFFFFFF), "key length"),
    ("key length past the end", patched(TWO, 12, 4000), "claims 4000 bytes"),
    ("zero key length", patched(TWO, 12, 0), "key length 0"),
    ("oversized size", patched(TWO, 20, 0xFFFFFFFF), "claims 4294967295 bytes"),
    ("zero size", patched(TWO, 20, 0), "is empty"),
    ("trailing byte", TWO + b"\0", "1 trailing byte"),
    ("trailing entry", TWO + TWO[12:30], "trailing"),
    (
        "duplicate key",
        encode({"4096": b"a"})[:8]
        + U32.pack(2)
        + encode({"4096": b"a"})[12:]
        + encode({"4096": b"b"})[12:],
        "repeats key '4096'",
    ),
    ("key not UTF-8", TWO[:16] + b"\xff\xfe\xfd\xfc" + TWO[20:], "not UTF-8"),
    ("empty", b"", "truncated"),
]


@pytest.mark.parametrize("name, data, message", DAMAGE, ids=[d[0] for d in DAMAGE])
def test_damage_is_refused_and_nothing_is_registered(
    name: str, data: bytes, message: str
) -> None:
    before = foreign.loaded_digests()
    with pytest.raises(PortableFormatError, match=message):
        decode(data)
    with pytest.raises(PortableFormatError, match=message):
        restore(data)
    assert foreign.loaded_digests() == before


def test_encode_refuses_what_decode_would() -> None:
    with pytest.raises(ValueError, match="at least one"):
        encode({})
    with pytest.raises(ValueError, match="non-empty"):
        encode({"k": b""})
    with pytest.raises(ValueError, match="key"):
        encode({"": b"x"})


def test_a_failed_restore_rolls_back_what_it_loaded(tmp_path: Path) -> None:
    good = gcc_library(tmp_path, tag=201, name="good")
    bad = gcc_library(tmp_path, UNRESOLVED, name="bad")  # fails when mapped
    before = foreign.loaded_digests()
    with pytest.raises(PortableFormatError, match="ge_test_no_such_function"):
        restore(encode({"good": good, "bad": bad}))
    assert foreign.loaded_digests() == before  # "good" was loaded, then dropped
    restored = restore(encode({"good": good}))
    assert set(restored) == {"good"}


def test_a_library_that_fails_its_checks_loads_nothing(tmp_path: Path) -> None:
    good = gcc_library(tmp_path, tag=202, name="good")
    before = foreign.loaded_digests()
    with pytest.raises(PortableFormatError, match="entry 'bad'.*not an ELF"):
        restore(encode({"good": good, "bad": b"not a library"}))
    assert foreign.loaded_digests() == before


class Op(PortableLibraries):
    pass


def test_portable_libraries_serialize_and_deserialize(tmp_path: Path) -> None:
    lib = gcc_library(tmp_path, tag=203)
    op = Op()
    op.add_library("4096", lib)
    data = op.serialize()
    assert data == encode({"4096": lib})
    other = Op()
    other.add_library("old", gcc_library(tmp_path, tag=204, name="old"))
    with pytest.raises(PortableFormatError):
        other.deserialize(data + b"x")
    assert other.library_keys() == ["old"]  # a failed deserialize changes nothing
    other.deserialize(data)
    assert other.library_keys() == ["4096"] and other.library("4096") == lib
    with pytest.raises(KeyError, match="no library for key '8192'"):
        other.library("8192")
    with pytest.raises(ValueError, match="not an ELF"):
        other.add_library("x", b"junk")


FUZZ = r"""
import random, struct, sys
from ge.device import foreign, portable
data = open(sys.argv[1], "rb").read()
seed, rounds = int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
ends = [int(v) for v in sys.argv[4].split(",")]
refused = accepted = 0
for _ in range(rounds):
    bad = bytearray(data)
    kind = rng.randrange(4)
    if kind == 0:    # flip bits of the framing (header, key lengths, keys, sizes)
        for _ in range(rng.randrange(1, 4)):
            at = rng.choice(ends) - rng.randrange(1, 5)
            bad[max(at, 0)] ^= 1 << rng.randrange(8)
    elif kind == 1:  # truncate
        del bad[rng.randrange(len(bad)):]
    elif kind == 2:  # insert bytes
        at = rng.randrange(len(bad) + 1)
        bad[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 9)))
    else:            # overwrite a field with an extreme value
        at = rng.choice(ends) - 4
        struct.pack_into("<I", bad, max(at, 0), rng.choice([0, 1, 0x7FFFFFFF, 0xFFFFFFFF]))
    snapshot = foreign.loaded_digests()
    try:
        portable.restore(bytes(bad))
        accepted += 1
    except portable.PortableFormatError:
        refused += 1
        if foreign.loaded_digests() != snapshot:
            raise SystemExit("a refused payload left a library registered")
print(f"refused={refused} accepted={accepted}")
"""


def test_seeded_mutation_fuzz_in_a_subprocess(tmp_path: Path) -> None:
    """Mutations of the framing never crash the interpreter: each payload is
    restored or refused with PortableFormatError. (Library bytes are trusted
    code, covered by the ELF checks and, in model files, by SHA-256.)"""
    data = encode(
        {
            "4096": gcc_library(tmp_path, tag=205),
            "8192": gcc_library(tmp_path, tag=206, name="b"),
        }
    )
    payload = tmp_path / "payload.bin"
    payload.write_bytes(data)
    rounds = int(os.environ.get("GE_PORTABLE_FUZZ_ROUNDS", "1500"))
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            FUZZ,
            str(payload),
            "13",
            str(rounds),
            ",".join(map(str, field_ends(data))),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    counts = dict(item.split("=") for item in result.stdout.split())
    assert int(counts["refused"]) + int(counts["accepted"]) == rounds
    assert int(counts["refused"]) > rounds // 2


def test_payload_constants() -> None:
    assert portable.MAGIC == 0x4F504B4E and portable.VERSION == 1
