#!/usr/bin/env bash
# The Python package's checks:
#
# 1. the linux/amd64 wheel and the sdist, built twice by
#    scripts/release/wheels.sh: the two builds must be byte-identical, and
#    a wheel built from the sdist (with Go) must carry the same binary;
# 2. the wheel installed with `pip install --no-index` (its dependencies
#    from a local wheelhouse) into a fresh virtual environment, run on a
#    PATH without Go: `limbo-analyze version`, then a first Inspect eval of
#    20 episodes with a scripted model, read_episodes and analyze.rates
#    (scripts/python/inspect_smoke.py), timed from the venv's creation;
# 3. pytest over python/tests in the test environment (the pinned test
#    extras of python/pyproject.toml, the wheel installed): readers and
#    dtypes, the analyze wrappers, the Inspect task under mockllm, the
#    gate, the notebook under nbclient, PySpark in local mode (Java 17);
# 4. the Inspect task at the lowest inspect_ai the package declares, in a
#    second small environment.
#
# The environments and the wheelhouse live under
# ${LIMBO_PY_CACHE:-$HOME/.cache/limbo-toolkit} keyed by the hash of
# pyproject.toml, so a second run reuses them. Needs Python >= 3.10 with
# venv, and Go. --setup-only makes the environments and stops (CI runs it
# in the background, where its downloads overlap the Go checks); other
# arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/../.."
export GOTOOLCHAIN=${GOTOOLCHAIN:-$(awk '$1 == "toolchain" {print $2}' go.mod)}

python=${PYTHON:-python3}
cache=${LIMBO_PY_CACHE:-$HOME/.cache/limbo-toolkit}
key=$(sha256sum python/pyproject.toml | cut -c1-12)
venv="$cache/venv-$key"
wheelhouse="$cache/wheelhouse-$key"
lowvenv="$cache/venv-low-$key"
# The lowest inspect_ai (and mcp) the package declares, as pyproject.toml says.
low_inspect=$(sed -n 's/.*"inspect_ai>=\([0-9.]*\)".*/\1/p' python/pyproject.toml)
low_mcp=$(sed -n 's/.*"mcp>=\([0-9.]*\)".*/\1/p' python/pyproject.toml)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A venv cannot be moved (its scripts name its path), so an interrupted
# set-up is recognized by the missing marker and started again.
if [ ! -f "$venv/.complete" ]; then
	echo "== python: new virtual environment $venv"
	rm -rf "$venv"
	"$python" -m venv "$venv"
	"$venv/bin/pip" install -q --upgrade pip
	# The test extras only: the package itself is the wheel built below.
	"$venv/bin/pip" install -q $(sed -n '/^test = \[/,/^\]/p' python/pyproject.toml | grep -o '"[^"]*"' | tr -d '"')
	touch "$venv/.complete"
fi
if [ ! -f "$wheelhouse/.complete" ]; then
	echo "== python: wheelhouse of the runtime dependencies $wheelhouse"
	rm -rf "$wheelhouse"
	"$venv/bin/pip" download -q -d "$wheelhouse" "pandas==3.1.1" "pyarrow==26.0.1" "inspect_ai==0.3.285" "mcp==2.3.0"
	touch "$wheelhouse/.complete"
fi
if [ ! -f "$lowvenv/.complete" ]; then
	echo "== python: environment at the lower bounds (inspect_ai $low_inspect, mcp $low_mcp) $lowvenv"
	rm -rf "$lowvenv"
	"$python" -m venv "$lowvenv"
	"$lowvenv/bin/pip" install -q "pandas==3.1.1" "pyarrow==26.0.1" "pytest==9.2.0" \
		"inspect_ai==$low_inspect" "mcp==$low_mcp"
	touch "$lowvenv/.complete"
fi
if [ "${1:-}" = --setup-only ]; then
	exit 0
fi

echo "== python: the linux/amd64 wheel and the sdist, twice (scripts/release/wheels.sh)"
start=$(date +%s)
scripts/release/wheels.sh "$tmp/dist" linux/amd64 >"$tmp/wheels.log"
echo "   first build: $(($(date +%s) - start)) s"
scripts/release/wheels.sh "$tmp/dist2" linux/amd64 >/dev/null
if ! cmp -s "$tmp/dist/SHA256SUMS" "$tmp/dist2/SHA256SUMS"; then
	diff "$tmp/dist/SHA256SUMS" "$tmp/dist2/SHA256SUMS" >&2 || true
	echo "python: two builds of one commit differ" >&2
	exit 1
fi
wheel=$(ls "$tmp"/dist/limbo_toolkit-*-manylinux*x86_64*.whl)
size=$(stat -c %s "$wheel")
echo "   reproducible; $(basename "$wheel"): $((size / 1024 / 1024)) MB"
if [ "$size" -ge $((25 * 1024 * 1024)) ]; then
	echo "python: the wheel is $size bytes, over 25 MB" >&2
	exit 1
fi

echo "== python: a wheel built from the sdist with Go carries the same binary"
"$venv/bin/pip" wheel -q --no-deps -w "$tmp/from-sdist" "$tmp"/dist/limbo_toolkit-*.tar.gz
"$venv/bin/python" - "$wheel" "$tmp"/from-sdist/limbo_toolkit-*.whl <<'EOF'
import sys, zipfile
a, b = (zipfile.ZipFile(p).read("limbo_toolkit/_bin/limbo-analyze") for p in sys.argv[1:3])
sys.exit(0 if a == b else "python: the sdist's build of limbo-analyze differs from the release wheel's")
EOF

echo "== python: the wheel in a fresh venv, no Go on PATH: version, a first inspect eval of 20 episodes"
nogo=/usr/local/bin:/usr/bin:/bin
if PATH=$nogo command -v go >/dev/null; then
	nogo=/usr/bin:/bin
fi
start=$(date +%s%N)
fresh="$tmp/fresh"
"$python" -m venv "$fresh"
env -i HOME="$HOME" PATH="$fresh/bin:$nogo" pip install -q --no-index --find-links "$wheelhouse" "$wheel[inspect]"
env -i HOME="$HOME" PATH="$fresh/bin:$nogo" limbo-analyze version
mkdir "$tmp/smoke"
(cd "$tmp/smoke" && env -i HOME="$HOME" PATH="$fresh/bin:$nogo" python "$OLDPWD/scripts/python/inspect_smoke.py" "$tmp/smoke" 20)
echo "   fresh venv + pip install + first eval: $((($(date +%s%N) - start) / 1000000)) ms"

echo "== python: pytest python/tests"
"$venv/bin/pip" install -q --force-reinstall --no-deps "$wheel"
mkdir "$tmp/bin"
"$venv/bin/python" - "$wheel" "$tmp/bin/limbo-analyze" <<'EOF'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[2], "wb") as f:
    f.write(z.read("limbo_toolkit/_bin/limbo-analyze"))
os.chmod(sys.argv[2], 0o755)
EOF
export LIMBO_ANALYZE="$tmp/bin/limbo-analyze"
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

echo "== python: the Inspect task at inspect_ai $low_inspect, mcp $low_mcp"
"$lowvenv/bin/pip" install -q --force-reinstall --no-deps "$wheel"
set +e
(cd python && "$lowvenv/bin/python" -m pytest -q -p no:cacheprovider -W ignore::DeprecationWarning \
	tests/test_inspect.py -k "every_session or message_limit or epochs or own_solver")
rc=$?
set -e
if [ $rc -ne 0 ]; then
	echo "python: the Inspect task fails at inspect_ai $low_inspect (exit status $rc)" >&2
	exit 1
fi
echo "== python: ok"
