"""The CPU device (ge.device): kernels built by gcc with a content cache,
binaries loaded from memory and checked before loading, GE_KERNEL
declarations, and launches checked before the kernel runs."""

from __future__ import annotations

import functools
import gc
import platform
import re
import struct
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ge.device import rt, toolchain
from ge.device.kernels import BadKernelBinary, Binary, build_kernel, load_binary
from ge.device.memory import ALIGNMENT, DeviceBuffer, region_of
from ge.device.toolchain import BuildError
from ge.graph import DataType, Placement, Tensor

SOURCE = r"""
#include "ge_kernel.h"

GE_KERNEL(dev_fill, GE_OUT(int64_t, GE_COUNT_OF(1)), GE_SCALAR(), GE_SCALAR()) {
  int64_t *o = GE_PTR(int64_t, 0);
  uint64_t n = args[1];
  int64_t base = (int64_t)args[2];
  uint64_t lo, hi;
  ge_block_range(block_idx, block_dim, n, &lo, &hi);
  for (uint64_t i = lo; i < hi; ++i) o[i] = base + (int64_t)i;
}

GE_KERNEL(dev_blocks, GE_OUT(uint32_t, GE_PER_BLOCK(2))) {
  uint32_t *o = GE_PTR(uint32_t, 0);
  o[2 * block_idx] = block_idx;
  o[2 * block_idx + 1] = block_dim;
}

GE_KERNEL(dev_sum4, GE_IN(double, GE_ELEMS(4)), GE_OUT(double, GE_ELEMS(1))) {
  if (block_idx == 0) {
    const double *in = GE_PTR(const double, 0);
    GE_PTR(double, 1)[0] = in[0] + in[1] + in[2] + in[3];
  }
}

GE_KERNEL(dev_scalars, GE_OUT(uint64_t, GE_ELEMS(4)),
          GE_SCALAR(), GE_SCALAR(), GE_SCALAR(), GE_SCALAR()) {
  uint64_t *o = GE_PTR(uint64_t, 0);
  if (block_idx == 0)
    for (int k = 0; k < 4; ++k) o[k] = args[1 + k];
}

GE_EXPORT void dev_undeclared(uint32_t block_idx, uint32_t block_dim,
                              const uint64_t *args) {
  (void)block_idx; (void)block_dim; (void)args;
}
"""


@functools.lru_cache(maxsize=1)
def binary() -> bytes:
    return build_kernel(SOURCE, name="dev_kernels")


def kernel(name: str) -> Any:
    return rt.binary_load(binary()).get_function(name)


def int64_buffer(n: int) -> DeviceBuffer:
    buffer = DeviceBuffer(8 * n)
    buffer.array.view(np.int64)[:] = -1  # a kernel that ran would overwrite this
    return buffer


# --- building -----------------------------------------------------------------------


@pytest.fixture
def compiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """A private build cache, and the compiler runs made while the test runs."""
    monkeypatch.setenv("GE_CPU_CACHE_DIR", str(tmp_path / "cache"))
    runs: list[list[str]] = []
    real = subprocess.run

    def counting(argv, *args, **kwargs):  # type: ignore[no-untyped-def]
        if "-shared" in argv:
            runs.append(list(argv))
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(toolchain.subprocess, "run", counting)
    return runs


def test_compile_errors_raise_build_error_with_gccs_message(
    compiles: list[list[str]],
) -> None:
    with pytest.raises(BuildError) as info:
        build_kernel("#error marker_for_the_build_test\n", name="broken")
    message = str(info.value)
    assert "could not build broken:" in message
    assert "error: #error marker_for_the_build_test" in message
    # Kernels build with -Wall -Werror: a warning is an error too.
    with pytest.raises(BuildError, match=r"unused variable .*-Werror=unused-variable"):
        build_kernel("int f(void) { int unused; return 0; }\n", name="warned")
    assert isinstance(info.value, RuntimeError)


def test_a_missing_compiler_is_a_build_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", "no-such-compiler-for-ge-tests")
    with pytest.raises(
        BuildError,
        match=r"no C compiler: 'no-such-compiler-for-ge-tests' is not on PATH \(set CC\)",
    ):
        build_kernel("int x;\n", name="nocc")


# --- loading --------------------------------------------------------------------------


