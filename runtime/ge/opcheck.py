"""``opcheck``: properties every registered op with a reference must have.

Given an op type, cases (inputs as numpy arrays, attrs) and a reference
(a function of the inputs and attrs giving the outputs), ``opcheck`` builds
a one-node graph per case with the op's generated ``ge.es`` builder and
checks (docs/opcheck.md, "Properties"):

- ``reference``: every output matches the reference within the tolerance
  of its dtype (mixed absolute and relative; integers and bool bit-exact;
  NaN where the reference has NaN, infinities equal);
- ``infer_meta``: each output has the shape the reference computed and the
  dtype the case expects (the dtype its type variables give);
- ``paths``: a second run, a run with every buffer reallocated (address
  refresh), runs under other block counts of the device (worker threads,
  and the core count ``compile`` sees) and, for an op whose nodes can go
  offline, a model compiled by ``ge-atc`` give the same bits;
- ``memory``: no byte written outside the outputs, the workspaces and
  the arena (guard bytes around every input and output buffer, and around
  every block of a guarding external allocator), no input modified unless
  it is a ref input, and no output depending on bytes just outside an input (the
  guards are refilled with another pattern and the outputs must not
  change);
- ``undeclared``: a dtype the op does not declare is refused when the
  graph is built or compiled, before any kernel can run;
- ``errors``: every error case raises the stated exception (and message).

Note [Declared, not run]: an op may declare GE's dtype set and compute
fewer on this device (the math library, docs/math-ops.md), refusing the
rest with a TypeError when the graph is compiled. Such a case fails as
``declared`` rather than ``reference``, so a caller can tell a documented
refusal from a wrong result (gen-ops test lists them, and fails on them
with --strict-dtypes).

The first failing property of a case is reported, with the worst error;
later properties of that case are not checked.
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ge.engine.compiler import EXECUTE_PATH
from ge.graph.types import DataType
from ge.opcheck_raw import (
    array_of,
    data_type_of,
    from_bytes,
    numeric,
    numpy_dtype_of,
    to_bytes,
    to_tensor,
)

__all__ = [
    "DEFAULT_TOLERANCE",
    "ErrorExpectation",
    "Failure",
    "OpCase",
    "OpcheckReport",
    "PROPERTIES",
    "opcheck",
    "tolerance_of",
]

PROPERTIES = ("reference", "infer_meta", "paths", "memory", "undeclared", "errors")

# Note [Default tolerance]: |actual - expected| <= atol + rtol * |expected|,
# per element; integers and bool compare bit-exact. The float rows allow a
# few ulps of the dtype at 1.0 (a kernel computing in a wider type and
# rounding once differs from numpy by at most one rounding); float16 and
# bfloat16 (and the float8 types, drawn through ml_dtypes) are computed in
# float and rounded once, so one ulp there (at 1.0: 2**-7 for bfloat16, 2**-3
# for float8_e4m3fn, 2**-2 for float8_e5m2).
DEFAULT_TOLERANCE: dict[DataType, tuple[float, float]] = {
    DataType.DT_FLOAT16: (1e-3, 1e-3),
    DataType.DT_BF16: (8e-3, 8e-3),
    DataType.DT_FLOAT8_E4M3FN: (0.125, 0.125),
    DataType.DT_FLOAT8_E5M2: (0.25, 0.25),
    DataType.DT_FLOAT: (1e-5, 1.3e-6),
    DataType.DT_DOUBLE: (1e-7, 1e-7),
    DataType.DT_COMPLEX64: (1e-5, 1.3e-6),
    DataType.DT_COMPLEX128: (1e-7, 1e-7),
}

GUARD = 64  # bytes before and after every buffer (the device's alignment)
_PATTERNS = (0xA5, 0xFF)  # 0xFF bytes: a NaN in every float type


def tolerance_of(
    dtype: DataType, table: Mapping[DataType, tuple[float, float]] | None = None
) -> tuple[float, float]:
    """(atol, rtol) of ``dtype``: ``table``'s, else the default; (0, 0) for
    integers, bool and every dtype without a row (bit-exact)."""
    if table and dtype in table:
        return table[dtype]
    return DEFAULT_TOLERANCE.get(dtype, (0.0, 0.0))


Value = np.ndarray | None | list[np.ndarray]


@dataclass(frozen=True)
class OpCase:
    """One call: inputs by name in IR order (an array; None for an absent
    optional input; a list for a dynamic one), attrs by name, and the dtype
    each output must have (None: the reference's)."""

    inputs: tuple[tuple[str, Value], ...]
    attrs: tuple[tuple[str, Any], ...] = ()
    out_dtypes: tuple[DataType, ...] | None = None
    seed: int | None = None
    consts: tuple[str, ...] = ()  # inputs given as Const nodes, not graph inputs
    counts: tuple[tuple[str, int], ...] = ()  # <output>_num arguments by name

    def describe(self) -> dict[str, Any]:
        def one(v: Value) -> Any:
            if v is None:
                return None
            if isinstance(v, list):
                return [one(x) for x in v]
            return {
                "shape": list(v.shape),
                "dtype": data_type_of(v.dtype).spec_name,
            }

        return {
            "inputs": {k: one(v) for k, v in self.inputs},
            "attrs": {k: _plain(v) for k, v in self.attrs},
            "seed": self.seed,
        }


def _plain(value: Any) -> Any:
    if isinstance(value, DataType):
        return value.spec_name
    if isinstance(value, float) and not np.isfinite(value):
        return str(value)
    return value


@dataclass(frozen=True)
class ErrorExpectation:
    """A case the op must refuse, with the exception class name (matched
    against the class and its bases) and a text its message must hold."""

    case: OpCase
    raises: str
    match: str | None = None


@dataclass(frozen=True)
class Failure:
    property: str
    case: OpCase
    message: str
    worst: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "property": self.property,
            "case": self.case.describe(),
            "message": self.message,
            "worst": self.worst,
        }


