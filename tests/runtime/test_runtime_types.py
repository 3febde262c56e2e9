"""ge.runtime value types: TensorDesc (GE's documented TypeError/ValueError
rules, TensorDesc_constructor.md, data_type.md, shape.md), Shape,
StorageShape, StorageFormat, ExpandDimsType, TensorPlacement, and the
runtime Tensor that only the runtime makes."""

from __future__ import annotations

import numpy as np
import pytest

import ge.runtime
from ge.graph import DataType, Format
from ge.runtime import (
    ExpandDimsType,
    Shape,
    StorageFormat,
    StorageShape,
    Tensor,
    TensorDesc,
    TensorPlacement,
)
from ge.runtime.lease import Lease
from ge.runtime.tensor import borrow


def test_public_names() -> None:
    assert sorted(ge.runtime.__all__) == [
        "ExpandDimsType",
        "Shape",
        "StorageFormat",
        "StorageShape",
        "Tensor",
        "TensorDesc",
        "TensorPlacement",
    ]


# --- TensorDesc: constructor -----------------------------------------------------


def test_tensor_desc_from_list() -> None:
    desc = TensorDesc([2, 3], DataType.DT_FLOAT)
    assert isinstance(desc.shape, StorageShape)
    assert desc.shape.origin_shape.dims == [2, 3]
    assert desc.shape.storage_shape.dims == [2, 3]
    assert desc.data_type is DataType.DT_FLOAT
    assert repr(desc) == "TensorDesc([2, 3], DataType.DT_FLOAT)"


def test_tensor_desc_none_is_a_scalar() -> None:
    desc = TensorDesc(None, DataType.DT_INT8)
    assert desc.shape.origin_shape.dims == [] and desc.shape.origin_shape.is_scalar()
    assert desc.shape.storage_shape.dims == []


def test_tensor_desc_from_storage_shape_keeps_both_shapes_and_copies() -> None:
    storage = StorageShape([2, 3], [1, 6])
    desc = TensorDesc(storage, DataType.DT_FLOAT16)
    assert desc.shape.origin_shape.dims == [2, 3]
    assert desc.shape.storage_shape.dims == [1, 6]
    assert desc.shape == storage and desc.shape is not storage  # owned by the desc


def test_tensor_desc_keyword_arguments_and_unknown_dims() -> None:
    desc = TensorDesc(shape=[-1, 4], data_type=DataType.DT_BF16)
    assert desc.shape.origin_shape.dims == [-1, 4]
    assert desc.data_type is DataType.DT_BF16
    assert TensorDesc([np.int64(5)], DataType.DT_FLOAT).shape.origin_shape.dims == [5]


@pytest.mark.parametrize(
    "shape",
    ["ab", 3, 2.5, {2: 3}, np.array([2, 3]), Format.FORMAT_ND, b"\x02"],
)
def test_tensor_desc_shape_of_another_type_is_a_type_error(shape) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(
        TypeError,
        match="TensorDesc shape must be a StorageShape, a list of ints or None",
    ):
        TensorDesc(shape, DataType.DT_FLOAT)


@pytest.mark.parametrize(
    ("shape", "what"),
    [([2.0], "float"), ([True], "bool"), (["2"], "str"), ([None], "NoneType")],
)
def test_tensor_desc_dims_must_be_ints(shape: list, what: str) -> None:
    with pytest.raises(
        TypeError, match=f"TensorDesc shape dims must be ints, got {what}"
    ):
        TensorDesc(shape, DataType.DT_FLOAT)


@pytest.mark.parametrize(
    "data_type", [0, 43, "float32", None, 1.0, Format.FORMAT_ND, np.float32]
)
def test_tensor_desc_data_type_not_a_data_type_is_a_type_error(data_type) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TypeError, match="TensorDesc data_type must be a DataType, got"):
        TensorDesc([1], data_type)


def test_tensor_desc_dt_max_is_a_value_error() -> None:
    with pytest.raises(
        ValueError, match="TensorDesc data_type cannot be DataType.DT_MAX"
    ):
        TensorDesc([1], DataType.DT_MAX)


def test_tensor_desc_needs_both_arguments() -> None:
    with pytest.raises(TypeError):
        TensorDesc([1])  # type: ignore[call-arg]


@pytest.mark.parametrize("data_type", [d for d in DataType if d is not DataType.DT_MAX])
def test_tensor_desc_takes_every_other_data_type(data_type: DataType) -> None:
    assert TensorDesc([1], data_type).data_type is data_type


# --- TensorDesc: setters -------------------------------------------------------------


def test_tensor_desc_shape_setter() -> None:
    desc = TensorDesc([1], DataType.DT_FLOAT)
    desc.shape = [4, 5]
    assert desc.shape.origin_shape.dims == [4, 5]
    desc.shape = StorageShape([2], [8])
    assert (desc.shape.origin_shape.dims, desc.shape.storage_shape.dims) == ([2], [8])
    desc.shape = None
    assert desc.shape.origin_shape.dims == []
    for bad in ("ab", 3, {1: 2}, np.array([1])):
        with pytest.raises(TypeError, match="TensorDesc shape must be a StorageShape"):
            desc.shape = bad
    with pytest.raises(
        TypeError, match="TensorDesc shape dims must be ints, got float"
    ):
        desc.shape = [1.5]
    assert desc.shape.origin_shape.dims == []  # a refused value changes nothing


