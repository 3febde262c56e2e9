"""``ge.ge_global``: GE's process-wide initialisation (GeApi)."""

from __future__ import annotations

import threading
from collections.abc import Mapping

__all__ = ["GeApi", "is_initialized"]

_lock = threading.Lock()
_options: dict[str, str] | None = None


def is_initialized() -> bool:
    return _options is not None


def global_options() -> dict[str, str]:
    return dict(_options or {})


class GeApi:
    """``GeApi().ge_initialize(options)`` before creating sessions;
    ``ge_finalize()`` at the end. Options are GE's string options, e.g.
    ``{"ge.exec.deviceId": "0", "ge.graphRunMode": "1"}``."""

    def ge_initialize(self, options: Mapping[str, str]) -> None:
        global _options
        if not isinstance(options, Mapping) or not options:
            raise ValueError("ge_initialize needs a non-empty dict of options")
        for key, value in options.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise TypeError("ge_initialize options are str keys and str values")
        with _lock:
            _options = dict(options)

    def ge_finalize(self) -> None:
        global _options
        with _lock:
            _options = None
