"""gen-ops: one YAML spec per GE custom operator, rendered into everything else.

The data path, one module per step::

    source (YAML with positions) -> schema_check (structure) -> semantics
    (meaning, builds the frozen model) -> lower_* (one view per target)
    -> render (Jinja2 templates) -> writer (manifest, atomic, only changed)

``pipeline`` strings them together; ``cli`` is the command line.
"""

__version__ = "0.1.0"
