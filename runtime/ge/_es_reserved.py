"""Names under ``ge.es`` that belong to the runtime, not to generated modules."""

RESERVED_MODULE_NAMES = frozenset(
    {
        "graph_builder",
        "tensor_holder",
        "tensor_like",
        "_op_api",
        "_plugin_loader",
        "_es_reserved",
        "list_plugins",
        "get_plugin",
        "GraphBuilder",
        "TensorHolder",
        "attr_scope",
    }
)
