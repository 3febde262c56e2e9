"""Plugin loads that fail, op modules named like other modules, relative and
unsafe paths, and loads from several threads (issue 8, finding 4).

A failed load must leave the process as it found it: every module the load
imported is forgotten (generated ``ge_impl`` modules included), so the
corrected path loads cleanly. Op modules live in a private package per op
directory, so they can never replace a standard or installed module.
"""

from __future__ import annotations

import importlib
import os
import stat
import sys
import sysconfig
import textwrap
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from _rt_support import ge_api, registries, unique  # noqa: F401

import ge.es._op_api as api
from ge.custom_op import (
    InsecureOpPathWarning,
    bootstrap,
    get_registered_op_impl,
    get_registered_op_impls,
    get_registered_op_proto_by_op_type,
    get_registered_op_protos,
    register_op,
)
from ge.es import GraphBuilder
from ge.ge_global import GeApi
from ge.graph import Tensor
from ge.runtime import TensorDesc
from ge.session import CompileError, Session

ROOT = Path(__file__).resolve().parents[2]
SCALE_OPS = ROOT / "ops" / "custom" / "scale_custom.py"


@pytest.fixture(autouse=True)
def _empty_registries(registries: None) -> Iterator[None]:
    yield


def proto_source(op_type: str) -> str:
    return textwrap.dedent(f"""
        from ge.custom_op import register_op
        from ge.runtime import TensorDesc

        @register_op(op_type={op_type!r})
        def infer(x: TensorDesc) -> TensorDesc:
            return x
        """)


def impl_source(op_type: str) -> str:
    return textwrap.dedent(f"""
        from ge.custom_op import get_execute_ctx, register_op_impl

        @register_op_impl(op_type={op_type!r})
        class Impl:
            def execute(self, x) -> None:
                get_execute_ctx().make_output_ref_input(0, 0)
        """)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def registered() -> tuple[list[str], list[str]]:
    return (
        [p.op_type for p in get_registered_op_protos()],
        [d.op_type for d in get_registered_op_impls()],
    )


def op_module(name_part: str) -> list[str]:
    return [n for n in sys.modules if name_part in n]


# --- a failed load forgets every module it imported -----------------------------------


def test_a_failed_load_forgets_the_generated_modules_it_imported(
    tmp_path: Path,
) -> None:
    """The issue's case: the author module imports its generated
    ``ge_impl.custom.<op>`` module (which registers the prototype); another
    module of the load fails; the corrected load must register both halves."""
    for name in [n for n in sys.modules if n.startswith("ge_impl.custom.scale")]:
        del sys.modules[name]
    broken = write(tmp_path / "broken.py", "raise RuntimeError('broken op module')\n")
    value = os.pathsep.join([str(SCALE_OPS), str(broken)])
    with pytest.raises(RuntimeError, match="broken op module"):
        bootstrap.load_custom_op_plugins(value)
    assert registered() == ([], [])
    assert "ge_impl.custom.scale_custom" not in sys.modules
    write(broken, "")
    bootstrap.load_custom_op_plugins(value)
    assert registered() == (["ScaleCustom"], ["ScaleCustom"])


def test_a_failed_load_forgets_a_registering_module_outside_the_op_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    op = unique("Outside")
    package = unique("gen_pkg")
    write(tmp_path / "lib" / package / "__init__.py", "")
    write(tmp_path / "lib" / package / "proto.py", proto_source(op))
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    impl = write(
        tmp_path / "opp" / "impl.py",
        f"from {package} import proto\n" + impl_source(op) + "\nraise OSError('x')\n",
    )
    with pytest.raises(OSError):
        bootstrap.load_custom_op_plugins(str(impl))
    assert not op_module(package)
    write(impl, f"from {package} import proto\n" + impl_source(op))
    bootstrap.load_custom_op_plugins(str(impl))
    assert registered() == ([op], [op])


