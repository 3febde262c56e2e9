"""What the execute path prepares once per node and run state (Note
[Execute frames] in ge.engine.execute_frame) never leaks between calls:
shapes that change between runs get views of the new shape, outputs
returned to the caller are never overwritten by a later run, a failing
call leaves the next run sound and its error names the node, views kept
from an earlier call stay expired, and overlapping runs get contexts of
their own. Every result is compared with numpy."""

from __future__ import annotations

import threading
from collections.abc import Iterator
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
from ge.graph import Tensor as GraphTensor
from ge.runtime import Tensor
from ge.session import ExecuteError, Session


def affine(x: np.ndarray, times: int = 1) -> np.ndarray:
    for _ in range(times):
        x = np.float32(2) * x + np.float32(1)
    return x


def affine_kernel() -> Any:
    """The affine kernel, named as this module's launch errors say."""
    return named_affine_kernel("frame_affine")


@pytest.fixture
def session(ge_api: GeApi, registries: None) -> Iterator[Session]:
    yield Session()


def _affine_execute(self: Any, x: Tensor) -> None:
    ctx = get_execute_ctx()
    y = ctx.malloc_output_tensor(0, x.shape, x.format, x.data_type)
    rt.launch(affine_kernel(), 1, ctx.get_stream(), [x.addr, y.addr, x.shape_size])


def test_a_shape_change_between_runs_gets_views_of_the_new_shape(
    session: Session,
) -> None:
    seen: list[tuple[list[int], int]] = []

    def execute(self: Any, x: Tensor) -> None:
        seen.append((x.storage_shape.dims, x.size))
        _affine_execute(self, x)

    session.add_graph(1, op_chain(float_op(unique("Frame"), execute), 2, [-1]))
    sizes = (3, 5, 3, 8, 5, 3)
    for n in sizes:
        data = np.arange(n, dtype=np.float32) - 2
        (out,) = session.run_graph(1, [GraphTensor(data)])
        np.testing.assert_array_equal(out.numpy(), affine(data, 2))
    assert seen == [([n], 4 * n) for n in sizes for _ in range(2)]


def test_outputs_returned_are_never_overwritten_by_a_later_run(
    session: Session,
) -> None:
    session.add_graph(1, op_chain(float_op(unique("Frame"), _affine_execute), 3, [-1]))
    inputs = [np.arange(n, dtype=np.float32) * (n - 3) for n in (4, 4, 6, 4)]
    results = [session.run_graph(1, [GraphTensor(data)])[0] for data in inputs]
    for data, out in zip(inputs, results):
        np.testing.assert_array_equal(out.numpy(), affine(data, 3))
    assert len({out.addr for out in results}) == len(results)


def test_caller_output_buffers_hold_their_own_run(session: Session) -> None:
    session.add_graph(1, op_chain(float_op(unique("Frame"), _affine_execute), 2, [4]))
    stream = rt.create_stream()
    try:
        outs = [GraphTensor(np.zeros(4, np.float32)) for _ in range(2)]
        inputs = [np.float32([1, 2, 3, 4]), np.float32([-1, 0, 5, 9])]
        for data, out in zip(inputs, outs):
            session.run_graph_with_stream_async(1, stream, [GraphTensor(data)], [out])
        for data, out in zip(inputs, outs):
            np.testing.assert_array_equal(out.numpy(), affine(data, 2))
    finally:
        rt.destroy_stream(stream)


