"""Blocks on every core (Note [Worker pool] in native.c): every sample op
gives the same bytes with its blocks on the worker pool as with every block
on the launching thread, at every block count 1..8, through both launch
paths (``ge_launch`` from execute, ``ge_run_state`` replaying annotated
launches); and the pool's thread option."""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from op_harness import ROOT, build, ge_session, run

from ge.custom_op import bootstrap
from ge.device import native, rt
from ge.device.kernels import EXTENT_PER_BLOCK, Kernel
from ge.session import Session

BLOCKS = range(1, 9)
ANNOTATED = [
    ROOT / "examples/annotated_args_refresh/add_ops.py",
    ROOT / "ops/custom/scale_custom.py",
    ROOT / "ops/custom/sum_n_custom.py",
]


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    bootstrap.load_custom_op_plugins(os.pathsep.join(map(str, ANNOTATED)))
    with ge_session() as s:
        yield s


@pytest.fixture
def pool() -> Iterator[None]:
    """Every launch of 2 blocks or more on the pool (no threshold of work,
    no backoff: Note [Pool backoff] in native.c), as the tests compare the
    pool's bytes with the serial ones."""
    before = native.threads()
    min_blocks = native.get_min_blocks()
    backoff = native.set_backoff(False)
    native.set_min_blocks(2)
    yield
    native.set_threads(before)
    native.set_min_blocks(min_blocks)
    native.set_backoff(backoff)


def test_pool_defaults_and_settings_round_trip() -> None:
    """The defaults (launches of 16 blocks or more on the pool, backoff on)
    and their setters."""
    assert native.get_min_blocks() == 16
    assert native.backoff() is True
    native.set_min_blocks(1)  # clamped: one block never needs the pool
    assert native.get_min_blocks() == 2
    native.set_min_blocks(16)
    assert native.set_backoff(False) is True
    assert native.backoff() is False
    assert native.set_backoff(True) is False
    assert native.backoff() is True


def forced_blocks(monkeypatch: pytest.MonkeyPatch, blocks: int) -> None:
    """Execute-path launches run on ``blocks`` blocks, whatever the op chose,
    when the kernel splits its work by ``ge_block_range`` (no per-block
    extents: the block count does not change what the kernel computes)."""
    launch = rt.launch

    def forced(kernel: Kernel, block_dim: int, stream: int, args: Any) -> None:
        if all(d.extent != EXTENT_PER_BLOCK for d in kernel.decls):
            block_dim = blocks
        launch(kernel, block_dim, stream, args)

    monkeypatch.setattr(rt, "launch", forced)