@pytest.mark.parametrize("failure", ["signature", "duplicate", "orphan"])
def test_a_load_failing_at_commit_can_be_corrected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    """Failures found after every module imported (a signature mismatch, a
    duplicate prototype, an implementation without one) roll back the same
    way: the generated-style module registers again next time."""
    op = unique("Commit")
    package = unique("gen_commit")
    write(tmp_path / "lib" / package / "__init__.py", "")
    write(tmp_path / "lib" / package / "proto.py", proto_source(op))
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    good = f"from {package} import proto\n" + impl_source(op)
    bad = {
        "signature": good.replace("def execute(self, x)", "def execute(self)"),
        "duplicate": good
        + proto_source(op).replace("x: TensorDesc)", "y: TensorDesc)"),
        "orphan": good + impl_source(unique("Orphan")),
    }[failure]
    path = write(tmp_path / "opp" / "mod.py", bad)
    with pytest.raises((TypeError, ValueError)):
        bootstrap.load_custom_op_plugins(str(path))
    assert registered() == ([], []) and not op_module(package)
    write(path, good)
    bootstrap.load_custom_op_plugins(str(path))
    assert registered() == ([op], [op])


def test_a_forgotten_submodule_is_not_found_as_a_stale_attribute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``from pkg import mod`` finds ``mod`` as an attribute of ``pkg`` when
    ``pkg`` was imported before the load: rollback removes that attribute
    too, or the stale module would be used and never register again."""
    op = unique("Stale")
    package = unique("gen_stale")
    write(tmp_path / "lib" / package / "__init__.py", "")
    write(tmp_path / "lib" / package / "proto.py", proto_source(op))
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    importlib.import_module(package)  # the parent exists before the load
    path = write(
        tmp_path / "opp" / "mod.py",
        f"from {package} import proto\n" + impl_source(op) + "raise OSError\n",
    )
    with pytest.raises(OSError):
        bootstrap.load_custom_op_plugins(str(path))
    assert not hasattr(sys.modules[package], "proto")
    write(path, f"from {package} import proto\n" + impl_source(op))
    bootstrap.load_custom_op_plugins(str(path))
    assert registered() == ([op], [op])


def test_compiling_after_a_corrected_load(
    ge_api: GeApi, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/runtime.md: "a corrected path loads cleanly later", and every
    later compile works."""
    for name in [n for n in sys.modules if n.startswith("ge_impl.custom.scale")]:
        del sys.modules[name]
    broken = write(tmp_path / "broken.py", "raise ImportError('not yet')\n")
    monkeypatch.setenv(
        "ASCEND_CUSTOM_OPP_PATH", os.pathsep.join([str(SCALE_OPS), str(broken)])
    )
    from ge.es.custom import ScaleCustom

    builder = GraphBuilder(unique("scaled"))
    x = builder.create_input(0, shape=[64])
    session = Session()
    session.add_graph(0, builder.build_and_reset([ScaleCustom(x, alpha=3.0)]))
    # Session.compile_graph reports it as compile_model does: a CompileError
    # naming the module, the op module's own error chained.
    with pytest.raises(
        CompileError,
        match=r"ImportError: not yet \(while loading custom op module .*broken.py",
    ) as info:
        session.compile_graph(0)
    assert isinstance(info.value.__cause__, ImportError)
    write(broken, "")
    data = np.arange(64, dtype=np.float32)
    (out,) = session.run_graph(0, [Tensor(data)])
    np.testing.assert_array_equal(out.numpy(), data * np.float32(3.0))


def test_extension_modules_first_imported_by_a_failed_load_stay(
    tmp_path: Path,
) -> None:
    """A compiled extension cannot always be initialised twice in one
    process; it holds no registration, so it stays loaded."""
    candidates = [
        name
        for name in ("_bisect", "_csv", "_json", "_heapq", "_lsprof", "_statistics")
        if name not in sys.modules
    ]
    if not candidates:
        pytest.skip("every candidate extension module is already imported")
    name = candidates[0]
    if not getattr(importlib.util.find_spec(name), "origin", "").endswith(".so"):
        pytest.skip(f"{name} is built into this interpreter")
    path = write(tmp_path / "ext.py", f"import {name}\nraise OSError('x')\n")
    with pytest.raises(OSError):
        bootstrap.load_custom_op_plugins(str(path))
    assert name in sys.modules