def _patched(offset: int, value: bytes) -> bytes:
    data = bytearray(binary())
    data[offset : offset + len(value)] = value
    return bytes(data)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "not an ELF file (bad magic)"),
        (b"MZ" + bytes(100), "not an ELF file (bad magic)"),
        (b"\x7fELF" + bytes(30), "not an ELF file (bad magic)"),  # too short
        (
            lambda: _patched(4, b"\x01"),
            "not a 64-bit little-endian ELF file",
        ),  # ELFCLASS32
        (
            lambda: _patched(5, b"\x02"),
            "not a 64-bit little-endian ELF file",
        ),  # big-endian
        (
            lambda: _patched(16, struct.pack("<H", 2)),
            "not a shared object (ELF type is not ET_DYN)",
        ),
        (
            lambda: _patched(56, struct.pack("<H", 0xFFFF)),
            "program header table is out of bounds",
        ),
    ],
)
def test_binaries_that_are_not_loadable_shared_objects_are_refused(
    data: Any, message: str
) -> None:
    raw = data() if callable(data) else data
    with pytest.raises(BadKernelBinary, match=f"^{re.escape(message)}$"):
        load_binary(raw)
    assert issubclass(BadKernelBinary, ValueError)


def test_a_binary_for_another_machine_is_refused() -> None:
    machine = platform.machine()
    other = 40 if machine not in ("arm", "armv7l") else 62
    with pytest.raises(
        BadKernelBinary, match=f"built for machine {other}, this is {machine}"
    ):
        load_binary(_patched(18, struct.pack("<H", other)))


@pytest.mark.parametrize(
    ("source", "flags", "message"),
    [
        (
            "int ge_test_ctor_flag;\n"
            "__attribute__((constructor)) void ge_test_ctor(void) { ge_test_ctor_flag = 1; }\n",
            (),
            "has initializers (.init_array) that would run on load",
        ),
        (
            "int ge_test_init_flag;\nvoid _init(void) { ge_test_init_flag = 1; }\n",
            (),
            "has an initializer (DT_INIT) that would run on load",
        ),
        (
            "int ge_test_fini_flag;\nvoid _fini(void) { ge_test_fini_flag = 1; }\n",
            (),
            "has a finalizer (DT_FINI) that would run on unload",
        ),
        (
            "int ge_test_dtor_flag;\n"
            "__attribute__((destructor)) void ge_test_dtor(void) { ge_test_dtor_flag = 1; }\n",
            (),
            "has finalizers (.fini_array) that would run on load or unload",
        ),
        (
            "static int impl(void) { return 1; }\n"
            "static void *resolve(void) { return (void *)impl; }\n"
            'int ge_test_f(void) __attribute__((ifunc("resolve")));\n'
            "int (*volatile ge_test_fp)(void) = ge_test_f;\n",
            (),
            "has an IFUNC relocation whose resolver would run on load",
        ),
        (
            "",
            ("-Wl,--no-as-needed", "-lgcc_s"),
            "needs library 'libgcc_s.so.1', whose initializers would run on load "
            "(only libc and libm may be needed)",
        ),
    ],
)
def test_a_binary_with_load_time_code_is_refused(
    source: str, flags: tuple[str, ...], message: str
) -> None:
    code = (
        f'#include "ge_kernel.h"\n{source}GE_KERNEL(k, GE_SCALAR()) {{ (void)args; }}\n'
    )
    with pytest.raises(BadKernelBinary, match=re.escape(message)):
        load_binary(build_kernel(code, name="ctor", flags=flags))


def test_a_dynamic_segment_read_elsewhere_than_the_loader_reads_it() -> None:
    """The check reads the dynamic section where the loader maps it; a file
    whose PT_DYNAMIC offset points elsewhere (at a clean copy, say) is refused."""
    data = bytearray(binary())
    (phoff,) = struct.unpack_from("<Q", data, 32)
    (phnum,) = struct.unpack_from("<H", data, 56)
    for i in range(phnum):
        entry = phoff + 56 * i
        if struct.unpack_from("<I", data, entry)[0] == 2:  # PT_DYNAMIC
            (offset,) = struct.unpack_from("<Q", data, entry + 8)
            struct.pack_into("<Q", data, entry + 8, offset - 16)
    with pytest.raises(BadKernelBinary, match="file offset does not match its address"):
        load_binary(bytes(data))