@dataclass
class OpcheckReport:
    op_type: str
    cases: int = 0
    checked: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(PROPERTIES, 0)
    )
    skipped: list[str] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def as_dict(self) -> dict[str, Any]:
        return {
            "op": self.op_type,
            "ok": self.ok,
            "cases": self.cases,
            "checked": dict(self.checked),
            "skipped": list(self.skipped),
            "failures": [f.as_dict() for f in self.failures],
        }


class _Fail(Exception):
    def __init__(self, prop: str, message: str, worst: float | None = None) -> None:
        super().__init__(message)
        self.prop = prop
        self.message = message
        self.worst = worst


# --- comparing ---------------------------------------------------------------------


def compare(
    actual: np.ndarray, expected: np.ndarray, atol: float, rtol: float
) -> tuple[bool, float, str]:
    """Whether ``actual`` matches ``expected``; the worst excess error and
    where it is. float8 and int4 arrays (ml_dtypes) compare as the float32
    and int8 values they hold."""
    actual, expected = numeric(actual), numeric(np.asarray(expected))
    if actual.dtype.kind in "biu" or (atol == 0 and rtol == 0):
        want = expected.astype(actual.dtype)
        same = actual == want
        if actual.dtype.kind in "fc":
            same = same | (np.isnan(actual) & np.isnan(want))
        flat = np.asarray(~same).reshape(-1)
        if not flat.any():
            return True, 0.0, ""
        i = int(np.argmax(flat))
        got, exp = actual.reshape(-1)[i].item(), want.reshape(-1)[i].item()
        return (
            False,
            float("inf"),
            f"element {i}: got {got!r}, expected {exp!r} (bit-exact)",
        )
    a = actual.astype(np.complex128 if actual.dtype.kind == "c" else np.float64)
    e = expected.astype(a.dtype)
    nan_a, nan_e = np.isnan(a), np.isnan(e)
    inf_e = np.isinf(e)
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(a - e)
        limit = atol + rtol * np.abs(e)
        excess = np.where(nan_a | nan_e | inf_e, 0.0, err - limit)
    wrong = (
        (nan_a != nan_e) | (inf_e & (a != e)) | (np.isinf(a) & ~inf_e) | (excess > 0)
    )
    worst = float(
        np.max(np.where(nan_a | nan_e | np.isinf(a) | inf_e, 0.0, err), initial=0.0)
    )
    flat = wrong.reshape(-1)
    if not flat.any():
        return True, worst, ""
    i = int(np.argmax(flat))
    if not (np.isfinite(a.reshape(-1)[i]) and np.isfinite(e.reshape(-1)[i])):
        worst = float("inf")  # a NaN or infinity where the other has none
    return (
        False,
        worst,
        f"element {i}: got {a.reshape(-1)[i].item()!r}, expected {e.reshape(-1)[i].item()!r} "
        f"(atol {atol}, rtol {rtol})",
    )


