#!/usr/bin/env bash
# Installs the real MCP servers the proxy's tests run against, pinned:
# @modelcontextprotocol/server-memory, server-filesystem and server-everything
# (the protocol's reference server: list changes, completion, logging,
# subscriptions, sampling, elicitation, roots) from npm
# (package-lock.json: npm ci) and mcp-server-sqlite from PyPI into a venv
# (requirements.txt: every dependency pinned; it starts only with mcp 1.x).
#
# They go under ${LIMBO_MCP_CACHE:-$HOME/.cache/limbo-toolkit/mcp}, in a
# directory keyed by the hash of the pins, so a second run reuses them.
# The script then writes the environment the tests read to the file named
# by its first argument (default: $cache/env.sh), for `source`:
#
#   LIMBO_MCP_MEMORY      the memory server's executable
#   LIMBO_MCP_FILESYSTEM  the filesystem server's executable
#   LIMBO_MCP_EVERYTHING  the everything server's executable
#   LIMBO_MCP_SQLITE      the SQLite server's executable
#
# Needs Node 20 with npm and Python >= 3.10 with venv. Nothing is fetched
# at test time: a test skips (locally) or fails (CI=true) without them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3}
cache=${LIMBO_MCP_CACHE:-$HOME/.cache/limbo-toolkit/mcp}
key=$(cat "$here/package.json" "$here/package-lock.json" "$here/requirements.txt" | sha256sum | cut -c1-12)
dir="$cache/servers-$key"
envfile=${1:-$cache/env.sh}

# An interrupted install is recognized by the missing marker and redone.
if [ ! -f "$dir/.complete" ]; then
	echo "== mcp servers: installing into $dir"
	rm -rf "$dir"
	mkdir -p "$dir/npm"
	cp "$here/package.json" "$here/package-lock.json" "$dir/npm/"
	(cd "$dir/npm" && npm ci --silent --no-audit --no-fund >/dev/null)
	"$python" -m venv "$dir/venv"
	"$dir/venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt"
	touch "$dir/.complete"
fi

mkdir -p "$(dirname "$envfile")"
cat >"$envfile" <<EOF
export LIMBO_MCP_MEMORY=$dir/npm/node_modules/.bin/mcp-server-memory
export LIMBO_MCP_FILESYSTEM=$dir/npm/node_modules/.bin/mcp-server-filesystem
export LIMBO_MCP_EVERYTHING=$dir/npm/node_modules/.bin/mcp-server-everything
export LIMBO_MCP_SQLITE=$dir/venv/bin/mcp-server-sqlite
EOF
for v in mcp-server-memory mcp-server-filesystem mcp-server-everything; do
	[ -x "$dir/npm/node_modules/.bin/$v" ] || { echo "mcp servers: $v missing after install" >&2; exit 1; }
done
[ -x "$dir/venv/bin/mcp-server-sqlite" ] || { echo "mcp servers: mcp-server-sqlite missing after install" >&2; exit 1; }
echo "== mcp servers: environment in $envfile"
