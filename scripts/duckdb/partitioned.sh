#!/usr/bin/env bash
# Partitioned-export check: export the sample's raw ledger as a Hive-style
# dataset (export --partition-by experiment,model,instance) and read it back
# with DuckDB's Node.js package, and with polars' when its native package
# installs on this platform, as one table with the readers' default type
# inference (scripts/duckdb/partitioned.mjs): partition values come back as
# written, with the stored columns' types, and the calls and effects are all
# there. Also checks that keys that would not round-trip are refused, and
# that limbo-analyze reads the dataset, and one DuckDB writes (COPY …
# PARTITION_BY, partition columns only in the paths), as it reads the
# source. Needs Go,
# Node 20 and npm (packages go into a temporary folder).
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/limbo-analyze" ./cmd/limbo-analyze
la="$tmp/limbo-analyze"
(cd "$tmp" && npm install --silent --no-audit --no-fund @duckdb/node-api >/dev/null)
# nodejs-polars ships its engine as a per-platform package.
plat="$(node -p 'process.platform + "-" + process.arch')"
if [ "$plat" = linux-x64 ]; then
  (cd "$tmp" && npm install --silent --no-audit --no-fund nodejs-polars nodejs-polars-linux-x64-gnu >/dev/null 2>&1) ||
    echo "polars: could not install nodejs-polars; checking DuckDB only" >&2
fi
cp scripts/duckdb/partitioned.mjs "$tmp/partitioned.mjs"

raw=testdata/ledger/sample.jsonl
"$la" export --in "$raw" --out "$tmp/ds" --partition-by experiment,model,instance 2>/dev/null
"$la" export --in "$raw" --out "$tmp/flat.parquet" 2>/dev/null
"$la" rates --in "$raw" --outcome duplicated --by experiment,model --weight none --format json > "$tmp/rates.json"
"$la" rates --in "$tmp/ds" --outcome duplicated --by experiment,model --weight none --format json > "$tmp/rates-ds.json"
cmp -s "$tmp/rates.json" "$tmp/rates-ds.json" || { echo "limbo-analyze reads the dataset differently from its source" >&2; exit 1; }

# Keys whose values would not read back as written are refused, leaving nothing.
for by in fault_fired platform delay_s; do
  if "$la" export --in "$raw" --out "$tmp/bad-$by" --partition-by "$by" 2>"$tmp/err"; then
    echo "export --partition-by $by should fail" >&2; exit 1
  fi
  [ ! -e "$tmp/bad-$by" ] || { echo "export --partition-by $by left $tmp/bad-$by" >&2; exit 1; }
done

(cd "$tmp" && node partitioned.mjs ds flat.parquet rates.json)

# DuckDB's own partitioned dataset (columns restored from the paths) reads as the source does.
"$la" rates --in "$tmp/ds-duckdb" --outcome duplicated --by experiment,model --weight none --format json > "$tmp/rates-duckdb.json"
cmp -s "$tmp/rates.json" "$tmp/rates-duckdb.json" || { echo "limbo-analyze reads DuckDB's partitioned dataset differently from the source" >&2; exit 1; }
echo "limbo-analyze reads its own and DuckDB's partitioned datasets as the source"
