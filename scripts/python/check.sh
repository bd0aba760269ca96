#!/usr/bin/env bash
# The Python package's checks: a virtual environment with the pinned test
# extras of python/pyproject.toml, the Go binary built from this checkout,
# and pytest over python/tests (readers and dtypes, analyze wrappers, the
# Inspect AI task under mockllm, the gate, the notebook under nbclient,
# PySpark in local mode; Spark needs Java 17).
#
# The environment lives under ${LIMBO_PY_CACHE:-$HOME/.cache/limbo-toolkit}
# keyed by the hash of pyproject.toml, so a second run reuses it (pip's own
# cache speeds a first one); the package itself is reinstalled every run.
# Needs Python >= 3.10 with venv and Go. --setup-only makes the environment
# and stops (CI runs it in the background, where its downloads overlap the
# Go checks); other arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/../.."
export GOTOOLCHAIN=${GOTOOLCHAIN:-$(awk '$1 == "toolchain" {print $2}' go.mod)}

python=${PYTHON:-python3}
cache=${LIMBO_PY_CACHE:-$HOME/.cache/limbo-toolkit}
key=$(sha256sum python/pyproject.toml | cut -c1-12)
venv="$cache/venv-$key"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A venv cannot be moved (its scripts name its path), so an interrupted
# set-up is recognized by the missing marker and started again.
if [ ! -f "$venv/.complete" ]; then
	echo "== python: new virtual environment $venv"
	rm -rf "$venv"
	"$python" -m venv "$venv"
	"$venv/bin/pip" install -q --upgrade pip
	"$venv/bin/pip" install -q "./python[test]"
	touch "$venv/.complete"
fi
if [ "${1:-}" = --setup-only ]; then
	exit 0
fi
echo "== python: pip install ./python[test]"
"$venv/bin/pip" install -q --force-reinstall --no-deps ./python
"$venv/bin/pip" install -q "./python[test]"

echo "== python: go build ./cmd/limbo-analyze"
go build -o "$tmp/limbo-analyze" ./cmd/limbo-analyze
export LIMBO_ANALYZE="$tmp/limbo-analyze"

echo "== python: pytest python/tests"
# -p no:cacheprovider: no .pytest_cache in the checkout.
set +e
(cd python && "$venv/bin/python" -m pytest -q -p no:cacheprovider -W ignore::DeprecationWarning tests "$@")
rc=$?
set -e
case $rc in
0) ;;
5) echo "python: pytest collected no tests" >&2; exit 1 ;;
*) echo "python: pytest failed (exit status $rc)" >&2; exit "$rc" ;;
esac
echo "== python: ok"
