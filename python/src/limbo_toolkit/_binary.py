"""Finding and running the ``limbo-analyze`` executable."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

ENV_VAR = "LIMBO_ANALYZE"
NAME = "limbo-analyze"

_INSTALL_HINT = (
    "build it from the repository with `go install ./cmd/limbo-analyze` "
    "(it lands in $(go env GOPATH)/bin), then put it on PATH, set "
    f"{ENV_VAR}=/path/to/limbo-analyze, or pass binary=..."
)


class BinaryNotFound(FileNotFoundError):
    """The ``limbo-analyze`` executable could not be found."""


class LimboError(RuntimeError):
    """A ``limbo-analyze`` command failed.

    ``message`` is the CLI's one-line error (its last stderr line without the
    program name), ``returncode`` its exit status (2 usage, 1 bad data),
    ``stderr`` everything it wrote there and ``args`` the command run.
    """

    def __init__(self, message: str, returncode: int, stderr: str, args: Sequence[str]):
        super().__init__(message)
        self.message = message
        self.returncode = returncode
        self.stderr = stderr
        self.command = list(args)


def find_binary(binary: str | os.PathLike[str] | None = None) -> str:
    """Return the path of ``limbo-analyze``.

    Looked up in order: ``binary`` (a path, or a name searched on PATH), the
    ``LIMBO_ANALYZE`` environment variable, then ``limbo-analyze`` on PATH.
    Raises :class:`BinaryNotFound` with instructions when none is usable.
    """
    for source, cand in (("binary=", binary), (ENV_VAR, os.environ.get(ENV_VAR))):
        if cand is None or str(cand) == "":
            continue
        found = _usable(str(cand))
        if found is None:
            raise BinaryNotFound(f"{source} {cand}: no executable limbo-analyze there; {_INSTALL_HINT}")
        return found
    found = shutil.which(NAME)
    if found is None:
        raise BinaryNotFound(f"{NAME} is not on PATH; {_INSTALL_HINT}")
    return found


def _usable(cand: str) -> str | None:
    p = Path(cand).expanduser()
    if p.is_file() and os.access(p, os.X_OK):
        return str(p.resolve())
    if os.sep not in cand:
        return shutil.which(cand)
    return None


def _last_line(stderr: str) -> str:
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    if not lines:
        return ""
    prefix = NAME + ": "
    strip = lambda m: m[len(prefix):] if m.startswith(prefix) else m  # noqa: E731
    msg = strip(lines[-1])
    # validate and export list each problem, then a count ("1 error in 1 of
    # 1 file"): the first problem is the message, the count its context.
    if len(lines) > 1 and re.match(r"^\d+ errors? in ", msg):
        return f"{strip(lines[0])} ({msg})"
    return msg


def run(
    args: Sequence[str],
    *,
    binary: str | os.PathLike[str] | None = None,
    input: str | bytes | None = None,
    check: bool = True,
    cwd: str | os.PathLike[str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``limbo-analyze ARGS...`` and return the completed process (text).

    On a non-zero exit (with ``check``) raises :class:`LimboError` carrying
    the CLI's one-line message, e.g. ``run(["validate", "bad.csv"])``.
    """
    exe = find_binary(binary)
    cmd = [exe, *map(str, args)]
    data = input.decode() if isinstance(input, bytes) else input
    proc = subprocess.run(cmd, input=data, capture_output=True, text=True, cwd=cwd)
    if check and proc.returncode != 0:
        msg = _last_line(proc.stderr) or f"exit status {proc.returncode}"
        raise LimboError(msg, proc.returncode, proc.stderr, cmd)
    return proc
