"""Loading op modules from ASCEND_CUSTOM_OPP_PATH
(bootstrap.load_custom_op_plugins; docs/ge-compat.md, "register_op_impl"
and "Loader lifecycle"): what is imported, once, and the all-or-nothing
rollback of a failed load."""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from _rt_support import registries, unique  # noqa: F401

from ge.custom_op import (
    bootstrap,
    get_registered_op_impl,
    get_registered_op_impls,
    get_registered_op_proto_by_op_type,
    get_registered_op_protos,
    register_op,
)
from ge.runtime import TensorDesc


@pytest.fixture(autouse=True)
def _empty_registries(registries: None) -> Iterator[None]:
    yield


def proto_source(op_type: str, *, extra: str = "") -> str:
    return textwrap.dedent(f"""
        from ge.custom_op import register_op
        from ge.runtime import TensorDesc

        @register_op(op_type={op_type!r})
        def infer(x: TensorDesc) -> TensorDesc:
            return x
        """) + textwrap.dedent(extra)


def impl_source(op_type: str, *, params: str = "self, x", extra: str = "") -> str:
    return textwrap.dedent(f"""
        from ge.custom_op import register_op_impl

        @register_op_impl(op_type={op_type!r})
        class Impl:
            def execute({params}) -> None:
                pass
        """) + textwrap.dedent(extra)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def bootstrap_package(directory: Path) -> str:
    from ge.custom_op._op_paths import package_name

    return package_name(directory.resolve())


def registered() -> tuple[list[str], list[str]]:
    return (
        [p.op_type for p in get_registered_op_protos()],
        [d.op_type for d in get_registered_op_impls()],
    )


# --- what is imported -------------------------------------------------------------


def test_a_py_file(tmp_path: Path) -> None:
    op = unique("FileOp")
    path = write(tmp_path / "my_op.py", proto_source(op) + impl_source(op))
    loaded = bootstrap.load_custom_op_plugins(str(path))
    assert loaded == [str(path.resolve())]
    assert registered() == ([op], [op])
    impl = get_registered_op_impl(op)
    # A member of the private package of its directory (Note [Op module names]).
    package = bootstrap_package(tmp_path)
    assert impl is not None and impl.module_name == f"{package}.my_op"
    assert sys.modules[package].__path__ == [str(tmp_path.resolve())]
    assert impl.module_name in sys.modules
    assert sys.modules[impl.module_name].__file__ == str(path.resolve())


def test_each_canonical_path_is_imported_once(tmp_path: Path) -> None:
    op = unique("OnceOp")
    path = write(tmp_path / "ops" / "once.py", proto_source(op, extra="COUNT = [1]\n"))
    assert bootstrap.load_custom_op_plugins(str(path)) == [str(path.resolve())]
    other_spelling = tmp_path / "ops" / ".." / "ops" / "once.py"
    link = tmp_path / "link.py"
    link.symlink_to(path)
    assert bootstrap.load_custom_op_plugins(str(path)) == []
    assert bootstrap.load_custom_op_plugins(str(other_spelling)) == []
    assert bootstrap.load_custom_op_plugins(str(link)) == []
    assert bootstrap.load_custom_op_plugins(str(tmp_path / "ops")) == []
    assert registered() == ([op], [])


def test_a_directory_imports_its_modules_and_packages_one_level_deep(
    tmp_path: Path,
) -> None:
    ops = {name: unique(name) for name in ("Alpha", "Beta", "Pkg")}
    root = tmp_path / "opp"
    alpha_mod, beta_mod, pkg_mod = (
        unique("alpha_mod"),
        unique("beta_mod"),
        unique("pkg_mod"),
    )
    write(root / f"{alpha_mod}.py", proto_source(ops["Alpha"]))
    write(root / f"{beta_mod}.py", proto_source(ops["Beta"]))
    write(root / pkg_mod / "__init__.py", "from . import impl\n")
    write(root / pkg_mod / "impl.py", proto_source(ops["Pkg"]))
    # Not imported: private modules, other files, plain directories, deeper levels.
    write(root / "_private.py", "raise RuntimeError('private module imported')\n")
    write(root / "notes.txt", "not python\n")
    write(root / "data" / "deep.py", "raise RuntimeError('plain directory imported')\n")
    write(
        root / "_pkg" / "__init__.py",
        "raise RuntimeError('private package imported')\n",
    )
    write(root / pkg_mod / "nested" / "__init__.py", "raise RuntimeError('too deep')\n")
    loaded = bootstrap.load_custom_op_plugins(str(root))
    assert loaded == sorted(
        [
            str((root / f"{alpha_mod}.py").resolve()),
            str((root / f"{beta_mod}.py").resolve()),
            str((root / pkg_mod / "__init__.py").resolve()),
        ]
    )
    assert registered() == (sorted(ops.values()), [])
    package = bootstrap_package(root)
    assert (
        sys.modules[f"{package}.{pkg_mod}.impl"].__name__ == f"{package}.{pkg_mod}.impl"
    )
    assert str(root.resolve()) not in sys.path  # never put on sys.path