def _expected(reference: Callable[..., Any], case: OpCase) -> list[np.ndarray]:
    args = [
        (
            [x.copy() for x in v]
            if isinstance(v, list)
            else (None if v is None else v.copy())
        )
        for _, v in case.inputs
    ]
    attrs = {
        k: (numpy_dtype_of(v) if isinstance(v, DataType) else v) for k, v in case.attrs
    }
    with np.errstate(all="ignore"):
        result = reference(*args, **attrs)
    items = list(result) if isinstance(result, (tuple, list)) else [result]
    return [np.asarray(r) for r in items]


# --- running ----------------------------------------------------------------------


def _builder_function(op_type: str, module: str) -> Callable[..., Any]:
    import importlib

    es = importlib.import_module(f"ge.es.{module}")
    fn: Callable[..., Any] = getattr(es, op_type)
    return fn


def _graph(
    fn: Callable[..., Any], case: OpCase, name: str
) -> tuple[Any, list[np.ndarray]]:
    """A graph with one node of the op; its inputs (flattened) in order."""
    from ge.es import GraphBuilder

    builder = GraphBuilder(name)
    arrays: list[np.ndarray] = []
    args: list[Any] = []

    def data(array: np.ndarray) -> Any:
        holder = builder.create_input(
            len(arrays),
            data_type=data_type_of(array.dtype),
            shape=list(array.shape),
        )
        arrays.append(array)
        return holder

    for input_name, value in case.inputs:
        if value is None:
            args.append(None)
        elif input_name in case.consts:
            from ge.graph import Tensor

            args.append(builder.create_const(Tensor(value)))
        elif isinstance(value, list):
            args.append([data(v) for v in value])
        else:
            args.append(data(value))
    extra = {} if arrays else {"owner_graph_builder": builder}  # no input to own it
    result = fn(*args, *(n for _, n in case.counts), **dict(case.attrs), **extra)
    outputs = _flatten(result)
    return builder.build_and_reset(outputs), arrays


def _flatten(result: Any) -> list[Any]:
    if isinstance(result, (list, tuple)):
        return [h for item in result for h in _flatten(item)]
    return [result]


class _Guarded:
    """A tensor in the middle of a device buffer with GUARD bytes each side."""

    def __init__(self, shape: Sequence[int], dtype: DataType, nbytes: int) -> None:
        from ge.device.memory import DeviceBuffer, DeviceView
        from ge.graph.tensor import wrap_buffer

        self.owner = DeviceBuffer(nbytes + 2 * GUARD)
        self.nbytes = nbytes
        view = DeviceView(self.owner, self.owner.addr + GUARD, nbytes)
        self.tensor = wrap_buffer(view, shape, dtype)

    def fill_guards(self, pattern: int) -> None:
        self.owner.array[:GUARD] = pattern
        self.owner.array[GUARD + self.nbytes :] = pattern

    def guards_hold(self, pattern: int) -> bool:
        a = self.owner.array
        return bool(
            (a[:GUARD] == pattern).all() and (a[GUARD + self.nbytes :] == pattern).all()
        )

    def body(self) -> np.ndarray:
        return self.owner.array[GUARD : GUARD + self.nbytes].copy()


def _guarded_like(array: np.ndarray) -> _Guarded:
    data = to_bytes(array)
    g = _Guarded(array.shape, data_type_of(array.dtype), len(data))
    g.owner.array[GUARD : GUARD + len(data)] = np.frombuffer(data, np.uint8)
    return g


