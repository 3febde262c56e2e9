"""Note [ISA levels]: kernels record the instruction-set level their flags
allowed, model files record the highest, and a CPU without it refuses
them at load with a clear error, before any kernel is mapped or run."""

from __future__ import annotations

import dataclasses
import json

import pytest
from models import ROOT, model_bytes
from test_model_file import rebuild, sections

from ge.device import isa
from ge.device.elf import BadKernelBinary
from ge.device.kernels import build_kernel, load_binary
from ge.offline import model_file
from ge.offline.model import load_model_bytes

ADD = ROOT / "examples/annotated_args_refresh/add_kernel.c"


@pytest.mark.parametrize(
    "flags, level",
    [((), 1), (("-march=x86-64-v2",), 2), (("-mavx2",), 3), (("-mavx512f",), 4)],
)
def test_kernels_record_the_level_their_flags_allow(
    flags: tuple[str, ...], level: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    if isa.host_level() < level:
        pytest.skip(f"this CPU lacks {isa.name(level)}")
    data = build_kernel(ADD, name="add_kernel", flags=flags)
    assert load_binary(data).isa_level == level


def test_a_binary_above_this_cpu_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # A binary of its own (not loaded before): the level is checked when it
    # is mapped.
    text = ADD.read_text() + "\nGE_EXPORT const int isa_refusal_test = 1;\n"
    fresh = build_kernel(text, name="add_kernel", flags=("-march=x86-64-v2",))
    monkeypatch.setattr(isa, "host_level", lambda: 1)
    with pytest.raises(isa.IsaError, match="x86-64-v2 instructions; this CPU"):
        load_binary(fresh)


def test_a_baseline_model_records_no_level_and_keeps_version_1() -> None:
    data = model_bytes("add")
    assert "isa_level" not in json.loads(sections(data)[model_file.PLAN])
    assert model_file.decode(data).isa_level == 1


@pytest.mark.parametrize("fake", [isa.host_level() + 1, 5, 200])
def test_a_model_needing_more_than_this_cpu_is_refused(fake: int) -> None:
    # A level this CPU lacks (levels above 4 do not exist: damage).
    data = rebuild(model_bytes("add"), plan=lambda p: p.update(isa_level=fake))
    with pytest.raises(BadKernelBinary, match="model file (needs|records) "):
        load_model_bytes(data)


def test_a_model_records_its_kernels_level_and_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    decoded = model_file.decode(model_bytes("add"))
    encoded = model_file.encode(dataclasses.replace(decoded, isa_level=2))
    assert json.loads(sections(encoded)[model_file.PLAN])["isa_level"] == 2
    assert encoded[8:12] == model_file.ISA_VERSION.to_bytes(4, "little")
    monkeypatch.setattr(isa, "host_level", lambda: 1)
    with pytest.raises(isa.IsaError, match="x86-64-v2"):
        load_model_bytes(encoded)
