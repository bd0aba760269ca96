"""The ``limbo-analyze`` command a platform wheel installs: the bundled
binary, run in place of this process."""

from __future__ import annotations

import os
import subprocess
import sys

from ._binary import NAME, bundled


def main() -> None:
    exe = bundled()
    if exe is None:
        sys.exit(f"{NAME}: this limbo-toolkit was installed without its binary (a pure wheel): "
                 "install a platform wheel, or build it with `go install ./cmd/limbo-analyze`")
    if sys.platform == "win32":  # no exec on Windows: wait and pass the status on
        sys.exit(subprocess.run([exe, *sys.argv[1:]]).returncode)
    os.execv(exe, [NAME, *sys.argv[1:]])
