"""Foreign libraries in model files: ge-atc stores each portable op's
payload (its ``serialize``), and loading restores the libraries from it
with the runtime's own reader (Note [Portable payload] in
``ge.device.portable``), so a model runs with no Python of the op.

Compile side: for each op type with foreign calls, ge-atc calls the
implementation's ``serialize()`` (an implementation without one gets the
default: every library it launched, keyed by digest), checks the payload
with the reader the loader uses, finds the entry holding each launched
library (by content), and calls ``deserialize`` on a fresh instance of the
implementation, so a custom serialize/deserialize pair that disagrees fails
at compile time rather than at load.

Load side: opening a model checks each payload (``check_payloads``:
decoded, and every library foreign calls name read by the ELF reader) and
runs nothing; its first execute restores each payload all or nothing
(``restore_addresses``: only the entries that foreign calls name are
loaded, their constructors probed first, Note [Constructor probe] in
``ge.device.foreign``) and every foreign call's address slot receives its
function's address in this process. Errors name the op and the payload.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from ge._container import FileFormatError
from ge.device import foreign as foreign_registry
from ge.device import portable
from ge.engine.errors import CompileError
from ge.engine.tasks import ForeignCall

Foreign = tuple[int, int, str, str]  # (slot, payload, key, function)


def _payload(op_type: str, calls: Sequence[ForeignCall]) -> bytes:
    owner = calls[0].owner
    serialize = getattr(owner, "serialize", None)
    if serialize is None:
        return portable.encode({c.library.digest: c.library.data for c in calls})
    try:
        payload = serialize()
    except Exception as exc:
        raise CompileError(
            f"op {op_type}: serialize failed: {type(exc).__name__}: {exc}"
        ) from exc
    if not isinstance(payload, (bytes, bytearray)):
        raise CompileError(
            f"op {op_type}: serialize must return bytes, got {type(payload).__name__}"
        )
    return bytes(payload)


def _round_trip(op_type: str, owner: object, payload: bytes) -> None:
    """``deserialize`` on a fresh instance, when the implementation has one."""
    if getattr(owner, "deserialize", None) is None:
        return
    try:
        type(owner)().deserialize(payload)  # type: ignore[attr-defined]
    except Exception as exc:
        raise CompileError(
            f"op {op_type}: deserialize of its own serialize() failed: "
            f"{type(exc).__name__}: {exc}; make the two agree"
        ) from exc


def portable_parts(
    calls: Sequence[ForeignCall],
) -> tuple[tuple[str, ...], tuple[bytes, ...], tuple[Foreign, ...]]:
    """(op types, payloads, foreign records) of a compiled graph's foreign
    calls; CompileError naming the op if its payload cannot serve them."""
    by_op: dict[str, list[ForeignCall]] = {}
    for call in calls:
        by_op.setdefault(call.op_type, []).append(call)
    ops, payloads, records = [], [], []
    for index, (op_type, op_calls) in enumerate(by_op.items()):
        payload = _payload(op_type, op_calls)
        try:
            entries = portable.decode(payload)
        except portable.PortableFormatError as exc:
            raise CompileError(
                f"op {op_type}: serialize wrote a bad payload: {exc}"
            ) from None
        by_digest = {hashlib.sha256(v).hexdigest(): k for k, v in entries.items()}
        for call in op_calls:
            key = by_digest.get(call.library.digest)
            if key is None:
                raise CompileError(
                    f"op {op_type}: serialize() holds no entry with the library "
                    f"the graph launches (sha256 {call.library.digest[:16]}...); "
                    "serialize every library add_library kept"
                )
            records.append((call.slot, index, key, call.function))
        _round_trip(op_type, op_calls[0].owner, payload)
        ops.append(op_type)
        payloads.append(payload)
    return tuple(ops), tuple(payloads), tuple(records)


def _calls_of(
    ops: Sequence[str], foreign: Sequence[Foreign], index: int, what: str
) -> tuple[str, list[Foreign], str]:
    """(where payload ``index`` is, in messages; the foreign records that
    name it; the one function they call)."""
    op = ops[index] if index < len(ops) else "?"
    where = f"{what}: op {op}: portable payload {index}"
    mine = [f for f in foreign if f[1] == index]
    functions = {f[3] for f in mine}
    if len(functions) > 1:
        raise FileFormatError(f"{where} is called through more than one function name")
    return where, mine, functions.pop() if functions else "call"


def check_payloads(
    ops: Sequence[str],
    payloads: Sequence[bytes],
    foreign: Sequence[Foreign],
    what: str,
) -> int:
    """Check every payload foreign calls name, and each library they call,
    loading none and running nothing; the number of libraries.
    FileFormatError naming the op and payload if one is refused."""
    count = 0
    for index, payload in enumerate(payloads):
        where, mine, function = _calls_of(ops, foreign, index, what)
        if not mine:
            continue
        try:
            count += len(portable.check(payload, function, [f[2] for f in mine]))
        except portable.PortableFormatError as exc:
            raise FileFormatError(f"{where}: {exc}") from None
    return count


def restore_addresses(
    ops: Sequence[str],
    payloads: Sequence[bytes],
    foreign: Sequence[Foreign],
    slots: list[int],
    what: str,
) -> int:
    """Restore the libraries foreign calls name and write each function's
    address into its slot; the number of libraries restored.
    FileFormatError naming the op and payload if a payload or library is
    refused, its constructors included (nothing stays registered)."""
    with foreign_registry.lock():
        before = foreign_registry.loaded_digests()
        try:
            return _restore(ops, payloads, foreign, slots, what)
        except BaseException:
            foreign_registry.forget(foreign_registry.loaded_digests() - before)
            raise


def _restore(
    ops: Sequence[str],
    payloads: Sequence[bytes],
    foreign: Sequence[Foreign],
    slots: list[int],
    what: str,
) -> int:
    count = 0
    for index, payload in enumerate(payloads):
        where, mine, function = _calls_of(ops, foreign, index, what)
        if not mine:
            continue
        try:
            libraries = portable.restore(payload, function, [f[2] for f in mine])
        except portable.PortableFormatError as exc:
            raise FileFormatError(f"{where}: {exc}") from None
        for slot, _, key, name in mine:
            slots[slot] = libraries[key].function(name)
        count += len(libraries)
    return count
