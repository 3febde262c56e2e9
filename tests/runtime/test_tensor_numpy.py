"""numpy in and out of tensors (issue 8, finding 8).

``ge.graph.Tensor(array)`` keeps the array's dtype (GE's default DT_FLOAT is
for lists, bytes and files); an explicit ``data_type`` converts the data to
it, as GE converts list data, refusing conversions that change values.
``ge.runtime.Tensor.numpy()`` copies a borrowed tensor's elements out and
``copy_from`` writes an output, both only inside the execute callback that
received the tensor; arrays from ``numpy()`` are the caller's to keep."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from _rt_support import ge_api, registries, unique  # noqa: F401

import ge.es._op_api as api
from ge.custom_op import get_execute_ctx, register_op, register_op_impl
from ge.es import GraphBuilder
from ge.ge_global import GeApi
from ge.graph import DataType, Graph, Placement, Tensor
from ge.graph.numpy_dtypes import float_info, kind, mapped_dtypes
from ge.runtime import Tensor as RuntimeTensor
from ge.runtime import TensorDesc
from ge.session import ExecuteError, Session

MAPPED = sorted(mapped_dtypes().items(), key=lambda item: item[0].value)


def sample(np_dtype: np.dtype) -> np.ndarray:
    """Values that would not survive a trip through float32."""
    if np_dtype.kind == "b":
        return np.array([[True, False, True], [False, False, True]])
    if np_dtype.kind == "c":
        return np.array([[1 + 2j, -3.5j, 0], [1e30, 2, -1]], dtype=np_dtype)
    if kind(np_dtype) == "f":  # bfloat16 too (ml_dtypes)
        info = float_info(np_dtype)
        return np.array(
            [[info.max, info.tiny, -0.0], [1 / 3, np.inf, -info.max]], dtype=np_dtype
        )
    info = np.iinfo(np_dtype)
    return np.array([[info.min, info.max, 0], [1, info.max - 1, 7]], dtype=np_dtype)


# --- ge.graph.Tensor keeps an array's dtype -------------------------------------------


@pytest.mark.parametrize("data_type, np_dtype", MAPPED, ids=[d.name for d, _ in MAPPED])
def test_an_array_keeps_its_dtype(data_type: DataType, np_dtype: np.dtype) -> None:
    array = sample(np_dtype)
    for placement in Placement:
        tensor = Tensor(array, placement=placement)
        assert tensor.data_type is data_type and tensor.shape == [2, 3]
        out = tensor.numpy()
        assert out.dtype == np_dtype
        np.testing.assert_array_equal(out, array, strict=True)
    assert Tensor.from_numpy(array) == Tensor(array)


@pytest.mark.parametrize("data_type, np_dtype", MAPPED, ids=[d.name for d, _ in MAPPED])
def test_a_numpy_scalar_keeps_its_dtype(
    data_type: DataType, np_dtype: np.dtype
) -> None:
    value = sample(np_dtype)[0, 1]
    tensor = Tensor(value)
    assert tensor.data_type is data_type and tensor.shape == []
    np.testing.assert_array_equal(tensor.numpy(), np.asarray(value), strict=True)


def test_strided_fortran_and_byte_swapped_arrays() -> None:
    base = np.arange(24, dtype=np.int32).reshape(4, 6)
    for array in (
        base[:, ::2],
        np.asfortranarray(base),
        base.astype(">i4"),
        base.T,
    ):
        tensor = Tensor(array)
        assert tensor.data_type is DataType.DT_INT32
        np.testing.assert_array_equal(tensor.numpy(), array)


def test_lists_bytes_and_files_default_to_float32_as_in_ge(tmp_path: Any) -> None:
    assert Tensor([1, 2]).data_type is DataType.DT_FLOAT
    assert Tensor(1).data_type is DataType.DT_FLOAT
    assert Tensor(bytes(8), shape=[2]).data_type is DataType.DT_FLOAT
    (tmp_path / "raw.bin").write_bytes(bytes(4))
    assert Tensor(file_path=tmp_path / "raw.bin").data_type is DataType.DT_FLOAT
    assert Tensor().data_type is DataType.DT_FLOAT
    assert Tensor([1, 2], data_type=None).data_type is DataType.DT_FLOAT


def test_an_explicit_data_type_converts_the_array() -> None:
    """GE's rule for list data (data_type decides, values are converted)."""
    tensor = Tensor(np.float16([1.5, -2.25]), data_type=DataType.DT_DOUBLE)
    np.testing.assert_array_equal(tensor.numpy(), np.float64([1.5, -2.25]), strict=True)
    tensor = Tensor(np.float64([1.7, -2.7]), data_type=DataType.DT_INT32)
    np.testing.assert_array_equal(tensor.numpy(), np.int32([1, -2]), strict=True)
    tensor = Tensor(np.int64([3, 4]), data_type=DataType.DT_FLOAT)
    np.testing.assert_array_equal(tensor.numpy(), np.float32([3, 4]), strict=True)