def _guarded_output(out: np.ndarray) -> _Guarded:
    """A guarded buffer for an output like ``out`` (its tensor's bytes)."""
    return _Guarded(out.shape, data_type_of(out.dtype), len(to_bytes(out)))


class _GuardedAllocator:
    """An external allocator (``ge.allocator.Allocator``) whose every block
    (the run's arena and the workspaces its launches and execute callbacks
    take) has GUARD bytes of ``pattern`` on each side; ``broken`` lists the
    blocks whose guards changed, checked when a block is freed and by
    ``check``."""

    def __new__(cls, pattern: int) -> Any:
        from ge.allocator import Allocator, MemBlock
        from ge.device import rt

        class Guarded(Allocator):
            def __init__(self) -> None:
                self.pattern = pattern
                self.live: dict[int, tuple[int, int]] = {}  # addr -> (base, size)
                self.broken: list[str] = []

            def malloc(self, size: int) -> MemBlock:
                base = rt.malloc(size + 2 * GUARD)
                ctypes.memset(base, self.pattern, size + 2 * GUARD)
                self.live[base + GUARD] = (base, size)
                return MemBlock(base + GUARD, size)

            def _check(self, addr: int) -> None:
                base, size = self.live[addr]
                want = bytes([self.pattern]) * GUARD
                before = ctypes.string_at(base, GUARD)
                after = ctypes.string_at(addr + size, GUARD)
                where = f"{size}-byte block at 0x{addr:x}"
                if (before != want or after != want) and where not in self.broken:
                    self.broken.append(where)

            def check(self) -> None:
                for addr in list(self.live):
                    self._check(addr)

            def free(self, block: MemBlock) -> None:
                self._check(block.addr)
                base, _ = self.live.pop(block.addr)
                rt.free(base)

        return Guarded()


def _bits(arrays: Sequence[np.ndarray]) -> list[bytes]:
    return [np.ascontiguousarray(a).tobytes() for a in arrays]


@contextlib.contextmanager
def _device(threads: int, min_blocks: int, cores: int | None) -> Iterator[None]:
    """The device with ``threads`` pool threads, launches of ``min_blocks``
    blocks or more on the pool, and ``cores`` cores as compile sees them."""
    from ge.custom_op import contexts
    from ge.device import native

    old = (native.threads(), native.get_min_blocks(), contexts.core_count_override)
    backoff = native.set_backoff(False)
    native.set_threads(threads)
    native.set_min_blocks(min_blocks)
    contexts.core_count_override = cores
    try:
        yield
    finally:
        native.set_threads(old[0])
        native.set_min_blocks(old[1])
        native.set_backoff(backoff)
        contexts.core_count_override = old[2]


_ids = itertools.count(0x0C0000)