def test_tensor_desc_data_type_setter() -> None:
    desc = TensorDesc([1], DataType.DT_FLOAT)
    desc.data_type = DataType.DT_FLOAT16
    assert desc.data_type is DataType.DT_FLOAT16
    with pytest.raises(
        TypeError, match="TensorDesc data_type must be a DataType, got int"
    ):
        desc.data_type = 1  # type: ignore[assignment]
    with pytest.raises(
        ValueError, match="TensorDesc data_type cannot be DataType.DT_MAX"
    ):
        desc.data_type = DataType.DT_MAX
    assert desc.data_type is DataType.DT_FLOAT16


def test_tensor_desc_equality() -> None:
    assert TensorDesc([2], DataType.DT_FLOAT) == TensorDesc([2], DataType.DT_FLOAT)
    assert TensorDesc([2], DataType.DT_FLOAT) == TensorDesc(
        StorageShape([2], [2]), DataType.DT_FLOAT
    )
    assert TensorDesc([2], DataType.DT_FLOAT) != TensorDesc([2], DataType.DT_INT8)
    assert TensorDesc([2], DataType.DT_FLOAT) != TensorDesc([3], DataType.DT_FLOAT)
    assert TensorDesc([2], DataType.DT_FLOAT) != TensorDesc(
        StorageShape([2], [1, 2]), DataType.DT_FLOAT
    )
    with pytest.raises(TypeError):
        hash(TensorDesc([2], DataType.DT_FLOAT))


# --- Shape, StorageShape ------------------------------------------------------------


def test_shape_queries() -> None:
    shape = Shape([2, 3, 4])
    assert shape.dims == [2, 3, 4]
    assert shape.get_dim_num() == 3 and len(shape) == 3
    assert shape.get_dim(1) == 3 and shape[2] == 4
    assert shape.get_shape_size() == 24
    assert not shape.is_scalar()
    assert list(shape) == [2, 3, 4]
    assert shape == [2, 3, 4] and shape == (2, 3, 4) and shape == Shape([2, 3, 4])
    assert shape != Shape([2, 3]) and shape != [2, 3]
    assert repr(shape) == "Shape([2, 3, 4])"
    with pytest.raises(IndexError):
        shape.get_dim(3)
    with pytest.raises(TypeError):
        hash(shape)


def test_shape_size_follows_gert_shape() -> None:
    assert Shape().is_scalar() and Shape().get_shape_size() == 1
    assert Shape([2, 0, 5]).get_shape_size() == 0
    assert Shape([-1, 3]).get_shape_size() == -3  # a plain product, as gert::Shape


def test_shape_dims_are_copied() -> None:
    dims = [1, 2]
    shape = Shape(dims)
    dims.append(3)
    shape.dims.append(9)
    assert shape.dims == [1, 2]


@pytest.mark.parametrize(
    ("dims", "message"),
    [
        ("ab", "Shape must be a list of ints, got str"),
        (None, "Shape must be a list of ints, got NoneType"),
        (3, "Shape must be a list of ints, got int"),
        ([1.0], "Shape dims must be ints, got float"),
        ([False], "Shape dims must be ints, got bool"),
    ],
)
def test_shape_errors(dims, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TypeError, match=message):
        Shape(dims)


def test_storage_shape() -> None:
    same = StorageShape([2, 3])
    assert same.origin_shape.dims == [2, 3] and same.storage_shape.dims == [2, 3]
    assert same.dims == [2, 3]  # the storage dims
    split = StorageShape(Shape([2, 3]), Shape([6]))
    assert split.origin_shape.dims == [2, 3] and split.dims == [6]
    assert StorageShape().origin_shape.dims == []
    assert StorageShape([1, 2], [2]) == StorageShape([1, 2], [2])
    assert StorageShape([1, 2], [2]) != StorageShape([1, 2], [1, 2])
    assert StorageShape([1]) != Shape([1])
    assert repr(split) == "StorageShape(origin=[2, 3], storage=[6])"
    with pytest.raises(TypeError, match="Shape must be a list of ints, got str"):
        StorageShape("ab")


# --- ExpandDimsType, StorageFormat, TensorPlacement -----------------------------------


@pytest.mark.parametrize(
    ("rule", "dims", "expanded"),
    [
        ("", [2, 3], [2, 3]),
        ("0110", [2, 3], [2, 1, 1, 3]),
        ("1", [2, 3], [1, 2, 3]),
        ("100", [5], [1, 5, 1]),  # missing dims become 1
    ],
)
def test_expand_dims_type(rule: str, dims: list[int], expanded: list[int]) -> None:
    expand = ExpandDimsType(rule)
    assert expand.rule == rule
    assert expand.expand(dims) == expanded
    assert expand == ExpandDimsType(rule)


