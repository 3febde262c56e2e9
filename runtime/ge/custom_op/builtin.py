"""GE's built-in math ops: which types they are, where their code is, and
who may register them.

Note [Built-in ops]: GE's graphs add, multiply and take a ReLU with ops that
come with the product; so do ours. The math library (``ge.es.math``: the
builders, ``ge_impl.math``: the prototypes, and its author modules with the
C kernels) ships inside the ge-ops wheel and registers itself, with no
ASCEND_CUSTOM_OPP_PATH and nothing on PYTHONPATH:

- **Where.** In an installed wheel the author modules are
  ``ge/_builtin_ops/math`` (the checkout's ``ops/math``), the prototypes
  ``ge_impl/math`` beside ``ge`` (the checkout's
  ``generated/python/ge_impl/math``) and the builders ``ge/es/math``
  (``generated/python/ge/es/math``); pyproject.toml maps them. In a checkout
  (an editable install) the same files are used where they are.
- **When.** Lazily: the first compile of a graph with a built-in op
  (``ge.engine.infer.prototype_of``) loads the whole library through the
  plugin loader's staged load (``bootstrap.load_builtin_ops``: all or
  nothing, each module once per process, under the private package name of
  its directory, Note [Op module names]). Importing ``ge`` or ``ge.es.math``
  loads nothing. After ``clear_registered_op_*`` the next compile loads it
  again.
- **Who.** A built-in type is registered only from the library's own files
  (``is_builtin_source``). A user's ``register_op`` or ``register_op_impl``
  of one of these types, wherever it comes from (an import, an
  ASCEND_CUSTOM_OPP_PATH module, an installed op library), is a
  ``ValueError`` naming the type and saying to rename the op (``refusal``):
  a second ``Add`` would change every graph that adds, TensorHolder
  arithmetic included. There is no override.

``OP_TYPES`` is the library's table (tests/runtime/test_builtin_ops.py
checks it against specs/math_*.yaml).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ge_ir.names import BUILTIN_MODULE_NAMES

(MODULE,) = BUILTIN_MODULE_NAMES  # one built-in module today

OP_TYPES = frozenset(
    {
        "Abs",
        "Add",
        "BatchMatMulV2",
        "Cast",
        "Concat",
        "ConcatV2",
        "Conv2D",
        "Div",
        "Exp",
        "GEMM",
        "Identity",
        "Log",
        "MatMul",
        "Maximum",
        "Minimum",
        "Mul",
        "Neg",
        "Pow",
        "RealDiv",
        "Relu",
        "Rsqrt",
        "Sigmoid",
        "Split",
        "Sqrt",
        "Sub",
        "Tanh",
        "TensorMove",
        "Transpose",
    }
)

_GE = Path(__file__).resolve().parents[1]  # the ge package


@dataclass(frozen=True)
class Locations:
    """Where the built-in library's files are."""

    ops: Path  # the author modules and their helpers (an op directory)
    impl: Path  # the ge_impl.math package: prototypes and implementation bases
    builders: Path  # the ge.es.math package


def locations() -> Locations | None:
    """The installed wheel's files, else the checkout's; None when neither is
    there (a ge-ops tree without its built-in library)."""
    shipped = Locations(
        _GE / "_builtin_ops" / MODULE,
        _GE.parent / "ge_impl" / MODULE,
        _GE / "es" / MODULE,
    )
    root = _GE.parents[1]  # runtime/ge -> the checkout
    checkout = Locations(
        root / "ops" / MODULE,
        root / "generated" / "python" / "ge_impl" / MODULE,
        root / "generated" / "python" / "ge" / "es" / MODULE,
    )
    for candidate in (shipped, checkout):
        if candidate.ops.is_dir() and candidate.impl.is_dir():
            return candidate
    return None


def is_builtin_source(source: str) -> bool:
    """Whether a registration's ``source`` (``file:line``) is one of the
    built-in library's files."""
    where = locations()
    if where is None or not source:
        return False
    file = Path(source.rpartition(":")[0] or source)
    try:
        parent = file.resolve().parent
    except OSError:
        return False
    return parent in (where.ops.resolve(), where.impl.resolve())


def refusal(what: str, op_type: str, source: str) -> str | None:
    """Why this registration of ``op_type`` is refused, or None (Note
    [Built-in ops])."""
    if op_type not in OP_TYPES or is_builtin_source(source):
        return None
    return (
        f"{what} op_type '{op_type}' failed: {op_type} is a built-in op of ge-ops "
        f"(ge.es.{MODULE}.{op_type}, registered when a graph uses it), and a user "
        f"op may not register a built-in type ({source or 'unknown source'}); "
        f"give your op another type, e.g. {op_type}Custom"
    )
