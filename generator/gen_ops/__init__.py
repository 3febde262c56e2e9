"""gen-ops: one YAML spec per GE custom operator, rendered into everything else.

The data path, one module (or package) per step::

    discovery (spec files) -> source (YAML with positions) -> schema_check
    (structure) -> semantics (meaning; builds the frozen model) -> lower_*
    (one view per target) -> render (Jinja2 templates) -> writer (manifest,
    one transaction, only what changed)

``pipeline`` strings them together; ``cli`` is the command line.
docs/design.md says which module decides which rule.
"""

from ge_ir.version import __version__

__all__ = ["__version__"]
