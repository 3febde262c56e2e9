"""``ge.custom_op``: Python custom operators (GE's names and rules).

- ``register_op`` declares a prototype and its infer_meta;
- ``register_op_impl`` registers a class whose ``execute`` / ``compile`` /
  ``declare_launch_args`` implement it;
- ``get_*_ctx()`` fetch the context of the callback being run;
- ``bootstrap.load_custom_op_plugins()`` imports op modules from
  ``ASCEND_CUSTOM_OPP_PATH``.
"""

# Importing the loader installs it as the registration sink (Note
# [Registration sink] in ge.custom_op.sink).
from ge.custom_op.bootstrap import InsecureOpPathWarning
from ge.custom_op.contexts import (
    AnnotatedArgsContext,
    AnnotatedKernelArgs,
    AnnotatedKernelLaunchInfo,
    CompilePlatformInfo,
    EagerOpExecutionContext,
    InferMetaContext,
    LaunchConfig,
    OpCompileContext,
    RuntimeAttrs,
    WorkspaceAddr,
    get_compile_ctx,
    get_compile_platform_info,
    get_declare_launch_args_ctx,
    get_execute_ctx,
    get_infer_meta_ctx,
)
from ge.custom_op.control_flow import ControlFlow
from ge.custom_op.external import ExternalCompileError, compile_external
from ge.custom_op.kernels import OpBackend, register_kernel
from ge.custom_op.portable import ForeignLaunchInfo, LibraryConfig, PortableLibraries
from ge.custom_op.proto import (
    clear_registered_op_protos,
    get_registered_op_proto_by_op_type,
    get_registered_op_protos,
    register_op,
)
from ge.custom_op.registry import (
    OpImplDescriptor,
    clear_registered_op_impls,
    get_registered_op_impl,
    get_registered_op_impl_by_descriptor_key,
    get_registered_op_impl_dicts,
    get_registered_op_impls,
    register_op_impl,
)
from ge.custom_op.subgraphs import Subgraph
from ge_ir.dtype_rules import DtypeRules

__all__ = [
    "AnnotatedArgsContext",
    "AnnotatedKernelArgs",
    "AnnotatedKernelLaunchInfo",
    "CompilePlatformInfo",
    "ControlFlow",
    "DtypeRules",
    "EagerOpExecutionContext",
    "ErrorExpectation",
    "ExternalCompileError",
    "ForeignLaunchInfo",
    "InferMetaContext",
    "InsecureOpPathWarning",
    "LaunchConfig",
    "LibraryConfig",
    "OpCase",
    "OpCompileContext",
    "OpcheckReport",
    "OpBackend",
    "OpImplDescriptor",
    "PortableLibraries",
    "RuntimeAttrs",
    "Subgraph",
    "WorkspaceAddr",
    "clear_registered_op_impls",
    "compile_external",
    "clear_registered_op_protos",
    "get_compile_ctx",
    "get_compile_platform_info",
    "get_declare_launch_args_ctx",
    "get_execute_ctx",
    "get_infer_meta_ctx",
    "get_registered_op_impl",
    "get_registered_op_impl_by_descriptor_key",
    "get_registered_op_impl_dicts",
    "get_registered_op_impls",
    "get_registered_op_proto_by_op_type",
    "get_registered_op_protos",
    "opcheck",
    "register_op",
    "register_kernel",
    "register_op_impl",
]


# Note [opcheck's home]: the checker compiles, runs and saves graphs, so it
# lives above the session (``ge.opcheck``, layer 7); GE-style code calls it
# as ``ge.custom_op.opcheck``, which this module serves on first use (the
# one import running back up, named in tests/runtime/test_layers.py).
_OPCHECK_NAMES = ("ErrorExpectation", "OpCase", "OpcheckReport", "opcheck")


def __getattr__(name: str) -> object:
    if name in _OPCHECK_NAMES:
        import ge.opcheck

        return getattr(ge.opcheck, name)
    raise AttributeError(f"module 'ge.custom_op' has no attribute {name!r}")
