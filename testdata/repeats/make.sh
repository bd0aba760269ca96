#!/bin/sh
# Makes epochs.jsonl, a raw ledger of repeated runs for docs/ledger.md
# ("Repeated runs") and the repeats tests: the worlds of design.json run in
# four epochs, epoch e under run seed e, its episode ids suffixed
# /epoch-e from the second epoch on (the form Inspect's --epochs gives
# them), so that the runs of a world share its pair_key and arm.
# Run from the repository root:  sh testdata/repeats/make.sh
set -e
out=testdata/repeats/epochs.jsonl
tmp=$(mktemp)
for e in 1 2 3 4; do
	go run ./cmd/limbo-analyze simulate --design testdata/repeats/design.json --seed "$e" --out - |
		if [ "$e" = 1 ]; then cat; else sed "s|^{\"episode_id\":\"\([^\"]*\)\"|{\"episode_id\":\"\1/epoch-$e\"|"; fi
done >"$tmp"
mv "$tmp" "$out"