class _Runner:
    def __init__(
        self, op_type: str, fn: Callable[..., Any], ref_inputs: frozenset[int]
    ) -> None:
        from ge.session import Session

        self.op_type = op_type
        self.fn = fn
        self.session = Session({})
        self.ref_inputs = ref_inputs

    def run(
        self, case: OpCase, options: Mapping[str, str] | None = None
    ) -> tuple[Any, list[np.ndarray], list[np.ndarray]]:
        """One run of a new graph of ``case`` (compiled with ``options``)."""
        graph, arrays = _graph(self.fn, case, f"opcheck_{self.op_type}")
        gid = next(_ids)
        self.session.add_graph(gid, graph, options)
        try:
            outs = self.session.run_graph(gid, [to_tensor(a) for a in arrays])
        finally:
            self.session.remove_graph(gid)
        return graph, arrays, [array_of(o) for o in outs]

    def accepted_before_running(self, case: OpCase) -> bool:
        """Whether a graph of ``case`` is built and compiled (so that only
        running it could still refuse it)."""
        try:
            graph, _ = _graph(self.fn, case, f"opcheck_{self.op_type}")
        except (TypeError, ValueError):
            return False
        gid = next(_ids)
        self.session.add_graph(gid, graph)
        try:
            self.session.compile_graph(gid)
        except (TypeError, ValueError, RuntimeError):
            return False
        finally:
            self.session.remove_graph(gid)
        return True

    def guarded(
        self, graph: Any, arrays: list[np.ndarray], outs: list[np.ndarray], pattern: int
    ) -> tuple[list[np.ndarray], list[_Guarded], list[_Guarded]]:
        from ge.device import rt

        ins = [_guarded_like(a) for a in arrays]
        results = [_guarded_output(o) for o in outs]
        for g in [*ins, *results]:
            g.fill_guards(pattern)
        for g in results:  # outputs start as the pattern too: a skipped element shows
            g.owner.array[GUARD : GUARD + g.nbytes] = pattern
        gid = next(_ids)
        self.session.add_graph(gid, graph)
        stream = rt.create_stream()
        allocator = _GuardedAllocator(pattern)
        self.session.register_external_allocator(stream, allocator)
        try:
            self.session.run_graph_with_stream_async(
                gid, stream, [g.tensor for g in ins], [g.tensor for g in results]
            )
            allocator.check()
        finally:
            self.session.unregister_external_allocator(stream)
            self.session.remove_graph(gid)
            rt.destroy_stream(stream)
        if allocator.broken:
            raise _Fail(
                "memory",
                "a byte outside a workspace or the arena was written: "
                + ", ".join(allocator.broken),
            )
        got = [
            from_bytes(g.body().tobytes(), o.shape, o.dtype)
            for g, o in zip(results, outs)
        ]
        return got, ins, results

    def refreshed(
        self, graph: Any, arrays: list[np.ndarray], outs: list[np.ndarray]
    ) -> list[list[bytes]]:
        """The outputs' bits of REFRESH_ROUNDS runs of one compiled graph,
        each with every input and output in new buffers, allocated in a
        shuffled order after a spacer of random size; the buffers of the
        runs before stay allocated with their bytes overwritten (0xFF, a NaN
        in every float type), so an address kept from an earlier run (a
        launch argument not refreshed) reads other values."""
        from ge.device import rt
        from ge.device.memory import DeviceBuffer

        rng = np.random.default_rng(len(arrays) * 7919 + len(outs))
        gid = next(_ids)
        self.session.add_graph(gid, graph)
        stream = rt.create_stream()
        kept: list[Any] = []
        bits: list[list[bytes]] = []
        try:
            for _ in range(REFRESH_ROUNDS):
                kept.append(DeviceBuffer(int(rng.integers(1, 16)) * GUARD))
                order = rng.permutation(len(arrays) + len(outs))
                made: dict[int, _Guarded] = {}
                for k in order:
                    if k < len(arrays):
                        made[int(k)] = _guarded_like(arrays[k])
                    else:
                        made[int(k)] = _guarded_output(outs[k - len(arrays)])
                ins = [made[k] for k in range(len(arrays))]
                results = [made[len(arrays) + j] for j in range(len(outs))]
                self.session.run_graph_with_stream_async(
                    gid, stream, [g.tensor for g in ins], [g.tensor for g in results]
                )
                rt.synchronize_stream(stream)
                bits.append(
                    [
                        _bits([from_bytes(g.body().tobytes(), o.shape, o.dtype)])[0]
                        for g, o in zip(results, outs)
                    ]
                )
                for g in made.values():
                    g.owner.array[:] = 0xFF
                kept.extend(made.values())
        finally:
            self.session.remove_graph(gid)
            rt.destroy_stream(stream)
        return bits


REFRESH_ROUNDS = 3


