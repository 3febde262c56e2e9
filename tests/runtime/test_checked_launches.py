"""An execute frame keeps the launches it checked (Note [Checked launches]
in ge.device.rt), and a kept launch never stands in for a check that could
fail: the same arguments under other regions (another call, another node),
a launch after a refused one, arguments equal to the kept ints but of
another type, another block_dim, a stream destroyed since. Each callback
launches the affine kernel (y = 2x + 1) and records what the launch did;
results are compared with numpy."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from _rt_support import (  # noqa: F401
    float_op,
    ge_api,
    named_affine_kernel,
    op_chain,
    registries,
    unique,
)

from ge.custom_op import get_execute_ctx
from ge.device import rt
from ge.ge_global import GeApi
from ge.graph import Graph
from ge.graph import Tensor as GraphTensor
from ge.runtime import Tensor
from ge.session import Session

DATA = np.float32([1, -2, 3.5, 0])


def affine_kernel() -> Any:
    """The affine kernel, named as this module's launch errors say."""
    return named_affine_kernel("cached_affine")


@pytest.fixture
def session(ge_api: GeApi, registries: None) -> Iterator[Session]:
    yield Session()


Launch = Callable[[Tensor, Tensor, int], None]


def _chain(launch: Launch, length: int, record: list[str]) -> Graph:
    """x -> node0 -> node1 -> ...; each node's execute calls ``launch``
    (x, y, call number) and records "ok" or the launch's error."""

    def execute(self: Any, x: Tensor) -> None:
        ctx = get_execute_ctx()
        y = ctx.malloc_output_tensor(0, x.shape, x.format, x.data_type)
        try:
            launch(x, y, len(record))
        except rt.LaunchError as exc:
            record.append(str(exc))
            rt.launch(affine_kernel(), 1, ctx.get_stream(), [x.addr, y.addr, 4])
        else:
            record.append("ok")

    return op_chain(float_op(unique("Cached"), execute), length, [4])


def _run(session: Session, data: np.ndarray = DATA, times: int = 1) -> None:
    (out,) = session.run_graph(1, [GraphTensor(data)])
    expected = data
    for _ in range(times):
        expected = np.float32(2) * expected + np.float32(1)
    np.testing.assert_array_equal(out.numpy(), expected)


def _plain(x: Tensor, y: Tensor, call: int) -> None:
    rt.launch(affine_kernel(), 1, get_execute_ctx().get_stream(), [x.addr, y.addr, 4])


NOT_HERE = "does not point into a tensor or workspace of this node"


def test_a_kept_launch_runs_again_with_the_same_result(session: Session) -> None:
    record: list[str] = []
    session.add_graph(1, _chain(_plain, 2, record))
    for data in (DATA, DATA * 3, DATA):
        _run(session, data, times=2)
    assert record == ["ok"] * 6


def test_the_same_arguments_under_another_calls_regions_are_refused(
    session: Session,
) -> None:
    """node0 launches with its first call's input address on every call (its
    output is in the arena: the same address each run): the first run's
    input buffer (kept alive, so still device memory) is not the second
    run's input, so the launch the frame kept for those arguments is
    refused once the call's regions are others."""
    first: list[int] = []

    def launch(x: Tensor, y: Tensor, call: int) -> None:
        ctx = get_execute_ctx()
        if ctx.get_node_name() != "node0":
            return _plain(x, y, call)
        if not first:
            first.extend([x.addr, y.addr])
        assert y.addr == first[1]
        rt.launch(affine_kernel(), 1, ctx.get_stream(), [first[0], y.addr, 4])

    record: list[str] = []
    session.add_graph(1, _chain(launch, 2, record))
    inputs = [GraphTensor(DATA), GraphTensor(DATA * 5)]  # both alive throughout
    for data in inputs:
        (out,) = session.run_graph(1, [data])
        np.testing.assert_array_equal(out.numpy(), np.float32(4) * data.numpy() + 3)
    assert first[0] != inputs[1].addr
    assert record == [
        "ok",
        "ok",
        f"cached_affine argument 0 (0x{first[0]:x}) {NOT_HERE}",
        "ok",
    ]


