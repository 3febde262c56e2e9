"""Offline models: compile a graph once, save it, run it anywhere without
the operators' Python code (GE's AIR -> ATC -> OM flow).

- ``compile_model(graph_or_path, output)`` (and the ``ge-atc`` command)
  compiles a graph of annotated-args nodes and writes a model file;
- ``load_model(path)`` loads one and returns a ``Model`` to query and
  ``execute`` with fresh buffers each time.

docs/model-format.md describes the file.
"""

from ge._container import FileFormatError
from ge.offline.compile import OfflineError, compile_model
from ge.offline.model import Model, load_model

__all__ = ["FileFormatError", "Model", "OfflineError", "compile_model", "load_model"]