def test_a_failing_call_names_its_node_and_leaves_the_next_run_sound(
    session: Session,
) -> None:
    calls = {"n": 0}

    def execute(self: Any, x: Tensor) -> None:
        calls["n"] += 1
        ctx = get_execute_ctx()
        if calls["n"] == 4:  # node1 of the second run: a workspace, then a wrong shape
            ctx.malloc_workspace(64)
            ctx.malloc_output_tensor(0, [7], x.format, x.data_type)
        if calls["n"] == 7:  # node0 of the fourth run: a plain failure
            raise KeyError("inner problem")
        _affine_execute(self, x)

    op = float_op(unique("Frame"), execute)
    session.add_graph(1, op_chain(op, 2, [4]))
    data = np.float32([0.5, 1, 2, 3])

    def run() -> np.ndarray:
        return session.run_graph(1, [GraphTensor(data)])[0].numpy()

    np.testing.assert_array_equal(run(), affine(data, 2))
    with pytest.raises(
        ExecuteError,
        match=rf"^node 'node1' \({op.op_type}\): execute failed: ValueError: node "
        r"'node1' output 0: infer_meta said float32\[4\], execute asked for "
        r"float32\[7\]$",
    ):
        run()
    np.testing.assert_array_equal(run(), affine(data, 2))
    with pytest.raises(
        ExecuteError,
        match=rf"^node 'node0' \({op.op_type}\): execute failed: KeyError: "
        "'inner problem'$",
    ):
        run()
    np.testing.assert_array_equal(run(), affine(data, 2))


def test_views_kept_from_an_earlier_call_stay_expired_in_a_later_one(
    session: Session,
) -> None:
    kept: list[Any] = []
    errors: list[str] = []

    def execute(self: Any, x: Tensor) -> None:
        ctx = get_execute_ctx()
        if kept:  # the same node, a later run: its old objects are not revived
            old_ctx, old_x, old_shape, old_attrs = kept
            for use in (
                lambda: old_x.addr,
                lambda: old_shape.dims,
                old_ctx.get_input_num,
                old_attrs.get_attr_num,
            ):
                try:
                    use()
                except RuntimeError as exc:
                    errors.append(str(exc))
            assert ctx is not old_ctx and x is not old_x
        else:
            kept.extend([ctx, x, x.storage_shape, ctx.get_attrs()])
        _affine_execute(self, x)

    session.add_graph(1, op_chain(float_op(unique("Frame"), execute), 1, [4]))
    data = np.float32([1, 2, 3, 4])
    for _ in range(2):
        (out,) = session.run_graph(1, [GraphTensor(data)])
        np.testing.assert_array_equal(out.numpy(), affine(data))
    assert len(errors) == 4
    for message, kind in zip(
        errors, ["Tensor", "Shape", "EagerOpExecutionContext", "RuntimeAttrs"]
    ):
        assert message.startswith(
            f"{kind} was borrowed from the execute callback of node 'node0' and is "
            "no longer valid"
        )


def test_overlapping_runs_get_contexts_of_their_own(session: Session) -> None:
    """Two runs inside the same node at once (a barrier holds both): each
    sees its own context and views, and each result is its own input's."""
    barrier = threading.Barrier(2, timeout=60)
    seen: dict[int, list[Any]] = {}
    mine: dict[int, np.ndarray] = {}

    def execute(self: Any, x: Tensor) -> None:
        ctx = get_execute_ctx()
        me = threading.get_ident()
        if me not in seen:
            seen[me] = [ctx, x]
            barrier.wait()  # both runs are in this callback now
            assert get_execute_ctx() is ctx
            np.testing.assert_array_equal(x.numpy(), mine[me])
        _affine_execute(self, x)

    session.add_graph(1, op_chain(float_op(unique("Frame"), execute), 2, [64]))
    inputs = [np.arange(64, dtype=np.float32) * k for k in (1, -3)]
    results: dict[int, np.ndarray] = {}
    failures: list[BaseException] = []

    def worker(i: int) -> None:
        mine[threading.get_ident()] = inputs[i]
        try:
            for _ in range(3):
                (out,) = session.run_graph(1, [GraphTensor(inputs[i])])
                np.testing.assert_array_equal(out.numpy(), affine(inputs[i], 2))
            results[i] = out.numpy()
        except BaseException as exc:  # reported below
            failures.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
    (a_ctx, a_x), (b_ctx, b_x) = seen.values()
    assert a_ctx is not b_ctx and a_x is not b_x
    for i in range(2):
        np.testing.assert_array_equal(results[i], affine(inputs[i], 2))
