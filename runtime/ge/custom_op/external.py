"""Running an external compiler from a ``compile`` callback (GE's
CompilableOp calling TileLang in a subprocess).

``compile_external(command, key=...)`` runs ``command`` (a list of
arguments, no shell) in a private temporary directory, with ``{output}``
in any argument replaced by the path of the file the compiler must write,
and returns that file's bytes:

- the directory is made with ``tempfile.mkdtemp`` (mode 0700, a unique
  name) and removed with everything in it however the call ends;
- stdout and stderr are captured; a non-zero exit, a missing output file or
  a compiler that cannot be started raises ``ExternalCompileError`` naming
  the command and quoting the end of both streams;
- ``timeout`` seconds (default 120) bound the run: the compiler and its
  children (its own process group) are killed and ``ExternalCompileError``
  says so;
- with ``key``, a successful result is kept for the process: later calls
  with the same key return it without running anything (concurrent calls of
  one key run the compiler once). Failures are never cached, so a fixed
  compiler is run again.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Hashable, Mapping, Sequence

__all__ = ["ExternalCompileError", "compile_external"]

MAX_QUOTED = 4000  # characters of each stream quoted in an error


class ExternalCompileError(RuntimeError):
    """The external compiler failed, timed out or wrote nothing."""


_results: dict[Hashable, bytes] = {}
_key_locks: dict[Hashable, threading.Lock] = {}
_guard = threading.Lock()


def _tail(text: str) -> str:
    text = text.strip()
    if len(text) > MAX_QUOTED:
        text = "..." + text[-MAX_QUOTED:]
    return text or "(empty)"


def _run(
    command: Sequence[str],
    timeout: float,
    output_name: str,
    env: Mapping[str, str] | None,
) -> bytes:
    import shutil  # on use: ge.custom_op imports this module
    import signal
    import subprocess
    import tempfile

    workdir = tempfile.mkdtemp(prefix="ge-compile-")
    try:
        output = os.path.join(workdir, output_name)
        argv = [str(arg).replace("{output}", output) for arg in command]
        shown = " ".join(argv)
        try:
            process = subprocess.Popen(
                argv,
                cwd=workdir,
                env=dict(env) if env is not None else None,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                errors="replace",
                start_new_session=True,
            )
        except OSError as exc:
            raise ExternalCompileError(
                f"cannot run the compiler {argv[0]!r}: {exc.strerror or exc}"
            ) from None
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
            raise ExternalCompileError(
                f"the compiler timed out after {timeout:g} s and was killed: {shown}\n"
                f"stdout: {_tail(out)}\nstderr: {_tail(err)}"
            ) from None
        if process.returncode != 0:
            raise ExternalCompileError(
                f"the compiler exited with status {process.returncode}: {shown}\n"
                f"stdout: {_tail(out)}\nstderr: {_tail(err)}"
            )
        try:
            with open(output, "rb") as handle:
                return handle.read()
        except OSError:
            raise ExternalCompileError(
                f"the compiler succeeded but wrote no {output_name} (pass "
                f"'{{output}}' where it takes its output path): {shown}\n"
                f"stdout: {_tail(out)}\nstderr: {_tail(err)}"
            ) from None
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def compile_external(
    command: Sequence[str],
    *,
    key: Hashable | None = None,
    timeout: float = 120.0,
    output_name: str = "output.so",
    env: Mapping[str, str] | None = None,
) -> bytes:
    """Run an external compiler; the bytes of the file it wrote at
    ``{output}``. Cached per ``key`` per process when a key is given."""
    if isinstance(command, str) or not command:
        raise TypeError("command is a non-empty list of arguments (no shell string)")
    if not timeout > 0:
        raise ValueError(f"timeout must be positive, got {timeout!r}")
    if os.sep in output_name or output_name in ("", ".", ".."):
        raise ValueError(f"output_name is a file name, got {output_name!r}")
    if key is None:
        return _run(command, timeout, output_name, env)
    with _guard:
        if key in _results:
            return _results[key]
        key_lock = _key_locks.setdefault(key, threading.Lock())
    with key_lock:
        with _guard:
            if key in _results:
                return _results[key]
        data = _run(command, timeout, output_name, env)
        with _guard:
            _results[key] = data
        return data