def test_the_same_arguments_in_another_node_are_checked_there(
    session: Session,
) -> None:
    """node1 launches with node0's arguments (kept by node0's frame): node0's
    input is not a tensor of node1, so node1 refuses it."""
    seen: list[list[int]] = []

    def launch(x: Tensor, y: Tensor, call: int) -> None:
        stream = get_execute_ctx().get_stream()
        args = [x.addr, y.addr, 4] if not seen else seen[0]
        if not seen:
            seen.append(args)
        rt.launch(affine_kernel(), 1, stream, args)

    record: list[str] = []
    session.add_graph(1, _chain(launch, 2, record))
    _run(session, DATA, times=2)
    assert record[0] == "ok"
    assert record[1] == f"cached_affine argument 0 (0x{seen[0][0]:x}) {NOT_HERE}"


def test_a_refused_launch_is_refused_again_and_a_good_one_still_runs(
    session: Session,
) -> None:
    def launch(x: Tensor, y: Tensor, call: int) -> None:
        stream = get_execute_ctx().get_stream()
        count = 5 if call % 2 == 0 else 4  # 5 floats do not fit in 16 bytes
        rt.launch(affine_kernel(), 1, stream, [x.addr, y.addr, count])

    record: list[str] = []
    session.add_graph(1, _chain(launch, 1, record))
    for _ in range(4):
        _run(session)
    refused = (
        "cached_affine argument 0 (in): the kernel declares 20 bytes there, but "
        "the buffer has 16; refused before it could write out of bounds"
    )
    assert record == [refused, "ok", refused, "ok"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda args: [*args[:2], 4.0], "the kernel declares"),  # float bits
        (lambda args: [np.uint64(args[0]), *args[1:]], "must be a device address"),
    ],
)
def test_equal_arguments_of_another_type_are_checked_in_full(
    session: Session, change: Callable[[list[int]], list[Any]], message: str
) -> None:
    """4.0 == 4 and numpy.uint64(a) == a, but one makes another slot (a
    double's bits: a count no buffer holds) and the other is no address:
    the launch kept with the ints does not run them."""

    def launch(x: Tensor, y: Tensor, call: int) -> None:
        args = [x.addr, y.addr, 4]
        rt.launch(affine_kernel(), 1, get_execute_ctx().get_stream(), args)
        if call:  # the plain launch is kept now: the changed one after it
            rt.launch(affine_kernel(), 1, get_execute_ctx().get_stream(), change(args))

    record: list[str] = []
    session.add_graph(1, _chain(launch, 1, record))
    _run(session)
    _run(session)
    assert record[0] == "ok"
    assert message in record[1], record[1]


def test_another_block_dim_is_checked(session: Session) -> None:
    def launch(x: Tensor, y: Tensor, call: int) -> None:
        stream = get_execute_ctx().get_stream()
        rt.launch(affine_kernel(), 1, stream, [x.addr, y.addr, 4])
        rt.launch(affine_kernel(), True if call else 0, stream, [x.addr, y.addr, 4])

    record: list[str] = []
    session.add_graph(1, _chain(launch, 1, record))
    _run(session)
    _run(session)
    assert record == [
        "cached_affine: block_dim must be 1..65535, got 0",
        "cached_affine: block_dim must be 1..65535, got True",
    ]


def test_a_stream_destroyed_after_a_kept_launch_is_refused(session: Session) -> None:
    stream = rt.create_stream()

    def launch(x: Tensor, y: Tensor, call: int) -> None:
        rt.launch(affine_kernel(), 1, stream, [x.addr, y.addr, 4])

    record: list[str] = []
    session.add_graph(1, _chain(launch, 1, record))
    _run(session)
    rt.destroy_stream(stream)
    _run(session)
    assert record == ["ok", f"{stream} is not a live stream"]


def test_a_launch_outside_the_callback_is_checked_against_device_memory(
    session: Session,
) -> None:
    """Arguments kept by a frame are checked again outside its call: a
    kept view's address raises, and the plain address is refused once its
    arena is gone."""
    kept: list[Any] = []

    def launch(x: Tensor, y: Tensor, call: int) -> None:
        _plain(x, y, call)
        kept.append((x, [x.addr, y.addr, 4]))

    record: list[str] = []
    session.add_graph(1, _chain(launch, 2, record))
    _run(session, times=2)
    x, args = kept[-1]
    with pytest.raises(RuntimeError, match="no longer valid"):
        x.addr  # noqa: B018
    session.remove_graph(1)
    del session
    with pytest.raises(rt.LaunchError, match="does not point into device memory"):
        rt.launch(affine_kernel(), 1, rt.DEFAULT_STREAM, args)
