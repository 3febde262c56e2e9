"""The model file: sections of a compiled graph of annotated-args nodes.

    PLAN      JSON: name, arena size, constant and workspace sizes, graph
              inputs and outputs, output copies, kernel names and digests,
              and the counts of every table
    KERNELS   each kernel binary once (by content hash): u64 length | bytes
    TASKS     per launch: binary u32 | name u32 | block_dim u32 | first slot
              u32 | slot count u32
    SLOTS     the argument slot table: u64 per slot (scalars written; 0 where
              an address goes)
    BINDINGS  per address slot: slot u32 | buffer u32 | offset u64
    CONSTS    the constants' bytes, concatenated
    PORTABLE  (version 2, models with foreign libraries) each portable op's
              payload once: u64 length | bytes (Note [Portable payload] in
              ``ge.device.portable``)
    SUBPLANS  (version 4, models with branch steps) each branch's plan, a
              complete model file of its own: u64 length | bytes (Note
              [Branch steps in a model file])

Buffers are numbered as at run time (Note [Buffer layout] in
``ge.engine.layout``). Nothing in the file is an absolute address, so
compiling a graph twice gives the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import math
import struct
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ge._container import FileFormatError, Section, load_json, read, write
from ge.device.args import MAX_BLOCK_DIM
from ge.device.foreign import ADAPTER_PREFIX
from ge.device.isa import check_level
from ge.engine.layout import BufferKind, BufferLayout

MAGIC = b"GECPUOM\0"
VERSION = 4  # the newest this reader reads; a model without foreign calls is 1
PLAIN_VERSION = 1
PORTABLE_VERSION = 2  # foreign calls
ISA_VERSION = 3  # kernels above the baseline ISA (isa_level > 1)
BRANCH_VERSION = 4  # branch steps and their nested plans
MAX_ISA_LEVEL = 255
WHAT = "model file"

PLAN, KERNELS, TASKS, SLOTS, BINDINGS, CONSTS, PORTABLE = 1, 2, 3, 4, 5, 6, 7
SUBPLANS = 8
_TASK = struct.Struct("<IIIII")
_BINDING = struct.Struct("<IIQ")
_LENGTH = struct.Struct("<Q")

# Limits a model must respect; a file claiming more is refused before any
# memory is allocated for it.
MAX_BUFFER_BYTES = 1 << 34
MAX_TOTAL_BYTES = 1 << 35
MAX_FILE_BYTES = 1 << 32  # also what compile_model will write
MAX_ITEMS = 1 << 24
MAX_PLAN_DEPTH = (
    8  # PLAN nests five deep: {"branches": [{"selector": {"shape": [...]}}]}
)
MAX_NESTING = 8  # plans inside branch plans, below the top model


@dataclass(frozen=True)
class TensorDescription:
    name: str
    dtype: str  # DataType member name
    shape: tuple[int, ...]
    format: str  # Format member name
    nbytes: int


# Note [Branch steps in a model file]: a node whose op declares a control
# flow rule (Note [Declared control flow] in ge.custom_op.control_flow) is a
# branch step: it runs after the first ``at`` tasks (steps at the same
# place in file order), reads its selector, applies ``rule`` and runs one
# of ``plans`` (indices into SUBPLANS) on the addresses of ``inputs``,
# writing ``outputs``. Each plan is a whole model file, decoded and loaded
# with every check a model file gets; its inputs and outputs must have the
# sizes the step's places give them. Nothing here names Python.
@dataclass(frozen=True)
class BranchRecord:
    at: int  # runs after this many tasks
    rule: str  # a ControlFlow value
    node: str  # the node's name, for messages
    selector: tuple[int, int]  # (buffer, offset)
    selector_dtype: str  # DataType member name
    selector_shape: tuple[int, ...]
    inputs: tuple[tuple[int, int, int], ...]  # (buffer, offset, bytes)
    outputs: tuple[tuple[int, int, int], ...]
    plans: tuple[int, ...]


@dataclass(frozen=True)
class ModelData:
    """Everything a model file holds, decoded and checked for consistency."""

    name: str
    arena_size: int
    const_sizes: tuple[int, ...]
    workspace_sizes: tuple[int, ...]
    inputs: tuple[TensorDescription, ...]
    outputs: tuple[TensorDescription, ...]
    output_copies: tuple[
        tuple[int, int, int, int], ...
    ]  # (output, buffer, offset, bytes)
    kernel_names: tuple[str, ...]
    binaries: tuple[bytes, ...]
    tasks: tuple[tuple[int, int, int, int, int], ...]
    slots: tuple[int, ...]
    bindings: tuple[tuple[int, int, int], ...]
    consts: bytes
    # Foreign libraries (version 2): each portable op's payload, and each
    # foreign call: (its address slot, payload index, key, function).
    portable_ops: tuple[str, ...] = ()
    payloads: tuple[bytes, ...] = ()
    foreign: tuple[tuple[int, int, str, str], ...] = ()
    # The highest ISA level of the kernels (Note [ISA levels] in ge.device.isa).
    isa_level: int = 1
    # Branch steps and their plans (version 4; Note [Branch steps in a model file]).
    branches: tuple[BranchRecord, ...] = ()
    subplans: tuple[ModelData, ...] = ()

    @cached_property
    def layout(self) -> BufferLayout:
        """The run's buffers (Note [Buffer layout] in ``ge.engine.layout``)."""
        return BufferLayout(
            len(self.inputs),
            len(self.outputs),
            len(self.const_sizes),
            len(self.workspace_sizes),
        )

    def buffer_size(self, index: int) -> int:
        """Bytes of buffer ``index`` of the layout (IndexError outside it)."""
        kind, position = self.layout.locate(index)
        if kind is BufferKind.ARENA:
            return self.arena_size
        if kind is BufferKind.INPUT:
            return self.inputs[position].nbytes
        if kind is BufferKind.OUTPUT:
            return self.outputs[position].nbytes
        if kind is BufferKind.CONST:
            return self.const_sizes[position]
        return self.workspace_sizes[position]


