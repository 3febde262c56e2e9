"""Address refresh (annotated args): compile and declare once, then runs that
write only addresses and never call back into Python."""

from __future__ import annotations

import os
import sys
import textwrap
import threading
import types
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from _rt_support import device

from ge.custom_op import bootstrap
from ge.es import GraphBuilder
from ge.ge_global import GeApi
from ge.graph import Tensor
from ge.session import CompileError, Session

ROOT = Path(__file__).resolve().parents[2]
MODULES = [
    ROOT / "examples/annotated_args_refresh/add_ops.py",
    ROOT / "ops/custom/scale_custom.py",
    ROOT / "ops/custom/sum_n_custom.py",
    ROOT / "examples/add_custom/add_custom_op.py",
]


@pytest.fixture(scope="module")
def ops() -> Iterator[None]:
    bootstrap.load_custom_op_plugins(os.pathsep.join(str(m) for m in MODULES))
    yield


@pytest.fixture
def session(ops: None) -> Iterator[Session]:
    api = GeApi()
    api.ge_initialize({"ge.exec.deviceId": "0"})
    yield Session({"my.option": "on"})


def chain(op, k: int, n: int):  # type: ignore[no-untyped-def]
    builder = GraphBuilder(f"chain_{k}")
    a = builder.create_input(0, shape=[n])
    b = builder.create_input(1, shape=[n])
    y = a
    for _ in range(k):
        y = op(y, b)
    builder.set_graph_output(y, 0)
    return builder.build_and_reset()


def test_chain_refreshes_caller_buffers_on_alternating_inputs(session: Session) -> None:
    from ge.es.custom import AnnotatedAddCustom

    n, k = 4096, 7
    session.add_graph(1, chain(AnnotatedAddCustom, k, n))
    rng = np.random.default_rng(1)
    sets = [
        (
            rng.standard_normal(n).astype(np.float32),
            rng.standard_normal(n).astype(np.float32),
        )
        for _ in range(2)
    ]
    out = device(np.zeros(n, np.float32))
    address = out.addr
    for i in range(6):
        a, b = sets[i % 2]
        (result,) = session.run_graph_with_stream_async(
            1, 0, [device(a), device(b)], [out]
        )
        assert result is out and out.addr == address  # written in place
        expected = a.copy()
        for _ in range(k):
            expected = expected + b
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6, atol=1e-5)
    assert session.compiled(1).only_tasks


def _author_calls(run) -> int:  # type: ignore[no-untyped-def]
    """Python calls made into op modules (author and generated) while ``run``
    runs."""
    watched = {str(m) for m in MODULES} | {
        str(p) for p in (ROOT / "generated/python/ge_impl").rglob("*.py")
    }
    calls = [0]

    def profile(frame, event, arg):  # type: ignore[no-untyped-def]
        if event == "call" and frame.f_code.co_filename in watched:
            calls[0] += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return calls[0]


