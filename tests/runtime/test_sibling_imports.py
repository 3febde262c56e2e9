"""Op modules import the helpers beside them by their bare names (issue 22,
finding 2): ``from _np import view`` with ``_np.py`` in the op directory
loads through ASCEND_CUSTOM_OPP_PATH, and the same file imports when a
user's test puts the op directory on ``sys.path``. A file of the op
directory still never shadows a standard or installed module, and a failed
load forgets the bare names it added (Note [Sibling imports]).
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from _rt_support import registries, unique  # noqa: F401

from ge.custom_op import (
    bootstrap,
    get_registered_op_proto_by_op_type,
    get_registered_op_protos,
)


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


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def module_of(op: str):  # type: ignore[no-untyped-def]
    proto = get_registered_op_proto_by_op_type(op)
    assert proto is not None
    return sys.modules[proto.infer_meta.__module__]


def test_a_bare_sibling_import_loads_through_the_op_path(tmp_path: Path) -> None:
    """The issue's case, and both forms in one directory naming one module."""
    op, helper = unique("Bare"), unique("_np")
    root = tmp_path / "opp"
    write(root / f"{helper}.py", "def view(x):\n    return ('view', x)\n")
    write(
        root / "op_mod.py",
        f"from {helper} import view\nfrom . import {helper} as relative\n"
        + proto_source(op),
    )
    bootstrap.load_custom_op_plugins(str(root))
    module = module_of(op)
    assert module.view(1) == ("view", 1)
    assert sys.modules[helper] is module.relative
    assert module.relative.__name__ == f"{module.__package__}.{helper}"
    assert module.relative.__spec__.name == module.relative.__name__


def test_the_bare_form_imports_when_a_test_imports_the_module_directly(
    tmp_path: Path,
) -> None:
    """What the user's own tests do: the op directory on sys.path, the op
    module imported by its own name."""
    op, helper = unique("Direct"), unique("_np")
    root = tmp_path / "opp"
    write(root / f"{helper}.py", "SCALE = 4\n")
    write(root / "op_mod.py", f"from {helper} import SCALE\n" + proto_source(op))
    script = "import op_mod\nprint(op_mod.SCALE)\n"
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "4"
    bootstrap.load_custom_op_plugins(str(root))
    assert module_of(op).SCALE == 4


def test_a_sibling_named_like_a_standard_module_never_shadows_it(
    tmp_path: Path,
) -> None:
    """``colorsys.py`` is an op module of its own, ``_markupbase.py`` a
    helper; the op module's bare imports get the standard modules."""
    op = unique("NoShadow")
    root = tmp_path / "opp"
    write(root / "colorsys.py", "WHO = 'the op directory'\n")
    write(root / "_markupbase.py", "raise RuntimeError('the op directory')\n")
    write(root / "op_mod.py", "import colorsys, _markupbase\n" + proto_source(op))
    for name in ("colorsys", "_markupbase"):
        sys.modules.pop(name, None)
    bootstrap.load_custom_op_plugins(str(root))
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    for name in ("colorsys", "_markupbase"):
        assert Path(getattr(module_of(op), name).__file__).resolve().parent == stdlib
        assert Path(sys.modules[name].__file__).resolve().parent == stdlib


def test_a_failed_load_forgets_the_bare_names_it_added(tmp_path: Path) -> None:
    op, helper = unique("Rollback"), unique("_helper")
    root = tmp_path / "opp"
    write(root / f"{helper}.py", "FACTOR = 2\n")
    path = write(
        root / "op_mod.py",
        f"import {helper}\n" + proto_source(op) + "raise OSError('broken')\n",
    )
    with pytest.raises(OSError, match="broken"):
        bootstrap.load_custom_op_plugins(str(root))
    assert helper not in sys.modules
    assert not [name for name in sys.modules if name.endswith(f".{helper}")]
    assert get_registered_op_protos() == []
    write(path, f"import {helper}\n" + proto_source(op))
    bootstrap.load_custom_op_plugins(str(root))
    assert module_of(op).__dict__[helper].FACTOR == 2


def test_a_bare_sibling_import_inside_a_function_works_after_the_load(
    tmp_path: Path,
) -> None:
    op, late = unique("Late"), unique("_late")
    root = tmp_path / "opp"
    write(root / f"{late}.py", "VALUE = 'late'\n")
    write(
        root / "op_mod.py",
        proto_source(op)
        + f"\ndef late():\n    import {late}\n    return {late}.VALUE\n",
    )
    bootstrap.load_custom_op_plugins(str(root))
    assert late not in sys.modules
    assert module_of(op).late() == "late"


def test_a_bare_name_two_op_directories_hold_is_refused(tmp_path: Path) -> None:
    """A bare name is one module per process: taking it for one op directory
    while another holds a file of that name is ambiguous, in either order."""
    helper = unique("_shared")
    first, second = unique("FirstBare"), unique("SecondBare")
    write(tmp_path / "a" / f"{helper}.py", "WHO = 'a'\n")
    write(tmp_path / "a" / "op_a.py", f"from . import {helper}\n" + proto_source(first))
    write(tmp_path / "b" / f"{helper}.py", "WHO = 'b'\n")
    write(tmp_path / "b" / "op_b.py", f"import {helper}\n" + proto_source(second))
    bootstrap.load_custom_op_plugins(str(tmp_path / "a"))
    with pytest.raises(ImportError) as info:
        bootstrap.load_custom_op_plugins(str(tmp_path / "b"))
    text = str(info.value)
    assert f"op directory {(tmp_path / 'b').resolve()} imports" in text
    assert str((tmp_path / "a" / f"{helper}.py").resolve()) in text
    assert f"from . import {helper}" in text
    assert helper not in sys.modules
    assert [p.op_type for p in get_registered_op_protos()] == [first]


def test_a_bare_name_taken_first_refuses_a_later_directory_holding_it(
    tmp_path: Path,
) -> None:
    helper = unique("_shared")
    first, second = unique("FirstTaken"), unique("SecondTaken")
    write(tmp_path / "a" / f"{helper}.py", "WHO = 'a'\n")
    write(tmp_path / "a" / "op_a.py", f"import {helper}\n" + proto_source(first))
    write(tmp_path / "b" / f"{helper}.py", "WHO = 'b'\n")
    write(
        tmp_path / "b" / "op_b.py", f"from . import {helper}\n" + proto_source(second)
    )
    bootstrap.load_custom_op_plugins(str(tmp_path / "a"))
    with pytest.raises(ImportError, match=f"bare name {helper}"):
        bootstrap.load_custom_op_plugins(str(tmp_path / "b"))
    assert [p.op_type for p in get_registered_op_protos()] == [first]


def test_a_library_an_op_module_imports_does_not_see_the_op_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only op modules (and their siblings) resolve bare names to the op
    directory: a library's own bare import fails as it would anywhere."""
    op, helper, library = unique("Lib"), unique("_only_ops"), unique("lib_mod")
    write(tmp_path / "opp" / f"{helper}.py", "X = 1\n")
    write(tmp_path / "lib" / f"{library}.py", f"import {helper}\n")
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    write(tmp_path / "opp" / "op_mod.py", f"import {library}\n" + proto_source(op))
    with pytest.raises(ModuleNotFoundError, match=helper) as info:
        bootstrap.load_custom_op_plugins(str(tmp_path / "opp"))
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "code outside the op directory imported it by its bare name" in notes
    assert library not in sys.modules and helper not in sys.modules
