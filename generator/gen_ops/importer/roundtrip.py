"""``gen-ops roundtrip``: does a REG_OP header survive gen-ops?

Each declaration of each header is imported as ``gen-ops import`` imports
it, its spec is checked and rendered by gen-ops' own C++ renderer, the
rendered header is written under the rendered directory and imported back,
and the two declarations are compared by meaning (``compare``). Every
declaration is checked on its own: an op declared in several headers is
checked once per declaration, with no merging.

What is reported, at the declaration in the original header: R101 when the
imported spec fails gen-ops' checks (nothing is rendered), R102 when the
rendered header does not give the op back (another op, or an import error,
itself reported at the rendered header), and R201 to R205 for each
difference, with the place in the rendered header in the message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gen_ops import pipeline
from gen_ops.base.diagnostics import Diagnostic, Severity, Sink
from gen_ops.emit.outputs import Target
from gen_ops.importer import headers
from gen_ops.importer.compare import differences
from gen_ops.importer.driver import (
    check_spec,
    failed_checks,
    import_header,
    report_shared_modules,
)
from gen_ops.importer.model import ImportedOp
from gen_ops.lowering import layout
from gen_ops.spec.discovery import display


@dataclass(frozen=True)
class Options:
    paths: tuple[Path, ...]
    rendered: Path  # where rendered headers are written
    module: str = "custom"
    module_per_header: bool = False
    fix_dtypes: bool = False


class RenderedWriteError(Exception):
    """A rendered header could not be written."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"cannot write {path}: {reason}")


@dataclass
class Report:
    headers: int = 0
    failed_headers: int = 0
    not_imported: int = 0
    same: int = 0
    differ: int = 0
    unrendered: int = 0
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def checked(self) -> int:
        return self.same + self.differ + self.unrendered

    @property
    def import_errors(self) -> int:
        """Errors of reading the original headers (I-codes)."""
        return sum(
            1
            for d in self.diagnostics
            if d.severity is Severity.ERROR and d.code.startswith("I")
        )

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        return len(self.diagnostics) - self.errors


class RenderedDir:
    """The rendered directory: one header per declaration, at the path gen-ops
    renders it to (``include/<module>/<stem>.h``), or ``<stem>.<n>.h`` for a
    later declaration of the same op and module."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.taken: set[str] = set()

    def write(self, relative: str, text: str) -> Path:
        stem, suffix = relative.rsplit(".", 1)
        candidate, number = relative, 1
        while candidate in self.taken:
            number += 1
            candidate = f"{stem}.{number}.{suffix}"
        self.taken.add(candidate)
        path = self.root / candidate
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise RenderedWriteError(display(path), exc.strerror or str(exc)) from exc
        return path


def _cannot_render(op: ImportedOp, errors: list[Diagnostic], sink: Sink) -> None:
    sink.emit(
        "R101",
        op.span,
        f"{op.op_type}: gen-ops cannot render this declaration; its spec fails "
        "gen-ops' checks (gen-ops import refuses it, I208): " + failed_checks(errors),
        "gen-ops validate on the imported spec shows each problem in place; "
        "docs/diagnostics.md explains each code",
    )


def check_op(op: ImportedOp, spec_text: str, rendered: RenderedDir, sink: Sink) -> bool:
    """Render ``spec_text`` (the spec of ``op``, or a test's variant of it),
    import the rendered header back and report every difference from
    ``op``; whether it rendered."""
    spec, errors = check_spec(op, spec_text)
    if spec is None:
        _cannot_render(op, errors, sink)
        return False
    relative = layout.include_path(layout.header_include(spec))
    text = next(
        f.content
        for f in pipeline.render([spec], frozenset({Target.CPP}))
        if f.path == relative
    )
    path = rendered.write(relative, text)
    back = import_header(
        headers.HeaderFile(path, display(path)),
        op.module,
        False,
        rendered.root,
        check=False,
    )
    sink.items.extend(back.diagnostics)
    there = display(path)
    errors = [d for d in back.diagnostics if d.severity is Severity.ERROR]
    if errors or len(back.ops) != 1 or back.ops[0].op_type != op.op_type:
        found = ", ".join(f"REG_OP({o.op_type})" for o in back.ops) or "no op"
        sink.emit(
            "R102",
            op.span,
            f"{op.op_type}: the rendered header {there} does not give the op back "
            f"(it imports as {found}"
            + (f", with {len(errors)} error(s) reported there" if errors else "")
            + ")",
            "a bug of gen-ops' renderer or importer: please report it",
        )
        return True
    for difference in differences(op, back.ops[0]):
        sink.emit(
            difference.code,
            difference.here,
            f"{op.op_type}: {difference.message}",
            difference.hint,
        )
    return True


def run(options: Options) -> Report:
    """Check every declaration of every header; writes only rendered
    headers (RenderedWriteError)."""
    report = Report()
    sink = Sink()
    found = headers.find(list(options.paths), sink)
    if options.module_per_header:
        report_shared_modules(found, sink)
    report.headers = len(found)
    rendered = RenderedDir(options.rendered)
    for header in found:
        module = header.path.stem if options.module_per_header else options.module
        # check_op checks each spec itself (R101), so import_header need not
        result = import_header(
            header, module, options.fix_dtypes, options.rendered, check=False
        )
        sink.items.extend(result.diagnostics)
        report.failed_headers += result.failed
        report.not_imported += result.not_imported
        for op, spec_text in zip(result.ops, result.texts):
            before = len(sink.items)
            if not check_op(op, spec_text, rendered, sink):
                report.unrendered += 1
            elif any(d.code.startswith("R") for d in sink.items[before:]):
                report.differ += 1
            else:
                report.same += 1
    report.diagnostics = sink.sorted()
    return report