# --- op modules live in a private package ------------------------------------------


def test_an_op_module_named_like_a_standard_module_does_not_replace_it(
    tmp_path: Path,
) -> None:
    ops = {stem: unique(stem.capitalize()) for stem in ("csv", "colorsys", "json")}
    root = tmp_path / "opp"
    for stem, op in ops.items():
        write(root / f"{stem}.py", proto_source(op))
    import csv
    import json

    before = {name: sys.modules.get(name) for name in ops}
    loaded = bootstrap.load_custom_op_plugins(str(root))
    assert len(loaded) == 3
    assert registered()[0] == sorted(ops.values())
    assert sys.modules["csv"] is csv and sys.modules["json"] is json
    assert sys.modules.get("colorsys") is before["colorsys"]
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    colorsys = importlib.import_module("colorsys")
    assert Path(colorsys.__file__).resolve().parent == stdlib
    assert callable(colorsys.rgb_to_hsv)


def test_op_modules_of_two_directories_may_share_a_name(tmp_path: Path) -> None:
    first, second = unique("FirstDir"), unique("SecondDir")
    write(tmp_path / "a" / "ops.py", proto_source(first))
    write(tmp_path / "b" / "ops.py", proto_source(second))
    value = os.pathsep.join([str(tmp_path / "a"), str(tmp_path / "b")])
    assert len(bootstrap.load_custom_op_plugins(value)) == 2
    assert registered()[0] == sorted([first, second])
    names = {get_registered_op_proto_by_op_type(op).infer_meta.__module__ for op in (first, second)}  # type: ignore[union-attr]
    assert len(names) == 2 and all(n.startswith("_ge_py_custom_op_") for n in names)
    assert "ops" not in sys.modules or not hasattr(sys.modules["ops"], "infer")


def test_sibling_modules_are_imported_relatively(tmp_path: Path) -> None:
    """An op module reaches the other modules of its directory with relative
    imports, at import time and later (the package stays importable)."""
    op = unique("Sibling")
    root = tmp_path / "opp"
    write(root / "_shared.py", "SCALE = 3\n")
    write(root / "_late.py", "VALUE = 'late'\n")
    write(
        root / "op_mod.py",
        "from . import _shared\nfrom ._shared import SCALE\n"
        + proto_source(op)
        + "\ndef late():\n    from . import _late\n    return _late.VALUE\n",
    )
    bootstrap.load_custom_op_plugins(str(root))
    module = sys.modules[get_registered_op_proto_by_op_type(op).infer_meta.__module__]  # type: ignore[union-attr]
    assert module.SCALE == 3 and module._shared.SCALE == 3
    assert module.late() == "late"
    assert "_shared" not in sys.modules


def test_a_file_item_imports_its_siblings_relatively_too(tmp_path: Path) -> None:
    op = unique("FileSibling")
    write(tmp_path / "_helpers.py", "FACTOR = 2\n")
    path = write(
        tmp_path / "op.py", "from ._helpers import FACTOR\n" + proto_source(op)
    )
    assert bootstrap.load_custom_op_plugins(str(path)) == [str(path.resolve())]
    assert registered() == ([op], [])


def test_a_module_file_that_is_not_a_module_name_is_refused(tmp_path: Path) -> None:
    write(tmp_path / "opp" / "my.op.py", "")
    with pytest.raises(ValueError, match=r"my\.op\.py.*not a Python module name"):
        bootstrap.load_custom_op_plugins(str(tmp_path / "opp"))


# --- paths --------------------------------------------------------------------------


