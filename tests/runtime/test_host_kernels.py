"""Host kernels (register_kernel(backend=OpBackend.HOST), Note [Kernel
backends] in ge.custom_op.kernels) and constant folding of custom ops with
them (Note [Folding custom ops] in ge.engine.passes.folding): folded when
every input is constant, left in place with a reason otherwise, and a
CompileError naming node and op when the host kernel fails."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _rt_support import ge_api, registries, unique  # noqa: F401

import ge.es._op_api as api
from ge.custom_op import (
    OpBackend,
    get_execute_ctx,
    get_registered_op_impl,
    get_registered_op_impl_dicts,
    register_kernel,
    register_op,
    register_op_impl,
)
from ge.engine.compiler import compile_graph
from ge.engine.errors import CompileError
from ge.es import GraphBuilder
from ge.graph import DataType, Graph, Tensor
from ge.runtime import Tensor as RtTensor
from ge.runtime import TensorDesc

pytestmark = pytest.mark.usefixtures("registries")

A = np.array([[1.0, -2.0, 3.5], [0.25, 8.0, -0.5]], np.float32)
B = np.array([[2.0, 0.5, -1.0], [4.0, 1.0, 0.5]], np.float32)


def _op(op_type: str) -> api.OpDef:
    @register_op(op_type=op_type, output_names=("z",))
    def infer(x: TensorDesc, y: TensorDesc) -> TensorDesc:
        return TensorDesc(x.shape, x.data_type)

    return api.OpDef(
        op_type,
        inputs=(api.Input("x", "float32"), api.Input("y", "float32")),
        outputs=(api.Output("z", "float32"),),
    )


def _add(x: RtTensor, y: RtTensor, calls: list[str], who: str) -> None:
    calls.append(who)
    z = get_execute_ctx().malloc_output_tensor(0, x.shape, x.format, x.data_type)
    z.copy_from(x.numpy() + y.numpy())


def _const_graph(op: api.OpDef, *, scale_after: bool = False) -> Graph:
    b = GraphBuilder(unique("fold"))
    x = b.create_const(Tensor(A, data_type=DataType.DT_FLOAT))
    y = b.create_const(Tensor(B, data_type=DataType.DT_FLOAT))
    z = op.build(inputs={"x": x, "y": y}, name="add")
    if scale_after:  # a consumer that is a graph input's reader: not foldable
        d = b.create_input(0, shape=[2, 3])
        z = op.build(inputs={"x": z, "y": d}, name="add2")
    return b.build_and_reset([z])


def test_host_and_device_kernels_registered_as_ge_names() -> None:
    op_type = unique("Both")
    _op(op_type)

    @register_op_impl(op_type=op_type)
    class Impl:
        @register_kernel(backend=OpBackend.HOST)
        def execute(self, x: RtTensor, y: RtTensor) -> None: ...

        @register_kernel(backend=OpBackend.DEVICE)  # type: ignore[no-redef]
        def execute(self, x: RtTensor, y: RtTensor) -> None: ...

    (entry,) = [d for d in get_registered_op_impl_dicts() if d["op_type"] == op_type]
    assert entry["interfaces"] == ["eager_execute", "host_cpu_execute"]
    impl = get_registered_op_impl(op_type)
    assert impl is not None and impl.host_kernel is not None
    assert not hasattr(Impl, "__ge_pending_custom_op_kernels__")


def test_custom_op_with_host_kernel_is_folded_and_runs_nothing() -> None:
    op_type = unique("HostAdd")
    op = _op(op_type)
    calls: list[str] = []

    @register_op_impl(op_type=op_type)
    class Impl:
        @register_kernel(backend=OpBackend.HOST)
        def execute(self, x: RtTensor, y: RtTensor) -> None:
            _add(x, y, calls, "host")

        @register_kernel(backend=OpBackend.DEVICE)  # type: ignore[no-redef]
        def execute(self, x: RtTensor, y: RtTensor) -> None:
            _add(x, y, calls, "device")

    compiled = compile_graph(_const_graph(op))
    assert calls == ["host"]  # the host kernel, at compile time
    assert compiled.report.folded == ["add"]
    assert compiled.report.host_folded == {"add": op_type}
    assert f"folded add -> Const (host kernel of {op_type})" in compiled.report.text()
    for _ in range(2):
        (z,) = compiled.run([])
        np.testing.assert_array_equal(z.numpy(), A + B)
    assert calls == ["host"]  # nothing runs at run time


def test_folded_node_is_a_const_in_the_dump(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    op_type = unique("HostAdd")
    op = _op(op_type)
    calls: list[str] = []

    @register_op_impl(op_type=op_type)
    class Impl:
        @register_kernel(backend=OpBackend.HOST)
        def execute(self, x: RtTensor, y: RtTensor) -> None:
            _add(x, y, calls, "host")

    monkeypatch.setenv("DUMP_GE_GRAPH", "2")
    monkeypatch.setenv("DUMP_GRAPH_PATH", str(tmp_path))
    graph = _const_graph(op)
    compile_graph(graph)
    (begin,) = tmp_path.glob(f"*{graph.name}_00_compile_begin.txt")
    (folded,) = tmp_path.glob(f"*{graph.name}_01_after_constant_folding.txt")
    assert f"type={op_type}" in begin.read_text()
    text = folded.read_text()
    assert f"type={op_type}" not in text and "%add" in text and "type=Const" in text


def test_host_kernel_runs_when_inputs_are_not_constant() -> None:
    op_type = unique("HostAdd")
    op = _op(op_type)
    calls: list[str] = []

    @register_op_impl(op_type=op_type)
    class Impl:
        @register_kernel(backend=OpBackend.HOST)
        def execute(self, x: RtTensor, y: RtTensor) -> None:
            _add(x, y, calls, "host")

    compiled = compile_graph(_const_graph(op, scale_after=True))
    assert compiled.report.folded == ["add"] and calls == ["host"]
    for k in range(3):
        d = np.full((2, 3), k, np.float32)
        (z,) = compiled.run([Tensor.from_numpy(d)])
        np.testing.assert_array_equal(z.numpy(), A + B + d)
    assert calls == ["host"] * 4  # add2 runs its host kernel (it has no other)


def test_op_without_host_kernel_is_not_folded_and_report_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    op_type = unique("DeviceAdd")
    op = _op(op_type)
    calls: list[str] = []

    @register_op_impl(op_type=op_type)
    class Impl:
        def execute(self, x: RtTensor, y: RtTensor) -> None:
            _add(x, y, calls, "device")

    monkeypatch.chdir(tmp_path)
    compiled = compile_graph(_const_graph(op), {"ge.exportCompileStat": "2"})
    assert compiled.report.folded == [] and calls == []
    why = compiled.report.not_folded["add"]
    assert "no host kernel" in why and "register_kernel(backend=OpBackend.HOST)" in why
    assert f"not folded add: {why}" in compiled.report.text()
    (z,) = compiled.run([])
    np.testing.assert_array_equal(z.numpy(), A + B)
    assert calls == ["device"]
    result = json.loads((tmp_path / "fusion_result.json").read_text())
    (entry,) = [
        v for v in result.values() if "ConstantFoldingPass" in v["graph_fusion"]
    ]
    assert entry["graph_fusion"]["ConstantFoldingPass"] == {
        "match_times": "1",
        "effect_times": "0",
    }


def _failing(op_type: str, body: Any) -> None:
    @register_op_impl(op_type=op_type)
    class Impl:
        @register_kernel(backend=OpBackend.HOST)
        def execute(self, x: RtTensor, y: RtTensor) -> None:
            body(x, y)


def test_host_kernel_that_raises_is_a_compile_error_naming_node_and_op() -> None:
    op_type = unique("Bad")
    op = _op(op_type)

    def body(x: RtTensor, y: RtTensor) -> None:
        raise ArithmeticError("no can do")

    _failing(op_type, body)
    with pytest.raises(CompileError) as info:
        compile_graph(_const_graph(op))
    text = str(info.value)
    assert f"node 'add' ({op_type})" in text and "no can do" in text
    assert "host kernel" in text and "GE_CPU_FOLDING=0" in text


@pytest.mark.parametrize(
    "shape, dtype, said",
    [
        ([3, 2], DataType.DT_FLOAT, "float32[3, 2]"),
        ([2, 3], DataType.DT_INT32, "int32[2, 3]"),
    ],
)
def test_host_kernel_wrong_shape_or_dtype_is_a_compile_error(
    shape: list[int], dtype: DataType, said: str
) -> None:
    op_type = unique("Wrong")
    op = _op(op_type)

    def body(x: RtTensor, y: RtTensor) -> None:
        get_execute_ctx().malloc_output_tensor(0, shape, x.format, dtype)

    _failing(op_type, body)
    with pytest.raises(CompileError) as info:
        compile_graph(_const_graph(op))
    text = str(info.value)
    assert f"node 'add' ({op_type})" in text and said in text
    assert "float32[2,3]" in text  # what infer_meta said


def test_folding_off_runs_the_host_kernel_at_run_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    op_type = unique("HostAdd")
    op = _op(op_type)
    calls: list[str] = []

    @register_op_impl(op_type=op_type)
    class Impl:
        @register_kernel(backend=OpBackend.HOST)
        def execute(self, x: RtTensor, y: RtTensor) -> None:
            _add(x, y, calls, "host")

    monkeypatch.setenv("GE_CPU_FOLDING", "0")
    compiled = compile_graph(_const_graph(op))
    assert compiled.report.folded == [] and calls == []
    (z,) = compiled.run([])
    np.testing.assert_array_equal(z.numpy(), A + B)
    assert calls == ["host"]


def _class_body_error(body: str) -> str:
    namespace: dict[str, Any] = {
        "register_kernel": register_kernel,
        "OpBackend": OpBackend,
        "register_op_impl": register_op_impl,
    }
    with pytest.raises(TypeError) as info:
        exec(body, namespace)
    return str(info.value)


@pytest.mark.parametrize(
    "body, match",
    [
        (
            "class C:\n    @register_kernel(backend='host')\n    def execute(self): ...\n",
            "must be an OpBackend member",
        ),
        (
            "class C:\n    @register_kernel(backend=OpBackend.HOST)\n"
            "    def compile(self): ...\n",
            "decorates execute only",
        ),
        (
            "class C:\n    @register_kernel(backend=OpBackend.HOST)\n"
            "    def execute(self): ...\n"
            "    @register_kernel(backend=OpBackend.HOST)\n    def execute(self): ...\n",
            "registered twice",
        ),
        (
            "class C:\n    def execute(self): ...\n"
            "    @register_kernel(backend=OpBackend.HOST)\n    def execute(self): ...\n",
            "has no register_kernel",
        ),
        (
            "@register_op_impl(op_type='X_kernels_t')\nclass C:\n"
            "    @register_kernel(backend=OpBackend.HOST)\n    def execute(self): ...\n"
            "    def execute(self): ...\n",
            "has no backend",
        ),
    ],
)
def test_register_kernel_misuse_is_a_type_error(body: str, match: str) -> None:
    assert match in _class_body_error(body)


def test_register_kernel_outside_a_class_body() -> None:
    def execute(self: object) -> None: ...

    with pytest.raises(TypeError, match="in a class body"):
        register_kernel(backend=OpBackend.HOST)(execute)
