"""The package's PEP 517 build backend (standard library only).

A wheel carries the static ``limbo-analyze`` binary for one platform
(``limbo_toolkit/_bin/``), so ``pip install`` is all a user needs. The
binary is, in order:

- the file ``LIMBO_WHEEL_BINARY`` names, for the platform ``LIMBO_WHEEL_TARGET``
  names as GOOS/GOARCH (what ``scripts/release/wheels.sh`` does for each
  platform);
- built here with Go (the repository's checkout, or the Go source the sdist
  carries under ``go/``), for ``LIMBO_WHEEL_TARGET`` or this machine;
- none, when Go is absent or ``LIMBO_WHEEL_BINARY=none``: a pure wheel that
  looks for ``limbo-analyze`` on PATH.

Wheels and sdists are reproducible: entries sorted, every timestamp
``SOURCE_DATE_EPOCH`` (1980-01-01 when unset), modes 0644 (0755 for the
binary), and the binary built with ``-trimpath``, an empty build id and no
VCS stamp, so two builds of one commit give the same bytes.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]  # python/ (or the unpacked sdist)
NAME = "limbo_toolkit"
DIST = "limbo_toolkit"

#: GOOS/GOARCH → wheel platform tag. A static Go binary needs no C
#: library, so one Linux wheel serves glibc (manylinux) and musl systems;
#: Go 1.25 and later need macOS 12.
PLATFORMS = {
    "linux/amd64": "manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64",
    "linux/arm64": "manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64",
    "darwin/amd64": "macosx_12_0_x86_64",
    "darwin/arm64": "macosx_12_0_arm64",
    "windows/amd64": "win_amd64",
}


def _pyproject() -> dict[str, Any]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: get_requires_for_build_* asked for tomli
        import tomli as tomllib  # type: ignore[no-redef]
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def _epoch() -> int:
    # Zip times start in 1980; a wheel's entries all carry this one.
    return max(int(os.environ.get("SOURCE_DATE_EPOCH", "315532800")), 315532800)


# --- metadata -------------------------------------------------------------

def _metadata() -> str:
    p = _pyproject()["project"]
    lines = ["Metadata-Version: 2.4", f"Name: {p['name']}", f"Version: {p['version']}",
             f"Summary: {p['description']}", f"License-Expression: {p['license']}", "License-File: LICENSE",
             f"Requires-Python: {p['requires-python']}"]
    for u, url in sorted(p.get("urls", {}).items()):
        lines.append(f"Project-URL: {u}, {url}")
    lines += [f"Requires-Dist: {d}" for d in p.get("dependencies", [])]
    for extra, deps in p.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f"Requires-Dist: {d}; extra == \"{extra}\"" if ";" not in d
                  else f"Requires-Dist: {d} and extra == \"{extra}\"" for d in deps]
    lines.append("Description-Content-Type: text/markdown")
    readme = (ROOT / p["readme"]).read_text(encoding="utf-8")
    return "\n".join(lines) + "\n\n" + readme


def _entry_points(binary: bool) -> str:
    p = _pyproject()["project"]
    out = []
    scripts = dict(p.get("scripts", {}))
    if binary:  # the bundled executable on PATH (a pure wheel would find itself)
        scripts["limbo-analyze"] = "limbo_toolkit._cli:main"
    if scripts:
        out.append("[console_scripts]")
        out += [f"{k} = {v}" for k, v in sorted(scripts.items())]
        out.append("")
    for group, eps in sorted(p.get("entry-points", {}).items()):
        out.append(f"[{group}]")
        out += [f"{k} = {v}" for k, v in sorted(eps.items())]
        out.append("")
    return "\n".join(out)


def _license() -> bytes:
    for cand in (ROOT / "LICENSE", ROOT.parent / "LICENSE"):
        if cand.is_file():
            return cand.read_bytes()
    raise FileNotFoundError("LICENSE: neither in python/ (an sdist) nor in the repository root")


# --- the binary -----------------------------------------------------------

def _go_source() -> Path | None:
    """The Go module to build from: the sdist's go/ or the repository."""
    for cand in (ROOT / "go", ROOT.parent):
        mod = cand / "go.mod"
        if mod.is_file() and "module github.com/limbo-toolkit/limbo" in mod.read_text():
            return cand
    return None


def _host_target() -> str:
    import platform

    m = platform.machine().lower()
    arch = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(m, m)
    goos = {"linux": "linux", "darwin": "darwin", "win32": "windows"}.get(sys.platform, sys.platform)
    return f"{goos}/{arch}"