def test_loading_is_cached_by_content_and_takes_bytes() -> None:
    first = load_binary(binary())
    assert isinstance(first, Binary)
    assert load_binary(bytearray(binary())) is first
    assert rt.binary_load(binary()) is first
    assert first.size == len(binary())
    assert first.get_function("dev_fill") is first.get_function("dev_fill")
    with pytest.raises(TypeError, match="a kernel binary is bytes, got str"):
        load_binary("dev_kernels")  # type: ignore[arg-type]


def test_kernel_lookup_needs_a_ge_kernel_declaration() -> None:
    loaded = rt.binary_load(binary())
    with pytest.raises(
        LookupError,
        match="kernel 'dev_undeclared' has no GE_KERNEL declaration of its arguments",
    ):
        loaded.get_function("dev_undeclared")
    with pytest.raises(
        LookupError, match="kernel binary has no function 'no_such_kernel'"
    ):
        loaded.get_function("no_such_kernel")
    fill = loaded.get_function("dev_fill")
    assert fill.name == "dev_fill" and len(fill.decls) == 3
    assert [d.is_pointer for d in fill.decls] == [True, False, False]


def test_a_size_that_names_a_pointer_argument_is_refused_at_lookup() -> None:
    code = '#include "ge_kernel.h"\nGE_KERNEL(bad_ref, GE_OUT(float, GE_COUNT_OF(0))) { (void)args; }\n'
    with pytest.raises(
        LookupError,
        match="kernel 'bad_ref' argument 0: its size refers to argument 0, which is not a "
        "scalar argument",
    ):
        rt.binary_load(build_kernel(code, name="bad_ref")).get_function("bad_ref")


# --- launching ---------------------------------------------------------------------------


def test_a_correct_launch_computes_the_right_numbers() -> None:
    out = int64_buffer(1000)
    rt.launch(kernel("dev_fill"), 7, rt.DEFAULT_STREAM, [out.addr, 1000, -500])
    np.testing.assert_array_equal(out.array.view(np.int64), np.arange(-500, 500))
    blocks = DeviceBuffer(4 * 2 * 5)
    rt.launch(kernel("dev_blocks"), 5, rt.DEFAULT_STREAM, [blocks.addr])
    assert blocks.array.view(np.uint32).tolist() == [0, 5, 1, 5, 2, 5, 3, 5, 4, 5]
    values = DeviceBuffer(32)
    values.array.view(np.float64)[:] = [1.0, 2.5, -4.0, 0.25]
    total = DeviceBuffer(8)
    rt.launch_kernel(
        binary(), "dev_sum4", 1, rt.DEFAULT_STREAM, [values.addr, total.addr]
    )
    assert total.array.view(np.float64).tolist() == [-0.25]


def test_scalars_are_64_bit_slots() -> None:
    out = DeviceBuffer(32)
    rt.launch(
        kernel("dev_scalars"),
        1,
        rt.DEFAULT_STREAM,
        [out.addr, -1, 1.5, True, DataType.DT_BF16],
    )
    got = out.array.view(np.uint64).tolist()
    assert got[0] == 2**64 - 1  # two's complement
    assert struct.unpack("<d", struct.pack("<Q", got[1]))[0] == 1.5  # a double's bits
    assert got[2:] == [1, 27]
    rt.launch(
        kernel("dev_scalars"),
        1,
        rt.DEFAULT_STREAM,
        [out.addr, np.int32(-2), np.float32(0.5), np.bool_(False), 2**64 - 1],
    )
    got = out.array.view(np.uint64).tolist()
    assert got[0] == 2**64 - 2 and got[2:] == [0, 2**64 - 1]


