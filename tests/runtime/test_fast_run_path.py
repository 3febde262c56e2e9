"""The fast run path (Note [Fast run path] in ge/engine/hotpath.py) and the
Python path it falls back to: the same results and the same errors, with
the extension and without it."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from _rt_support import device

from ge.allocator import Allocator, MemBlock
from ge.custom_op import bootstrap
from ge.device import rt
from ge.device.memory import DeviceBuffer
from ge.engine import hotpath
from ge.es import GraphBuilder
from ge.ge_global import GeApi
from ge.offline import compile_model
from ge.offline.model import load_model_bytes
from ge.session import Session


@pytest.fixture(autouse=True)
def _unfused(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests count the sample ops' own launches, workspaces and
    execute nodes; the sample adds and ScaleCustom declare elementwise:, so
    element-wise fusion (docs/compiler.md) is off here."""
    monkeypatch.setenv("GE_CPU_FUSION", "0")


ROOT = Path(__file__).resolve().parents[2]
N, K = 2048, 3


@pytest.fixture(scope="module")
def ops() -> None:
    bootstrap.load_custom_op_plugins(
        str(ROOT / "examples/annotated_args_refresh/add_ops.py")
    )


@pytest.fixture(params=["fast", "python"])
def path(request: pytest.FixtureRequest, ops: None) -> Iterator[str]:
    """Each test once with the extension and once on the Python path."""
    if request.param == "fast" and hotpath.module() is None:
        pytest.skip("the extension cannot be built here (no compiler or headers)")
    previous = hotpath.set_enabled(request.param == "fast")
    GeApi().ge_initialize({"ge.exec.deviceId": "0"})
    yield request.param
    hotpath.set_enabled(previous)


def in_c(runner: object) -> bool:
    """Whether a fast runner is the extension's (else it is the Python one)."""
    return isinstance(runner, types.BuiltinMethodType)


def chain_graph(name: str = "fast_chain"):  # type: ignore[no-untyped-def]
    from ge.es.custom import AnnotatedAddCustom

    builder = GraphBuilder(name)
    a = builder.create_input(0, shape=[N])
    b = builder.create_input(1, shape=[N])
    y = a
    for _ in range(K):
        y = AnnotatedAddCustom(y, b)
    builder.set_graph_output(y, 0)
    return builder.build_and_reset()


