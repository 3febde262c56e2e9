"""GE's Python surface running on a CPU device.

Subpackages follow GE's names: ``ge.graph``, ``ge.es``, ``ge.runtime``,
``ge.custom_op``, ``ge.session`` and ``ge.ge_global``. Importing ``ge`` itself
is cheap; each subpackage loads what it needs.
"""

from pkgutil import extend_path

# Generated trees (``<out>/python/ge/...``) on sys.path contribute to this
# package, so ``ge.es.<module>`` resolves wherever gen-ops wrote it.
__path__ = extend_path(__path__, __name__)

from ge_ir.version import __version__ as __version__