def _check_case(
    runner: _Runner,
    case: OpCase,
    reference: Callable[..., Any],
    table: Mapping[DataType, tuple[float, float]] | None,
    props: frozenset[str],
    offline: bool,
    both: bool,
    block_counts: Sequence[int],
    report: OpcheckReport,
) -> None:
    try:
        graph, arrays, outs = runner.run(case)
    except Exception as exc:
        if _raises(exc, "TypeError", None):  # Note [Declared, not run]
            raise _Fail("declared", f"refused: {exc}") from None
        raise
    try:
        expected = _expected(reference, case)
    except Exception as exc:
        raise _Fail(
            "reference", f"the reference raised {type(exc).__name__}: {exc}"
        ) from None
    if "infer_meta" in props:
        report.checked["infer_meta"] += 1
        if len(outs) != len(expected):
            raise _Fail(
                "infer_meta",
                f"{len(outs)} output(s), the reference gives {len(expected)}",
            )
        for j, (o, e) in enumerate(zip(outs, expected)):
            want = case.out_dtypes[j] if case.out_dtypes else data_type_of(e.dtype)
            got_dtype = data_type_of(o.dtype)
            if tuple(o.shape) != tuple(e.shape) or got_dtype != want:
                raise _Fail(
                    "infer_meta",
                    f"output {j} is {got_dtype.spec_name}{list(o.shape)}, "
                    f"expected {want.spec_name}{list(e.shape)}",
                )
    if "reference" in props:
        report.checked["reference"] += 1
        worst_all = 0.0
        for j, (o, e) in enumerate(zip(outs, expected)):
            if o.shape != e.shape:
                raise _Fail(
                    "reference",
                    f"output {j} has shape {list(o.shape)}, expected {list(e.shape)}",
                )
            atol, rtol = tolerance_of(data_type_of(o.dtype), table)
            ok, worst, where = compare(o, e, atol, rtol)
            worst_all = max(worst_all, worst)
            if not ok:
                raise _Fail("reference", f"output {j}: {where}", worst)
    if "memory" in props:
        report.checked["memory"] += 1
        runs = []
        for pattern in _PATTERNS:
            got, ins, results = runner.guarded(graph, arrays, outs, pattern)
            for k, g in enumerate(results):
                if not g.guards_hold(pattern):
                    raise _Fail(
                        "memory", f"output {k}: a byte outside the output was written"
                    )
            for k, (g, a) in enumerate(zip(ins, arrays)):
                if not g.guards_hold(pattern):
                    raise _Fail(
                        "memory", f"input {k}: a byte outside the input was written"
                    )
                if k not in runner.ref_inputs and g.body().tobytes() != to_bytes(a):
                    raise _Fail("memory", f"input {k} was modified")
            runs.append(_bits(got))
        if runs[0] != runs[1]:
            raise _Fail(
                "memory",
                "outputs change with the bytes just outside the buffers "
                "(a read outside an input, or an output element never written)",
            )
    if "paths" in props:
        report.checked["paths"] += 1
        first = _bits(outs)
        _, _, again = runner.run(case)
        if _bits(again) != first:
            raise _Fail("paths", "a second run gave other bits")
        for k, got_bits in enumerate(runner.refreshed(graph, arrays, outs)):
            if got_bits != first:
                raise _Fail(
                    "paths",
                    f"run {k + 1} of one compiled graph with its buffers reallocated "
                    "and shuffled (address refresh) gave other bits",
                )
        if both:  # Note [Execute or declared launch]
            _, _, executed = runner.run(case, {EXECUTE_PATH: "1"})
            if _bits(executed) != first:
                raise _Fail(
                    "paths",
                    "the execute callback and the declared launch "
                    "(declare_launch_args) give other bits",
                )
        for cores in block_counts:
            for threads, min_blocks in ((1, 1 << 30), (2, 1)):
                with _device(threads, min_blocks, cores):
                    other = _Runner(runner.op_type, runner.fn, runner.ref_inputs)
                    _, _, got = other.run(case)
                if _bits(got) != first:
                    raise _Fail(
                        "paths",
                        f"with {cores} core(s) and {threads} thread(s) the outputs "
                        "have other bits",
                    )
        if offline:
            _offline(graph, arrays, outs, first)


def _offline(
    graph: Any, arrays: list[np.ndarray], outs: list[np.ndarray], first: list[bytes]
) -> None:
    from ge.offline import OfflineError, compile_model, load_model

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "op.om")
        try:
            compile_model(graph, path)
        except OfflineError:
            return  # an execute node cannot go offline (reported as skipped)
        model = load_model(path)
        results = [to_tensor(np.zeros(o.shape, o.dtype)) for o in outs]
        model.execute([to_tensor(a) for a in arrays], results)
        if _bits([array_of(r) for r in results]) != first:
            raise _Fail("paths", "the offline model (ge-atc) gave other bits")