def _describe(t: TensorDescription) -> dict[str, Any]:
    return {
        "name": t.name,
        "dtype": t.dtype,
        "shape": list(t.shape),
        "format": t.format,
        "nbytes": t.nbytes,
    }


def _branch(b: BranchRecord) -> dict[str, Any]:
    return {
        "at": b.at,
        "rule": b.rule,
        "node": b.node,
        "selector": {
            "buffer": b.selector[0],
            "offset": b.selector[1],
            "dtype": b.selector_dtype,
            "shape": list(b.selector_shape),
        },
        "inputs": [list(p) for p in b.inputs],
        "outputs": [list(p) for p in b.outputs],
        "plans": list(b.plans),
    }


def total_bytes(model: ModelData) -> int:
    """The memory loading allocates for ``model`` and every nested plan."""
    own = model.arena_size + sum(model.const_sizes) + sum(model.workspace_sizes)
    return own + sum(total_bytes(p) for p in model.subplans)


def encode(model: ModelData) -> bytes:
    plan = {
        "name": model.name,
        "arena_size": model.arena_size,
        "const_sizes": list(model.const_sizes),
        "workspace_sizes": list(model.workspace_sizes),
        "inputs": [_describe(t) for t in model.inputs],
        "outputs": [_describe(t) for t in model.outputs],
        "output_copies": [list(c) for c in model.output_copies],
        "kernel_names": list(model.kernel_names),
        "kernel_sha256": [hashlib.sha256(b).hexdigest() for b in model.binaries],
        "tasks": len(model.tasks),
        "slots": len(model.slots),
        "bindings": len(model.bindings),
    }
    if model.isa_level > 1:
        plan["isa_level"] = model.isa_level
    if model.payloads:
        plan.update(
            portable_ops=list(model.portable_ops),
            portable_sha256=[hashlib.sha256(b).hexdigest() for b in model.payloads],
            foreign=[list(f) for f in model.foreign],
        )
    sections = [
        Section(PLAN, json.dumps(plan, sort_keys=True, separators=(",", ":")).encode()),
        Section(KERNELS, b"".join(_LENGTH.pack(len(b)) + b for b in model.binaries)),
        Section(TASKS, b"".join(_TASK.pack(*t) for t in model.tasks)),
        Section(SLOTS, struct.pack(f"<{len(model.slots)}Q", *model.slots)),
        Section(BINDINGS, b"".join(_BINDING.pack(*b) for b in model.bindings)),
        Section(CONSTS, model.consts),
    ]
    version = ISA_VERSION if model.isa_level > 1 else PLAIN_VERSION
    if model.payloads:
        sections.append(
            Section(
                PORTABLE, b"".join(_LENGTH.pack(len(b)) + b for b in model.payloads)
            )
        )
        version = max(version, PORTABLE_VERSION)
    if model.branches or model.subplans:
        plan.update(
            branches=[_branch(b) for b in model.branches], subplans=len(model.subplans)
        )
        sections[0] = Section(
            PLAN, json.dumps(plan, sort_keys=True, separators=(",", ":")).encode()
        )
        nested = [encode(p) for p in model.subplans]
        sections.append(
            Section(SUBPLANS, b"".join(_LENGTH.pack(len(b)) + b for b in nested))
        )
        version = BRANCH_VERSION
    return write(MAGIC, version, sections)


