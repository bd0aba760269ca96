#!/usr/bin/env bash
# DuckDB beside limbo-analyze on the issue's two yardstick queries (rates
# with --where, paired with --where; paired twice on DuckDB's side: the
# plain pairing query, k-th with k-th by episode_id as limbo-analyze pairs,
# and the minimal count query, one join, valid when every pair key has one
# episode per condition) on the SAME Parquet ledger: each tool
# runs as a whole process under /usr/bin/time -v, RUNS times; the table
# prints the median wall seconds and peak RSS of each, the ratio
# limbo/DuckDB, and whether both found the same counts (rates: n and
# events per group; paired: pairs, b and c per comparison).
#
# Usage: bench/duckdb.sh LEDGER.parquet
#   e.g. a 10M-row ledger: go run ./bench/gen --base paper.parquet
#   --rows 10000000 --out 10m.parquet (paper.parquet from
#   limbo-analyze simulate --out p.jsonl --episodes paper.parquet).
# Needs Go, Node 20 and npm (@duckdb/node-api is installed into a
# temporary folder, as scripts/duckdb/check.sh does). Env: RUNS (default 5).
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 LEDGER.parquet" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
pq=$(realpath "$1")
RUNS=${RUNS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

(cd "$root" && go build -o "$tmp/limbo-analyze" ./cmd/limbo-analyze)
(cd "$tmp" && npm install --silent --no-audit --no-fund @duckdb/node-api >/dev/null)
cp "$root/bench/duckdb.mjs" "$tmp/duckdb.mjs"

declare -A limbo=(
	[rates]="rates --outcome duplicated --by contract,fault_mode --where fault_fired --format csv"
	[paired]="paired --outcome eos --arm condition --base guard --pair-by pair_key --where experiment==\"E2\"&&fault_fired --format csv"
	[paired_min]="paired --outcome eos --arm condition --base guard --pair-by pair_key --where experiment==\"E2\"&&fault_fired --format csv"
)

# once NAME CMD...: runs CMD once under /usr/bin/time, appending "wall
# rss_mib" to $tmp/NAME.runs and leaving its stdout in $tmp/NAME.out.
once() {
	local name=$1
	shift
	/usr/bin/time -v -o "$tmp/time" "$@" >"$tmp/$name.out"
	awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; w=s}
		/Maximum resident/ {r=$2/1024} END {printf "%.3f %.1f\n", w, r}' "$tmp/time" >>"$tmp/$name.runs"
}

# median NAME: "median_wall median_rss_mib" of $tmp/NAME.runs.
median() {
	local m=$(((RUNS + 1) / 2))
	echo "$(sort -n -k1,1 "$tmp/$1.runs" | sed -n "${m}p" | cut -d' ' -f1) $(sort -n -k2,2 "$tmp/$1.runs" | sed -n "${m}p" | cut -d' ' -f2)"
}

# same TASK: do both tools' outputs hold the same counts?
same() {
	case $1 in
	rates) tail -n +2 "$tmp/limbo.out" | awk -F, '{print $1 "\t" $2 "\t" $3 "\t" $4}' >"$tmp/a" ;;
	paired | paired_min) tail -n +2 "$tmp/limbo.out" | awk -F, '{print $2 "\t" $3 "\t" $4 "\t" $5}' >"$tmp/a" ;;
	esac
	if cmp -s "$tmp/a" "$tmp/duckdb.out"; then echo yes; else echo NO; fi
}

rows=$("$tmp/limbo-analyze" validate --summary --format json "$pq" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["rows"])' || echo "?")
echo "ledger: $pq ($rows rows); $RUNS alternating runs each, medians; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
printf '| query | limbo-analyze s | MiB | DuckDB s | MiB | ratio | same counts |\n|---|---:|---:|---:|---:|---:|---|\n'
for task in rates paired paired_min; do
	read -r -a args <<<"${limbo[$task]}"
	: >"$tmp/limbo.runs"
	: >"$tmp/duckdb.runs"
	# The two tools alternate, so that a change in the machine's load
	# falls on both.
	for _ in $(seq "$RUNS"); do
		once limbo "$tmp/limbo-analyze" "${args[@]}" --in "$pq"
		(cd "$tmp" && once duckdb node duckdb.mjs "$task" "$pq")
	done
	read -r lw lr < <(median limbo)
	read -r dw dr < <(median duckdb)
	ratio=$(awk -v a="$lw" -v b="$dw" 'BEGIN {printf "%.2f", a / b}')
	printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$task" "$lw" "$lr" "$dw" "$dr" "$ratio" "$(same "$task")"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