def sets(count: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(count)
    return [
        (
            rng.standard_normal(N).astype(np.float32),
            rng.standard_normal(N).astype(np.float32),
        )
        for _ in range(count)
    ]


def want(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    y = a.copy()
    for _ in range(K):
        y = y + b
    return y


def test_runs_refresh_every_address_on_either_path(path: str) -> None:
    """Alternating inputs and outputs: every run writes its own outputs, in
    place, and matches numpy; the session's fast runner is the extension's
    when it is in use, else the Python one."""
    session = Session()
    session.add_graph(0, chain_graph())
    data = sets(3)
    outs = [device(np.zeros(N, np.float32)) for _ in range(2)]
    for i in range(7):
        a, b = data[i % 3]
        out = outs[i % 2]
        (result,) = session.run_graph_with_stream_async(
            0, rt.DEFAULT_STREAM, (device(a), device(b)), [out]
        )
        assert result is out
        np.testing.assert_allclose(out.numpy(), want(a, b), rtol=1e-6, atol=1e-5)
    assert in_c(session._fast[0]) == (path == "fast")
    # No outputs given: new ones, from the Python path.
    (fresh,) = session.run_graph_with_stream_async(0, 0, [device(a), device(b)])
    np.testing.assert_allclose(fresh.numpy(), want(a, b), rtol=1e-6, atol=1e-5)


def test_errors_are_the_python_paths_after_the_fast_path_is_set_up(
    path: str,
) -> None:
    session = Session()
    session.add_graph(0, chain_graph())
    ((a, b),) = sets(1)
    out = device(np.zeros(N, np.float32))
    session.run_graph_with_stream_async(0, 0, [device(a), device(b)], [out])
    with pytest.raises(ValueError, match=r"input 1 must be float32\[2048\]"):
        session.run_graph_with_stream_async(0, 0, [device(a), device(b[:16])], [out])
    with pytest.raises(ValueError, match=r"output 0 must be float32\[2048\]"):
        session.run_graph_with_stream_async(
            0, 0, [device(a), device(b)], [device(np.zeros(8, np.float32))]
        )
    with pytest.raises(TypeError, match="input 0 must be a ge.graph.Tensor"):
        session.run_graph_with_stream_async(0, 0, [a, device(b)], [out])
    with pytest.raises(ValueError, match="takes 2 input"):
        session.run_graph_with_stream_async(0, 0, [device(a)], [out])
    with pytest.raises(rt.LaunchError, match="12345 is not a live stream"):
        session.run_graph_with_stream_async(0, 12345, [device(a), device(b)], [out])
    with pytest.raises(ValueError, match="graph id 1 is not in this session"):
        session.run_graph_with_stream_async(1, 0, [device(a), device(b)], [out])
    # Every failed call gave its run state back: the graph still has one.
    assert session.compiled(0).run_states() == 1
    session.remove_graph(0)
    with pytest.raises(ValueError, match="graph id 0 is not in this session"):
        session.run_graph_with_stream_async(0, 0, [device(a), device(b)], [out])
    session.add_graph(0, chain_graph())
    session.run_graph_with_stream_async(0, 0, [device(a), device(b)], [out])
    session.close()
    with pytest.raises(RuntimeError, match="this Session is closed"):
        session.run_graph_with_stream_async(0, 0, [device(a), device(b)], [out])


def test_a_state_made_while_the_pool_was_empty_is_packed_for_itself(
    path: str,
) -> None:
    """A run that finds the pool empty (a run on another thread holds its
    state) makes a new state; later runs take either state from the pool,
    and each refreshes its own table: results stay right whichever runs."""
    session = Session()
    session.add_graph(0, chain_graph())
    data = sets(4)
    out = device(np.zeros(N, np.float32))
    a, b = data[0]
    session.run_graph_with_stream_async(0, 0, [device(a), device(b)], [out])
    compiled = session.compiled(0)
    held = compiled._free.pop()  # as a concurrent run would hold it
    a, b = data[1]
    session.run_graph_with_stream_async(0, 0, [device(a), device(b)], [out])
    np.testing.assert_allclose(out.numpy(), want(a, b), rtol=1e-6, atol=1e-5)
    assert compiled.run_states() == 2
    compiled._free.insert(0, held)
    for i in range(6):
        if i % 3 == 0:  # rotate the pool: each state takes its turn
            compiled._free.reverse()
        a, b = data[i % 4]
        session.run_graph_with_stream_async(0, 0, [device(a), device(b)], [out])
        np.testing.assert_allclose(out.numpy(), want(a, b), rtol=1e-6, atol=1e-5)


def test_a_runner_keeps_its_graph_while_it_is_held(path: str) -> None:
    """A run in progress holds the runner: removing the graph from the
    session meanwhile must not free its kernels, bindings or run states."""
    session = Session()
    session.add_graph(0, chain_graph("held_chain"))
    (a, b), (c, d) = sets(2)
    out = device(np.zeros(N, np.float32))
    session.run_graph_with_stream_async(0, 0, [device(a), device(b)], [out])
    runner = session._fast[0]
    session.remove_graph(0)
    gc.collect()
    (result,) = runner([device(c), device(d)], [out])
    assert result is out
    np.testing.assert_allclose(out.numpy(), want(c, d), rtol=1e-6, atol=1e-5)


class CountingAllocator(Allocator):
    def __init__(self) -> None:
        self.mallocs = 0

    def malloc(self, size: int) -> MemBlock:
        self.mallocs += 1
        return MemBlock(rt.malloc(size), size)

    def free(self, block: MemBlock) -> None:
        rt.free(block.addr)


def test_an_allocator_registered_after_the_fast_path_gets_the_runs(
    path: str,
) -> None:
    session = Session()
    session.add_graph(0, chain_graph())
    ((a, b),) = sets(1)
    out = device(np.zeros(N, np.float32))
    session.run_graph_with_stream_async(0, 0, [device(a), device(b)], [out])
    stream = rt.create_stream()
    allocator = CountingAllocator()
    session.register_external_allocator(stream, allocator)
    session.run_graph_with_stream_async(0, stream, [device(a), device(b)], [out])
    np.testing.assert_allclose(out.numpy(), want(a, b), rtol=1e-6, atol=1e-5)
    assert allocator.mallocs >= 1  # the run state's arena came from it
    session.unregister_external_allocator(stream)
    rt.destroy_stream(stream)
    out.numpy()[:] = 0
    session.run_graph_with_stream_async(0, 0, [device(a), device(b)], [out])
    np.testing.assert_allclose(out.numpy(), want(a, b), rtol=1e-6, atol=1e-5)


def test_model_execute_takes_buffers_and_tensors_on_either_path(path: str) -> None:
    model = load_model_bytes(compile_model(chain_graph("fast_model")))
    assert in_c(model._fast) == (path == "fast")
    ((a, b),) = sets(1)
    ins = [DeviceBuffer(a.nbytes), device(b)]
    ins[0].array[:] = a.view(np.uint8)
    out = DeviceBuffer(a.nbytes + 64)  # bigger than needed is fine
    for _ in range(2):
        model.execute(ins, [out])
        np.testing.assert_allclose(
            out.array[: a.nbytes].view(np.float32), want(a, b), rtol=1e-6, atol=1e-5
        )
    with pytest.raises(
        ValueError, match="output 0 needs 8192 bytes, the buffer has 64"
    ):
        model.execute(ins, [DeviceBuffer(64)])
    with pytest.raises(ValueError, match=r"input 1 must be float32\[2048\]"):
        model.execute([ins[0], device(b[:8])], [out])


def test_a_model_run_with_device_buffers_takes_the_fast_path(path: str) -> None:
    """The extension reads a DeviceBuffer's address (``addr``) as well as a
    tensor's; it once read ``_addr`` only, and every run given a buffer
    fell back to the Python path."""
    if path != "fast":
        pytest.skip("the Python runner takes tensors only")
    model = load_model_bytes(compile_model(chain_graph("fast_buffers")))
    ((a, b),) = sets(1)
    ins = [DeviceBuffer(a.nbytes), device(b)]
    ins[0].array[:] = a.view(np.uint8)
    out = DeviceBuffer(a.nbytes)
    assert model._fast(ins, [out]) == [out]
    np.testing.assert_allclose(
        out.array.view(np.float32), want(a, b), rtol=1e-6, atol=1e-5
    )


def test_the_runner_type_cannot_be_made_from_python(path: str) -> None:
    """A runner made by ``type(runner)()`` would have no graph, and running
    it crashed the interpreter: only the extension's ``runner()`` makes one."""
    if path != "fast":
        pytest.skip("the extension's type only")
    session = Session()
    session.add_graph(0, chain_graph("typed_chain"))
    ((a, b),) = sets(1)
    out = device(np.zeros(N, np.float32))
    session.run_graph_with_stream_async(0, 0, [device(a), device(b)], [out])
    runner = session._fast[0].__self__
    with pytest.raises(TypeError):
        type(runner)()


LOADER = """
import sys
from ge.engine import hotpath
hotpath.PREBUILT = hotpath.Path(sys.argv[1])
print(hotpath.module() is not None)
"""


def _loader(prebuilt: Path, env: dict[str, str]) -> str:
    result = subprocess.run(
        [sys.executable, "-c", LOADER, str(prebuilt)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip()


def test_a_stale_prebuilt_extension_is_not_loaded(tmp_path: Path) -> None:
    """A prebuilt binary that does not record hotpath.c's hash is never
    imported: the extension is built from the source instead and put in its
    place; without a compiler runs take the Python runner."""
    stale = b"\x7fELF not the extension"
    prebuilt = tmp_path / "built" / "_hotpath.abi3.so"
    prebuilt.parent.mkdir()
    prebuilt.write_bytes(stale)
    assert _loader(prebuilt, {}) == "True"
    assert hotpath.MARKER + hotpath.digest().encode() in prebuilt.read_bytes()
    prebuilt = tmp_path / "no_cc" / "_hotpath.abi3.so"
    prebuilt.parent.mkdir()
    prebuilt.write_bytes(stale)
    assert _loader(prebuilt, {"CC": "no-such-cc"}) == "False"
    assert prebuilt.read_bytes() == stale


def test_the_prebuilt_extension_is_used_when_it_matches(tmp_path: Path) -> None:
    prebuilt = tmp_path / "_hotpath.abi3.so"
    prebuilt.write_bytes(hotpath.build(hotpath.SOURCE, hotpath.digest()))
    assert _loader(prebuilt, {"CC": "no-such-cc"}) == "True"