def test_a_relative_path_keeps_naming_the_same_place_after_chdir(
    ge_api: GeApi,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    op = unique("Relative")
    write(tmp_path / "work" / "ops" / "rel.py", proto_source(op) + impl_source(op))
    monkeypatch.chdir(tmp_path / "work")
    monkeypatch.setenv("ASCEND_CUSTOM_OPP_PATH", os.path.join("ops", "rel.py"))
    assert bootstrap.load_custom_op_plugins() == [
        str((tmp_path / "work" / "ops" / "rel.py").resolve())
    ]
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert bootstrap.load_custom_op_plugins() == []  # no FileNotFoundError
    op_def = api.OpDef(
        op,
        inputs=(api.Input("x", "float32"),),
        outputs=(api.Output("output0", "float32"),),
    )
    builder = GraphBuilder(unique("rel"))
    x = builder.create_input(0, shape=[3])
    session = Session()
    session.add_graph(0, builder.build_and_reset([op_def.build(inputs={"x": x})]))
    (out,) = session.run_graph(0, [Tensor(np.float32([1, 2, 3]))])
    np.testing.assert_array_equal(out.numpy(), np.float32([1, 2, 3]))
    module = sys.modules[get_registered_op_impl(op).module_name]  # type: ignore[union-attr]
    assert os.path.isabs(module.__file__)


# --- world-writable paths ---------------------------------------------------------------


def _insecure(record: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in record if w.category is InsecureOpPathWarning]


def _load_recording(value: str) -> list[str]:
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        bootstrap.load_custom_op_plugins(value)
    return _insecure(record)


def test_a_world_writable_directory_is_warned_about(tmp_path: Path) -> None:
    root = tmp_path / "opp"
    write(root / "op.py", proto_source(unique("Writable")))
    root.chmod(0o777)
    messages = _load_recording(str(root))
    assert len(messages) == 1
    assert (
        str(root.resolve()) in messages[0] and "writable by every user" in messages[0]
    )
    assert registered()[0]  # a warning, not a refusal


def test_a_world_writable_file_is_warned_about(tmp_path: Path) -> None:
    path = write(tmp_path / "op.py", proto_source(unique("WritableFile")))
    path.chmod(0o666)
    messages = _load_recording(str(path))
    assert len(messages) == 1 and str(path.resolve()) in messages[0]


def test_a_world_writable_module_in_a_directory_is_warned_about(tmp_path: Path) -> None:
    path = write(tmp_path / "opp" / "op.py", proto_source(unique("WritableMember")))
    path.chmod(0o666)
    messages = _load_recording(str(tmp_path / "opp"))
    assert len(messages) == 1 and str(path.resolve()) in messages[0]


def test_a_file_in_a_world_writable_directory_is_warned_about(tmp_path: Path) -> None:
    """Anyone may replace the file; a sticky directory (/tmp) prevents that,
    so only a non-sticky one is reported."""
    path = write(tmp_path / "shared" / "op.py", proto_source(unique("Replaceable")))
    path.parent.chmod(0o777)
    messages = _load_recording(str(path))
    assert len(messages) == 1 and str(path.parent.resolve()) in messages[0]


def test_a_file_in_a_sticky_directory_is_not_warned_about(tmp_path: Path) -> None:
    path = write(tmp_path / "sticky" / "op.py", proto_source(unique("Sticky")))
    path.parent.chmod(0o777 | stat.S_ISVTX)
    assert _load_recording(str(path)) == []


def test_private_paths_are_not_warned_about(tmp_path: Path) -> None:
    path = write(tmp_path / "opp" / "op.py", proto_source(unique("Private")))
    path.chmod(0o644)
    assert _load_recording(str(tmp_path / "opp")) == []


# --- threads -------------------------------------------------------------------------


def _run_threads(count: int, target: Callable[[int], None]) -> list[BaseException]:
    errors: list[BaseException] = []
    barrier = threading.Barrier(count)

    def body(i: int) -> None:
        try:
            barrier.wait(10)
            target(i)
        except BaseException as exc:  # reported by the test
            errors.append(exc)

    threads = [
        threading.Thread(target=body, args=(i,), daemon=True) for i in range(count)
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 30
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in threads), "threads are stuck (deadlock)"
    return errors


def test_concurrent_loads_import_each_module_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = unique("import_counter")
    write(tmp_path / "lib" / f"{counter}.py", "IMPORTS = []\n")
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    root = tmp_path / "opp"
    ops = [unique(f"Conc{i}") for i in range(6)]
    for i, op in enumerate(ops):
        write(
            root / f"op{i}.py",
            f"import {counter}, time\n{counter}.IMPORTS.append(__name__)\n"
            "time.sleep(0.01)\n" + proto_source(op) + impl_source(op),
        )
    results: list[list[str]] = []
    errors = _run_threads(
        8, lambda i: results.append(bootstrap.load_custom_op_plugins(str(root)))
    )
    assert errors == []
    assert sorted(len(r) for r in results) == [0] * 7 + [6]
    assert len(sys.modules[counter].IMPORTS) == 6
    assert registered() == (sorted(ops), sorted(ops))


def test_sessions_compiling_in_threads_load_once(
    ge_api: GeApi,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    op = unique("Threaded")
    counter = unique("thread_counter")
    write(tmp_path / "lib" / f"{counter}.py", "IMPORTS = []\n")
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    write(
        tmp_path / "opp" / "op.py",
        f"import {counter}\n{counter}.IMPORTS.append(1)\n"
        + proto_source(op)
        + impl_source(op),
    )
    monkeypatch.setenv("ASCEND_CUSTOM_OPP_PATH", str(tmp_path / "opp"))
    op_def = api.OpDef(
        op,
        inputs=(api.Input("x", "float32"),),
        outputs=(api.Output("output0", "float32"),),
    )
    outputs: dict[int, np.ndarray] = {}

    def compile_and_run(i: int) -> None:
        builder = GraphBuilder(unique("threaded"))
        x = builder.create_input(0, shape=[4])
        session = Session()
        session.add_graph(0, builder.build_and_reset([op_def.build(inputs={"x": x})]))
        (out,) = session.run_graph(0, [Tensor(np.full(4, i, np.float32))])
        outputs[i] = out.numpy()

    assert _run_threads(8, compile_and_run) == []
    assert len(sys.modules[counter].IMPORTS) == 1
    for i in range(8):
        np.testing.assert_array_equal(outputs[i], np.full(4, i, np.float32))


def test_registering_in_another_thread_during_a_load_does_not_deadlock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Thread B imports a module that registers (holding that module's
    import lock) while thread A's load imports the same module: B must not
    wait for A's load to finish, or neither finishes."""
    op = unique("Shared")
    shared = unique("shared_mod")
    write(
        tmp_path / "lib" / f"{shared}.py",
        "import time\ntime.sleep(0.3)\n" + proto_source(op),
    )
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    path = write(tmp_path / "opp" / "op.py", f"import {shared}\n" + impl_source(op))

    def body(i: int) -> None:
        if i == 0:
            importlib.import_module(shared)
        else:
            time.sleep(0.1)
            bootstrap.load_custom_op_plugins(str(path))

    assert _run_threads(2, body) == []
    assert registered() == ([op], [op])


def test_a_direct_registration_during_a_load_is_not_staged_into_it(
    tmp_path: Path,
) -> None:
    """Registrations from other threads are not part of a load (a failing
    load must not take them with it)."""
    mine, theirs = unique("Mine"), unique("Theirs")
    started, registered_event = threading.Event(), threading.Event()
    flag = unique("flag")
    setattr(sys.modules[__name__], flag, (started, registered_event))
    path = write(
        tmp_path / "op.py",
        f"import sys\nstarted, done = getattr(sys.modules[{__name__!r}], {flag!r})\n"
        "started.set()\ndone.wait(10)\n"
        + proto_source(mine)
        + "raise OSError('load fails')\n",
    )

    def body(i: int) -> None:
        if i == 0:
            with pytest.raises(OSError):
                bootstrap.load_custom_op_plugins(str(path))
        else:
            started.wait(10)

            @register_op(op_type=theirs)
            def infer(x: TensorDesc) -> TensorDesc:
                return x

            registered_event.set()

    assert _run_threads(2, body) == []
    assert registered() == ([theirs], [])
    delattr(sys.modules[__name__], flag)