def test_a_path_list(tmp_path: Path) -> None:
    first, second = unique("ListA"), unique("ListB")
    one = write(tmp_path / "one.py", proto_source(first))
    directory = tmp_path / "dir"
    two = write(directory / f"{unique('two')}.py", proto_source(second))
    value = os.pathsep.join(["", str(one), "  ", str(directory), str(one), ""])
    assert bootstrap.plugin_paths(value) == [str(one), str(directory), str(one)]
    loaded = bootstrap.load_custom_op_plugins(value)
    assert loaded == [str(one.resolve()), str(two.resolve())]
    assert registered() == (sorted([first, second]), [])


def test_the_environment_variable_is_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    op = unique("EnvOp")
    path = write(tmp_path / "env_op.py", proto_source(op))
    monkeypatch.setenv("ASCEND_CUSTOM_OPP_PATH", str(path))
    assert bootstrap.plugin_paths() == [str(path)]
    assert bootstrap.load_custom_op_plugins() == [str(path.resolve())]
    assert get_registered_op_proto_by_op_type(op) is not None
    monkeypatch.delenv("ASCEND_CUSTOM_OPP_PATH")
    assert bootstrap.plugin_paths() == []
    assert bootstrap.load_custom_op_plugins() == []


def test_a_missing_path_is_file_not_found_and_nothing_loads(tmp_path: Path) -> None:
    op = unique("BeforeMissing")
    good = write(tmp_path / "good.py", proto_source(op))
    missing = tmp_path / "missing.py"
    with pytest.raises(
        FileNotFoundError,
        match="ASCEND_CUSTOM_OPP_PATH item .*missing.py.* does not exist",
    ):
        bootstrap.load_custom_op_plugins(os.pathsep.join([str(good), str(missing)]))
    assert registered() == ([], [])
    assert bootstrap.load_custom_op_plugins(str(good)) == [str(good.resolve())]


def test_a_file_that_is_not_python_is_a_value_error(tmp_path: Path) -> None:
    library = write(tmp_path / "libcust_opapi.so", "binary")
    with pytest.raises(ValueError, match="is not a .py file or a directory"):
        bootstrap.load_custom_op_plugins(str(library))


# --- failures roll the whole load back ------------------------------------------------------


def test_a_module_that_raises_rolls_back_the_load(tmp_path: Path) -> None:
    ops = [unique("Early"), unique("Late")]
    root = tmp_path / "opp"
    early_mod, late_mod = "a_" + unique("early"), "b_" + unique("late")
    early = write(root / f"{early_mod}.py", proto_source(ops[0]) + impl_source(ops[0]))
    late = write(
        root / f"{late_mod}.py",
        proto_source(ops[1]) + "raise ZeroDivisionError('broken op module')\n",
    )
    with pytest.raises(ZeroDivisionError, match="broken op module") as info:
        bootstrap.load_custom_op_plugins(str(root))
    assert any(
        f"while loading custom op module {late.resolve()}" in note
        for note in getattr(info.value, "__notes__", [])
    )
    # Nothing registered, not even by the module that imported fine.
    assert registered() == ([], [])
    assert not [n for n in sys.modules if early_mod in n or late_mod in n]
    # Fixed, the same path loads (it was not remembered as loaded).
    write(late, proto_source(ops[1]))
    loaded = bootstrap.load_custom_op_plugins(str(root))
    assert loaded == [str(early.resolve()), str(late.resolve())]
    assert registered() == (sorted(ops), [ops[0]])


def test_a_failed_file_module_is_forgotten(tmp_path: Path) -> None:
    op = unique("Flaky")
    path = write(tmp_path / "flaky.py", proto_source(op) + "raise OSError('flaky')\n")
    before = set(sys.modules)
    with pytest.raises(OSError, match="flaky"):
        bootstrap.load_custom_op_plugins(str(path))
    assert not [m for m in set(sys.modules) - before if m.endswith(".flaky")]
    write(path, proto_source(op))
    assert bootstrap.load_custom_op_plugins(str(path)) == [str(path.resolve())]
    assert registered() == ([op], [])


