"""Model files: compiled models run exactly, compile deterministically, and
every kind of damage is refused with FileFormatError before anything runs
(truncation at every boundary, a flipped byte in every section, wrong magic,
a future version, oversized lengths and counts, kernels that are not shared
objects or do not match the launches), backed by a seeded mutation loop run
in a subprocess so that a crash could not take pytest down with it."""

from __future__ import annotations

import hashlib
import json
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from models import RICH_N, ROOT, model_bytes, rich_expected

from ge._container import FileFormatError, Section, write
from ge.device.kernels import build_kernel
from ge.engine.layout import BufferKind
from ge.graph import Tensor
from ge.offline import model_file
from ge.offline.model import load_model_bytes


@pytest.fixture(autouse=True)
def _unfused(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests count the sample ops' own launches, workspaces and
    execute nodes; the sample adds and ScaleCustom declare elementwise:, so
    element-wise fusion (docs/compiler.md) is off here."""
    monkeypatch.setenv("GE_CPU_FUSION", "0")


HEADER = struct.Struct("<8sIIQ")
ENTRY = struct.Struct("<IIQQ")


def table(data: bytes) -> list[tuple[int, int, int, int]]:
    """(kind, crc, offset, length) of each section."""
    _, _, count, _ = HEADER.unpack_from(data, 0)
    return [ENTRY.unpack_from(data, HEADER.size + ENTRY.size * i) for i in range(count)]


def sections(data: bytes) -> dict[int, bytes]:
    return {kind: data[off : off + n] for kind, _, off, n in table(data)}


def rebuild(data: bytes, **changes: Any) -> bytes:
    """The model with some sections replaced (checksums made right again),
    so that a change reaches the checks behind the checksums. ``plan`` takes
    a function editing the PLAN document."""
    parts = sections(data)
    if "plan" in changes:
        plan = json.loads(parts[model_file.PLAN])
        changes.pop("plan")(plan)
        parts[model_file.PLAN] = json.dumps(plan).encode()
    for name, value in changes.items():
        parts[getattr(model_file, name.upper())] = value
    return write(
        model_file.MAGIC,
        model_file.VERSION,
        [Section(kind, parts[kind]) for kind in sorted(parts)],
    )


def refused(data: bytes, match: str | None = None) -> str:
    with pytest.raises(FileFormatError, match=match) as info:
        load_model_bytes(data)
    message = str(info.value)
    assert message.startswith("model file: "), message
    return message


# -- sound models --------------------------------------------------------------------


def test_the_rich_model_runs_exactly() -> None:
    model = load_model_bytes(model_bytes("rich"))
    rng = np.random.default_rng(5)
    for _ in range(2):
        x = rng.standard_normal(RICH_N).astype(np.float32)
        y = rng.standard_normal(RICH_N).astype(np.float32)
        outputs = [Tensor(np.zeros(RICH_N, np.float32)) for _ in range(2)]
        model.execute([Tensor(x), Tensor(y)], outputs)
        for got, want in zip(outputs, rich_expected(x, y)):
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-5)


def test_the_rich_model_uses_every_section() -> None:
    parts = sections(model_bytes("rich"))
    assert sorted(parts) == [1, 2, 3, 4, 5, 6]
    plan = json.loads(parts[model_file.PLAN])
    assert plan["tasks"] == 4 and plan["const_sizes"] == [4 * RICH_N]
    assert len(plan["workspace_sizes"]) == 2  # one per ScaleCustom
    assert len(plan["kernel_sha256"]) == 3  # add, scale, sum_n: once each
    assert all(len(p) > 0 for p in parts.values())


def compile_in_subprocess(which: str) -> bytes:
    script = (
        "import sys; sys.path.insert(0, 'tests/offline')\n"
        "from models import model_bytes\n"
        f"sys.stdout.buffer.write(model_bytes({which!r}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "ASCEND_CUSTOM_OPP_PATH"}
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout


def test_compiling_twice_gives_the_same_bytes() -> None:
    """No address, time or order of the compiling process is in the file."""
    from models import load_op_modules, rich_graph

    from ge.offline import compile_model

    load_op_modules()
    first = compile_model(rich_graph())
    assert compile_model(rich_graph()) == first
    assert compile_in_subprocess("rich") == first


# -- damage --------------------------------------------------------------------------


def boundaries(data: bytes) -> list[int]:
    count = len(table(data))
    cuts = {0, 1, 7, 8, HEADER.size, len(data) - 1}
    cuts |= {HEADER.size + ENTRY.size * i for i in range(count + 1)}
    cuts.add(HEADER.size + ENTRY.size * count + 4)
    for _, _, offset, length in table(data):
        cuts |= {offset, offset + 1, offset + length // 2, offset + length - 1}
    return sorted(c for c in cuts if c < len(data))


@pytest.mark.parametrize("which", ["add", "rich"])
def test_truncated_at_every_boundary(which: str) -> None:
    data = model_bytes(which)
    cuts = boundaries(data)
    assert len(cuts) > 20
    for cut in cuts:
        refused(data[:cut])


@pytest.mark.parametrize("which", ["add", "rich"])
def test_a_flipped_byte_in_every_section(which: str) -> None:
    data = model_bytes(which)
    header_end = HEADER.size + ENTRY.size * len(table(data)) + 4
    positions = list(range(header_end))  # every byte of header and table
    for _, _, offset, length in table(data):
        if length:  # the add model has no constants
            positions += [offset, offset + length // 2, offset + length - 1]
    for position in positions:
        for mask in (0x01, 0x80):
            bad = bytearray(data)
            bad[position] ^= mask
            refused(bytes(bad))


def test_wrong_magic_and_versions() -> None:
    data = model_bytes("add")
    assert "wrong magic" in refused(b"GECPUAIR" + data[8:])
    assert "wrong magic" in refused(b"\x7fELF" + data[4:])
    parts = sections(data)
    for version, message in (
        (
            model_file.VERSION + 1,
            f"format version {model_file.VERSION + 1} is newer than this runtime reads",
        ),
        (0, "format version 0 does not exist"),
    ):
        rewritten = write(
            model_file.MAGIC, version, [Section(k, parts[k]) for k in sorted(parts)]
        )
        assert message in refused(rewritten)
    # A damaged version field is damage, not a newer file.
    flipped = data[:8] + struct.pack("<I", model_file.VERSION + 1) + data[12:]
    assert "header checksum mismatch" in refused(flipped)
    assert "too short" in refused(b"")


def test_oversized_length_fields() -> None:
    data = model_bytes("add")
    # The section count and a section length, with the header checksum right.
    head = bytearray(data)
    struct.pack_into("<I", head, 12, 1 << 30)
    assert "claims 1073741824 sections" in refused(bytes(head))
    count = len(table(data))
    for field_offset, message in ((8, "starts at"), (16, "lies outside the file")):
        bad = bytearray(data)  # the first entry's offset, then its length
        struct.pack_into("<Q", bad, HEADER.size + field_offset, (1 << 64) - 1)
        end = HEADER.size + ENTRY.size * count
        struct.pack_into("<I", bad, end, zlib.crc32(bytes(bad[:end])))
        assert message in refused(bytes(bad))
    # A kernel binary's own length field.
    kernels = sections(data)[model_file.KERNELS]
    huge = struct.pack("<Q", (1 << 63)) + kernels[8:]
    assert "claims" in refused(rebuild(data, kernels=huge))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda p: p.update(arena_size=1 << 40), "arena_size must be an integer"),
        (lambda p: p.update(arena_size=-1), "arena_size must be an integer"),
        (lambda p: p.update(arena_size=True), "arena_size must be an integer"),
        (lambda p: p.update(tasks=1 << 30), "tasks must be an integer"),
        (lambda p: p.update(tasks=2), "the tasks section holds"),
        (lambda p: p.update(slots=0), "the slot table holds"),
        (lambda p: p.update(bindings=0), "the bindings section holds"),
        (
            lambda p: p.update(workspace_sizes=[1 << 34] * 3),
            "more memory than a model may use",
        ),
        (lambda p: p["inputs"][0].update(nbytes=1 << 40), "nbytes must be"),
        (lambda p: p["inputs"][0].update(shape=[1]), "does not match a DT_FLOAT"),
        (lambda p: p["outputs"][0].update(dtype="DT_INT8"), "does not match a DT_INT8"),
        (lambda p: p["inputs"][0].update(shape=[1 << 33] * 4), "does not match"),
        (lambda p: p["inputs"][0].update(dtype="DT_NOPE"), "unknown dtype"),
        (lambda p: p["inputs"][0]["shape"].extend([1] * 40), "at most 32 dims"),
        (lambda p: p["kernel_sha256"].__setitem__(0, "0" * 64), "does not match"),
        (lambda p: p.update(kernel_names=[]), "names a kernel that is not in"),
        (lambda p: p.update(kernel_names=["no_such"]), "no_such"),
        (lambda p: p.update(output_copies=[[0, 99, 0, 4]]), "output copy 0"),
        (lambda p: p.update(const_sizes=[4]), "constants section does not match"),
        (
            lambda p: p["outputs"][0].update(nbytes=4, shape=[1]),
            "kernel add_custom argument 2 reaches 32768 bytes, its buffer has 4",
        ),
        (lambda p: p.pop("kernel_names"), "kernel_names must be a list"),
        (lambda p: p.update(inputs=5), "inputs must be a list"),
        (lambda p: p.pop("outputs"), "outputs must be a list"),
        (lambda p: p.update(output_copies={}), "output_copies must be a list"),
    ],
)
def test_inconsistent_plans(edit: Any, message: str) -> None:
    refused(rebuild(model_bytes("add"), plan=edit), message)


def test_tasks_and_bindings_are_checked_against_the_tables() -> None:
    data = model_bytes("add")
    tasks = sections(data)[model_file.TASKS]
    binary, name, block_dim, first, count = struct.unpack("<IIIII", tasks)

    def task(*fields: int) -> bytes:
        return struct.pack("<IIIII", *fields)

    refused(rebuild(data, tasks=task(binary, name, 0, first, count)), "block_dim 0")
    refused(
        rebuild(data, tasks=task(binary, name, block_dim + 1, first, count)),
        "reaches",
    )
    refused(
        rebuild(data, tasks=task(binary, name, block_dim, first + 1, count)),
        "beyond the slot table",
    )
    refused(
        rebuild(data, tasks=task(binary, name, block_dim, first, count - 1)),
        "takes 3 argument",
    )
    bindings = sections(data)[model_file.BINDINGS]
    slot, buffer, offset = struct.unpack_from("<IIQ", bindings)
    rest = bindings[16:]
    refused(
        rebuild(data, bindings=struct.pack("<IIQ", slot, 99, offset) + rest),
        "names a slot or buffer",
    )
    refused(
        rebuild(data, bindings=struct.pack("<IIQ", slot, buffer, 1 << 40) + rest),
        "points beyond its buffer",
    )
    refused(
        rebuild(data, bindings=bindings[:16] + bindings[:16] + bindings[32:]),
        "binds slot 0 a second time",
    )
    # The output pointer bound to the caller's input: a kernel never writes it.
    out_slot, _, out_offset = struct.unpack_from("<IIQ", bindings, 32)
    message = refused(
        rebuild(
            data, bindings=bindings[:32] + struct.pack("<IIQ", out_slot, 1, out_offset)
        )
    )
    assert message == (
        "model file: task 0: argument 2 of add_custom is out, but the file binds it "
        "to a graph input buffer (kernels never write their inputs)"
    )
    # A constant is read only too, and a workspace argument takes only a workspace.
    rich = model_bytes("rich")
    model = model_file.decode(rich)
    layout = model.layout
    const = layout.index(BufferKind.CONST, 0)
    workspace = layout.index(BufferKind.WORKSPACE, 0)

    def rebound(slot: int, buffer: int) -> bytes:
        records = [
            (s, buffer if s == slot else b, 0 if s == slot else o)
            for s, b, o in model.bindings
        ]
        return rebuild(
            rich, bindings=b"".join(struct.pack("<IIQ", *r) for r in records)
        )

    add_out = model.tasks[0][3] + 2  # AnnotatedAddCustom's output slot
    assert refused(rebound(add_out, const)) == (
        "model file: task 0: argument 2 of add_custom is out, but the file binds it "
        "to a constant buffer (kernels never write their inputs)"
    )
    (scratch,) = [s for s, b, _ in model.bindings if b == workspace]
    task = next(i for i, t in enumerate(model.tasks) if t[3] <= scratch < t[3] + t[4])
    argument = scratch - model.tasks[task][3]
    assert refused(rebound(scratch, layout.index(BufferKind.ARENA, 0))) == (
        f"model file: task {task}: argument {argument} of scale_custom is workspace, "
        "but the file binds it to an arena buffer (a workspace argument takes only "
        "a workspace)"
    )
    # An address slot left unbound: the kernel would get a null pointer.
    plan_fix = lambda p: p.update(bindings=p["bindings"] - 1)  # noqa: E731
    refused(rebuild(data, bindings=rest, plan=plan_fix), "binds no buffer")


def with_kernel(data: bytes, binary: bytes) -> bytes:
    digest = hashlib.sha256(binary).hexdigest()
    return rebuild(
        data,
        kernels=struct.pack("<Q", len(binary)) + binary,
        plan=lambda p: p["kernel_sha256"].__setitem__(0, digest),
    )


def test_files_larger_than_a_model_may_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The limit, lowered so a real file exceeds it: bytes and paths alike
    are refused before their contents are read."""
    from ge.offline.model import load_model

    path = tmp_path / "add.om"
    path.write_bytes(model_bytes("add"))
    monkeypatch.setattr(model_file, "MAX_FILE_BYTES", 100)
    refused(model_bytes("add"), "bytes is more than a model file may hold")
    with pytest.raises(FileFormatError, match="more than a model file may hold"):
        load_model(path)


def test_a_kernel_section_that_is_not_a_shared_object() -> None:
    data = model_bytes("add")
    for binary in (b"", b"not an ELF file at all", b"\x7fELF" + b"\0" * 60):
        refused(with_kernel(data, binary), "kernel binary 0")


def test_kernel_binaries_that_would_run_code_on_load_are_refused() -> None:
    constructor = build_kernel(
        '#include "ge_kernel.h"\n'
        "static int hits;\n"
        "__attribute__((constructor)) static void boom(void) { hits++; }\n"
        "GE_KERNEL(add_custom, GE_IN(float, GE_PER_BLOCK(1024)),\n"
        "          GE_IN(float, GE_PER_BLOCK(1024)), GE_OUT(float, GE_PER_BLOCK(1024)))"
        " { (void)args; (void)block_idx; (void)block_dim; }\n",
        name="ctor_kernel",
    )
    refused(with_kernel(model_bytes("add"), constructor), "kernel binary 0")


def test_a_kernel_whose_declaration_does_not_fit_the_task() -> None:
    """A binary that loads but declares other arguments than the task has."""
    other = build_kernel(
        '#include "ge_kernel.h"\n'
        "GE_KERNEL(add_custom, GE_OUT(float, GE_PER_BLOCK(4096))) {\n"
        "  (void)args; (void)block_idx; (void)block_dim; }\n",
        name="other_kernel",
    )
    refused(with_kernel(model_bytes("add"), other), "takes 1 argument")


# -- fuzzing -------------------------------------------------------------------------

FUZZ = r"""
import json, random, struct, sys, zlib
sys.path.insert(0, "tests/offline")
import numpy as np
from ge._container import FileFormatError
from ge.graph import Tensor
from ge.offline.model import load_model_bytes

data = open(sys.argv[1], "rb").read()
rng = random.Random(int(sys.argv[2]))
iterations = int(sys.argv[3])
HEADER, ENTRY = struct.Struct("<8sIIQ"), struct.Struct("<IIQQ")
count = HEADER.unpack_from(data, 0)[2]
entries = [ENTRY.unpack_from(data, HEADER.size + ENTRY.size * i) for i in range(count)]
EXTREMES = [0, 1, 0x7F, 0xFF, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 1 << 32, (1 << 63), (1 << 64) - 1]

def fix_checksums(buf):
    # Recompute every CRC so the mutation reaches the checks behind them.
    end = HEADER.size + ENTRY.size * count
    for i, (kind, _, off, n) in enumerate(entries):
        if off + n <= len(buf):
            struct.pack_into("<I", buf, HEADER.size + ENTRY.size * i + 4,
                             zlib.crc32(bytes(buf[off:off + n])))
    if end + 4 <= len(buf):
        struct.pack_into("<I", buf, end, zlib.crc32(bytes(buf[:end])))

def mutate(buf):
    kind = rng.randrange(6)
    if kind == 0:  # flip bits
        for _ in range(rng.randint(1, 8)):
            buf[rng.randrange(len(buf))] ^= 1 << rng.randrange(8)
    elif kind == 1:  # truncate
        del buf[rng.randrange(len(buf)):]
    elif kind == 2:  # insert junk
        at = rng.randrange(len(buf))
        buf[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    elif kind == 3 and len(buf) > 8:  # an extreme integer at an aligned place
        size = rng.choice([4, 8])
        at = rng.randrange(0, len(buf) - size, size)
        buf[at:at + size] = (rng.choice(EXTREMES) % (1 << (8 * size))).to_bytes(size, "little")
    elif kind == 4:  # a digit of the plan changed
        off, n = entries[0][2], entries[0][3]
        digits = [i for i in range(off, min(off + n, len(buf))) if chr(buf[i]).isdigit()]
        if digits:
            buf[rng.choice(digits)] = ord(rng.choice("0123456789"))
    else:  # a byte of a binary section replaced
        off, n = rng.choice(entries[1:])[2:]
        if 0 < n and off + n <= len(buf):
            buf[off + rng.randrange(n)] = rng.randrange(256)
    if rng.random() < 0.7:
        fix_checksums(buf)

outcomes = {"refused": 0, "loaded": 0, "ran": 0}
messages = set()
for _ in range(iterations):
    buf = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        if buf:
            mutate(buf)
    try:
        model = load_model_bytes(bytes(buf))
    except FileFormatError as exc:
        outcomes["refused"] += 1
        messages.add(str(exc).split(":")[1].strip()[:40])
        continue
    outcomes["loaded"] += 1
    # Tensors as the model describes them (a mutated description included).
    ins = [Tensor(data_type=model.get_input_data_type(i), shape=model.get_input_dims(i))
           for i in range(model.get_num_inputs())]
    outs = [Tensor(data_type=model.get_output_data_type(j), shape=model.get_output_dims(j))
            for j in range(model.get_num_outputs())]
    try:
        model.execute(ins, outs)
        outcomes["ran"] += 1
    except (ValueError, TypeError):
        pass  # descriptions changed so that these buffers do not fit
outcomes["distinct_messages"] = len(messages)
print(json.dumps(outcomes))
"""


@pytest.mark.parametrize("which", ["add", "rich"])
def test_seeded_mutations_never_crash(which: str, tmp_path: Path) -> None:
    """Each mutant is refused with FileFormatError, or loads and runs; the
    subprocess must end cleanly (no crash, no hang, no other exception)."""
    path = tmp_path / f"{which}.om"
    path.write_bytes(model_bytes(which))
    iterations = int(os.environ.get("GE_FUZZ_ITERATIONS", "5000"))
    result = subprocess.run(
        [sys.executable, "-c", FUZZ, str(path), "20261202", str(iterations)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    outcomes = json.loads(result.stdout)
    assert outcomes["refused"] + outcomes["loaded"] == iterations
    assert outcomes["refused"] > iterations // 2
    # The mutations reach many different checks, not only the checksums.
    assert outcomes["distinct_messages"] >= 15, outcomes