def go_build(src: Path, target: str, version: str, out: Path) -> None:
    """Build limbo-analyze for target (GOOS/GOARCH) reproducibly: static
    (CGO_ENABLED=0), paths trimmed, no build id, no VCS stamp, symbols
    stripped, the baseline instruction set of the architecture."""
    goos, goarch = target.split("/")
    env = {**os.environ, "CGO_ENABLED": "0", "GOOS": goos, "GOARCH": goarch, "GOAMD64": "v1", "GOARM64": "v8.0",
           "GOFLAGS": "-mod=readonly"}
    ldflags = f"-s -w -buildid= -X main.version={version}"
    subprocess.run(["go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", str(out),
                    "./cmd/limbo-analyze"], cwd=src, env=env, check=True)


def _binary(tmp: Path, version: str) -> tuple[Path | None, str | None]:
    """The binary to bundle and its GOOS/GOARCH, or (None, None)."""
    given = os.environ.get("LIMBO_WHEEL_BINARY", "")
    target = os.environ.get("LIMBO_WHEEL_TARGET", "")
    if given == "none":
        return None, None
    if given:
        if target not in PLATFORMS:
            raise ValueError(f"LIMBO_WHEEL_TARGET={target!r}: want one of {', '.join(PLATFORMS)}")
        return Path(given), target
    target = target or _host_target()
    src = _go_source()
    if src is None or shutil.which("go") is None or target not in PLATFORMS:
        why = ("no Go source" if src is None else "go is not on PATH" if shutil.which("go") is None
               else f"no wheel platform for {target}")
        print(f"limbo_build: {why}: building a wheel without limbo-analyze (it is then looked for on PATH)",
              file=sys.stderr)
        return None, None
    exe = tmp / ("limbo-analyze.exe" if target.startswith("windows/") else "limbo-analyze")
    go_build(src, target, version, exe)
    return exe, target


# --- archives -------------------------------------------------------------

def _package_files() -> list[tuple[str, Path]]:
    pkg = ROOT / "src" / NAME
    out = []
    for f in sorted(pkg.rglob("*")):
        if f.is_file() and "__pycache__" not in f.parts and f.suffix in (".py", ".json", ".typed"):
            out.append((f.relative_to(ROOT / "src").as_posix(), f))
    return out


