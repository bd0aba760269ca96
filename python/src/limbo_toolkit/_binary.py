"""Finding and running the ``limbo-analyze`` executable."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ENV_VAR = "LIMBO_ANALYZE"
NAME = "limbo-analyze"

#: The ledger schema this package reads (``limbo-analyze version``): a
#: binary of another schema version is refused.
SCHEMA_VERSION = "1"

_INSTALL_HINT = (
    "install a platform wheel of limbo-toolkit (it carries the binary), or build it from the "
    "repository with `go install ./cmd/limbo-analyze` (it lands in $(go env GOPATH)/bin), then put it "
    f"on PATH, set {ENV_VAR}=/path/to/limbo-analyze, or pass binary=..."
)


class BinaryNotFound(FileNotFoundError):
    """The ``limbo-analyze`` executable could not be found."""


class IncompatibleBinary(RuntimeError):
    """The ``limbo-analyze`` found speaks another ledger schema version."""


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


def bundled() -> str | None:
    """The binary a platform wheel carries (``limbo_toolkit/_bin/``), if any."""
    exe = Path(__file__).with_name("_bin") / (NAME + (".exe" if sys.platform == "win32" else ""))
    return str(exe) if exe.is_file() else None


def find_binary(binary: str | os.PathLike[str] | None = None) -> str:
    """Return the path of ``limbo-analyze``.

    Looked up in order: ``binary`` (a path, or a name searched on PATH), the
    ``LIMBO_ANALYZE`` environment variable, the binary a platform wheel
    carries, then ``limbo-analyze`` on PATH. Raises :class:`BinaryNotFound`
    with instructions when none is usable, and :class:`IncompatibleBinary`
    when the one found speaks another ledger schema version.
    """
    for source, cand in (("binary=", binary), (ENV_VAR, os.environ.get(ENV_VAR))):
        if cand is None or str(cand) == "":
            continue
        found = _usable(str(cand))
        if found is None:
            raise BinaryNotFound(f"{source} {cand}: no executable limbo-analyze there; {_INSTALL_HINT}")
        return _checked(found)
    found = bundled() or shutil.which(NAME)
    if found is None:
        raise BinaryNotFound(f"{NAME} is not on PATH; {_INSTALL_HINT}")
    return _checked(found)


_CHECKED: dict[tuple[str, int, int], dict[str, str]] = {}


def binary_version(binary: str | os.PathLike[str] | None = None) -> dict[str, str]:
    """``limbo-analyze version --format json`` of the binary found:
    ``version``, ``schema_version`` and ``go``."""
    return _version(find_binary(binary))


def _version(exe: str) -> dict[str, str]:
    st = os.stat(exe)
    key = (exe, st.st_mtime_ns, st.st_size)
    if key not in _CHECKED:
        proc = subprocess.run([exe, "version", "--format", "json"], capture_output=True, encoding="utf-8",
                              errors="backslashreplace")
        try:
            _CHECKED[key] = dict(json.loads(proc.stdout)) if proc.returncode == 0 else {}
        except ValueError:
            _CHECKED[key] = {}
    return _CHECKED[key]


def _checked(exe: str) -> str:
    v = _version(exe)
    got = v.get("schema_version")
    if got != SCHEMA_VERSION:
        what = f"ledger schema {got}" if got else "no ledger schema version (a release before 0.1.0)"
        raise IncompatibleBinary(
            f"{exe}: limbo-analyze {v.get('version', '(unknown version)')} speaks {what}; this limbo_toolkit "
            f"reads ledger schema {SCHEMA_VERSION}: install the limbo-toolkit wheel of the binary's release, "
            f"or point {ENV_VAR} at a matching binary")
    return exe


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
    # The CLI writes UTF-8, but labels are the data's: bytes that are not
    # UTF-8 come back as \xNN escapes rather than an exception.
    proc = subprocess.run(cmd, input=data, capture_output=True, encoding="utf-8", errors="backslashreplace",
                          cwd=cwd)
    if check and proc.returncode != 0:
        msg = _last_line(proc.stderr) or f"exit status {proc.returncode}"
        raise LimboError(msg, proc.returncode, proc.stderr, cmd)
    return proc