# -- decoding ---------------------------------------------------------------------


def _fail(message: str) -> FileFormatError:
    return FileFormatError(f"{WHAT}: {message}")


def _int(value: Any, where: str, high: int = MAX_ITEMS) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
        raise _fail(f"{where} must be an integer in 0..{high}, got {value!r}")
    return value


def _ints(value: Any, where: str, high: int) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) > MAX_ITEMS:
        raise _fail(f"{where} must be a list")
    return tuple(_int(v, where, high) for v in value)


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise _fail(f"{where} must be a string")
    return value


def _tensor(value: Any, where: str) -> TensorDescription:
    from ge.graph.types import DataType, Format, element_bits

    if not isinstance(value, dict):
        raise _fail(f"{where} must be an object")
    dtype = _str(value.get("dtype"), where + ".dtype")
    fmt = _str(value.get("format"), where + ".format")
    if dtype not in DataType.__members__ or fmt not in Format.__members__:
        raise _fail(f"{where}: unknown dtype or format")
    shape = value.get("shape")
    if not isinstance(shape, list) or len(shape) > 32:
        raise _fail(f"{where}.shape must be a list of at most 32 dims")
    dims = tuple(_int(d, where + ".shape", MAX_BUFFER_BYTES) for d in shape)
    nbytes = _int(value.get("nbytes"), where + ".nbytes", MAX_BUFFER_BYTES)
    # The size a caller's tensor of this shape has: the kernels' bounds were
    # checked against nbytes, so the two must agree.
    bits = element_bits(DataType[dtype])
    elements = math.prod(dims)
    if bits <= 0 or elements > MAX_BUFFER_BYTES or nbytes != (elements * bits + 7) // 8:
        raise _fail(
            f"{where}: {nbytes} bytes does not match a {dtype} tensor of shape "
            f"{list(dims)}"
        )
    return TensorDescription(
        _str(value.get("name"), where + ".name"), dtype, dims, fmt, nbytes
    )


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list) or len(value) > MAX_ITEMS:
        raise _fail(f"{where} must be a list of at most {MAX_ITEMS} items")
    return value


