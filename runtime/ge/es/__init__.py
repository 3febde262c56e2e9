"""``ge.es``: the eager-style graph builder API.

Generated op modules appear as ``ge.es.<module>``: any ``ge/es/<module>``
directory on ``sys.path`` (for example ``<out>/python`` from gen-ops, or the
project's generated/python when installed) is part of this package, and
plugins registered under the entry-point group ``ge.es.plugins`` (GE's
mechanism, used by gen_esb's wheels) are loaded on import.
"""

from __future__ import annotations

from pkgutil import extend_path

__path__ = extend_path(__path__, __name__)

from ge.es._plugin_loader import get_plugin, list_plugins, load_plugins
from ge.es.graph_builder import GraphBuilder, attr_scope, control_dependency_scope
from ge.es.tensor_holder import TensorHolder

__all__ = [
    "GraphBuilder",
    "TensorHolder",
    "attr_scope",
    "control_dependency_scope",
    "list_plugins",
    "get_plugin",
]

__all__ += load_plugins(__name__)