def test_device_tensors_can_be_launched_on() -> None:
    tensor = Tensor(
        data_type=DataType.DT_INT64, shape=[4], placement=Placement.PLACEMENT_DEVICE
    )
    rt.launch(kernel("dev_fill"), 2, rt.DEFAULT_STREAM, [tensor.addr, 4, 10])
    assert tensor.data == [10, 11, 12, 13]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            lambda out: [out.addr, 8],
            "dev_fill takes 3 argument(s), the launch passes 2",
        ),
        (
            lambda out: [out.addr, 8, 0, 0],
            "dev_fill takes 3 argument(s), the launch passes 4",
        ),
        (lambda out: [], "dev_fill takes 3 argument(s), the launch passes 0"),
        (
            lambda out: [0, 8, 0],
            "dev_fill argument 0 (out) must be a device address, got 0",
        ),
        (
            lambda out: [-8, 8, 0],
            "dev_fill argument 0 (out) must be a device address, got -8",
        ),
        (
            lambda out: [True, 8, 0],
            "dev_fill argument 0 (out) must be a device address, got True",
        ),
        (
            lambda out: [float(out.addr), 8, 0],
            "dev_fill argument 0 (out) must be a device address",
        ),
        (
            lambda out: [str(out.addr), 8, 0],
            "dev_fill argument 0 (out) must be a device address",
        ),
        (
            lambda out: [out.addr, "8", 0],
            "dev_fill argument 1: a scalar argument is an int, float, bool",
        ),
        (
            lambda out: [out.addr, 8, 2**64],
            "dev_fill argument 2: scalar 18446744073709551616 does not fit in 64 bits",
        ),
        (
            lambda out: [out.addr, 9, 0],
            "dev_fill argument 0 (out): the kernel declares 72 bytes there, but the buffer has 64; refused before it could write out of bounds",
        ),
        (
            lambda out: [out.addr + 16, 7, 0],
            "dev_fill argument 0 (out): the kernel declares 56 bytes there, but the buffer has 48",
        ),
        (lambda out: [out.addr + 64, 1, 0], "does not point into device memory"),
    ],
)
def test_bad_launches_are_refused_before_the_kernel_runs(
    args: Any, message: str
) -> None:
    out = int64_buffer(8)
    with pytest.raises(rt.LaunchError) as info:
        rt.launch(kernel("dev_fill"), 1, rt.DEFAULT_STREAM, args(out))
    assert message in str(info.value)
    assert out.array.view(np.int64).tolist() == [-1] * 8  # the kernel never ran
    assert isinstance(info.value, ValueError)


def test_pointers_outside_device_memory_are_refused() -> None:
    host = np.full(8, -1, np.int64)
    with pytest.raises(
        rt.LaunchError,
        match=r"dev_fill argument 0 \(0x[0-9a-f]+\) does not point into device memory",
    ):
        rt.launch(kernel("dev_fill"), 1, rt.DEFAULT_STREAM, [host.ctypes.data, 8, 0])
    assert host.tolist() == [-1] * 8
    host_tensor = Tensor([1, 2], data_type=DataType.DT_INT64)
    with pytest.raises(rt.LaunchError, match="does not point into device memory"):
        rt.launch(kernel("dev_fill"), 1, rt.DEFAULT_STREAM, [host_tensor.addr, 2, 0])
    assert host_tensor.data == [1, 2]


def test_fixed_and_per_block_extents_are_checked() -> None:
    small = DeviceBuffer(16)
    out = DeviceBuffer(8)
    with pytest.raises(
        rt.LaunchError,
        match=r"dev_sum4 argument 0 \(in\): the kernel declares 32 bytes there, but the buffer has 16",
    ):
        rt.launch(kernel("dev_sum4"), 1, rt.DEFAULT_STREAM, [small.addr, out.addr])
    blocks = DeviceBuffer(4 * 2 * 4)
    with pytest.raises(
        rt.LaunchError,
        match="the kernel declares 40 bytes there, but the buffer has 32",
    ):
        rt.launch(kernel("dev_blocks"), 5, rt.DEFAULT_STREAM, [blocks.addr])
    assert blocks.array.tolist() == [0] * 32


@pytest.mark.parametrize("block_dim", [0, -1, 65536, True, 2.0, "4", None])
def test_block_dim_must_be_1_to_65535(block_dim: Any) -> None:
    out = int64_buffer(4)
    with pytest.raises(
        rt.LaunchError,
        match=re.escape(f"dev_fill: block_dim must be 1..65535, got {block_dim!r}"),
    ):
        rt.launch(kernel("dev_fill"), block_dim, rt.DEFAULT_STREAM, [out.addr, 4, 0])
    assert out.array.view(np.int64).tolist() == [-1] * 4


def test_the_largest_block_dim_runs() -> None:
    out = int64_buffer(4)
    rt.launch(kernel("dev_fill"), rt.MAX_BLOCK_DIM, rt.DEFAULT_STREAM, [out.addr, 4, 3])
    assert out.array.view(np.int64).tolist() == [3, 4, 5, 6]


