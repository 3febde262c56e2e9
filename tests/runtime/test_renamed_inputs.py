"""An op whose input shares its name with an attr (GE's IR allows it): the
generated prototype must name its parameter otherwise (in_a), and says the
IR names with register_op(input_names=...), so the prototype, the builder's
node and the dtype rules agree and a graph of it compiles and runs."""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from _rt_support import ge_api, registries  # noqa: F401
from helpers import import_file, render_tree, write_tree

from ge.custom_op import (
    get_execute_ctx,
    get_registered_op_proto_by_op_type,
    register_op,
    register_op_impl,
)
from ge.es import GraphBuilder
from ge.ge_global import GeApi
from ge.graph import Tensor
from ge.runtime import Tensor as RuntimeTensor
from ge.runtime import TensorDesc
from ge.session import Session

SPEC = """\
op: ShiftByRenamed
module: renamed
doc: y = a + shift, where input a and attr a share a name.
inputs:
  - {name: a, dtype: float32}
outputs:
  - {name: y, dtype: float32}
attrs:
  - {name: a, type: float, default: 1.0}
infer_meta:
  y: {shape: same_as(a), dtype: a}
impl:
  capabilities: [execute]
"""


@pytest.fixture
def modules(tmp_path: Path, registries: None) -> Iterator[tuple[object, object]]:
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "shift.yaml").write_text(SPEC)
    out = tmp_path / "out"
    write_tree(render_tree(specs), out)
    impl = import_file(out / "python/ge_impl/renamed/shift_by_renamed.py")
    builder = import_file(out / "python/ge/es/renamed/shift_by_renamed.py")
    yield impl, builder


def test_the_prototype_says_the_ir_names(modules: tuple[object, object]) -> None:
    impl, _ = modules
    proto = get_registered_op_proto_by_op_type("ShiftByRenamed")
    assert proto is not None
    assert [i.name for i in proto.inputs] == ["a"]
    assert [a.name for a in proto.attrs] == ["a"]
    assert proto.dtype_rules is not None and set(proto.dtype_rules.inputs) == {"a"}


def test_a_graph_of_it_compiles_and_runs(
    modules: tuple[object, object], ge_api: GeApi
) -> None:
    impl, builder = modules

    @register_op_impl(op_type="ShiftByRenamed")
    class Shift(impl.ShiftByRenamedBase):  # type: ignore[name-defined,misc]
        def execute(self, in_a: RuntimeTensor, *, a: float) -> None:
            y = get_execute_ctx().malloc_output_tensor(
                0, in_a.shape, in_a.format, in_a.data_type
            )
            src = np.frombuffer(
                (ctypes.c_char * in_a.size).from_address(in_a.addr), np.float32
            )
            dst = np.frombuffer(
                (ctypes.c_char * y.size).from_address(y.addr), np.float32
            )
            dst[:] = src + np.float32(a)

    graph_builder = GraphBuilder("renamed")
    x = graph_builder.create_input(0, shape=[4])
    graph = graph_builder.build_and_reset([builder.ShiftByRenamed(x, attr_a=2.5)])
    session = Session()
    session.add_graph(0, graph)
    data = np.arange(4, dtype=np.float32)
    (out,) = session.run_graph(0, [Tensor(data)])
    np.testing.assert_array_equal(out.numpy(), data + np.float32(2.5))


@pytest.mark.parametrize(
    ("names", "error", "message"),
    [
        (("a", "b"), ValueError, "input_names has 2 names for 1 inputs"),
        (("1x",), ValueError, "input_names must be distinct identifiers"),
        ("a", TypeError, "input_names must be a sequence of str"),
    ],
)
def test_input_names_are_checked(
    registries: None, names: object, error: type, message: str
) -> None:
    with pytest.raises(error, match=message):

        @register_op(op_type="InputNamesChecked", input_names=names)  # type: ignore[arg-type]
        def proto(x: TensorDesc) -> TensorDesc:
            return x