def test_no_python_callback_runs_for_annotated_nodes(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ge.es.custom import AnnotatedAddCustom, NoRefreshAddCustom

    # Both ops declare elementwise:, so fused each chain would be one
    # kernel and no callback at all; this counts the unfused paths.
    monkeypatch.setenv("GE_CPU_FUSION", "0")

    n = 2048
    session.add_graph(2, chain(AnnotatedAddCustom, 16, n))
    session.add_graph(3, chain(NoRefreshAddCustom, 16, n))
    inputs = [device(np.ones(n, np.float32)), device(np.ones(n, np.float32))]
    for graph_id in (2, 3):
        session.run_graph(graph_id, inputs)  # compiles: callbacks happen here
    annotated = _author_calls(lambda: [session.run_graph(2, inputs) for _ in range(20)])
    execute = _author_calls(lambda: [session.run_graph(3, inputs) for _ in range(20)])
    assert annotated == 0
    assert execute >= 20 * 16  # every execute node calls back on every run


def test_compile_runs_once_per_key_and_is_thread_safe(session: Session) -> None:
    from ge.custom_op import get_registered_op_impl
    from ge.es.custom import ScaleCustom

    def graph(scale: float):  # type: ignore[no-untyped-def]
        builder = GraphBuilder()
        x = builder.create_input(0, shape=[8, 64])
        builder.set_graph_output(
            ScaleCustom(ScaleCustom(x, alpha=scale), alpha=scale), 0
        )
        return builder.build_and_reset()

    for graph_id in range(10, 18):
        session.add_graph(graph_id, graph(1.0 + graph_id))
    threads = [
        threading.Thread(target=session.compile_graph, args=(g,)) for g in range(10, 18)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    instance = session._cache.instances["ScaleCustom"]
    assert isinstance(instance, get_registered_op_impl("ScaleCustom").cls)
    # One shape; alpha differs per graph, so keys differ by attrs, not by
    # shape: the kernel itself is built once per shape.
    assert instance.compile_calls == 1
    for graph_id in range(10, 18):
        x = np.arange(8 * 64, dtype=np.float32).reshape(8, 64)
        (y,) = session.run_graph(graph_id, [Tensor.from_numpy(x)])
        np.testing.assert_allclose(y.numpy(), x * (1.0 + graph_id) ** 2, rtol=1e-6)


def test_graph_mixing_annotated_and_execute_nodes(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ge.es.custom import AddCustom, ScaleCustom, SumNCustom

    monkeypatch.setenv("GE_CPU_FUSION", "0")  # the kinds of steps, unfused

    builder = GraphBuilder("mixed")
    x = builder.create_input(0, shape=[4, 256])
    w = builder.create_input(1, shape=[4, 256])
    y = ScaleCustom(x, w, alpha=2.5)  # annotated, optional bias present
    z = AddCustom(y, x)  # execute
    v = ScaleCustom(z, alpha=-1.0)  # annotated, bias absent
    t = SumNCustom([z, y, x, v])  # annotated, dynamic input of 4
    builder.set_graph_output(t, 0)
    builder.set_graph_output(y, 1)
    session.add_graph(20, builder.build_and_reset())
    for seed in range(3):
        rng = np.random.default_rng(seed)
        xa = rng.standard_normal((4, 256)).astype(np.float32)
        wa = rng.standard_normal((4, 256)).astype(np.float32)
        t_out, y_out = session.run_graph(
            20, [Tensor.from_numpy(xa), Tensor.from_numpy(wa)]
        )
        ey = xa * 2.5 + wa
        ez = ey + xa
        np.testing.assert_allclose(y_out.numpy(), ey, rtol=1e-6)
        np.testing.assert_allclose(
            t_out.numpy(), ez + ey + xa - ez, rtol=1e-5, atol=1e-5
        )
    kinds = [type(step).__name__ for step in session.compiled(20).steps]
    assert kinds == ["TaskSegment", "ExecuteStep", "TaskSegment"]


OP_MODULE = '''
from __future__ import annotations

from ge.custom_op import (AnnotatedKernelLaunchInfo, get_compile_ctx,
    get_compile_platform_info, get_declare_launch_args_ctx, register_op, register_op_impl)
from ge.device.kernels import build_kernel
from ge.runtime import Tensor, TensorDesc

SOURCE = r"""
#include "ge_kernel.h"
GE_KERNEL(weighted, GE_IN(float, GE_PER_BLOCK(64)), GE_OUT(float, GE_PER_BLOCK(64)),
          GE_SCALAR(), GE_IN_LIST(float, GE_EXTENT_PER_BLOCK, 64, 2)) {
  const float *a = GE_PTR(const float, 0) + block_idx * 64;
  float *y = GE_PTR(float, 1) + block_idx * 64;
  (void)block_dim;
  for (int i = 0; i < 64; ++i) y[i] = a[i];
  for (uint64_t k = 0; k < args[2]; ++k) {
    const float *x = GE_PTR(const float, 3 + k) + block_idx * 64;
    for (int i = 0; i < 64; ++i) y[i] += (float)(k + 2) * x[i];
  }
}
"""
SEEN = {}


@register_op(op_type="Weighted")
def weighted(a: TensorDesc, xs: list[TensorDesc], b: TensorDesc, *, mode: str = "x") -> TensorDesc:
    return TensorDesc(a.shape, a.data_type)


@register_op_impl(op_type="Weighted")
class Weighted:
    def compile(self, a: Tensor, xs: list[Tensor], b: Tensor, y: Tensor, *, mode: str) -> None:
        SEEN["option"] = get_compile_ctx().get_option("my.option")
        SEEN["soc"] = get_compile_platform_info().get_soc_version()
        SEEN["cores"] = get_compile_platform_info().get_core_num()

    def declare_launch_args(self, a: Tensor, xs: list[Tensor], b: Tensor, y: Tensor, *,
                            mode: str) -> None:
        ctx = get_declare_launch_args_ctx()
        binary = build_kernel(SOURCE, name="weighted")
        blocks = y.shape_size // 64
        # Launch 1: y = a + 2*xs[0] + 3*xs[1] ... ; flattened indices: a is 0,
        # xs are 1..len(xs), b is len(xs)+1.
        args = ctx.create_kernel_args()
        args.append_input(0, a)
        args.append_output(0, y)
        args.append_scalar(len(xs))
        for i, x in enumerate(xs):
            args.append_input(1 + i, x)
        ctx.add_launch(AnnotatedKernelLaunchInfo(kernel_name="weighted", kernel_bin=binary,
                                                 block_dim=blocks, stream_id=ctx.get_stream_id()),
                       args)
        # Launch 2 (several launches per node): y = y + 2*b.
        second = ctx.create_kernel_args()
        if mode == "reuse":
            args.append_input(0, a)
        if mode == "range":
            second.append_input(len(xs) + 2, b)
        if mode == "write-input":  # b bound where the kernel writes
            second.append_input(0, a)
            second.append_input(len(xs) + 1, b)
            second.append_scalar(0)
        else:
            second.append_output(0, y)
            second.append_output(0, y)
            second.append_scalar(1)
            second.append_input(len(xs) + 1, b)
        ctx.add_launch(AnnotatedKernelLaunchInfo(kernel_name="weighted", kernel_bin=binary,
                                                 block_dim=blocks, stream_id=ctx.get_stream_id()),
                       second)
'''


@pytest.fixture(scope="module")
def weighted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    # One file per test session: if this fixture runs again (tests of other
    # modules ran in between), the same source registers the same op again.
    path = tmp_path_factory.getbasetemp() / "weighted_op.py"
    if not path.exists():
        path.write_text(textwrap.dedent(OP_MODULE))
    bootstrap.load_custom_op_plugins(str(path))
    yield sys.modules[next(n for n in sys.modules if n.endswith(".weighted_op"))]


def _weighted_graph(mode: str, count: int = 3):  # type: ignore[no-untyped-def]
    from ge.es._op_api import Attr, Input, OpDef, Output

    op = OpDef(
        "Weighted",
        inputs=(
            Input("a", ("float32",)),
            Input("xs", ("float32",), dynamic=True),
            Input("b", ("float32",)),
        ),
        outputs=(Output("y", ("float32",)),),
        attrs=(Attr("mode", "str"),),
    )
    builder = GraphBuilder(f"weighted_{mode}")
    inputs = [builder.create_input(i, shape=[2, 64]) for i in range(count + 2)]
    y = op.build(
        inputs={"a": inputs[0], "xs": inputs[1:-1], "b": inputs[-1]},
        attrs={"mode": mode},
    )
    builder.set_graph_output(y, 0)
    return builder.build_and_reset()


def test_flattened_indices_several_launches_and_compile_context(
    session: Session, weighted: object
) -> None:
    session.add_graph(30, _weighted_graph("x"))
    rng = np.random.default_rng(3)
    values = [rng.standard_normal((2, 64)).astype(np.float32) for _ in range(5)]
    (y,) = session.run_graph(30, [Tensor.from_numpy(v) for v in values])
    a, x0, x1, x2, b = values
    np.testing.assert_allclose(
        y.numpy(), a + 2 * x0 + 3 * x1 + 4 * x2 + 2 * b, rtol=1e-5
    )
    seen = weighted.SEEN  # type: ignore[attr-defined]
    assert (
        seen["option"] == "on" and seen["soc"].startswith("CPU") and seen["cores"] >= 1
    )


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        (
            "range",
            r"input index 5 out of range: node Weighted_0 has 5 flattened inputs",
        ),
        ("reuse", r"consumed by add_launch"),
        (
            "write-input",
            r"kernel weighted argument 1 is declared out, but "
            r"declare_launch_args bound an input there "
            r"\(kernels never write their inputs\)$",
        ),
    ],
)
def test_declare_errors_name_the_node(
    session: Session, weighted: object, mode: str, message: str
) -> None:
    session.add_graph(40, _weighted_graph(mode))
    with pytest.raises(CompileError, match=r"node 'Weighted_0' \(Weighted\)") as info:
        session.compile_graph(40)
    assert info.match(message)


def test_kernel_declarations_are_checked_at_compile_time(session: Session) -> None:
    from ge.es.custom import ScaleCustom

    builder = GraphBuilder()
    x = builder.create_input(0, shape=[100])  # not a multiple of the chunk
    builder.set_graph_output(ScaleCustom(x), 0)
    session.add_graph(50, builder.build_and_reset())
    with pytest.raises(
        CompileError, match="ScaleCustom_0.*compile failed.*multiple of 64"
    ):
        session.compile_graph(50)


FAULTY_MODULE = '''
from __future__ import annotations

from ge.custom_op import (AnnotatedKernelLaunchInfo, get_declare_launch_args_ctx,
    register_op, register_op_impl)
from ge.device.kernels import build_kernel
from ge.runtime import Tensor, TensorDesc

SOURCE = r"""
#include "ge_kernel.h"
GE_KERNEL(faulty_copy, GE_IN(float, GE_PER_BLOCK(64)), GE_OUT(float, GE_PER_BLOCK(64)),
          GE_SCALAR(), GE_SCALAR()) {
  const float *x = GE_PTR(const float, 0) + block_idx * 64;
  float *y = GE_PTR(float, 1) + block_idx * 64;
  if (block_idx == args[2]) *(volatile float *)(uintptr_t)args[3] = 1.0f;
  for (int i = 0; i < 64; ++i) y[i] = x[i];
}
"""


@register_op(op_type="FaultyCopy")
def faulty_copy(x: TensorDesc, *, bad: int = 99) -> TensorDesc:
    return TensorDesc(x.shape, x.data_type)


@register_op_impl(op_type="FaultyCopy")
class FaultyCopy:
    def declare_launch_args(self, x: Tensor, y: Tensor, *, bad: int) -> None:
        ctx = get_declare_launch_args_ctx()
        args = ctx.create_kernel_args()
        args.append_input(0, x)
        args.append_output(0, y)
        args.append_scalar(bad)
        args.append_scalar(8)  # the address block ``bad`` writes to
        ctx.add_launch(AnnotatedKernelLaunchInfo(
            kernel_name="faulty_copy", kernel_bin=build_kernel(SOURCE, name="faulty_copy"),
            block_dim=y.shape_size // 64, stream_id=ctx.get_stream_id()), args)
'''


@pytest.fixture(scope="module")
def faulty(tmp_path_factory: pytest.TempPathFactory) -> None:
    path = tmp_path_factory.getbasetemp() / "faulty_copy_op.py"
    if not path.exists():
        path.write_text(textwrap.dedent(FAULTY_MODULE))
    bootstrap.load_custom_op_plugins(str(path))


def _faulty_graph(name: str, bad: int, through_execute: bool):  # type: ignore[no-untyped-def]
    from ge.es._op_api import Attr, Input, OpDef, Output
    from ge.es.custom import AddCustom

    op = OpDef(
        "FaultyCopy",
        inputs=(Input("x", ("float32",)),),
        outputs=(Output("y", ("float32",)),),
        attrs=(Attr("bad", "int"),),
    )
    builder = GraphBuilder(name)
    x = builder.create_input(0, shape=[8, 64])
    y = op.build(inputs={"x": x}, attrs={"bad": 99})  # launch 0: no fault
    if through_execute:
        y = AddCustom(y, y)
    builder.set_graph_output(op.build(inputs={"x": y}, attrs={"bad": bad}), 0)
    return builder.build_and_reset()


@pytest.mark.parametrize("through_execute", [False, True])
def test_a_kernel_fault_in_a_graph_names_the_graph_launch_and_kernel(
    session: Session, faulty: None, through_execute: bool
) -> None:
    """A crash signal in one block of a graph's second launch fails the run
    with KernelFault naming the graph, that launch and the kernel, whether
    the graph replays all its tasks at once or runs them in segments between
    execute nodes (a segment's first task counts: Note [Kernel faults] in
    native.c); the session goes on."""
    from ge.device.native import KernelFault

    name = f"faulty_{int(through_execute)}"
    session.add_graph(40, _faulty_graph(name, 5, through_execute))
    session.add_graph(41, _faulty_graph(name + "_ok", 99, through_execute))
    x = np.arange(8 * 64, dtype=np.float32).reshape(8, 64)
    with pytest.raises(
        KernelFault, match=rf"graph '{name}' launch 1 \(kernel faulty_copy\)"
    ):
        session.run_graph(40, [Tensor.from_numpy(x)])
    (y,) = session.run_graph(41, [Tensor.from_numpy(x)])
    np.testing.assert_array_equal(y.numpy(), x * 2 if through_execute else x)


@pytest.mark.parametrize("fast", [True, False])
def test_a_kernel_fault_on_the_fast_run_path_names_the_launch(
    session: Session, faulty: None, fast: bool
) -> None:
    """run_graph_with_stream_async with the caller's outputs takes the fast
    run path (Note [Fast run path] in ge/engine/hotpath.py) from its second
    run: a fault there names the launch as the Python path does, and the
    run state goes back to the pool."""
    from ge.device.native import KernelFault
    from ge.engine import hotpath

    previous = hotpath.set_enabled(fast)
    try:
        session.add_graph(42, _faulty_graph("faulty_fast", 5, False))
        x = np.arange(8 * 64, dtype=np.float32).reshape(8, 64)
        out = device(np.zeros((8, 64), np.float32))
        for _ in range(2):
            with pytest.raises(
                KernelFault,
                match=r"graph 'faulty_fast' launch 1 \(kernel faulty_copy\)",
            ):
                session.run_graph_with_stream_async(42, 0, [device(x)], [out])
        runner = session._fast[42]  # the extension's, or the Python one
        assert isinstance(runner, types.BuiltinMethodType) == (
            fast and hotpath.module() is not None
        )
        assert session.compiled(42).run_states() == 1
    finally:
        hotpath.set_enabled(previous)
