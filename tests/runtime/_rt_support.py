"""Shared helpers for the runtime API tests (tests/runtime/test_*.py).

A module rather than a conftest.py, so it cannot collide with other files in
this directory: test modules import what they use, fixtures included.
"""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import ge.es._op_api as api
import ge.ge_global as ge_global
from ge.custom_op import bootstrap, register_op, register_op_impl
from ge.device import rt
from ge.device.kernels import build_kernel
from ge.es import GraphBuilder
from ge.graph import DataType, Graph, Placement, Tensor
from ge.runtime import TensorDesc

_counter = itertools.count()


def unique(prefix: str) -> str:
    """A name no other test (in any process) uses: op types, graph names.

    Needed because generated-style ``OpDef`` tables live in a process-wide
    dict keyed by op type (first definition wins).
    """
    return f"{prefix}_{os.getpid()}_{next(_counter)}"


@pytest.fixture
def registries(clean_registries: None) -> Iterator[None]:
    """Empty op registries for the test (conftest's clean_registries) and no
    ASCEND_CUSTOM_OPP_PATH path remembered as loaded.

    Clearing a registry also forgets the modules that registered, so op
    modules other tests use register again when they are next imported or
    loaded; nothing is put back by hand (that would leave registrations
    whose modules are gone).
    """
    bootstrap.reset_loaded_paths()
    yield


@pytest.fixture
def ge_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[ge_global.GeApi]:
    """GeApi initialised with GE's sample options; the previous global state
    comes back afterwards. Compiles load ASCEND_CUSTOM_OPP_PATH, so it is
    unset here."""
    monkeypatch.delenv("ASCEND_CUSTOM_OPP_PATH", raising=False)
    saved = ge_global._options
    api = ge_global.GeApi()
    api.ge_initialize({"ge.exec.deviceId": "0", "ge.graphRunMode": "1"})
    yield api
    ge_global._options = saved


def float_op(op_type: str, execute: Any, infer: Any = None) -> api.OpDef:
    """A registered op of one float32 input x and one float32 output y
    (shaped as x unless ``infer`` says otherwise) that runs ``execute``."""
    op = api.OpDef(
        op_type,
        inputs=(api.Input("x", "float32"),),
        outputs=(api.Output("y", "float32"),),
    )

    def default_infer(x: TensorDesc) -> TensorDesc:
        return TensorDesc(x.shape, x.data_type)

    register_op(op_type=op_type, output_names=("y",))(infer or default_infer)
    register_op_impl(op_type=op_type)(type("Impl", (), {"execute": execute}))
    return op


def op_chain(op: api.OpDef, length: int, shape: list[int]) -> Graph:
    """x -> node0 -> node1 -> ... (``length`` nodes of ``op``):
    intermediates live in the arena."""
    builder = GraphBuilder(unique("chain"))
    y = builder.create_input(0, shape=shape)
    for i in range(length):
        y = op.build(inputs={"x": y}, name=f"node{i}")
    return builder.build_and_reset([y])


AFFINE_KERNEL = r"""
#include "ge_kernel.h"

/* y = 2 * x + 1 over n floats */
GE_KERNEL(KERNEL_NAME,
          GE_IN(float, GE_COUNT_OF(2)),
          GE_OUT(float, GE_COUNT_OF(2)),
          GE_SCALAR()) {
  const float *x = GE_PTR(const float, 0);
  float *y = GE_PTR(float, 1);
  uint64_t n = args[2];
  uint64_t lo, hi;
  ge_block_range(block_idx, block_dim, n, &lo, &hi);
  for (uint64_t i = lo; i < hi; ++i) y[i] = 2.0f * x[i] + 1.0f;
}
"""


@functools.cache
def named_affine_kernel(name: str) -> Any:
    """The kernel y = 2x + 1 over n floats (x, y, n), called ``name``: a
    launch's errors name it."""
    source = AFFINE_KERNEL.replace("KERNEL_NAME", name)
    return rt.binary_load(build_kernel(source, name=f"{name}_kernels")).get_function(
        name
    )


def device(array: np.ndarray) -> Tensor:
    """A float32 graph tensor of ``array``'s shape placed on the device."""
    return Tensor(
        array,
        data_type=DataType.DT_FLOAT,
        shape=list(array.shape),
        placement=Placement.PLACEMENT_DEVICE,
    )
