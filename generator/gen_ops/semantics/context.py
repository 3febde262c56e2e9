"""What every meaning check of one spec shares: the op, the positions, the sink.

A check reads the spec's raw values only where the model does not hold them
yet (the element being built); everything built so far it reads from the
model. It reports problems through ``report`` and never raises.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gen_ops.base.diagnostics import Severity, Sink, Span
from gen_ops.spec.source import LoadedSpec, Positions, YamlPath


@dataclass
class Checker:
    """One spec under check. Messages of meaning checks start with the op."""

    spec: LoadedSpec
    sink: Sink
    errors_before: int = field(init=False)

    def __post_init__(self) -> None:
        self.errors_before = self._errors()

    @property
    def op(self) -> str:
        op: str = self.spec.data["op"]
        return op

    @property
    def data(self) -> dict[str, Any]:
        """The spec's values; structurally valid (the schema passed)."""
        data: dict[str, Any] = self.spec.data
        return data

    @property
    def positions(self) -> Positions:
        return self.spec.positions

    def at(self, where: YamlPath) -> Span:
        """Where the value at ``where`` stands."""
        return self.positions.at(where)

    def key(self, where: YamlPath) -> Span:
        """Where the key that introduces ``where`` stands."""
        return self.positions.key(where)

    def value(self, where: YamlPath) -> Any:
        node: Any = self.data
        for part in where:
            node = node[part]
        return node

    def report(
        self, code: str, where: YamlPath | Span, message: str, hint: str | None = None
    ) -> None:
        """Report ``code`` at a value (a YamlPath) or at a Span."""
        span = where if isinstance(where, Span) else self.at(where)
        self.sink.emit(code, span, f"{self.op}: {message}", hint)

    def _errors(self) -> int:
        return sum(1 for d in self.sink.items if d.severity is Severity.ERROR)

    def failed(self) -> bool:
        """Whether any error was reported since this check began."""
        return self._errors() > self.errors_before