def decode(data: bytes, depth: int = 0) -> ModelData:
    """A model file's contents; FileFormatError if anything is wrong.
    ``depth`` counts the branch plans this one is nested in."""
    if len(data) > MAX_FILE_BYTES:
        raise _fail(
            f"{len(data)} bytes is more than a model file may hold ({MAX_FILE_BYTES})"
        )
    version, sections = read(data, MAGIC, VERSION, WHAT)
    for kind in (PLAN, KERNELS, TASKS, SLOTS, BINDINGS, CONSTS):
        if kind not in sections:
            raise _fail(f"section {kind} is missing")
    # Note [Untrusted container files] (ge._container): bounded nesting and
    # integers, checked before the parser runs.
    plan = load_json(sections[PLAN], f"{WHAT}: PLAN", MAX_PLAN_DEPTH)
    if not isinstance(plan, dict):
        raise _fail("the plan section is not an object")
    isa_level = _int(plan.get("isa_level", 1), "isa_level", MAX_ISA_LEVEL)
    check_level(isa_level, WHAT)  # before any kernel is read
    const_sizes = _ints(plan.get("const_sizes"), "const_sizes", MAX_BUFFER_BYTES)
    workspace_sizes = _ints(
        plan.get("workspace_sizes"), "workspace_sizes", MAX_BUFFER_BYTES
    )
    arena_size = _int(plan.get("arena_size"), "arena_size", MAX_BUFFER_BYTES)
    inputs = tuple(
        _tensor(t, f"inputs[{i}]")
        for i, t in enumerate(_list(plan.get("inputs"), "inputs"))
    )
    outputs = tuple(
        _tensor(t, f"outputs[{i}]")
        for i, t in enumerate(_list(plan.get("outputs"), "outputs"))
    )
    if arena_size + sum(const_sizes) + sum(workspace_sizes) > MAX_TOTAL_BYTES:
        raise _fail("the model claims more memory than a model may use")
    names = _list(plan.get("kernel_names"), "kernel_names")
    digests = _list(plan.get("kernel_sha256"), "kernel_sha256")
    kernel_names = tuple(_str(n, "kernel_names") for n in names)
    binaries = _binaries(sections[KERNELS], [_str(d, "kernel_sha256") for d in digests])
    counts = {key: _int(plan.get(key), key) for key in ("tasks", "slots", "bindings")}
    tasks = _records(sections[TASKS], _TASK, counts["tasks"], "tasks")
    bindings = _records(sections[BINDINGS], _BINDING, counts["bindings"], "bindings")
    if len(sections[SLOTS]) != 8 * counts["slots"]:
        raise _fail(
            f"the slot table holds {len(sections[SLOTS])} bytes for {counts['slots']} slots"
        )
    slots = struct.unpack(f"<{counts['slots']}Q", sections[SLOTS])
    copies_raw = _list(plan.get("output_copies"), "output_copies")
    copies = tuple(
        tuple(_ints(c, "output_copies", MAX_BUFFER_BYTES)) for c in copies_raw
    )
    if any(len(c) != 4 for c in copies):
        raise _fail("output_copies entries have four fields")
    if len(sections[CONSTS]) != sum(const_sizes):
        raise _fail("the constants section does not match the constant sizes")
    model = ModelData(
        name=_str(plan.get("name"), "name"),
        arena_size=arena_size,
        const_sizes=const_sizes,
        workspace_sizes=workspace_sizes,
        inputs=inputs,
        outputs=outputs,
        output_copies=copies,  # type: ignore[arg-type]
        kernel_names=kernel_names,
        binaries=binaries,
        tasks=tasks,  # type: ignore[arg-type]
        slots=slots,
        bindings=bindings,  # type: ignore[arg-type]
        consts=sections[CONSTS],
        isa_level=max(1, isa_level),
        **_portable(plan, sections, version),
        **_branches(plan, sections, version, depth),
    )
    _check_references(model)
    _check_foreign(model)
    _check_branches(model)
    if depth == 0 and total_bytes(model) > MAX_TOTAL_BYTES:
        raise _fail(
            "the model and its branch plans claim more memory than a model may use"
        )
    return model


def _portable(plan: dict[str, Any], sections: dict[int, bytes], version: int) -> Any:
    """The version-2 fields: portable payloads and foreign calls."""
    if version < 2 or PORTABLE not in sections:
        return {}  # a foreign call's task without its library is refused later
    ops = tuple(
        _str(n, "portable_ops") for n in _list(plan.get("portable_ops"), "portable_ops")
    )
    digests = [
        _str(d, "portable_sha256")
        for d in _list(plan.get("portable_sha256"), "portable_sha256")
    ]
    if len(ops) != len(digests) or not ops:
        raise _fail("portable_ops and portable_sha256 differ in length, or are empty")
    payloads = _binaries(sections[PORTABLE], digests, "portable payload")
    foreign = []
    for i, item in enumerate(_list(plan.get("foreign"), "foreign")):
        if not isinstance(item, list) or len(item) != 4:
            raise _fail(f"foreign[{i}] must be [slot, payload, key, function]")
        slot = _int(item[0], f"foreign[{i}] slot")
        payload = _int(item[1], f"foreign[{i}] payload")
        key, function = _str(item[2], f"foreign[{i}] key"), _str(
            item[3], f"foreign[{i}] function"
        )
        if not function.isidentifier():
            raise _fail(f"foreign[{i}] function {function!r} is not a C identifier")
        foreign.append((slot, payload, key, function))
    return {"portable_ops": ops, "payloads": payloads, "foreign": tuple(foreign)}


def _check_foreign(model: ModelData) -> None:
    """Every adapter task's first slot receives a foreign function's address
    from exactly one foreign record, and every record names such a slot."""
    adapter_slots = {
        first
        for _, name, _, first, _ in model.tasks
        if model.kernel_names[name].startswith(ADAPTER_PREFIX)
    }
    bound = {slot for slot, _, _ in model.bindings}
    seen: set[int] = set()
    for i, (slot, payload, _, _) in enumerate(model.foreign):
        if slot not in adapter_slots or slot in seen or slot in bound:
            raise _fail(f"foreign call {i} names slot {slot}, no foreign call's own")
        if payload >= len(model.payloads):
            raise _fail(
                f"foreign call {i} names payload {payload}, which is not in the file"
            )
        seen.add(slot)
    if seen != adapter_slots:
        raise _fail("a foreign call's task has no library to call")