def test_streams() -> None:
    out = int64_buffer(2)
    first, second = rt.create_stream(), rt.create_stream()
    assert first != second and rt.DEFAULT_STREAM not in (first, second)
    rt.launch(kernel("dev_fill"), 1, second, [out.addr, 2, 1])
    rt.synchronize_stream(second)
    rt.destroy_stream(second)
    for stream in (second, 10**9, -1, True, "0"):
        with pytest.raises(rt.LaunchError, match="is not a live stream"):
            rt.launch(kernel("dev_fill"), 1, stream, [out.addr, 2, 0])
    with pytest.raises(rt.LaunchError, match="is not a live stream"):
        rt.synchronize_stream(second)
    rt.destroy_stream(rt.DEFAULT_STREAM)  # the default stream always lives
    rt.synchronize_stream(rt.DEFAULT_STREAM)
    rt.destroy_stream(first)
    assert out.array.view(np.int64).tolist() == [1, 2]


def test_launch_takes_a_kernel() -> None:
    with pytest.raises(
        TypeError, match="launch takes a Kernel from Binary.get_function, got str"
    ):
        rt.launch("dev_fill", 1, rt.DEFAULT_STREAM, [])  # type: ignore[arg-type]


# --- memory -------------------------------------------------------------------------------


def test_device_buffers_are_zeroed_aligned_and_registered() -> None:
    buffer = DeviceBuffer(100)
    assert buffer.size == 100 and buffer.array.size == 100
    assert buffer.addr % ALIGNMENT == 0 and ALIGNMENT == 64
    assert not buffer.array.any()
    assert region_of(buffer.addr) == (buffer.addr, 100)
    assert region_of(buffer.addr + 99) == (buffer.addr, 100)
    assert region_of(buffer.addr + 100) is None
    for size in (-1, 1.5, True, "8"):
        with pytest.raises(
            ValueError, match="device allocation size must be an int >= 0"
        ):
            DeviceBuffer(size)  # type: ignore[arg-type]


def test_freed_device_memory_is_refused() -> None:
    buffer = DeviceBuffer(64)
    addr = buffer.addr
    rt.launch(kernel("dev_fill"), 1, rt.DEFAULT_STREAM, [addr, 8, 0])
    del buffer
    gc.collect()
    assert region_of(addr) is None  # unregistered when freed
    with pytest.raises(rt.LaunchError, match="does not point into device memory"):
        rt.launch(kernel("dev_fill"), 1, rt.DEFAULT_STREAM, [addr, 8, 0])


def test_a_launch_over_zero_elements_accepts_an_empty_tensor() -> None:
    empty = Tensor(
        data_type=DataType.DT_INT64, shape=[0], placement=Placement.PLACEMENT_DEVICE
    )
    assert empty.size == 0
    rt.launch(kernel("dev_fill"), 1, rt.DEFAULT_STREAM, [empty.addr, 0, 0])


MATH_SOURCE = r"""
#include <math.h>

#include "ge_kernel.h"

GE_KERNEL(dev_exp, GE_IN(double, GE_COUNT_OF(2)), GE_OUT(double, GE_COUNT_OF(2)),
          GE_SCALAR()) {
  const double *x = GE_PTR(const double, 0);
  double *y = GE_PTR(double, 1);
  uint64_t lo, hi;
  ge_block_range(block_idx, block_dim, args[2], &lo, &hi);
  for (uint64_t i = lo; i < hi; ++i) y[i] = exp(x[i]) * SCALE;
}
"""


def test_kernels_link_the_math_library_and_take_extra_flags() -> None:
    data = build_kernel(MATH_SOURCE, name="dev_math", flags=("-DSCALE=3.0", "-O3"))
    x = np.linspace(-3.0, 3.0, 37)
    src, dst = DeviceBuffer(x.nbytes), DeviceBuffer(x.nbytes)
    src.array[:] = np.frombuffer(x.tobytes(), np.uint8)
    function = rt.binary_load(data).get_function("dev_exp")
    rt.launch(function, 4, rt.DEFAULT_STREAM, [src.addr, dst.addr, x.size])
    got = np.frombuffer(bytes(dst.array), np.float64)
    np.testing.assert_allclose(got, np.exp(x) * 3.0, rtol=1e-15)
    with pytest.raises(BuildError, match="SCALE"):
        build_kernel(MATH_SOURCE, name="dev_math")  # SCALE undefined