@pytest.mark.parametrize(
    "array, data_type, message",
    [
        (np.int64([1, 1 << 40]), DataType.DT_INT32, "does not fit in DT_INT32"),
        (np.int32([-1]), DataType.DT_UINT8, "-1 does not fit in DT_UINT8"),
        (np.float64([1.0, np.nan]), DataType.DT_INT32, "nan .*DT_INT32"),
        (np.float64([np.inf]), DataType.DT_INT64, "inf .*DT_INT64"),
        (np.float64([3e9]), DataType.DT_INT32, "does not fit in DT_INT32"),
        (np.float64([1e40]), DataType.DT_FLOAT, "too large for DT_FLOAT"),
        (np.float32([7e4]), DataType.DT_FLOAT16, "too large for DT_FLOAT16"),
        (np.complex64([1j]), DataType.DT_FLOAT, "complex data"),
    ],
)
def test_a_conversion_that_changes_values_is_refused(
    array: np.ndarray, data_type: DataType, message: str
) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        Tensor(array, data_type=data_type)


def test_infinities_stay_infinities() -> None:
    tensor = Tensor(np.float64([np.inf, -np.inf, np.nan]), data_type=DataType.DT_FLOAT)
    out = tensor.numpy()
    assert out[0] == np.inf and out[1] == -np.inf and np.isnan(out[2])


@pytest.mark.parametrize(
    "array",
    [
        np.array([1.0], dtype=np.longdouble),
        np.array(["a"]),
        np.array([np.datetime64("2024-01-01")]),
        np.array([object()], dtype=object),
    ],
    ids=["longdouble", "str", "datetime64", "object"],
)
def test_an_array_of_a_dtype_ge_lacks_is_a_type_error(array: np.ndarray) -> None:
    if array.dtype == np.float64:
        pytest.skip("longdouble is float64 on this machine")
    with pytest.raises(
        TypeError, match=str(array.dtype) + "|tensor data must be numbers"
    ):
        Tensor(array)


def test_a_float16_graph_input_runs(ge_api: GeApi) -> None:
    """The issue's case: a float16 array was made float32 and refused."""
    builder = GraphBuilder(unique("half"))
    x = builder.create_input(0, shape=[3], data_type=DataType.DT_FLOAT16)
    session = Session()
    session.add_graph(0, builder.build_and_reset([x]))
    data = np.float16([0.5, 1.5, 65504])
    (out,) = session.run_graph(0, [Tensor(data)])
    np.testing.assert_array_equal(out.numpy(), data, strict=True)


# --- ge.runtime.Tensor: numpy() and copy_from() in execute -------------------------------


OP = unique("NumpyOp")
OP_DEF = api.OpDef(
    OP,
    type_vars={"T": ("float16", "float32", "int32", "bool")},
    inputs=(api.Input("x", "T"), api.Input("w", "T")),
    outputs=(api.Output("y", "T"),),
)


class Seen:
    """What the callbacks saw, for the test to look at afterwards."""

    def __init__(self) -> None:
        self.arrays: list[np.ndarray] = []
        self.views: list[RuntimeTensor] = []
        self.errors: list[BaseException] = []
        self.hook: Any = None


@pytest.fixture
def seen(ge_api: GeApi, registries: None) -> Iterator[Seen]:
    record = Seen()

    @register_op(op_type=OP, output_names=("y",))
    def infer(x: TensorDesc, w: TensorDesc) -> TensorDesc:
        return TensorDesc(x.shape, x.data_type)

    @register_op_impl(op_type=OP)
    class Impl:
        def execute(self, x: RuntimeTensor, w: RuntimeTensor) -> None:
            ctx = get_execute_ctx()
            y = ctx.malloc_output_tensor(0, x.shape, x.format, x.data_type)
            a, b = x.numpy(), w.numpy()
            record.arrays.append(a)
            record.views.extend([x, y])
            y.copy_from(a + b if a.dtype != np.bool_ else a ^ b)
            if record.hook is not None:
                record.hook(x, y)

    yield record


