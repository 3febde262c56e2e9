"""The models of valid specs, kept between runs by their content.

Note [Spec cache]: loading a spec (YAML, structure, meaning) is most of
what ``gen-ops compat``, ``changelog`` and ``release`` spend on a large
library; the model it yields depends only on

- the spec's bytes, and how discovery named it (display, label, project
  root: the model's spans and paths carry them), and
- gen-ops' own code, templates, JSON Schema and ``ge_ir``, and black's
  version (``fingerprint.code_digest``, the fingerprint of the render fast path too).

So a model is kept under the sha256 of all of these, and a later run that
reads the same bytes under the same names with the same code takes the
model instead of loading the spec. Only a spec that loaded with no
diagnostic at all is kept (a warning or note is shown again on every run,
by loading the spec again); the checks across specs (E801, E802) always run
on every model, kept or loaded.

The models of one set of spec roots are one pack file,
``specs-<hash of the roots>.pickle`` in the cache directory
(``$GEN_OPS_CACHE_DIR``, else the user cache directory's ``gen-ops``).
After a run that loaded anything, or used fewer models than the pack held,
the pack is written again (atomically) with exactly the models that run
used. A pack is a pickle, so it is read only from a directory and file
that belong to the user and that no one else can write; one that cannot
be read, was written by other code, or holds anything but models is
ignored and written again. The cache is only ever a way to skip work:
``--no-cache`` (or an unusable directory) loads every spec.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gen_ops.base.fingerprint import code_digest
from gen_ops.spec.discovery import SpecFile
from gen_ops.spec.model import OpSpec

VERSION = 1
ENV = "GEN_OPS_CACHE_DIR"


def cache_dir() -> Path:
    """The configured cache directory (it may not exist yet)."""
    configured = os.environ.get(ENV)
    if configured:
        return Path(configured)
    from platformdirs import user_cache_path

    return user_cache_path("gen-ops", appauthor=False)


def _private(info: os.stat_result, is_dir: bool) -> bool:
    kind = stat.S_ISDIR if is_dir else stat.S_ISREG
    return (
        kind(info.st_mode)
        and info.st_uid == os.getuid()
        and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def _context() -> str:
    return code_digest()


def key(file: SpecFile, raw: bytes) -> str:
    """What a model depends on besides the code: the bytes and the names."""
    digest = hashlib.sha256(raw).hexdigest()
    names = "\0".join((digest, file.display, file.label, str(file.project)))
    return hashlib.sha256(names.encode("utf-8", "surrogateescape")).hexdigest()


@dataclass
class SpecCache:
    """The pack of one set of spec roots: the models it held when read,
    and those this run used (``get`` found, ``put`` added)."""

    path: Path
    context: str
    held: dict[str, OpSpec]
    used: dict[str, OpSpec] = field(default_factory=dict)

    def get(self, name: str) -> OpSpec | None:
        """The model kept under ``name`` (a ``key``), if any."""
        model = self.held.get(name)
        if model is not None:
            self.used[name] = model
        return model

    def put(self, name: str, model: OpSpec) -> None:
        self.used[name] = model

    def save(self) -> None:
        """Write the pack again if this run loaded a spec or left one unused;
        a pack that cannot be written is left as it was."""
        if self.used.keys() == self.held.keys():
            return
        data = {"version": VERSION, "context": self.context, "models": self.used}
        try:
            handle, temp = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
            try:
                with os.fdopen(handle, "wb") as stream:
                    pickle.dump(data, stream, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(temp, self.path)
            except BaseException:
                os.unlink(temp)
                raise
        except OSError:
            pass  # only a cache


def open_cache(roots: list[Path]) -> SpecCache | None:
    """The pack for specs found under ``roots``; None when the cache
    directory cannot be made private to the user."""
    directory = cache_dir()
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(os.lstat(directory), is_dir=True):
            return None
    except OSError:
        return None
    named = "\0".join(str(root.resolve()) for root in roots)
    path = directory / f"specs-{hashlib.sha256(named.encode()).hexdigest()[:24]}.pickle"
    context = _context()
    return SpecCache(path, context, _read(path, context))


def _read(path: Path, context: str) -> dict[str, OpSpec]:
    """The models of a pack written for ``context``; none for a pack that is
    missing, not private, unreadable or of another version or code."""
    try:
        # Non-blocking: a FIFO put in its place does not hang the open (it is
        # then refused as not a regular file by ``_private``).
        flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
        handle = os.open(path, flags)
    except OSError:
        return {}
    try:
        with os.fdopen(handle, "rb") as stream:
            if not _private(os.fstat(stream.fileno()), is_dir=False):
                return {}
            data: Any = pickle.load(stream)
    except Exception:  # a corrupt pack: any error unpickling it
        return {}
    if (
        not isinstance(data, dict)
        or data.get("version") != VERSION
        or data.get("context") != context
        or not isinstance(data.get("models"), dict)
    ):
        return {}
    models: dict[str, OpSpec] = data["models"]
    if not all(type(m) is OpSpec and type(k) is str for k, m in models.items()):
        return {}
    return models
