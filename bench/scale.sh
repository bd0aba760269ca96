#!/usr/bin/env bash
# Scale measurements: runs the analysis commands over synthetic episode
# ledgers of growing size under /usr/bin/time -v and prints a Markdown table
# of wall time, CPU time (user+sys: on a loaded machine wall time mostly
# measures waiting), peak RSS and the 1-minute load average at the start.
#
# Usage: bench/scale.sh [WORKDIR]   (default /tmp/limbo-scale; needs ~2 GB free)
# Env:   SIZES="26k 1m 10m" (any of these), LA=path/to/limbo-analyze (default: built here)
#
# The ledgers are generated, not committed: `simulate --episodes` gives the
# paper's 25,930 episodes, and bench/gen replicates them (unique episode ids,
# tasks and pair keys) to 1M and 10M rows, plus a 1M-row ledger with four
# extra string columns.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-/tmp/limbo-scale}
sizes=${SIZES:-"26k 1m 10m"}
mkdir -p "$work"
if [[ -z "${LA:-}" ]]; then
	go build -o "$work/limbo-analyze" ./cmd/limbo-analyze
	LA="$work/limbo-analyze"
fi
go build -o "$work/gen" ./bench/gen

[[ -f "$work/26k.parquet" ]] || "$LA" simulate --out "$work/26k.jsonl" --episodes "$work/26k.parquet" 2>/dev/null
for s in $sizes; do
	case $s in
	1m) n=1000000 ;;
	10m) n=10000000 ;;
	*) continue ;;
	esac
	[[ -f "$work/$s.parquet" ]] || "$work/gen" --base "$work/26k.parquet" --rows "$n" --out "$work/$s.parquet"
done
[[ -f "$work/1mx.parquet" ]] || "$work/gen" --base "$work/26k.parquet" --rows 1000000 --extra 4 --out "$work/1mx.parquet"

# measure NAME FILE ARGS...: one row of the table.
measure() {
	local name=$1 file=$2
	shift 2
	local load t
	load=$(cut -d' ' -f1 /proc/loadavg)
	t=$(mktemp)
	if ! /usr/bin/time -v "$LA" "$@" --in "$file" >/dev/null 2>"$t"; then
		echo "| $name | $(basename "$file") | FAILED: $(grep -m1 limbo-analyze "$t") | | | $load |"
		rm -f "$t"
		return
	fi
	local wall cpu rss
	wall=$(awk -F': ' '/Elapsed/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; printf "%.2f", s}' "$t")
	cpu=$(awk -F': ' '/User time|System time/ {s+=$2} END {printf "%.2f", s}' "$t")
	rss=$(awk -F': ' '/Maximum resident/ {printf "%.0f", $2/1024}' "$t")
	echo "| $name | $(basename "$file") | $wall | $cpu | $rss | $load |"
	rm -f "$t"
}

f4="duplicated ~ contract + fault_mode + model + harness"
echo "| command | ledger | wall s | CPU s | peak RSS MiB | load |"
echo "|---|---|---:|---:|---:|---:|"
for s in $sizes; do
	f="$work/$s.parquet"
	measure rates "$f" rates --outcome duplicated --by contract,fault_mode
	measure paired "$f" paired --outcome duplicated --arm condition --base vanilla --pair-by pair_key,contract
	measure "shapley (4 factors)" "$f" shapley --formula "$f4"
	measure "model logit" "$f" model --family logit --formula "$f4"
	measure "model gee (task)" "$f" model --family gee --formula "eos ~ condition + contract" --group task
	measure tables "$f" tables
	measure hypotheses "$f" hypotheses
	measure report "$f" report --out "$work/report-$s"
done
measure "shapley (3 factors)" "$work/1mx.parquet" shapley --formula "duplicated ~ contract + fault_mode + model"
# JSONL: the raw ledger (graded on the way) and a graded 1M-row JSONL.
measure "rates (raw JSONL)" "$work/26k.jsonl" rates --outcome duplicated --by contract,fault_mode
[[ -f "$work/1m.jsonl" ]] || "$LA" export --in "$work/1m.parquet" --out "$work/1m.jsonl" 2>/dev/null
measure "rates (graded JSONL)" "$work/1m.jsonl" rates --outcome duplicated --by contract,fault_mode
