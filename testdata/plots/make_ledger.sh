#!/bin/sh
# Regenerates testdata/plots/ledger.csv.gz, the small graded ledger the
# figure tests draw (run from the repository root). After a deliberate
# change, refresh the SVG goldens: go test ./plots -update
set -e
tmp=$(mktemp -d)
go run ./cmd/limbo-analyze simulate --design testdata/plots/design.json --seed 3 \
	--out "$tmp/raw.jsonl" --episodes "$tmp/ledger.csv" --jobs 1
gzip -9 -n -c "$tmp/ledger.csv" > testdata/plots/ledger.csv.gz
rm -r "$tmp"