class _Zip:
    """A zip written in a fixed order with fixed times and modes."""

    def __init__(self, path: Path):
        self.zf = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED)
        self.when = time.gmtime(_epoch())[:6]
        self.record: list[str] = []

    def add(self, name: str, data: bytes, mode: int = 0o644) -> None:
        info = zipfile.ZipInfo(name, date_time=self.when)
        info.external_attr = (0o100000 | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        info.create_system = 3  # Unix, so that the modes are read
        self.zf.writestr(info, data, compresslevel=9)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.record.append(f"{name},sha256={digest},{len(data)}")

    def close(self, record: str) -> None:
        data = ("\n".join(self.record + [f"{record},,"]) + "\n").encode()
        self.add(record, data)
        self.zf.close()


def _wheel(wheel_directory: str, binary: Path | None, target: str | None) -> str:
    version = _pyproject()["project"]["version"]
    tag = f"py3-none-{PLATFORMS[target]}" if target else "py3-none-any"
    name = f"{DIST}-{version}-{tag}.whl"
    info = f"{DIST}-{version}.dist-info"
    path = Path(wheel_directory) / name
    z = _Zip(path)
    files = [(n, f.read_bytes(), 0o644) for n, f in _package_files()]
    if binary is not None:
        exe = "limbo-analyze.exe" if target and target.startswith("windows/") else "limbo-analyze"
        files.append((f"{NAME}/_bin/{exe}", binary.read_bytes(), 0o755))
    for n, data, mode in sorted(files):
        z.add(n, data, mode)
    z.add(f"{info}/METADATA", _metadata().encode())
    wheel = ["Wheel-Version: 1.0", "Generator: limbo_build", f"Root-Is-Purelib: {'false' if binary else 'true'}"]
    wheel += [f"Tag: py3-none-{t}" for t in (PLATFORMS[target].split(".") if target else ["any"])]
    z.add(f"{info}/WHEEL", ("\n".join(wheel) + "\n").encode())
    eps = _entry_points(binary is not None)
    if eps:
        z.add(f"{info}/entry_points.txt", eps.encode())
    z.add(f"{info}/licenses/LICENSE", _license())
    z.add(f"{info}/top_level.txt", f"{NAME}\n".encode())
    z.close(f"{info}/RECORD")
    return name


# --- PEP 517 hooks --------------------------------------------------------

def get_requires_for_build_wheel(config_settings: Any = None) -> list[str]:
    return ["tomli>=1.1"] if sys.version_info < (3, 11) else []


get_requires_for_build_sdist = get_requires_for_build_wheel
get_requires_for_build_editable = get_requires_for_build_wheel


def build_wheel(wheel_directory: str, config_settings: Any = None, metadata_directory: Any = None) -> str:
    with tempfile.TemporaryDirectory(prefix="limbo-wheel-") as tmp:
        binary, target = _binary(Path(tmp), _pyproject()["project"]["version"])
        return _wheel(wheel_directory, binary, target)


def build_editable(wheel_directory: str, config_settings: Any = None, metadata_directory: Any = None) -> str:
    """An editable install: a .pth file naming src/ (no binary: it is
    found through LIMBO_ANALYZE or PATH, as in a checkout)."""
    version = _pyproject()["project"]["version"]
    info = f"{DIST}-{version}.dist-info"
    name = f"{DIST}-{version}-py3-none-any.whl"
    z = _Zip(Path(wheel_directory) / name)
    z.add(f"__editable__.{DIST}.pth", (str(ROOT / "src") + "\n").encode())
    z.add(f"{info}/METADATA", _metadata().encode())
    z.add(f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: limbo_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.add(f"{info}/entry_points.txt", _entry_points(False).encode())
    z.close(f"{info}/RECORD")
    return name


def _go_files(src: Path) -> list[str]:
    """The module files limbo-analyze is built from: go.mod, go.sum and the
    non-test Go files and embedded files of its packages."""
    out = subprocess.run(["go", "list", "-deps", "-f",
                          "{{if .Module}}{{if .Module.Main}}{{.Dir}}|{{join .GoFiles \",\"}}|"
                          "{{join .EmbedFiles \",\"}}{{end}}{{end}}", "./cmd/limbo-analyze"],
                         cwd=src, capture_output=True, text=True, check=True,
                         env={**os.environ, "CGO_ENABLED": "0"}).stdout
    files = {"go.mod", "go.sum", "LICENSE"}
    for line in out.splitlines():
        if not line:
            continue
        d, gofiles, embeds = line.split("|")
        rel = Path(d).relative_to(src)
        for f in filter(None, gofiles.split(",") + embeds.split(",")):
            files.add((rel / f).as_posix())
    # Files of other platforms' builds (build tags) are kept: the sdist
    # builds on any platform.
    for line in out.splitlines():
        if line:
            rel = Path(line.split("|")[0]).relative_to(src)
            for f in (src / rel).glob("*.go"):
                if not f.name.endswith("_test.go"):
                    files.add((rel / f.name).as_posix())
    return sorted(files)


def build_sdist(sdist_directory: str, config_settings: Any = None) -> str:
    """The Python package and the Go source of limbo-analyze (under go/),
    so that a machine with Go builds the binary into its wheel."""
    version = _pyproject()["project"]["version"]
    base = f"{DIST}-{version}"
    name = f"{base}.tar.gz"
    src = _go_source()
    if src is None:
        raise FileNotFoundError("building an sdist needs the repository (go.mod of github.com/limbo-toolkit/limbo)")
    entries: list[tuple[str, bytes, int]] = []
    for rel in ("pyproject.toml", "README.md", "_build/limbo_build.py"):
        entries.append((rel, (ROOT / rel).read_bytes(), 0o644))
    entries += [(f"src/{n}", f.read_bytes(), 0o644) for n, f in _package_files()]
    entries.append(("LICENSE", _license(), 0o644))
    entries += [(f"go/{rel}", (src / rel).read_bytes(), 0o644) for rel in _go_files(src)]
    entries.append(("PKG-INFO", _metadata().encode(), 0o644))
    when = _epoch()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel, data, mode in sorted(entries):
            ti = tarfile.TarInfo(f"{base}/{rel}")
            ti.size, ti.mode, ti.mtime = len(data), mode, when
            ti.uid = ti.gid = 0
            ti.uname = ti.gname = ""
            tar.addfile(ti, io.BytesIO(data))
    import gzip

    with open(Path(sdist_directory) / name, "wb") as f, gzip.GzipFile(filename="", mode="wb", fileobj=f,
                                                                     mtime=when, compresslevel=9) as gz:
        gz.write(buf.getvalue())
    return name


def main(argv: list[str]) -> int:
    """``python limbo_build.py OUT TARGET...``: for each GOOS/GOARCH target
    (``all`` for every platform), build the binary and its wheel into OUT,
    then the sdist (scripts/release/wheels.sh)."""
    if len(argv) < 2:
        print("usage: limbo_build.py OUT TARGET... (GOOS/GOARCH, or all)", file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    targets = list(PLATFORMS) if argv[1:] == ["all"] else argv[1:]
    for t in targets:
        if t not in PLATFORMS:
            print(f"limbo_build.py: {t}: want one of {', '.join(PLATFORMS)} or all", file=sys.stderr)
            return 2
    src = _go_source()
    if src is None:
        print("limbo_build.py: no Go source (run it from the repository)", file=sys.stderr)
        return 1
    version = _pyproject()["project"]["version"]
    with tempfile.TemporaryDirectory(prefix="limbo-release-") as tmp:
        for t in targets:
            exe = Path(tmp) / t.replace("/", "-") / ("limbo-analyze.exe" if t.startswith("windows/") else "limbo-analyze")
            go_build(src, t, version, exe)
            print(_wheel(str(out), exe, t))
    print(build_sdist(str(out)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
