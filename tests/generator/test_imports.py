"""The import collector: what lowerings record comes out once, in isort's
order, as the template prints it."""

from __future__ import annotations

import pytest

from gen_ops.emit.render import environment
from gen_ops.lowering.imports import Both, ImportLine, Imports


def _block(imports: Imports) -> str:
    template = environment().from_string(
        '{% from "python/imports.j2" import import_block %}'
        "{{ import_block(sections) }}"
    )
    return template.render(sections=imports.sections())


def test_sections_order_and_aliases() -> None:
    imports = Imports()
    imports.name("ge.runtime", "TensorDesc")
    imports.module("ge.runtime", "_rt")
    imports.name("ge.graph", "Tensor", "GraphTensor")
    imports.name("typing", "Any")
    imports.name("ge.graph", "DataType")
    imports.module("abc")
    imports.name("ge.runtime", "Tensor")
    imports.module("builtins", "_b")
    imports.name("ge.graph", "DataType")  # recorded twice, imported once
    assert _block(imports) == (
        "import abc\n"
        "import builtins as _b\n"
        "from typing import Any\n"
        "\n"
        "import ge.runtime as _rt\n"
        "from ge.graph import DataType\n"
        "from ge.graph import Tensor as GraphTensor\n"
        "from ge.runtime import Tensor, TensorDesc\n"
    )


def test_nothing_recorded_prints_nothing() -> None:
    assert Imports().sections() == ()
    assert _block(Imports()) == ""


def test_both_records_in_each() -> None:
    first, second = Imports(), Imports()
    Both(first, second).name("ge.custom_op", "LaunchConfig")
    first.name("ge.custom_op", "register_op")
    assert second.sections() == ((ImportLine("ge.custom_op", ("LaunchConfig",)),),)
    assert first.sections() == (
        (ImportLine("ge.custom_op", ("LaunchConfig", "register_op")),),
    )


def test_a_new_op_type_shaped_import_is_refused() -> None:
    # Note [Names an op type could hide]: E304 relies on the list.
    with pytest.raises(AssertionError, match="OP_TYPE_SHAPED"):
        Imports().name("ge.graph", "Shape")
    with pytest.raises(AssertionError, match="OP_TYPE_SHAPED"):
        Imports().module("ge.graph", "Graphs")
    Imports().name("ge.graph", "Tensor", "GraphTensor")
