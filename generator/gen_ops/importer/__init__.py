"""Existing REG_OP headers in, one YAML spec per op out (``gen-ops import``,
whose command line is ``gen_ops.commands.importing``).

One data path, a module per step (docs/importing.md is the user's guide):

    driver ─► lexer ─► preprocess ─► parser ─► convert ─► merge ─► yaml_writer ─► transaction
    (find     (tokens,  (#if/#endif,  (REG_OP    (a spec     (the same  (YAML text)   (atomic
    headers)   splices)  doc resets)   chains)    model)      op twice)                 writes)

``convert`` reads each element with ``dtype_expr`` (type expressions),
``defaults`` (attr defaults, over ``c_literals``) and ``docblock`` (the
``/** */`` comment); ``dtype_names`` is the one table of which names are
DataType enumerators, named sets and GE's string-table aliases. ``model``
holds the frozen dataclasses an imported op becomes. Diagnostics are the
I-codes of ``gen_ops.base.diagnostics``.
"""