def test_a_failed_load_forgets_every_module_it_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Modules the load imported from elsewhere go too: one of them may
    register (the generated ge_impl modules do), and kept, it would never
    register again. Importing it later runs it afresh."""
    library, sibling, plugin = (
        unique("shared_lib"),
        unique("_sibling"),
        unique("plugin"),
    )
    lib_dir = tmp_path / "lib"
    write(lib_dir / f"{library}.py", "STATE = []\n")
    monkeypatch.syspath_prepend(str(lib_dir))
    root = tmp_path / "opp"
    write(root / f"{sibling}.py", "HELPER = True\n")
    write(
        root / f"{plugin}.py",
        f"import {library}\nfrom . import {sibling}\n{library}.STATE.append(1)\n"
        "raise RuntimeError('plugin failed')\n",
    )
    before = set(sys.modules)
    with pytest.raises(RuntimeError, match="plugin failed"):
        bootstrap.load_custom_op_plugins(str(root))
    assert set(sys.modules) - before == set()
    assert __import__(library).STATE == []  # imported afresh


def test_prototypes_are_registered_before_implementations(tmp_path: Path) -> None:
    op = unique("Ordered")
    root = tmp_path / "opp"
    # The implementation sorts first; its signature needs the prototype.
    write(root / f"a_{unique('impl')}.py", impl_source(op, params="self, x, *, k"))
    write(
        root / f"b_{unique('proto')}.py",
        textwrap.dedent(f"""
            from ge.custom_op import register_op
            from ge.runtime import TensorDesc

            @register_op(op_type={op!r})
            def infer(x: TensorDesc, *, k: int = 1) -> TensorDesc:
                return x
            """),
    )
    assert len(bootstrap.load_custom_op_plugins(str(root))) == 2
    assert registered() == ([op], [op])


def test_registrations_are_staged_until_the_load_commits(tmp_path: Path) -> None:
    op = unique("Staged")
    probe = textwrap.dedent(f"""
        from ge.custom_op import get_registered_op_proto_by_op_type
        SEEN_DURING_IMPORT = get_registered_op_proto_by_op_type({op!r})
        """)
    path = write(tmp_path / "staged.py", proto_source(op, extra=probe))
    bootstrap.load_custom_op_plugins(str(path))
    module = next(
        m
        for n, m in sys.modules.items()
        if n == f"{bootstrap_package(tmp_path)}.staged"
    )
    assert module.SEEN_DURING_IMPORT is None
    assert get_registered_op_proto_by_op_type(op) is not None


def test_an_implementation_without_a_prototype_is_a_type_error(tmp_path: Path) -> None:
    with_proto, orphan = unique("HasProto"), unique("Orphan")
    root = tmp_path / "opp"
    write(
        root / f"a_{unique('m')}.py", proto_source(with_proto) + impl_source(with_proto)
    )
    orphan_mod = f"{bootstrap_package(root)}.b_{unique('m')}"
    write(root / f"{orphan_mod.rpartition('.')[2]}.py", impl_source(orphan))
    with pytest.raises(
        TypeError,
        match=f"register_op_impl op_type '{orphan}' \\({orphan_mod}:Impl:{orphan}\\): no "
        r"prototype is registered for it \(register_op\)",
    ):
        bootstrap.load_custom_op_plugins(str(root))
    assert registered() == ([], [])
    assert orphan_mod not in sys.modules


def test_a_signature_mismatch_rolls_back(tmp_path: Path) -> None:
    op = unique("Mismatch")
    path = write(
        tmp_path / "mismatch.py", proto_source(op) + impl_source(op, params="self")
    )
    with pytest.raises(
        TypeError, match=f"invalid execute signature for op type {op}, expected"
    ):
        bootstrap.load_custom_op_plugins(str(path))
    assert registered() == ([], [])


def test_conflicting_prototypes_in_one_load(tmp_path: Path) -> None:
    op = unique("Twice")
    root = tmp_path / "opp"
    first, second = f"a_{unique('m')}", f"b_{unique('m')}"
    write(root / f"{first}.py", proto_source(op))
    package = bootstrap_package(root)
    write(
        root / f"{second}.py",
        textwrap.dedent(f"""
            from ge.custom_op import register_op
            from ge.runtime import TensorDesc

            @register_op(op_type={op!r})
            def other(x: TensorDesc, y: TensorDesc) -> TensorDesc:
                return x
            """),
    )
    with pytest.raises(
        ValueError,
        match=f"register_op op_type '{op}' failed: registered by {package}.{first}:infer:"
        f"{op} and {package}.{second}:other:{op} in one load",
    ):
        bootstrap.load_custom_op_plugins(str(root))
    assert registered() == ([], [])


def test_a_conflict_with_an_earlier_registration_keeps_the_earlier_one(
    tmp_path: Path,
) -> None:
    op = unique("Existing")

    @register_op(op_type=op)
    def existing(x: TensorDesc, y: TensorDesc) -> TensorDesc:
        return x

    other = unique("Other")
    path = write(tmp_path / "late.py", proto_source(other) + proto_source(op))
    with pytest.raises(
        ValueError, match=f"register_op op_type '{op}' failed: already registered"
    ):
        bootstrap.load_custom_op_plugins(str(path))
    assert registered() == ([op], [])
    assert get_registered_op_proto_by_op_type(op).infer_meta is existing  # type: ignore[union-attr]


def test_a_load_cannot_start_inside_a_load(tmp_path: Path) -> None:
    inner = write(tmp_path / "inner.py", proto_source(unique("Inner")))
    outer = write(
        tmp_path / "outer.py",
        f"from ge.custom_op import bootstrap\nbootstrap.load_custom_op_plugins({str(inner)!r})\n",
    )
    with pytest.raises(RuntimeError, match="load_custom_op_plugins is already running"):
        bootstrap.load_custom_op_plugins(str(outer))
    assert registered() == ([], [])
    assert len(bootstrap.load_custom_op_plugins(str(inner))) == 1  # nothing stuck
