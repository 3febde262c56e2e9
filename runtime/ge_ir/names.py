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
]

# Note [Leading underscores]: GE's own headers name ops, inputs and attrs
# with a leading "_" (REG_OP(_If), _While, ATTR(_kernel, ...)), and they
# compile, so the rules allow one. One at most: "__" starts the names C++
# reserves and Python mangles, and a stem "__init__" would be a package's
# own file. Generated code names its private helpers with a leading "_"
# too; gen_ops.names keeps a spec name from shadowing one.
#
# An operator type (the REG_OP name): an optional "_", an upper-case
# letter, then letters, digits and "_". The spec schema's "op" pattern is
# this, anchored.
OP_TYPE = "_?[A-Z][A-Za-z0-9_]*"
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


# Names under ``ge.es`` that belong to the runtime, not to generated modules.
RESERVED_MODULE_NAMES = frozenset(
    {
        "graph_builder",
        "tensor_holder",
        "tensor_like",
        "_op_api",
        "_plugin_loader",
        "list_plugins",
        "get_plugin",
        "GraphBuilder",
        "TensorHolder",
        "attr_scope",
    }
)

# Graph inputs: a node of one of these types is an input, ordered by its
# ``index`` attr.
DATA_NODE_TYPES = frozenset({"Data", "RefData", "AippData", "AnyData"})

# Every type a custom op may not take: the inputs above, GE's other data
# node (AnnData), constants, the graph's output node and variables.
RESERVED_NODE_TYPES = DATA_NODE_TYPES | frozenset(
    {"AnnData", "Const", "Constant", "NetOutput", "Variable"}
)
