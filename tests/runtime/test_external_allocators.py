"""External allocators (Session.register_external_allocator; Note [External
allocators] in ge/session/allocators.py): runs on the stream take their
arena, workspaces and outputs from the allocator, results match numpy, and
everything the allocator gave is handed back at unregister and at close;
misuse is a clear error, never a crash."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import numpy as np
import pytest
from _rt_support import unique
from math_harness import math_session
from op_harness import ops_registered

import ge.es._op_api as api
from ge.allocator import Allocator, AllocatorError, MemBlock, RangeAllocator
from ge.custom_op import (
    AnnotatedKernelLaunchInfo,
    get_declare_launch_args_ctx,
    register_op,
    register_op_impl,
)
from ge.device import rt
from ge.device.kernels import build_kernel
from ge.device.memory import ALIGNMENT
from ge.es import GraphBuilder
from ge.es.custom import ReduceSumCustom
from ge.graph import Graph, Tensor
from ge.runtime import Tensor as RuntimeTensor
from ge.runtime import TensorDesc
from ge.session import Session
from ge.session.allocators import StreamMemory

SHAPE = [3, 4]
RNG = np.random.default_rng(11)
A = RNG.uniform(0.5, 4, size=SHAPE).astype(np.float32)
B = RNG.uniform(0.5, 4, size=SHAPE).astype(np.float32)
WANT = (A + B) * A - B
NBYTES = A.nbytes


@pytest.fixture(autouse=True)
def _unfused(monkeypatch: pytest.MonkeyPatch) -> None:
    """The graphs here need an arena of intermediates to hand out; fused
    (docs/compiler.md) their intermediates stay in registers."""
    monkeypatch.setenv("GE_CPU_FUSION", "0")


@pytest.fixture(scope="module")
def ready() -> Iterator[None]:
    """The math ops and ops/custom registered, GE initialised."""
    with ops_registered(), math_session():
        yield


@pytest.fixture
def stream(ready: None) -> Iterator[int]:
    handle = rt.create_stream()
    yield handle
    rt.destroy_stream(handle)


def arith_graph(name: str = "alloc_arith") -> Graph:
    """(x + y) * x - y: two intermediates in the arena."""
    builder = GraphBuilder(name)
    x = builder.create_input(0, shape=SHAPE)
    y = builder.create_input(1, shape=SHAPE)
    return builder.build_and_reset([(x + y) * x - y])


def inputs() -> list[Tensor]:
    return [Tensor(A), Tensor(B)]


class LoggingAllocator(Allocator):
    """Each block its own rt.malloc memory; every call logged."""

    def __init__(self) -> None:
        self.log: list[tuple[str, int, int]] = []  # (call, size, addr)

    def malloc(self, size: int) -> MemBlock:
        addr = rt.malloc(size)
        self.log.append(("malloc", size, addr))
        return MemBlock(addr, size)

    def free(self, block: MemBlock) -> None:
        self.log.append(("free", block.size, block.addr))
        rt.free(block.addr)

    def given(self) -> list[int]:
        return [addr for call, _, addr in self.log if call == "malloc"]

    def freed(self) -> list[int]:
        return [addr for call, _, addr in self.log if call == "free"]

    def live(self) -> set[int]:
        return set(self.given()) - set(self.freed())


def within(addr: int, allocator: RangeAllocator) -> bool:
    return allocator.addr <= addr < allocator.addr + allocator.size


# -- where memory comes from ----------------------------------------------------------


def test_runs_take_arena_and_outputs_from_callbacks(stream: int) -> None:
    session = Session({})
    session.add_graph(1, arith_graph())
    allocator = LoggingAllocator()
    session.register_external_allocator(stream, allocator)
    arena = session.compiled(1).arena.size
    assert arena > 0

    (first,) = session.run_graph_with_stream_async(1, stream, inputs())
    np.testing.assert_array_equal(first.numpy(), WANT)
    assert [(c, s) for c, s, _ in allocator.log] == [
        ("malloc", arena),
        ("malloc", NBYTES),
    ]
    assert first.addr == allocator.given()[1]

    (second,) = session.run_graph_with_stream_async(1, stream, inputs())
    np.testing.assert_array_equal(second.numpy(), WANT)
    # The run state (arena) is kept; each run's output is a new block.
    assert [c for c, _, _ in allocator.log] == ["malloc"] * 3
    assert second.addr == allocator.given()[2]

    del first  # its block goes back at the next run on the stream
    gc.collect()
    (third,) = session.run_graph_with_stream_async(1, stream, inputs())
    assert allocator.log[3] == ("free", NBYTES, allocator.given()[1])
    np.testing.assert_array_equal(third.numpy(), WANT)

    # Runs on another stream, and run_graph, use the session's own memory.
    count = len(allocator.log)
    (other,) = session.run_graph(1, inputs())
    np.testing.assert_array_equal(other.numpy(), WANT)
    assert len(allocator.log) == count

    before = (second.addr, third.addr)
    session.unregister_external_allocator(stream)
    assert allocator.live() == set()
    assert sorted(allocator.freed()) == sorted(allocator.given())
    # Outputs still alive were moved to memory of their own, values kept.
    assert second.addr != before[0] and third.addr != before[1]
    np.testing.assert_array_equal(second.numpy(), WANT)
    np.testing.assert_array_equal(third.numpy(), WANT)
    # Later runs on the stream use the session's own memory again.
    count = len(allocator.log)
    (again,) = session.run_graph_with_stream_async(1, stream, inputs())
    np.testing.assert_array_equal(again.numpy(), WANT)
    assert len(allocator.log) == count


def test_a_range_holds_all_graph_memory(stream: int) -> None:
    size = 1 << 16
    base = rt.malloc(size)
    allocator = RangeAllocator(base, size)
    session = Session({})
    session.add_graph(1, arith_graph())
    session.register_external_allocator(stream, allocator)
    outs = [
        session.run_graph_with_stream_async(1, stream, inputs())[0] for _ in range(3)
    ]
    for out in outs:
        np.testing.assert_array_equal(out.numpy(), WANT)
        assert within(out.addr, allocator)
    assert allocator.live_blocks == 4  # one arena, three outputs
    # Caller-given outputs: only the arena comes from the range.
    mine = Tensor(np.zeros(SHAPE, np.float32))
    session.run_graph_with_stream_async(1, stream, inputs(), [mine])
    np.testing.assert_array_equal(mine.numpy(), WANT)
    assert allocator.live_blocks == 4
    session.unregister_external_allocator(stream)
    assert allocator.used == 0 and allocator.live_blocks == 0
    for out in outs:
        assert not within(out.addr, allocator)
        np.testing.assert_array_equal(out.numpy(), WANT)
    rt.free(base)


def test_execute_workspaces_come_from_the_allocator(stream: int) -> None:
    x = RNG.standard_normal((3, 5000)).astype(np.float32)
    builder = GraphBuilder("alloc_reduce")
    data = builder.create_input(0, shape=list(x.shape))
    graph = builder.build_and_reset([ReduceSumCustom(data, axes=[1], keep_dims=False)])
    session = Session({})
    session.add_graph(1, graph)
    allocator = LoggingAllocator()
    session.register_external_allocator(stream, allocator)
    (out,) = session.run_graph_with_stream_async(1, stream, [Tensor(x)])
    np.testing.assert_allclose(out.numpy(), x.sum(axis=1, dtype=np.float64), rtol=1e-5)
    # Two chunks per row of 5000: six doubles, freed when the callback returned.
    workspace = [e for e in allocator.log if e[1] == 48]
    assert [c for c, _, _ in workspace] == ["malloc", "free"]
    assert out.addr in allocator.live()
    session.close()
    assert allocator.live() == set()


WS_SOURCE = r"""
#include "ge_kernel.h"
GE_KERNEL(alloc_ws_twice, GE_IN(float, GE_COUNT_OF(3)), GE_WORKSPACE(64),
          GE_OUT(float, GE_COUNT_OF(3)), GE_SCALAR()) {
  const float *x = GE_PTR(const float, 0);
  float *ws = GE_PTR(float, 1);
  float *y = GE_PTR(float, 2);
  (void)block_idx; (void)block_dim;
  for (uint64_t i = 0; i < args[3]; ++i) ws[i] = 2.0f * x[i];
  for (uint64_t i = 0; i < args[3]; ++i) y[i] = ws[i] + 1.0f;
}
"""
WS_OP = unique("AllocWsTwice")


@pytest.fixture(scope="module")
def ws_op(ready: None) -> api.OpDef:
    """An annotated-args op whose launch declares a 64-byte workspace."""
    binary = build_kernel(WS_SOURCE, name="alloc_ws_twice")

    @register_op(op_type=WS_OP, output_names=("y",))
    def infer(x: TensorDesc) -> TensorDesc:
        return TensorDesc(x.shape, x.data_type)

    @register_op_impl(op_type=WS_OP)
    class Twice:
        def declare_launch_args(self, x: RuntimeTensor, y: RuntimeTensor) -> None:
            ctx = get_declare_launch_args_ctx()
            workspace = ctx.malloc_workspace(64)
            args = ctx.create_kernel_args()
            args.append_input(0, x)
            args.append_workspace(workspace)
            args.append_output(0, y)
            args.append_scalar(x.shape_size)
            info = AnnotatedKernelLaunchInfo(
                kernel_name="alloc_ws_twice",
                kernel_bin=binary,
                block_dim=1,
                stream_id=ctx.get_stream_id(),
            )
            ctx.add_launch(info, args)

    return api.OpDef(
        WS_OP,
        inputs=(api.Input("x", "float32"),),
        outputs=(api.Output("y", "float32"),),
    )


def test_declared_workspaces_come_from_the_allocator(
    stream: int, ws_op: api.OpDef
) -> None:
    builder = GraphBuilder("alloc_ws")
    x = builder.create_input(0, shape=[5])
    session = Session({})
    session.add_graph(1, builder.build_and_reset([ws_op.build(inputs={"x": x})]))
    allocator = LoggingAllocator()
    session.register_external_allocator(stream, allocator)
    xs = np.arange(5, dtype=np.float32)
    for _ in range(2):
        (out,) = session.run_graph_with_stream_async(1, stream, [Tensor(xs)])
        np.testing.assert_array_equal(out.numpy(), 2 * xs + 1)
    compiled = session.compiled(1)
    sizes = [size for call, size, _ in allocator.log if call == "malloc"]
    # The run state once (the declared workspace; the arena is empty, as
    # the one result is written straight to the output, and nothing is
    # asked for zero bytes), then each run's output.
    assert compiled.arena.size == 0
    assert sizes == [64, 20, 20]
    session.close()
    assert allocator.live() == set()


def test_close_hands_everything_back_and_ends_the_session(stream: int) -> None:
    session = Session({})
    session.add_graph(1, arith_graph())
    allocator = LoggingAllocator()
    session.register_external_allocator(stream, allocator)
    (out,) = session.run_graph_with_stream_async(1, stream, inputs())
    session.close()
    assert allocator.live() == set() and len(allocator.given()) == 2
    np.testing.assert_array_equal(out.numpy(), WANT)
    session.close()  # again: nothing to do
    for call in (
        lambda: session.run_graph(1, inputs()),
        lambda: session.add_graph(2, arith_graph()),
        lambda: session.register_external_allocator(stream, LoggingAllocator()),
    ):
        with pytest.raises(RuntimeError, match="this Session is closed"):
            call()


def test_a_dropped_session_hands_everything_back(stream: int) -> None:
    session = Session({})
    session.add_graph(1, arith_graph())
    allocator = LoggingAllocator()
    session.register_external_allocator(stream, allocator)
    session.run_graph_with_stream_async(1, stream, inputs())
    del session
    gc.collect()
    assert allocator.given() and allocator.live() == set()


def test_remove_graph_hands_back_its_run_state(stream: int) -> None:
    session = Session({})
    session.add_graph(1, arith_graph())
    allocator = LoggingAllocator()
    session.register_external_allocator(stream, allocator)
    session.run_graph_with_stream_async(
        1, stream, inputs(), [Tensor(np.zeros(SHAPE, np.float32))]
    )
    assert len(allocator.live()) == 1  # the arena
    session.remove_graph(1)
    assert allocator.live() == set()
    session.unregister_external_allocator(stream)


def test_concurrent_runs_on_one_stream(stream: int) -> None:
    size = 1 << 16
    base = rt.malloc(size)
    allocator = RangeAllocator(base, size)
    session = Session({})
    session.add_graph(1, arith_graph())
    session.register_external_allocator(stream, allocator)
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(20):
                (out,) = session.run_graph_with_stream_async(1, stream, inputs())
                np.testing.assert_array_equal(out.numpy(), WANT)
                assert within(out.addr, allocator)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    session.unregister_external_allocator(stream)
    assert allocator.used == 0
    rt.free(base)


# -- misuse -------------------------------------------------------------------------


def test_registering_needs_an_int_stream_that_is_live_and_an_allocator(
    stream: int,
) -> None:
    session = Session({})
    with pytest.raises(TypeError, match="stream must be an int, got str"):
        session.register_external_allocator("1", LoggingAllocator())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="allocator must be a ge.allocator.Allocator"):
        session.register_external_allocator(stream, object())  # type: ignore[arg-type]
    dead = rt.create_stream()
    rt.destroy_stream(dead)
    with pytest.raises(ValueError, match=f"{dead} is not a live stream"):
        session.register_external_allocator(dead, LoggingAllocator())
    with pytest.raises(TypeError, match="stream must be an int"):
        session.unregister_external_allocator(None)  # type: ignore[arg-type]


def test_one_allocator_per_stream_and_only_registered_ones_unregister(
    stream: int,
) -> None:
    session = Session({})
    session.register_external_allocator(stream, LoggingAllocator())
    with pytest.raises(
        RuntimeError,
        match=rf"stream {stream} already has an external allocator in this session; "
        rf"call unregister_external_allocator\({stream}\) first",
    ):
        session.register_external_allocator(stream, LoggingAllocator())
    session.unregister_external_allocator(stream)
    with pytest.raises(
        RuntimeError,
        match=f"no external allocator is registered for stream {stream} in this session",
    ):
        session.unregister_external_allocator(stream)
    # A second session has its own registrations.
    other = Session({})
    other.register_external_allocator(stream, LoggingAllocator())
    session.register_external_allocator(stream, LoggingAllocator())
    other.close()
    session.close()


class Faulty(LoggingAllocator):
    """Returns what ``make`` makes of a good block, logging the good one."""

    def __init__(self, make) -> None:  # type: ignore[no-untyped-def]
        super().__init__()
        self.make = make

        self.refused: list[object] = []  # blocks handed back to free

    def malloc(self, size: int) -> MemBlock:
        good = super().malloc(size)
        made = self.make(good)
        self.made = (made, good)
        return made

    def free(self, block: MemBlock) -> None:
        self.refused.append(block)
        made, good = self.made
        assert block is made
        super().free(good)


_SCRATCH = np.zeros(1 << 12, np.uint8)


@pytest.mark.parametrize(
    "make, fault",
    [
        (lambda b: MemBlock(0, b.size), "returned a NULL block"),
        (lambda b: MemBlock(b.addr, b.size - 1), "returned a block of only"),
        (lambda b: MemBlock(b.addr + 8, b.size), "is not 64-byte aligned"),
        (lambda b: b.addr, "returned int, not a ge.allocator.MemBlock"),
        (
            lambda b: MemBlock(
                _SCRATCH.ctypes.data + (-_SCRATCH.ctypes.data) % ALIGNMENT, b.size
            ),
            "which is not device memory from ge.device.rt.malloc",
        ),
    ],
    ids=["null", "too-small", "misaligned", "not-a-block", "not-device-memory"],
)
def test_blocks_a_run_cannot_use_are_refused(stream: int, make, fault: str) -> None:  # type: ignore[no-untyped-def]
    session = Session({})
    session.add_graph(1, arith_graph())
    allocator = Faulty(make)
    session.register_external_allocator(stream, allocator)
    arena = session.compiled(1).arena.size
    with pytest.raises(AllocatorError) as info:
        session.run_graph_with_stream_async(1, stream, inputs())
    message = str(info.value)
    assert message.startswith(
        f"the allocator registered for stream {stream} (Faulty), asked for "
        f"{arena} bytes for the arena of graph 'alloc_arith', "
    )
    assert fault in message
    session.close()
    if isinstance(allocator.made[0], MemBlock) and allocator.made[0].addr:
        # The block came from the allocator, so it went back to it.
        assert allocator.refused == [allocator.made[0]]
        assert allocator.live() == set()
    else:  # nothing to give back
        assert allocator.refused == []


def test_overlapping_blocks_are_refused(stream: int) -> None:
    base = rt.malloc(1 << 12)

    class Same(Allocator):
        def malloc(self, size: int) -> MemBlock:
            return MemBlock(base, size)

        def free(self, block: MemBlock) -> None:
            pass

    session = Session({})
    session.add_graph(1, arith_graph())
    session.register_external_allocator(stream, Same())
    with pytest.raises(AllocatorError, match=f"which overlaps 0x{base:x}") as info:
        session.run_graph_with_stream_async(1, stream, inputs())
    assert (
        "the arena of graph 'alloc_arith') that it gave before and was not freed"
        in str(info.value)
    )
    session.close()
    rt.free(base)


def test_a_range_too_small_for_the_graph(stream: int) -> None:
    base = rt.malloc(4096)
    allocator = RangeAllocator(base, 64)
    session = Session({})
    session.add_graph(1, arith_graph())
    session.register_external_allocator(stream, allocator)
    with pytest.raises(AllocatorError) as info:
        session.run_graph_with_stream_async(1, stream, inputs())
    message = str(info.value)
    assert "raised when asked for" in message and "MemoryError" in message
    assert "give a larger range" in message
    assert isinstance(info.value.__cause__, MemoryError)
    assert allocator.used == 0  # the part-made run state was given back
    session.close()
    rt.free(base)


def test_an_allocator_that_raises(stream: int) -> None:
    class Broken(LoggingAllocator):
        def malloc(self, size: int) -> MemBlock:
            if self.given():  # the arena works, the output does not
                raise RuntimeError("pool exhausted")
            return super().malloc(size)

        def free(self, block: MemBlock) -> None:
            super().free(block)
            raise OSError("device lost")

    session = Session({})
    session.add_graph(1, arith_graph())
    allocator = Broken()
    session.register_external_allocator(stream, allocator)
    with pytest.raises(
        AllocatorError,
        match=rf"stream {stream} \(Broken\) raised when asked for {NBYTES} bytes for "
        "output 0 of graph 'alloc_arith': RuntimeError: pool exhausted",
    ):
        session.run_graph_with_stream_async(1, stream, inputs())
    with pytest.raises(AllocatorError, match=r"free\(MemBlock.*OSError: device lost"):
        session.unregister_external_allocator(stream)
    # It was unregistered all the same, every block handed back.
    assert allocator.live() == set()
    session.register_external_allocator(stream, LoggingAllocator())
    session.close()


def test_unregistering_while_a_run_uses_it(stream: int) -> None:
    session = Session({})
    session.add_graph(1, arith_graph())
    seen: list[BaseException] = []

    class Meddling(LoggingAllocator):
        def malloc(self, size: int) -> MemBlock:
            for call in (
                lambda: session.unregister_external_allocator(stream),
                session.close,
            ):
                try:
                    call()
                except RuntimeError as exc:
                    seen.append(exc)
            return super().malloc(size)

    allocator = Meddling()
    session.register_external_allocator(stream, allocator)
    (out,) = session.run_graph_with_stream_async(1, stream, inputs())
    np.testing.assert_array_equal(out.numpy(), WANT)
    assert len(seen) == 4  # both refused at each of two mallocs
    assert {str(e) for e in seen} == {
        f"the allocator registered for stream {stream} (Meddling) is in use by 1 "
        "run(s); unregister it after they return"
    }
    session.unregister_external_allocator(stream)
    assert allocator.live() == set()
    (again,) = session.run_graph_with_stream_async(1, stream, inputs())
    np.testing.assert_array_equal(again.numpy(), WANT)


# -- the pieces -----------------------------------------------------------------------


def test_range_allocator_first_fit_alignment_and_merging() -> None:
    base = rt.malloc(1024)
    allocator = RangeAllocator(base, 1024)
    a, b, c = (allocator.malloc(n) for n in (10, 100, 64))
    assert [a.addr - base, b.addr - base, c.addr - base] == [0, 64, 192]
    assert (a.size, allocator.used) == (10, 64 + 128 + 64)
    allocator.free(b)
    assert allocator.malloc(64).addr == base + 64  # first fit, in b's hole
    allocator.free(a)
    allocator.free(c)
    with pytest.raises(ValueError, match="is not a live block of RangeAllocator"):
        allocator.free(c)
    with pytest.raises(MemoryError, match="no free run of 1024 bytes"):
        allocator.malloc(1000)  # 64 bytes at +64 are still used
    allocator.free(MemBlock(base + 64, 64))
    assert allocator.malloc(1024).addr == base  # everything merged again
    rt.free(base)


def test_range_allocator_needs_rt_malloc_memory() -> None:
    with pytest.raises(
        ValueError, match="are not device memory from ge.device.rt.malloc"
    ):
        RangeAllocator(_SCRATCH.ctypes.data, 64)
    base = rt.malloc(128)
    with pytest.raises(ValueError, match="are not device memory"):
        RangeAllocator(base, 256)  # past the end of the block
    with pytest.raises(TypeError, match="RangeAllocator size must be an int >= 0"):
        RangeAllocator(base, -1)
    rt.free(base)


def test_rt_malloc_free_and_mem_block_check_their_arguments() -> None:
    with pytest.raises(ValueError, match="rt.malloc size must be an int > 0, got 0"):
        rt.malloc(0)
    addr = rt.malloc(100)
    assert addr % ALIGNMENT == 0
    rt.free(addr)
    with pytest.raises(ValueError, match="is not an address rt.malloc gave"):
        rt.free(addr)
    with pytest.raises(TypeError, match="MemBlock addr must be an int >= 0"):
        MemBlock(-1, 4)
    with pytest.raises(TypeError, match="MemBlock size must be an int >= 0"):
        MemBlock(0, 1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="abstract"):
        Allocator()  # type: ignore[abstract]


def test_an_overlap_with_any_live_block_is_found(ready: None) -> None:
    base = rt.malloc(4096)
    script: list[int] = []

    class Scripted(Allocator):
        def malloc(self, size: int) -> MemBlock:
            return MemBlock(base + script.pop(0), size)

        def free(self, block: MemBlock) -> None:
            pass

    memory = StreamMemory(rt.DEFAULT_STREAM, Scripted())
    script += [128, 0, 256, 64, 64]
    kept = [memory.allocate(64, f"block {i}") for i in range(3)]
    with pytest.raises(
        AllocatorError, match=r"overlaps 0x[0-9a-f]+ \(64 bytes, block 0\)"
    ):
        memory.allocate(128, "a wide block")  # 64..192 meets 128..192
    assert memory.allocate(64, "the gap").addr == base + 64  # 64..128 fits
    memory.close()
    del kept
    rt.free(base)
