"""Forward compatibility (Note [Defaults stay off the node] in
ge/es/_op_api.py): a builder writes an optional attr to the node only when
it differs from its IR default, and whoever runs the graph takes the default
from the registered prototype. So a graph file written against one release
runs under the next, which added an optional attr, and a graph written with
the new attr left at its default runs under the older release."""

from __future__ import annotations

import ctypes
import math
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from _rt_support import ge_api, registries  # noqa: F401
from helpers import import_file, render_tree, write_tree

from ge.custom_op import (
    clear_registered_op_impls,
    clear_registered_op_protos,
    get_execute_ctx,
    register_op_impl,
)
from ge.es import GraphBuilder
from ge.es._op_api import same_value
from ge.ge_global import GeApi
from ge.graph import Graph, Tensor
from ge.runtime import Tensor as RuntimeTensor
from ge.session import Session

RELEASE_1 = """\
op: AffineFwd
module: fwdcompat
doc: y = x * scale.
inputs:
  - {name: x, dtype: float32}
outputs:
  - {name: y, dtype: float32}
attrs:
  - {name: scale, type: float, default: 2.0}
infer_meta:
  y: {shape: same_as(x), dtype: x}
impl:
  capabilities: [execute]
"""

# The next release adds an optional attr: y = x * scale + shift.
RELEASE_2 = RELEASE_1.replace("y = x * scale.", "y = x * scale + shift.").replace(
    "  - {name: scale, type: float, default: 2.0}\n",
    "  - {name: scale, type: float, default: 2.0}\n"
    "  - {name: shift, type: float, default: 0.5}\n",
)


def _release(tmp_path: Path, name: str, spec: str) -> tuple[ModuleType, ModuleType]:
    """Release ``name`` of the op library: its registered prototype and its
    builder module."""
    specs = tmp_path / name / "specs"
    specs.mkdir(parents=True)
    (specs / "affine.yaml").write_text(spec)
    out = tmp_path / name / "out"
    write_tree(render_tree(specs), out)
    impl = import_file(out / "python/ge_impl/fwdcompat/affine_fwd.py")
    builder = import_file(out / "python/ge/es/fwdcompat/affine_fwd.py")
    return impl, builder


def _floats(tensor: RuntimeTensor) -> np.ndarray:
    return np.frombuffer(
        (ctypes.c_char * tensor.size).from_address(tensor.addr), np.float32
    )


def _register_kernel(impl: ModuleType, with_shift: bool) -> None:
    """The release's kernel: it reads every attr as a keyword, so an attr
    missing from the node must come from the prototype's default."""
    base = impl.AffineFwdBase
    if with_shift:

        class Affine2(base):  # type: ignore[misc,valid-type]
            def execute(self, x: RuntimeTensor, *, scale: float, shift: float) -> None:
                y = get_execute_ctx().malloc_output_tensor(
                    0, x.shape, x.format, x.data_type
                )
                _floats(y)[:] = _floats(x) * np.float32(scale) + np.float32(shift)

        register_op_impl(op_type="AffineFwd")(Affine2)
        return

    class Affine1(base):  # type: ignore[misc,valid-type]
        def execute(self, x: RuntimeTensor, *, scale: float) -> None:
            y = get_execute_ctx().malloc_output_tensor(
                0, x.shape, x.format, x.data_type
            )
            _floats(y)[:] = _floats(x) * np.float32(scale)

    register_op_impl(op_type="AffineFwd")(Affine1)


def _switch_to(tmp_path: Path, name: str, spec: str, with_shift: bool) -> ModuleType:
    clear_registered_op_protos()
    clear_registered_op_impls()
    impl, builder = _release(tmp_path, name, spec)
    _register_kernel(impl, with_shift)
    return builder


def _build(builder: ModuleType, path: Path, **attrs: float) -> Graph:
    graph_builder = GraphBuilder("fwd")
    x = graph_builder.create_input(0, shape=[4])
    graph = graph_builder.build_and_reset([builder.AffineFwd(x, **attrs)])
    graph.save_to_air(path)
    return graph


def _node_attrs(graph: Graph) -> set[str]:
    (node,) = [n for n in graph.nodes if n.type == "AffineFwd"]
    return set(node.attrs)


def _run(path: Path) -> np.ndarray:
    session = Session()
    session.add_graph(0, Graph.load_from_air(path))
    (out,) = session.run_graph(0, [Tensor(np.arange(4, dtype=np.float32))])
    return np.asarray(out.numpy())


X = np.arange(4, dtype=np.float32)


def test_a_defaulted_attr_stays_off_the_node_and_the_graph_runs(
    tmp_path: Path, registries: None, ge_api: GeApi
) -> None:
    builder = _switch_to(tmp_path, "r1", RELEASE_1, with_shift=False)
    defaulted = _build(builder, tmp_path / "defaulted.air")
    assert _node_attrs(defaulted) == set()
    assert "scale" not in _node_attrs(Graph.load_from_air(tmp_path / "defaulted.air"))
    np.testing.assert_array_equal(_run(tmp_path / "defaulted.air"), X * 2)
    given = _build(builder, tmp_path / "given.air", scale=3.0)
    assert _node_attrs(given) == {"scale"}
    np.testing.assert_array_equal(_run(tmp_path / "given.air"), X * 3)


def test_graphs_cross_releases_both_ways(
    tmp_path: Path, registries: None, ge_api: GeApi
) -> None:
    # Release 1 writes a graph; release 2 (which added shift) runs it.
    old = _switch_to(tmp_path, "r1", RELEASE_1, with_shift=False)
    _build(old, tmp_path / "old.air", scale=3.0)
    new = _switch_to(tmp_path, "r2", RELEASE_2, with_shift=True)
    np.testing.assert_array_equal(_run(tmp_path / "old.air"), X * 3 + 0.5)
    # Release 2's builder with shift at its default writes what release 1
    # wrote, so release 1 runs it; with shift given, the attr is there.
    _build(new, tmp_path / "new.air", scale=3.0)
    _build(new, tmp_path / "shifted.air", scale=3.0, shift=1.0)
    assert "shift" in _node_attrs(Graph.load_from_air(tmp_path / "shifted.air"))
    np.testing.assert_array_equal(_run(tmp_path / "shifted.air"), X * 3 + 1)
    _switch_to(tmp_path, "r1-again", RELEASE_1, with_shift=False)
    assert (tmp_path / "new.air").read_bytes() == (tmp_path / "old.air").read_bytes()
    np.testing.assert_array_equal(_run(tmp_path / "new.air"), X * 3)


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (1.0, 1.0, True),
        (0.0, -0.0, False),
        (math.nan, math.nan, False),
        (1, 1.0, False),
        (True, 1, False),
        ((1, 2), (1, 2), True),
        ((0.0,), (-0.0,), False),
        ((), (), True),
        ("a", "a", True),
    ],
)
def test_equality_is_exact(a: object, b: object, same: bool) -> None:
    assert same_value(a, b) is same


def test_negative_zero_is_written(
    tmp_path: Path, registries: None, ge_api: GeApi
) -> None:
    spec = RELEASE_1.replace("default: 2.0", "default: 0.0")
    builder = _switch_to(tmp_path, "zero", spec, with_shift=False)
    assert _node_attrs(_build(builder, tmp_path / "a.air")) == set()
    assert _node_attrs(_build(builder, tmp_path / "b.air", scale=-0.0)) == {"scale"}
    assert _node_attrs(_build(builder, tmp_path / "c.air", scale=math.nan)) == {"scale"}