def graph(shape: list[int], dtype: DataType) -> Graph:
    builder = GraphBuilder(unique("np"))
    x = builder.create_input(0, shape=shape, data_type=dtype)
    w = builder.create_input(1, shape=shape, data_type=dtype)
    return builder.build_and_reset([OP_DEF.build(inputs={"x": x, "w": w}, name="np")])


@pytest.mark.parametrize(
    "np_dtype", [np.float16, np.float32, np.int32, np.bool_], ids=lambda t: t.__name__
)
def test_execute_reads_and_writes_with_numpy(seen: Seen, np_dtype: Any) -> None:
    data_type = {
        np.float16: DataType.DT_FLOAT16,
        np.float32: DataType.DT_FLOAT,
        np.int32: DataType.DT_INT32,
        np.bool_: DataType.DT_BOOL,
    }[np_dtype]
    session = Session()
    session.add_graph(0, graph([2, 3], data_type))
    rng = np.random.default_rng(3)
    x = (rng.integers(0, 50, (2, 3)) % (2 if np_dtype is np.bool_ else 50)).astype(
        np_dtype
    )
    w = (rng.integers(0, 50, (2, 3)) % (2 if np_dtype is np.bool_ else 50)).astype(
        np_dtype
    )
    (out,) = session.run_graph(0, [Tensor(x), Tensor(w)])
    expected = x ^ w if np_dtype is np.bool_ else x + w
    np.testing.assert_array_equal(out.numpy(), expected, strict=True)
    np.testing.assert_array_equal(seen.arrays[0], x, strict=True)


def test_arrays_from_numpy_outlive_the_callback(seen: Seen) -> None:
    """The array is a copy: later runs, which reuse the memory the callback
    saw, do not change it, and dropping the input does not free it."""
    session = Session()
    session.add_graph(0, graph([1024], DataType.DT_FLOAT))
    first = np.arange(1024, dtype=np.float32)
    session.run_graph(0, [Tensor(first), Tensor(first)])
    for i in range(3):
        other = np.full(1024, -i, np.float32)
        session.run_graph(0, [Tensor(other), Tensor(other)])
    np.testing.assert_array_equal(seen.arrays[0], first, strict=True)
    seen.arrays[0][:] = 5  # yours to write: the runtime's memory is not touched
    (out,) = session.run_graph(0, [Tensor(first), Tensor(first)])
    np.testing.assert_array_equal(out.numpy(), 2 * first)


def test_views_are_dead_after_the_callback(seen: Seen) -> None:
    session = Session()
    session.add_graph(0, graph([4], DataType.DT_FLOAT))
    session.run_graph(0, [Tensor(np.ones(4, np.float32))] * 2)
    x, y = seen.views
    with pytest.raises(RuntimeError, match="no longer valid"):
        x.numpy()
    with pytest.raises(RuntimeError, match="no longer valid"):
        y.copy_from(np.zeros(4, np.float32))


def test_inputs_are_read_only(seen: Seen) -> None:
    def write_input(x: RuntimeTensor, y: RuntimeTensor) -> None:
        x.copy_from(np.zeros(4, np.float32))

    seen.hook = write_input
    session = Session()
    session.add_graph(0, graph([4], DataType.DT_FLOAT))
    data = np.ones(4, np.float32)
    with pytest.raises(
        ExecuteError, match="node 'np'.*an input of the callback, which is read-only"
    ):
        session.run_graph(0, [Tensor(data), Tensor(data)])


