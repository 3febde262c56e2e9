"""Loading ASCEND_CUSTOM_OPP_PATH before a compile, as GE's PreRun does,
with the errors a compile documents."""

from __future__ import annotations

from ge.custom_op import bootstrap
from ge.engine.errors import CompileError, describe


def load_op_modules() -> None:
    """ASCEND_CUSTOM_OPP_PATH's op modules. A path that cannot be read stays
    an OSError or ValueError, a bad registration a TypeError or ValueError
    (their messages name the path or op); anything else an op module raises
    while being imported becomes a CompileError naming the module."""
    try:
        bootstrap.load_custom_op_plugins()
    except (OSError, ValueError, TypeError, CompileError):
        raise
    except Exception as exc:
        raise CompileError(
            f"cannot load the op modules of {bootstrap.ENV}: {describe(exc)}"
        ) from exc