def _raises(exc: BaseException, name: str, match: str | None) -> bool:
    """Whether ``exc``, or an exception it wraps (a CompileError names the
    callback's error as its cause), is a ``name`` whose message holds
    ``match``."""
    seen: BaseException | None = exc
    while seen is not None:
        if any(cls.__name__ == name for cls in type(seen).__mro__) and (
            match is None or match in str(seen)
        ):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def opcheck(
    op_type: str,
    cases: Iterable[OpCase],
    *,
    reference: Callable[..., Any],
    module: str = "custom",
    tolerance: Mapping[DataType, tuple[float, float]] | None = None,
    undeclared: Iterable[OpCase] = (),
    errors: Iterable[ErrorExpectation] = (),
    properties: Iterable[str] = PROPERTIES,
    block_counts: Sequence[int] = (1, 3),
    builder: Callable[..., Any] | None = None,
) -> OpcheckReport:
    """Check ``op_type`` (registered, prototype and implementation) on
    ``cases`` against ``reference``; see the module's docstring. The op's
    ``ge.es.<module>`` builder makes the nodes unless ``builder`` is given.
    Stops at the first failure of each case; returns the report."""
    from ge.custom_op.proto import get_registered_op_proto_by_op_type
    from ge.custom_op.registry import Capability, get_registered_op_impl
    from ge.ge_global import GeApi, is_initialized

    props = frozenset(properties)
    unknown = props - set(PROPERTIES)
    if unknown:
        raise ValueError(f"opcheck: unknown properties {sorted(unknown)}")
    proto = get_registered_op_proto_by_op_type(op_type)
    impl = get_registered_op_impl(op_type)
    if proto is None or impl is None:
        raise ValueError(
            f"opcheck: op '{op_type}' is not registered (prototype and implementation)"
        )
    fn = builder or _builder_function(op_type, module)
    names = [i.name for i in proto.inputs]
    ref_inputs = frozenset(
        names.index(o.ref_input) for o in proto.outputs if o.ref_input in names
    )
    launches = impl.has(Capability.DECLARE_LAUNCH_ARGS)  # runs as a declared launch
    both = launches and impl.has(Capability.EXECUTE)
    # A declared control flow runs offline as a branch step (Note [Declared
    # control flow]): the model is checked against the op's execute.
    offline = launches or impl.control_flow is not None
    report = OpcheckReport(op_type)
    if not offline and "paths" in props:
        report.skipped.append("paths/offline: the op runs through execute")
    initialised_here = not is_initialized()
    if initialised_here:
        GeApi().ge_initialize({"ge.exec.deviceId": "0", "ge.graphRunMode": "1"})
    try:
        runner = _Runner(op_type, fn, ref_inputs)
        for case in cases:
            report.cases += 1
            try:
                _check_case(
                    runner,
                    case,
                    reference,
                    tolerance,
                    props,
                    offline,
                    both,
                    block_counts,
                    report,
                )
            except _Fail as fail:
                report.failures.append(
                    Failure(fail.prop, case, fail.message, fail.worst)
                )
            except Exception as exc:  # the op raised on a case it declares valid
                report.failures.append(
                    Failure("reference", case, f"raised {type(exc).__name__}: {exc}")
                )
        if "undeclared" in props:
            for case in undeclared:
                report.checked["undeclared"] += 1
                if runner.accepted_before_running(case):
                    report.failures.append(
                        Failure(
                            "undeclared",
                            case,
                            "an undeclared dtype was accepted when the graph was "
                            "built and compiled",
                        )
                    )
        if "errors" in props:
            for want in errors:
                report.checked["errors"] += 1
                try:
                    runner.run(want.case)
                except Exception as exc:
                    if _raises(exc, want.raises, want.match):
                        continue
                    report.failures.append(
                        Failure(
                            "errors",
                            want.case,
                            f"raised {type(exc).__name__}: {exc}; expected {want.raises}"
                            + (f" matching {want.match!r}" if want.match else ""),
                        )
                    )
                    continue
                report.failures.append(
                    Failure("errors", want.case, f"ran; expected {want.raises}")
                )
    finally:
        if initialised_here:
            GeApi().ge_finalize()
    return report
