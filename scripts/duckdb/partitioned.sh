#!/usr/bin/env bash
# Partitioned-export check: export the sample ledger as a Hive-style dataset
# (export --partition-by experiment,model) and read it back with DuckDB's
# Node.js package as one table (scripts/duckdb/partitioned.mjs). Needs Go,
# Node 20 and npm (the package is installed into a temporary folder).
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/limbo-analyze" ./cmd/limbo-analyze
la="$tmp/limbo-analyze"
(cd "$tmp" && npm install --silent --no-audit --no-fund @duckdb/node-api >/dev/null)
cp scripts/duckdb/partitioned.mjs "$tmp/partitioned.mjs"

in=testdata/ledger/sample.csv
"$la" export --in "$in" --out "$tmp/ds" --partition-by experiment,model 2>/dev/null
"$la" rates --in "$in" --outcome duplicated --by experiment,model --weight none --format json > "$tmp/rates.json"
(cd "$tmp" && node partitioned.mjs ds rates.json)