def test_expand_dims_type_errors() -> None:
    with pytest.raises(
        ValueError, match="an expand-dims rule is a string of 0 and 1, got '012'"
    ):
        ExpandDimsType("012")
    with pytest.raises(
        TypeError, match="an expand-dims rule is a str of 0 and 1, got int"
    ):
        ExpandDimsType(3)  # type: ignore[arg-type]
    assert ExpandDimsType("01") != ExpandDimsType("10")
    assert ExpandDimsType() != "01"


def test_storage_format() -> None:
    fmt = StorageFormat(Format.FORMAT_NCHW, Format.FORMAT_NC1HWC0, ExpandDimsType("1"))
    assert fmt.origin_format is Format.FORMAT_NCHW
    assert fmt.storage_format is Format.FORMAT_NC1HWC0
    assert fmt.expand_dims_type.rule == "1"
    default = StorageFormat()
    assert default.origin_format is Format.FORMAT_ND
    assert default.storage_format is Format.FORMAT_ND
    assert default.expand_dims_type.rule == ""
    assert StorageFormat(Format.FORMAT_NHWC).storage_format is Format.FORMAT_NHWC
    assert StorageFormat(Format.FORMAT_ND) == StorageFormat(
        Format.FORMAT_ND, Format.FORMAT_ND
    )
    assert fmt != StorageFormat(Format.FORMAT_NCHW, Format.FORMAT_NC1HWC0)
    assert repr(fmt) == "StorageFormat(FORMAT_NCHW, FORMAT_NC1HWC0)"


def test_storage_format_errors() -> None:
    with pytest.raises(TypeError, match="origin_format must be a Format, got int"):
        StorageFormat(2)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="storage_format must be a Format, got str"):
        StorageFormat(Format.FORMAT_ND, "ND")  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match="expand_dims_type must be an ExpandDimsType, got str"
    ):
        StorageFormat(Format.FORMAT_ND, None, "01")  # type: ignore[arg-type]


def test_tensor_placement_values_are_gerts() -> None:
    assert {m.name: m.value for m in TensorPlacement} == {
        "kOnDeviceHbm": 0,
        "kOnHost": 1,
        "kFollowing": 2,
        "kOnDeviceP2p": 3,
    }


# --- runtime Tensor --------------------------------------------------------------------


def test_runtime_tensor_is_not_constructible() -> None:
    message = "ge.runtime.Tensor views are provided by the runtime in callbacks"
    for args, kwargs in [((), {}), ((1, 2), {}), ((), {"addr": 1, "size": 4})]:
        with pytest.raises(TypeError, match=message):
            Tensor(*args, **kwargs)


def test_runtime_tensor_view_reads_and_expires() -> None:
    # The view the runtime hands to callbacks, made the runtime's way.
    lease = Lease("a test callback")
    view = borrow(
        addr=0x1000,
        size=24,
        origin_dims=[2, 3],
        storage_dims=[1, 6],
        data_type=DataType.DT_FLOAT,
        origin_format=Format.FORMAT_NCHW,
        storage_format=Format.FORMAT_NC1HWC0,
        placement=TensorPlacement.kOnDeviceHbm,
        lease=lease,
    )
    assert (view.addr, view.size, view.shape_size) == (0x1000, 24, 6)
    assert view.origin_shape.dims == [2, 3] and view.storage_shape.dims == [1, 6]
    assert view.shape.origin_shape.dims == [2, 3]
    assert view.origin_format is Format.FORMAT_NCHW
    assert view.storage_format is Format.FORMAT_NC1HWC0
    assert view.format.storage_format is Format.FORMAT_NC1HWC0
    assert view.expand_dims_type.rule == ""
    assert view.data_type is DataType.DT_FLOAT
    assert view.placement is TensorPlacement.kOnDeviceHbm
    assert repr(view) == "Tensor(addr=0x1000, size=24, shape=[1, 6], DT_FLOAT)"
    shape, fmt, origin = view.shape, view.format, view.origin_shape
    lease.end()
    expired = "was borrowed from a test callback and is no longer valid"
    for read in (
        lambda: view.addr,
        lambda: view.size,
        lambda: view.shape,
        lambda: view.origin_shape,
        lambda: view.storage_shape,
        lambda: view.format,
        lambda: view.origin_format,
        lambda: view.storage_format,
        lambda: view.expand_dims_type,
        lambda: view.data_type,
        lambda: view.placement,
        lambda: view.shape_size,
        lambda: shape.origin_shape,
        lambda: shape.dims,
        lambda: fmt.storage_format,
        lambda: origin.dims,
        lambda: origin.get_dim(0),
        lambda: len(origin),
        lambda: list(origin),
        lambda: origin == [2, 3],
    ):
        with pytest.raises(RuntimeError, match=expired):
            read()
    assert repr(view) == "Tensor(<expired>)"
    assert repr(shape) == "StorageShape(<expired>)"
    assert repr(origin) == "Shape(<expired>)"
    assert repr(fmt) == "StorageFormat(<expired>)"
