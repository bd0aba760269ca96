#!/usr/bin/env bash
# DuckDB interoperability check: export the sample ledger (and a copy with
# extra columns) to Parquet with limbo-analyze, then open each file with
# DuckDB's Node.js package and compare row counts, boolean sums and distinct
# string values with limbo-analyze's own summary. Needs Go, Node 20 and npm
# (the package is installed into a temporary folder).
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/limbo-analyze" ./cmd/limbo-analyze
la="$tmp/limbo-analyze"

# The sample, the sample with a user's extra columns, and the raw sample
# (graded on export, with its calls and effects beside it).
cp testdata/ledger/sample.csv "$tmp/sample.csv"
cp testdata/ledger/sample.jsonl "$tmp/raw.jsonl"
awk -F, 'NR==1 {print $0 ",site,batch"; next} {print $0 ",lab" (NR%3) ",\"b, " (NR%4) "\""}' testdata/ledger/sample.csv > "$tmp/extra.csv"

(cd "$tmp" && npm install --silent --no-audit --no-fund @duckdb/node-api >/dev/null)
cp scripts/duckdb/check.mjs "$tmp/check.mjs"

for name in sample extra raw; do
	in="$tmp/$name.csv"
	[ -f "$in" ] || in="$tmp/$name.jsonl"
	"$la" export --in "$in" --out "$tmp/$name.parquet"
	"$la" validate --summary --format json "$tmp/$name.parquet" > "$tmp/$name.summary.json"
	(cd "$tmp" && node check.mjs "$name.parquet" "$name.summary.json")
done
