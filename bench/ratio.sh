#!/usr/bin/env bash
# The one-command report beside the simulation it contains, as whole
# processes: `simulate --design paper --seed 1 --out X.jsonl --episodes
# X.parquet` and `report --out DIR` run alternately RUNS times under
# /usr/bin/time; prints each pair and the median wall seconds of each, and
# their ratio (issue 25's target: report/simulate ≤ 1.3 on two cores).
# Alternating keeps a shared machine's load alike for both commands.
#
# Usage: bench/ratio.sh [BINARY]   (default: built from this tree)
# Env: RUNS (default 9).
set -euo pipefail
[[ $# -le 1 ]] || { echo "usage: $0 [BINARY]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-9}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [[ $# -eq 1 ]]; then
	bin=$(realpath "$1")
else
	bin=$tmp/limbo-analyze
	(cd "$root" && go build -o "$bin" ./cmd/limbo-analyze)
fi

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$RUNS"); do
	/usr/bin/time -f "%e %U %S" -o "$tmp/s.$i" "$bin" simulate --design paper --seed 1 \
		--out "$tmp/x.jsonl" --episodes "$tmp/x.parquet" 2>/dev/null
	/usr/bin/time -f "%e %U %S" -o "$tmp/r.$i" "$bin" report --out "$tmp/rep" 2>/dev/null
	echo "pair $i: simulate $(cat "$tmp/s.$i") report $(cat "$tmp/r.$i") (wall user sys, s)"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
s=$(cat "$tmp"/s.* | awk '{print $1}' | median)
r=$(cat "$tmp"/r.* | awk '{print $1}' | median)
awk -v s="$s" -v r="$r" 'BEGIN {printf "median wall: simulate %.2f s, report %.2f s, ratio %.2f\n", s, r, r / s}'
