"""Names the runtime and gen-ops must agree on: what a valid op type and
module name is, the names under ``ge.es`` that belong to the runtime, and
the node types the runtime creates or treats specially (gen-ops refuses a
custom op of one of these types, E308)."""

from __future__ import annotations

import re

__all__ = [
    "DATA_NODE_TYPES",
    "IDENTIFIER",
    "OP_TYPE",
    "RESERVED_MODULE_NAMES",
    "RESERVED_NODE_TYPES",
    "is_identifier",
    "is_op_type",
    "module_name_refusal",
]

# Note [Leading underscores]: GE's own headers name ops, inputs and attrs
# with a leading "_" (REG_OP(_If), _While, ATTR(_kernel, ...)), and they
# compile, so the rules allow one. One at most: "__" starts the names C++
# reserves and Python mangles, and a stem "__init__" would be a package's
# own file. Generated code names its private helpers with a leading "_"
# too; gen_ops.lowering.names keeps a spec name from shadowing one.
#
# An operator type (the REG_OP name): an optional "_", a letter, then
# letters, digits and "_". GE takes lower-case types too (its generator
# tests declare phony_1i_1o). The spec schema's "op" pattern is this,
# anchored.
OP_TYPE = "_?[A-Za-z][A-Za-z0-9_]*"
# A module, parameter or type-variable name: an optional "_", a letter,
# then letters, digits and "_". The schema's "identifier" pattern is this,
# anchored.
IDENTIFIER = "_?[A-Za-z][A-Za-z0-9_]*"
_OP_TYPE = re.compile(OP_TYPE)
_IDENTIFIER = re.compile(IDENTIFIER)


def is_op_type(text: object) -> bool:
    return isinstance(text, str) and _OP_TYPE.fullmatch(text) is not None


def is_identifier(text: object) -> bool:
    return isinstance(text, str) and _IDENTIFIER.fullmatch(text) is not None


# Note [Reserved module names]: a generated module is ``ge.es.<module>``
# (a directory ``ge/es/<module>`` on sys.path, or a ``ge.es.plugins`` entry
# point), and ``ge_impl.<module>``. A module named like anything ``ge.es``
# already has would either be unreachable (``ge/es/_calls.py`` of the
# runtime wins over a generated ``ge/es/_calls/``) or replace the runtime's
# object for the rest of the process (importing ``ge.es.<name>`` sets the
# package's attribute ``<name>``). So a module name may not
#
# - start with "_": ge.es' and ge_impl's private names (the runtime's
#   modules ``_calls``, ``_op_api``, ``_plugin_loader``, and any it adds);
# - be a name of ``ge.es`` itself: its public functions and classes, its
#   submodules (the files of runtime/ge/es/) and what its ``__init__``
#   imports (``annotations``, ``extend_path``, ``load_plugins``).
#
# RESERVED_MODULE_NAMES is that table, the one place gen-ops (E304, ``gen-ops
# import``'s I108, ``gen-ops package``) and the runtime's plugin loader read.
# tests/runtime/test_reserved_module_names.py compares it with ``dir(ge.es)``
# and the files of runtime/ge/es/, so a name the runtime adds cannot be
# forgotten here. ``ge_impl`` is a namespace package with no names of its own.
RESERVED_MODULE_NAMES = frozenset(
    {
        # submodules: the files of runtime/ge/es/
        "graph_builder",
        "tensor_holder",
        "tensor_like",
        "_calls",
        "_op_api",
        "_plugin_loader",
        "esrt",  # the C/C++ ES runtime library's build (python -m ge.es)
        "native",  # its headers and sources
        "nn",  # GE's module names of the built-in ops (ge/es/nn.py, all.py)
        "all",
        "__main__",
        # what ge/es/__init__.py defines or imports
        "GraphBuilder",
        "TensorHolder",
        "attr_scope",
        "control_dependency_scope",
        "list_plugins",
        "get_plugin",
        "load_plugins",
        "extend_path",
        "annotations",
    }
)


def module_name_refusal(name: str) -> str | None:
    """Why ``name`` cannot be a generated module's name (ge.es.<name>), or
    None when it can (Note [Reserved module names]). Only the clash is
    judged here: whether ``name`` is an identifier is ``is_identifier``."""
    if name.startswith("_"):
        return (
            f"module '{name}' starts with '_', which ge.es keeps for its own "
            f"modules (ge.es.{name} would be the runtime's, or hidden by it)"
        )
    if name in RESERVED_MODULE_NAMES:
        return (
            f"module '{name}' is taken by the runtime: ge.es.{name} is ge.es' "
            "own, and a module of that name would replace it or be hidden by it"
        )
    return None


# The op modules that ship with the runtime (Note [Built-in ops] in
# ge.custom_op.builtin): ge.es.math is the runtime's, so an op library of
# that name would replace it or be hidden by it. This repository's own
# specs declare them; nothing a user brings in may take the name.
BUILTIN_MODULE_NAMES = frozenset({"math"})


def library_module_refusal(name: str) -> str | None:
    """Why a module brought in from outside (``gen-ops package --module``,
    ``gen-ops import``, an installed plugin) cannot be ge.es.<name>, or
    None: the reserved names, and the built-in modules."""
    refusal = module_name_refusal(name)
    if refusal is None and name in BUILTIN_MODULE_NAMES:
        refusal = (
            f"module '{name}' is the runtime's built-in op library (ge.es.{name}), "
            "which an op library of that name would replace or be hidden by"
        )
    return refusal


# Graph inputs: a node of one of these types is an input, ordered by its
# ``index`` attr.
DATA_NODE_TYPES = frozenset({"Data", "RefData", "AippData", "AnyData"})

# Every type a custom op may not take: the inputs above, GE's other data
# node (AnnData), constants, the graph's output node and variables.
RESERVED_NODE_TYPES = DATA_NODE_TYPES | frozenset(
    {"AnnData", "Const", "Constant", "NetOutput", "Variable"}
)
