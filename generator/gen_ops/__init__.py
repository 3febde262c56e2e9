"""gen-ops: one YAML spec per GE custom operator, rendered into everything else.

The data path, one package (a room) per stage::

    spec (find the files, read YAML with positions, check the structure)
    -> semantics (meaning; builds the frozen model) -> lowering (one view per
    family of outputs) -> emit (Jinja2 templates; the manifest, one
    transaction, only what changed)

``base`` is what every room stands on; ``history`` and ``importer`` are the
release commands and the way back from REG_OP headers. ``pipeline`` strings
the stages together; ``cli`` is the command line. docs/design.md says which
module decides which rule, and which room may import which
(tests/generator/test_generator_layers.py).
"""

from ge_ir.version import __version__

__all__ = ["__version__"]