def _binaries(
    section: bytes, digests: list[str], what: str = "kernel binary"
) -> tuple[bytes, ...]:
    out = []
    at = 0
    for index, digest in enumerate(digests):
        if at + 8 > len(section):
            raise _fail(f"{what} {index} is truncated")
        (length,) = _LENGTH.unpack_from(section, at)
        at += 8
        if length > len(section) - at:
            raise _fail(f"{what} {index} claims {length} bytes; the section has fewer")
        binary = section[at : at + length]
        at += length
        if hashlib.sha256(binary).hexdigest() != digest:
            raise _fail(f"{what} {index} does not match its recorded digest")
        out.append(binary)
    if at != len(section):
        raise _fail(f"stray bytes after the last {what}")
    return tuple(out)


def _records(
    section: bytes, layout: struct.Struct, count: int, what: str
) -> tuple[tuple[int, ...], ...]:
    if len(section) != layout.size * count:
        raise _fail(
            f"the {what} section holds {len(section)} bytes for {count} records"
        )
    return tuple(layout.unpack_from(section, i * layout.size) for i in range(count))


def _check_references(model: ModelData) -> None:
    """Every index in range, every bound slot inside its buffer."""
    for i, (binary, name, block_dim, first, count) in enumerate(model.tasks):
        if binary >= len(model.binaries) or name >= len(model.kernel_names):
            raise _fail(f"task {i} names a kernel that is not in the file")
        if not 1 <= block_dim <= MAX_BLOCK_DIM:
            raise _fail(f"task {i} has block_dim {block_dim}")
        if first + count > len(model.slots):
            raise _fail(f"task {i} uses slots beyond the slot table")
    buffers = model.layout.size
    bound: set[int] = set()
    for i, (slot, buffer, offset) in enumerate(model.bindings):
        if slot >= len(model.slots) or buffer >= buffers:
            raise _fail(f"binding {i} names a slot or buffer that does not exist")
        if slot in bound:
            raise _fail(f"binding {i} binds slot {slot} a second time")
        bound.add(slot)
        if offset > model.buffer_size(buffer):
            raise _fail(f"binding {i} points beyond its buffer")
    for i, (output, buffer, offset, nbytes) in enumerate(model.output_copies):
        if output >= len(model.outputs) or buffer >= buffers:
            raise _fail(
                f"output copy {i} names an output or buffer that does not exist"
            )
        if (
            offset + nbytes > model.buffer_size(buffer)
            or nbytes != model.outputs[output].nbytes
        ):
            raise _fail(f"output copy {i} does not fit its buffers")


# -- branch steps (version 4) -------------------------------------------------------


def _places(value: Any, where: str) -> tuple[tuple[int, int, int], ...]:
    out = []
    for i, item in enumerate(_list(value, where)):
        fields = _ints(item, f"{where}[{i}]", MAX_BUFFER_BYTES)
        if len(fields) != 3:
            raise _fail(f"{where}[{i}] must be [buffer, offset, bytes]")
        out.append((fields[0], fields[1], fields[2]))
    return tuple(out)