def sample(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def execute_cases() -> dict[str, Callable[[Session], list[np.ndarray]]]:
    from ge.es.custom import (
        CastCustom,
        ConcatCustom,
        FillCustom,
        LayerNormCustom,
        PadCustom,
        ReduceSumCustom,
        SplitCustom,
    )
    from ge.graph import DataType

    x, y = sample((37, 29), 1), sample((37, 29), 2)
    DT_F32 = DataType.DT_FLOAT

    def graph(name: str, arrays: list[np.ndarray], body: Any) -> Any:
        return lambda s: run(s, build(name, arrays, body), *arrays)

    return {
        "cast": graph(
            "c", [x], lambda b, a: CastCustom(a, dst_type=DataType.DT_FLOAT16)
        ),
        "concat": graph(
            "k", [x, y], lambda b, a, c: ConcatCustom([a, c], concat_dim=1)
        ),
        "fill": graph(
            "f", [], lambda b: FillCustom(b, shape=[37, 29], dtype=DT_F32, value=1.5)
        ),
        "layer_norm": graph(
            "l", [x], lambda b, a: list(LayerNormCustom(a, begin_norm_axis=1))
        ),
        "pad": graph("p", [x], lambda b, a: PadCustom(a, paddings=[[1, 2], [3, 0]])),
        "reduce_sum": graph("r", [x], lambda b, a: ReduceSumCustom(a, axes=[0])),
        "split": graph("s", [x], lambda b, a: SplitCustom(a, num_split=1, split_dim=0)),
    }


def per_block_case(name: str, blocks: int) -> Callable[[Session], list[np.ndarray]]:
    """Ops whose kernels handle a fixed chunk per block: the shape decides
    the block count (``launch_config`` / execute choose elements / chunk)."""
    from ge.es.custom import (
        AnnotatedAddCustom,
        NoRefreshAddCustom,
        ScaleCustom,
        SumNCustom,
    )

    chunk, body = {
        "annotated_add": (1024, lambda b, p, q: AnnotatedAddCustom(p, q)),
        "no_refresh_add": (1024, lambda b, p, q: NoRefreshAddCustom(p, q)),
        "scale": (64, lambda b, p, q: ScaleCustom(p, q, alpha=2.5)),
        "sum_n": (256, lambda b, p, q: SumNCustom([p, q, p])),
    }[name]
    arrays = [sample((blocks * chunk,), 3), sample((blocks * chunk,), 4)]
    return lambda s: run(s, build(f"{name}{blocks}", arrays, body), *arrays)


def serial_and_parallel(
    case: Callable[[Session], list[np.ndarray]], session: Session, threads: int
) -> tuple[list[bytes], list[bytes]]:
    native.set_threads(1)
    serial = [a.tobytes() for a in case(session)]
    native.set_threads(threads)
    return serial, [a.tobytes() for a in case(session)]


@pytest.mark.parametrize("blocks", BLOCKS)
@pytest.mark.parametrize(
    "op", ["cast", "concat", "fill", "layer_norm", "pad", "reduce_sum", "split"]
)
def test_execute_ops_give_the_serial_bytes(
    session: Session, pool: None, monkeypatch: pytest.MonkeyPatch, op: str, blocks: int
) -> None:
    forced_blocks(monkeypatch, blocks)
    serial, parallel = serial_and_parallel(execute_cases()[op], session, max(2, blocks))
    assert parallel == serial


@pytest.mark.parametrize("blocks", BLOCKS)
@pytest.mark.parametrize("op", ["annotated_add", "no_refresh_add", "scale", "sum_n"])
def test_per_block_ops_give_the_serial_bytes(
    session: Session, pool: None, op: str, blocks: int
) -> None:
    serial, parallel = serial_and_parallel(
        per_block_case(op, blocks), session, max(2, blocks)
    )
    assert parallel == serial


def test_thread_option_is_checked(pool: None) -> None:
    native.set_threads(3)
    assert native.threads() == 3
    for bad in (0, -1, 257, "two"):
        with pytest.raises(ValueError, match="threads"):
            native.set_threads(bad)  # type: ignore[arg-type]
    assert native.threads() == 3


def test_session_option_sets_the_threads(session: Session, pool: None) -> None:
    Session({"ge.cpu.threads": "3"})
    assert native.threads() == 3
    with pytest.raises(ValueError, match="ge.cpu.threads"):
        Session({"ge.cpu.threads": "many"})


# -- kernel faults (Note [Kernel faults] in native.c) -------------------------------

FAULTY = r"""
#include "ge_kernel.h"
GE_KERNEL(faulty, GE_OUT(float, GE_PER_BLOCK(4)), GE_SCALAR(), GE_SCALAR()) {
  float *y = GE_PTR(float, 0);
  if (block_idx == args[1]) *(volatile float *)(uintptr_t)args[2] = 1.0f;
  for (int i = 0; i < 4; ++i) y[block_idx * 4 + i] = (float)block_idx + 1.0f;
}
"""


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("bad", [0, 3, 7])
def test_a_fault_in_one_block_is_reported_for_the_launch(
    pool: None, threads: int, bad: int
) -> None:
    from ge.device.kernels import load_kernel
    from ge.device.memory import DeviceBuffer

    native.set_threads(threads)
    kernel = load_kernel(FAULTY, "faulty", name="faulty")
    out = DeviceBuffer(8 * 4 * 4)
    with pytest.raises(
        native.KernelFault, match=f"kernel faulty faulted .* block {bad}$"
    ):
        rt.launch(kernel, 8, rt.DEFAULT_STREAM, [out.addr, bad, 8])
    # The process, the pool and the launcher go on.
    rt.launch(kernel, 8, rt.DEFAULT_STREAM, [out.addr, 99, 8])
    values = np.frombuffer(ctypes.string_at(out.addr, 128), np.float32)
    assert list(values[::4]) == [float(b + 1) for b in range(8)]


def test_a_fault_stops_a_replay_after_its_launch(pool: None) -> None:
    from ge.device.kernels import load_kernel
    from ge.device.native import Task

    native.set_threads(2)
    kernel = load_kernel(FAULTY, "faulty", name="faulty")
    out = np.zeros(32, np.float32)
    slots = (ctypes.c_uint64 * 9)(
        *[out.ctypes.data, 99, 8, out.ctypes.data, 6, 8, out.ctypes.data, 99, 8]
    )
    tasks = (Task * 3)()
    for t in range(3):
        tasks[t].fn, tasks[t].block_dim = kernel.address, 8
        tasks[t].args = ctypes.addressof(slots) + 24 * t
    code = native.library().ge_replay(ctypes.addressof(tasks), 3)
    assert code >> 32 == 1  # the second launch
    assert native.fault_message(code, "x") == "x faulted (SIGSEGV) in block 6"