def test_copy_from_checks_shape_and_values(seen: Seen) -> None:
    problems: list[str] = []

    def write_badly(x: RuntimeTensor, y: RuntimeTensor) -> None:
        for bad in (np.zeros(5, np.float32), np.float64([1e40] * 4), ["a"] * 4):
            try:
                y.copy_from(bad)
            except (ValueError, TypeError) as exc:
                problems.append(str(exc))
        y.copy_from(2.5)  # a scalar fills the output (numpy broadcasting)

    seen.hook = write_badly
    session = Session()
    session.add_graph(0, graph([4], DataType.DT_FLOAT))
    (out,) = session.run_graph(0, [Tensor(np.ones(4, np.float32))] * 2)
    np.testing.assert_array_equal(out.numpy(), np.full(4, 2.5, np.float32))
    assert len(problems) == 3
    assert "shape (5,)" in problems[0] and "[4]" in problems[0]
    assert "too large for DT_FLOAT" in problems[1]
    assert "numbers" in problems[2]


def test_another_thread_cannot_use_the_views(seen: Seen) -> None:
    """Only the callback's own thread, while it runs."""
    errors: list[BaseException] = []

    def from_a_thread(x: RuntimeTensor, y: RuntimeTensor) -> None:
        def body() -> None:
            try:
                x.numpy()
            except RuntimeError as exc:
                errors.append(exc)

        thread = threading.Thread(target=body)
        thread.start()
        thread.join()

    seen.hook = from_a_thread
    session = Session()
    session.add_graph(0, graph([4], DataType.DT_FLOAT))
    session.run_graph(0, [Tensor(np.ones(4, np.float32))] * 2)
    assert len(errors) == 1 and "execute callback" in str(errors[0])


def test_compile_time_views_have_no_data(ge_api: GeApi, registries: None) -> None:
    """compile and declare_launch_args see tensors before any run: they
    describe shapes; their memory is not there to read (a graph input's
    address is 0 until a run binds it)."""
    op = unique("CompileNumpy")
    messages: list[str] = []

    @register_op(op_type=op, output_names=("y",))
    def infer(x: TensorDesc) -> TensorDesc:
        return TensorDesc(x.shape, x.data_type)

    @register_op_impl(op_type=op)
    class Impl:
        def compile(self, x: RuntimeTensor, y: RuntimeTensor) -> None:
            for view in (x, y):
                try:
                    view.numpy()
                except RuntimeError as exc:
                    messages.append(str(exc))

        def execute(self, x: RuntimeTensor) -> None:
            get_execute_ctx().make_output_ref_input(0, 0)

    op_def = api.OpDef(
        op, inputs=(api.Input("x", "float32"),), outputs=(api.Output("y", "float32"),)
    )
    builder = GraphBuilder(unique("c"))
    x = builder.create_input(0, shape=[4])
    session = Session()
    session.add_graph(0, builder.build_and_reset([op_def.build(inputs={"x": x})]))
    session.compile_graph(0)
    assert len(messages) == 2 and all("execute callback" in m for m in messages)


def test_a_ref_output_writes_the_input_memory(seen: Seen) -> None:
    """make_output_ref_input's view is an output: writable, and its writes
    are the input's (GE's ref semantics)."""
    op = unique("RefNumpy")

    @register_op(op_type=op, output_names=("y",))
    def infer(x: TensorDesc) -> TensorDesc:
        return TensorDesc(x.shape, x.data_type)

    @register_op_impl(op_type=op)
    class Impl:
        def execute(self, x: RuntimeTensor) -> None:
            y = get_execute_ctx().make_output_ref_input(0, 0)
            y.copy_from(y.numpy() * 3)

    op_def = api.OpDef(
        op, inputs=(api.Input("x", "float32"),), outputs=(api.Output("y", "float32"),)
    )
    builder = GraphBuilder(unique("ref"))
    x = builder.create_input(0, shape=[3])
    first = OP_DEF.build(inputs={"x": x, "w": x})
    session = Session()
    session.add_graph(0, builder.build_and_reset([op_def.build(inputs={"x": first})]))
    (out,) = session.run_graph(0, [Tensor(np.float32([1, 2, 3]))])
    np.testing.assert_array_equal(out.numpy(), np.float32([6, 12, 18]))


def test_importing_ge_does_not_import_ml_dtypes() -> None:
    """ml_dtypes' import takes over a second; only bfloat16 needs it."""
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "import ge.custom_op, ge.es, ge.session, ge.offline\n"
        "print('ml_dtypes' in sys.modules)\n"
        "from ge.graph import DataType\n"
        "from ge.graph.numpy_dtypes import to_numpy_dtype\n"
        "print(to_numpy_dtype(DataType.DT_BF16).name)\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert shown.stdout.split() == ["False", "bfloat16"], shown.stderr
