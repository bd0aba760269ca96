#!/usr/bin/env bash
# Side-by-side timing: limbo-analyze against statsmodels (bench/compare.py,
# Debian /usr/bin/python3 with python3-statsmodels) and R glm/geepack/lme4
# (bench/compare.R) on the SAME exported ledger. Each tool reads the file and
# fits the same model; the table prints seconds (wall, reading included),
# the ratio other/limbo-analyze on the identical CSV, and a check value per
# tool (log-likelihood, McFadden R² of the full model, GEE intercept, group
# count) so equal work can be verified at a glance.
#
# Usage: bench/compare.sh [LEDGER.parquet]
#   default: the paper design simulated with seed 1 (25,930 episodes).
#   A bigger ledger (e.g. from bench/gen) makes the ratios less dominated by
#   start-up; R's glmer and statsmodels' GEE get slow beyond ~1M rows.
# Env: PY (default /usr/bin/python3), RSCRIPT (default Rscript), RUNS (limbo
#   repetitions, best taken; default 3), LIMIT (seconds per statsmodels or R
#   task before it is reported as ">LIMIT"; default 300).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PY=${PY:-/usr/bin/python3}
RSCRIPT=${RSCRIPT:-Rscript}
RUNS=${RUNS:-3}
LIMIT=${LIMIT:-300}

(cd "$root" && go build -o "$tmp/limbo-analyze" ./cmd/limbo-analyze)
la="$tmp/limbo-analyze"
if [[ $# -ge 1 ]]; then
	pq=$1
else
	pq="$tmp/ledger.parquet"
	"$la" simulate --out "$tmp/ledger.jsonl" --episodes "$pq" 2>/dev/null
fi
csv="$tmp/ledger.csv"
"$la" export --in "$pq" --out "$csv" 2>/dev/null
rows=$(($(wc -l <"$csv") - 1))

declare -A args=(
	[rates]="rates --outcome duplicated --by contract,fault_mode"
	[logit]="model --family logit --formula eos~contract+condition+model+harness"
	[shapley]="shapley --formula eos~contract+condition+model+harness"
	[gee]="model --family gee --formula eos~condition+contract --group task"
	[glmm]="model --family glmm --formula eos~contract+(1|model)"
)
# check TASK: the value compare.py / compare.R print for the same task.
check() {
	python3 -c '
import json, sys
t, d = sys.argv[1], json.load(sys.stdin)
if t == "rates": print(len(d["rows"]))
elif t == "shapley": print("%.6f" % d["total"])
elif t == "gee": print("%.6f" % d["coefficients"][0]["estimate"])
else: print("%.4f" % d["loglik"])' "$1"
}
# best TASK FILE: best-of-RUNS seconds of limbo-analyze on FILE.
best() {
	local b="" t0 t1 s
	for _ in $(seq "$RUNS"); do
		t0=$(date +%s.%N)
		# shellcheck disable=SC2086
		"$la" ${args[$1]} --in "$2" --format json >"$tmp/$1.json" 2>/dev/null
		t1=$(date +%s.%N)
		s=$(echo "$t1 - $t0" | bc -l)
		if [[ -z $b ]] || (($(echo "$s < $b" | bc -l))); then b=$s; fi
	done
	printf "%.3f" "$b"
}

declare -A lcsv lpq lchk
for t in rates logit shapley gee glmm; do
	lcsv[$t]=$(best "$t" "$csv")
	lchk[$t]=$(check "$t" <"$tmp/$t.json")
	lpq[$t]=$(best "$t" "$pq")
done
# Each other tool's task runs in its own process under a time limit, so one
# slow fit (geepack's exchangeable GEE is cubic in the cluster size) does not
# stall the table; a timed-out task shows as ">LIMIT".
declare -A ot oc
other() { # TOOL TASK CMD...
	local tool=$1 task=$2 line
	shift 2
	if line=$(timeout "$LIMIT" "$@" "$csv" "$task" 2>"$tmp/$tool.$task.err"); then
		read -r _ _ secs val <<<"$line"
		ot[$tool.$task]=$secs
		oc[$tool.$task]=$val
	elif [[ $? -eq 124 ]]; then
		ot[$tool.$task]=">$LIMIT"
	else
		echo "$tool $task failed: $(tail -1 "$tmp/$tool.$task.err")" >&2
	fi
}
for t in rates logit shapley gee; do other python "$t" "$PY" "$root/bench/compare.py"; done
for t in rates logit shapley gee glmm; do other R "$t" "$RSCRIPT" "$root/bench/compare.R"; done

ratio() {
	case ${1:-} in
	"") echo "–" ;;
	">"*) printf ">%.0f×" "$(echo "${1#>} / $2" | bc -l)" ;;
	*) printf "%.1f×" "$(echo "$1 / $2" | bc -l)" ;;
	esac
}
echo "**limbo-analyze vs statsmodels and R on $rows rows ($(date -u +%F), load $(cut -d' ' -f1 /proc/loadavg), $(nproc) CPUs)**"
echo
echo "| task | limbo CSV s | limbo Parquet s | statsmodels s | R s | statsmodels/limbo | R/limbo | check: limbo / statsmodels / R |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
for t in rates logit shapley gee glmm; do
	printf "| %s | %s | %s | %s | %s | %s | %s | %s / %s / %s |\n" "$t" "${lcsv[$t]}" "${lpq[$t]}" \
		"${ot[python.$t]:-–}" "${ot[R.$t]:-–}" "$(ratio "${ot[python.$t]:-}" "${lcsv[$t]}")" "$(ratio "${ot[R.$t]:-}" "${lcsv[$t]}")" \
		"${lchk[$t]}" "${oc[python.$t]:-–}" "${oc[R.$t]:-–}"
done
echo
echo "Tools: statsmodels $("$PY" -c 'import statsmodels; print(statsmodels.__version__)'), $("$RSCRIPT" -e 'cat(R.version.string, "lme4", format(packageVersion("lme4")), "geepack", format(packageVersion("geepack")))' 2>/dev/null)."
echo "Ratios compare each tool with limbo-analyze on the same CSV; seconds include reading the file. statsmodels has no Laplace GLMM (only variational Bayes), so glmm is R only."