def _branches(
    plan: dict[str, Any], sections: dict[int, bytes], version: int, depth: int
) -> Any:
    """The version-4 fields: branch steps and their plans, each plan
    decoded as a model file of its own."""
    if "branches" not in plan and "subplans" not in plan and SUBPLANS not in sections:
        return {}
    if version < BRANCH_VERSION:
        raise _fail(
            f"branch steps need format version {BRANCH_VERSION}; the file says {version}"
        )
    if depth >= MAX_NESTING:
        raise _fail(f"branch plans nest more than {MAX_NESTING} levels deep")
    if SUBPLANS not in sections:
        raise _fail(f"section {SUBPLANS} (the branch plans) is missing")
    count = _int(plan.get("subplans"), "subplans")
    section, at, subplans = sections[SUBPLANS], 0, []
    for index in range(count):
        if at + 8 > len(section):
            raise _fail(f"branch plan {index} is truncated")
        (length,) = _LENGTH.unpack_from(section, at)
        at += 8
        if length > len(section) - at:
            raise _fail(
                f"branch plan {index} claims {length} bytes; the section has fewer"
            )
        try:
            subplans.append(decode(section[at : at + length], depth + 1))
        except FileFormatError as exc:
            inner = str(exc).removeprefix(f"{WHAT}: ")
            raise _fail(f"branch plan {index}: {inner}") from None
        at += length
    if at != len(section):
        raise _fail("stray bytes after the last branch plan")
    branches = []
    for i, item in enumerate(_list(plan.get("branches"), "branches")):
        where = f"branches[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("selector"), dict):
            raise _fail(f"{where} must be an object with a selector object")
        selector = item["selector"]
        shape = selector.get("shape")
        if not isinstance(shape, list) or len(shape) > 32:
            raise _fail(f"{where}.selector.shape must be a list of at most 32 dims")
        branches.append(
            BranchRecord(
                at=_int(item.get("at"), f"{where}.at"),
                rule=_str(item.get("rule"), f"{where}.rule"),
                node=_str(item.get("node"), f"{where}.node"),
                selector=(
                    _int(selector.get("buffer"), f"{where}.selector.buffer"),
                    _int(
                        selector.get("offset"),
                        f"{where}.selector.offset",
                        MAX_BUFFER_BYTES,
                    ),
                ),
                selector_dtype=_str(selector.get("dtype"), f"{where}.selector.dtype"),
                selector_shape=tuple(
                    _int(d, f"{where}.selector.shape", MAX_BUFFER_BYTES) for d in shape
                ),
                inputs=_places(item.get("inputs"), f"{where}.inputs"),
                outputs=_places(item.get("outputs"), f"{where}.outputs"),
                plans=_ints(item.get("plans"), f"{where}.plans", MAX_ITEMS),
            )
        )
    return {"branches": tuple(branches), "subplans": tuple(subplans)}


def _check_branches(model: ModelData) -> None:
    """Every branch step's rule, selector, places and plans (Note [Branch
    steps in a model file])."""
    from ge.custom_op.control_flow import ControlFlow
    from ge.graph.types import DataType, element_bits

    last = 0
    for i, b in enumerate(model.branches):
        what = f"branch step {i} (node '{b.node}')"
        if b.rule not in ControlFlow.__members__.values():
            raise _fail(f"{what} has rule {b.rule!r}; known: if, case")
        rule = ControlFlow(b.rule)
        if not last <= b.at <= len(model.tasks):
            raise _fail(
                f"{what} runs after task {b.at}, out of order or past the tasks"
            )
        last = b.at
        if why := rule.branch_count_error(len(b.plans)):
            raise _fail(f"{what}: {why}")
        if b.selector_dtype not in DataType.__members__ or (
            DataType[b.selector_dtype] not in rule.selector_dtypes
        ):
            raise _fail(f"{what}: a {b.rule} cannot read a {b.selector_dtype} selector")
        buffer, offset = b.selector
        reads = rule.reads_selector(b.selector_shape)
        if reads and 0 in b.selector_shape:
            raise _fail(f"{what}: its selector has no elements to read")
        size = element_bits(DataType[b.selector_dtype]) // 8 if reads else 0
        if buffer >= model.layout.size or offset + size > model.buffer_size(buffer):
            raise _fail(f"{what}: its selector lies outside the buffers")
        for kind, places in (("input", b.inputs), ("output", b.outputs)):
            for k, (buffer, offset, nbytes) in enumerate(places):
                if buffer >= model.layout.size:
                    raise _fail(f"{what} {kind} {k} names a buffer that does not exist")
                where, _ = model.layout.locate(buffer)
                allowed = (
                    (BufferKind.ARENA, BufferKind.OUTPUT)
                    if kind == "output"
                    else (
                        BufferKind.ARENA,
                        BufferKind.INPUT,
                        BufferKind.OUTPUT,
                        BufferKind.CONST,
                    )
                )
                if where not in allowed:
                    raise _fail(
                        f"{what} {kind} {k} lies in a {where.name.lower()} buffer "
                        "(a branch writes only the arena and the graph outputs, and "
                        "reads no workspace)"
                    )
                if offset + nbytes > model.buffer_size(buffer):
                    raise _fail(f"{what} {kind} {k} does not fit its buffer")
        for p in b.plans:
            if p >= len(model.subplans):
                raise _fail(f"{what} names branch plan {p}, which is not in the file")
            sub = model.subplans[p]
            for kind, places, tensors in (
                ("input", b.inputs, sub.inputs),
                ("output", b.outputs, sub.outputs),
            ):
                if [n for _, _, n in places] != [t.nbytes for t in tensors]:
                    raise _fail(
                        f"{what}: branch plan {p} ('{sub.name}') {kind}s are "
                        f"{[t.nbytes for t in tensors]} bytes, the step's are "
                        f"{[n for _, _, n in places]}"
                    )
