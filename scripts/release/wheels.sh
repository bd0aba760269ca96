#!/usr/bin/env bash
# Release artefacts of the Python package: one platform wheel per target,
# each carrying the static limbo-analyze built from this checkout, the
# sdist (the package and the Go source, built with Go where it is
# installed) and SHA256SUMS of them, in OUT (default dist/).
#
#   scripts/release/wheels.sh [OUT [GOOS/GOARCH...]]    # default: every platform
#   scripts/release/wheels.sh dist linux/amd64          # one wheel and the sdist
#
# Reproducible: the binaries are built with CGO_ENABLED=0, -trimpath, an
# empty build id and no VCS stamp by the toolchain go.mod pins; archive
# entries are sorted, with modes 0644/0755 and the time SOURCE_DATE_EPOCH
# (default: the commit's time), so two runs on one commit give the same
# bytes. The package and the binary carry one version, pyproject.toml's.
set -euo pipefail
cd "$(dirname "$0")/../.."
export GOTOOLCHAIN=${GOTOOLCHAIN:-$(awk '$1 == "toolchain" {print $2}' go.mod)}
out=${1:-dist}
shift || true
[ $# -gt 0 ] || set -- all
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || echo 315532800)
fi
export SOURCE_DATE_EPOCH
python=${PYTHON:-python3}
mkdir -p "$out"
"$python" python/_build/limbo_build.py "$out" "$@"
(cd "$out" && sha256sum -- *.whl *.tar.gz | LC_ALL=C sort -k2 >SHA256SUMS)
cat "$out/SHA256SUMS"
ls -l "$out"
