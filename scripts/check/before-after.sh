#!/usr/bin/env bash
# Differential check of two limbo-analyze binaries (say, before and after a
# rewrite of the analysis engine): run both on many ledger shapes and
# commands and diff everything they write (stdout, stderr, exit status,
# files under --out), ignoring only the toolkit/Go version lines.
#
#   scripts/check/before-after.sh OLD_BINARY NEW_BINARY [WORKDIR]
#
# Inputs are made from testdata/ with NEW_BINARY (simulate, export). Parquet
# files missing a column are made with DuckDB's Node.js package when
# DUCKDB_NODE_MODULES names a node_modules folder holding @duckdb/node-api;
# without it those cases are skipped. Exit status 0 when the outputs agree,
# 1 when some differ (the diff is printed), 2 on a usage error.
set -uo pipefail
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 OLD_BINARY NEW_BINARY [WORKDIR]" >&2
	exit 2
fi
old=$(realpath "$1") new=$(realpath "$2")
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${3:-$(mktemp -d)}
mkdir -p "$work/in" "$work/old" "$work/new"
in="$work/in"
cd "$in" || exit 2

# --- inputs ---------------------------------------------------------------
cp "$root/testdata/ledger/sample.csv" s.csv
cp "$root/testdata/cli/episodes.csv" x.csv # extra user columns: difficulty, team, w_alt
"$new" simulate --design "$root/analysis/prereg/testdata/design.json" --out h.jsonl --episodes h.parquet --jobs 2 2>/dev/null
"$new" simulate --design "$root/analysis/prereg/testdata/study-design.json" --out sim.jsonl --episodes sim.parquet --jobs 2 2>/dev/null
"$new" export --in s.csv --out s.parquet 2>/dev/null
"$new" export --in s.csv --out s.graded.jsonl 2>/dev/null
"$new" export --in x.csv --out x.parquet 2>/dev/null
"$new" export --in h.jsonl --out hpart --partition-by experiment,model 2>/dev/null
"$new" export --in x.csv --out xpart --partition-by team 2>/dev/null
python3 - <<'PY'
import csv
rows = list(csv.reader(open('s.csv')))
h = rows[0]; ix = {n: i for i, n in enumerate(h)}
def w(name, rs):
    with open(name, 'w', newline='') as f:
        csv.writer(f, lineterminator='\n').writerows(rs)
def mut(name, k, col, v):
    r = [list(x) for x in rows]; r[k][ix[col]] = v; w(name, r)
mut('dupid.csv', 3, 'episode_id', rows[1][ix['episode_id']])
mut('nanweight.csv', 5, 'weight', 'NaN')
mut('nulldup.csv', 6, 'duplicated', '')
mut('nandelay.csv', 7, 'delay_s', 'NaN')
mut('zeroweight.csv', 8, 'weight', '0')
r = [list(x) for x in rows]
for k in range(1, len(r)):  # a delay on a fault that is not late: a plausibility warning
    if r[k][ix['fault_mode']] in ('timeout_post', 'http500_post', 'none'):
        r[k][ix['delay_s']] = '30'; break
w('plaus.csv', r)
w('empty.csv', [h])
j = ix['cue']; w('nocue.csv', [x[:j] + x[j+1:] for x in rows])
xr = list(csv.reader(open('x.csv'))); w('g1.csv', xr[:200]); w('g2.csv', [xr[0]] + xr[200:])
PY
"$new" export --in plaus.csv --out plaus.parquet 2>/dev/null
"$new" export --in h.parquet --out ipart --partition-by instance,condition 2>/dev/null
"$new" export --in h.parquet --out hh.csv 2>/dev/null
# A larger ledger (30 copies of h with new ids; ~68k rows, two row groups)
# whose integer, float and extra columns have more than 256 distinct
# values, seeds beyond int32, a partly missing cost_usd; and a shuffled
# subset of it (levels first seen in another order).
python3 - <<'PY'
import csv, random
random.seed(7)
r = list(csv.reader(open('hh.csv'))); h = r[0]; ix = {n: i for i, n in enumerate(h)}
out = [h + ['site', 'score']]
for k in range(30):
    for row in r[1:]:
        x = list(row)
        x[ix['episode_id']] += '#' + str(k)
        x[ix['seed']] = str(random.choice([random.randrange(0, 2**40), random.randrange(0, 300), -random.randrange(0, 2**33)]))
        x[ix['tool_calls']] = str(random.randrange(0, 400))
        x[ix['agent_time_s']] = repr(random.random() * 1000) if random.random() < .5 else str(random.randrange(0, 50))
        x[ix['cost_usd']] = '' if random.random() < .3 else repr(round(random.random(), 3))
        x[ix['instance']] = str(k * 7 + int(x[ix['instance']]))
        out.append(x + ['lab%d' % random.randrange(0, 600), str(random.randrange(0, 5))])
csv.writer(open('big.csv', 'w', newline=''), lineterminator='\n').writerows(out)
b = out[1:]; random.shuffle(b)
csv.writer(open('shuf.csv', 'w', newline=''), lineterminator='\n').writerows([out[0]] + b[:20000])
PY
"$new" export --in big.csv --out big.parquet 2>/dev/null
"$new" export --in shuf.csv --out shuf.parquet 2>/dev/null
cat > big.yaml <<'YAML'
prereg: 1
title: "big: derive and populations over many-valued and extra columns"
alpha: 0.05
derive:
  - name: bigseed
    where: 'seed > 1000000 || seed < -5'
  - name: costly
    where: 'cost_usd > 0.5 && agent_time_s >= 20'
hypotheses:
  - id: B1
    statement: "paired on two keys, ids in the population"
    population: 'bigseed && episode_id > "E3"'
    outcome: eos
    estimand: {kind: mcnemar, arm: condition, a: vanilla, b: guard, pair_by: [pair_key, instance]}
    rule: {direction: above}
  - id: B2
    statement: "a rate for each of many levels of an extra column"
    population: 'costly && score == "2"'
    parts:
      - for_each: site
        outcome: duplicated
        estimand: {kind: rate, cluster: template}
        rule: {direction: below, bound: 50, use: interval}
  - id: B3
    statement: "a logit with a many-valued integer covariate"
    population: 'tool_calls > 100 && !bigseed'
    estimand:
      kind: odds_ratio
      model: logit
      formula: "duplicated ~ model + tool_calls"
      refs: {model: gpt-6-sol}
      term: "model[mai-code-1.1-flash]"
    rule: {direction: above}
YAML
if [ -n "${DUCKDB_NODE_MODULES:-}" ]; then
	ln -sfn "$DUCKDB_NODE_MODULES" node_modules
	cat > duck.mjs <<'JS'
import { DuckDBInstance } from '@duckdb/node-api';
const con = await (await DuckDBInstance.create(':memory:')).connect();
for (const sql of process.argv.slice(2)) await con.run(sql);
JS
	node duck.mjs \
		"COPY (SELECT * EXCLUDE (cost_usd) FROM 's.parquet') TO 'nocost.parquet' (FORMAT parquet)" \
		"COPY (SELECT * EXCLUDE (cost_usd) FROM 'h.parquet') TO 'hnocost.parquet' (FORMAT parquet)" \
		"COPY (SELECT * EXCLUDE (cue) FROM 's.parquet') TO 'nocue.parquet' (FORMAT parquet)" \
		"COPY (SELECT * EXCLUDE (delay_s) FROM 'h.parquet') TO 'hnodelay.parquet' (FORMAT parquet)" \
		"COPY (SELECT * EXCLUDE (pair_key) FROM 'h.parquet') TO 'hnopair.parquet' (FORMAT parquet)" \
		"COPY (SELECT * FROM 's.parquet' UNION ALL SELECT * FROM 's.parquet' LIMIT 40) TO 'dupid.parquet' (FORMAT parquet)" \
		"COPY (SELECT * REPLACE (CASE WHEN episode_id = 's-003' THEN 'NaN'::DOUBLE ELSE weight END AS weight) FROM 's.parquet') TO 'nanweight.parquet' (FORMAT parquet)" \
		"COPY (SELECT * REPLACE (CASE WHEN episode_id = 's-003' THEN NULL ELSE duplicated END AS duplicated) FROM 's.parquet') TO 'nulldup.parquet' (FORMAT parquet)" \
		"COPY (SELECT * FROM 's.parquet' WHERE false) TO 'empty.parquet' (FORMAT parquet)" \
		"COPY (SELECT * FROM 'big.parquet') TO 'rg.parquet' (FORMAT parquet, ROW_GROUP_SIZE 2048)" \
		"COPY (SELECT * REPLACE (instance::INTEGER AS instance, tool_calls::INTEGER AS tool_calls) FROM 'h.parquet') TO 'i32.parquet' (FORMAT parquet)" \
		"COPY (SELECT * REPLACE (CASE WHEN episode_id LIKE '%timeout_post' AND model = 'gpt-6-sol' THEN NULL ELSE model END AS model) FROM 'h.parquet') TO 'nullmodel.parquet' (FORMAT parquet)" \
		"COPY (SELECT * REPLACE (CASE WHEN hash(episode_id) % 9 = 0 THEN NULL ELSE tool_calls END AS tool_calls) FROM 'h.parquet') TO 'nullint.parquet' (FORMAT parquet)" \
		"COPY (SELECT *, hash(episode_id) % 7 AS xint, (hash(episode_id) % 100) / 10.0 AS xdbl, hash(episode_id) % 2 = 0 AS xbool, CASE WHEN hash(episode_id) % 5 = 0 THEN NULL ELSE 'v' || (hash(episode_id) % 3)::VARCHAR END AS xstr FROM 'h.parquet') TO 'xtyped.parquet' (FORMAT parquet)" \
		"COPY (SELECT episode_id, model, duplicated, eos, weight, experiment, * EXCLUDE (episode_id, model, duplicated, eos, weight, experiment) FROM 'h.parquet') TO 'reorder.parquet' (FORMAT parquet)"
fi

# --- cases ----------------------------------------------------------------
# Each case: a name and the arguments; "@OUT" is replaced by a fresh output
# directory whose files are compared too.
cases=()
add() { cases+=("$(printf '%q ' "$@")"); }
ledgers="s.csv s.parquet s.graded.jsonl x.csv x.parquet h.jsonl h.parquet sim.parquet hpart xpart ipart g?.csv empty.csv dupid.csv nanweight.csv nulldup.csv nandelay.csv zeroweight.csv plaus.csv plaus.parquet nocue.csv"
for f in nocost.parquet hnocost.parquet nocue.parquet hnodelay.parquet hnopair.parquet dupid.parquet nanweight.parquet nulldup.parquet empty.parquet i32.parquet nullmodel.parquet nullint.parquet xtyped.parquet reorder.parquet; do
	[ -f "$f" ] && ledgers="$ledgers $f"
done
for l in $ledgers; do
	for fmt in text md latex csv json; do add tables --in "$l" --icc pooled --format $fmt; done
	add tables --in "$l"
	add hypotheses --in "$l" --format json
	add hypotheses --in "$l"
	add report --in "$l" --out @OUT
	add figures --in "$l" --out @OUT --format svg
	add rates --in "$l" --outcome duplicated --by model,fault_mode --where fault_fired --format csv
	add rates --in "$l" --outcome eos --by condition --cluster task --format json
	add rates --in "$l" --outcome duplicated --where 'model == "no-such-model"'
	add paired --in "$l" --outcome eos --arm condition --base vanilla --pair-by pair_key --format csv
	add paired --in "$l" --outcome duplicated --arm condition --base guard --pair-by pair_key --where fault_fired --weight weight
	add tost --in "$l" --outcome task_success --arm condition --a guard --b vanilla --paired-by pair_key --format json
	add tost --in "$l" --outcome task_success --arm condition --a guard --b vanilla
	add model --in "$l" --family logit --formula 'duplicated ~ condition + fault_mode' --format csv
	add model --in "$l" --family gee --group template --formula 'duplicated ~ condition' --format csv
	add shapley --in "$l" --formula 'duplicated ~ condition + fault_mode + model' --format csv
	add export --in "$l" --out @OUT/e.csv
	add export --in "$l" --out @OUT/e.parquet
	add validate "$l"
	add tables --in "$l" --strict --table 3
done
for l in x.csv x.parquet xpart g?.csv; do
	add rates --in "$l" --outcome duplicated --by team --where 'team == "red" && difficulty == "3"' --format csv
	add rates --in "$l" --outcome duplicated --by team --weight w_alt --format csv
	add prereg check "$root/scripts/check/extra.yaml" --in "$l"
	add hypotheses --prereg "$root/scripts/check/extra.yaml" --in "$l" --format json
	add report --prereg "$root/scripts/check/extra.yaml" --in "$l" --out @OUT
done
for l in big.csv big.parquet shuf.parquet rg.parquet; do
	[ -f "$l" ] || continue
	add tables --in "$l" --format csv
	add tables --in "$l" --format json --icc pooled
	add hypotheses --in "$l" --format csv
	add hypotheses --prereg big.yaml --in "$l" --format csv
	add rates --in "$l" --outcome eos --where 'seed > 1000000 && tool_calls >= 200' --by model --format csv
	add rates --in "$l" --outcome eos --where 'agent_time_s < 300.5 && score == "3"' --by site --format csv
	add rates --in "$l" --outcome eos --where 'cost_usd > 0.5' --by instance --format csv
	add paired --in "$l" --outcome eos --arm condition --base vanilla --pair-by pair_key,seed --format csv
	add shapley --in "$l" --formula 'duplicated ~ model + condition + fault_mode' --format csv
done
if [ -f xtyped.parquet ]; then
	for w in 'xint == 3' 'xint > 3' 'xdbl > 4.5' 'xbool' 'xstr == "v1"'; do
		add rates --in xtyped.parquet --outcome eos --where "$w" --by xstr --format csv
	done
fi
E='episode_id == "E1/minimal/native/vanilla/default/gpt-6-sol/T01/0/0/timeout_post" || episode_id == "E3/hermes/native/guard/default/gpt-5.6-sol/T01/0/0/timeout_post"'
for l in h.parquet hpart h.jsonl 'hpart/*/*/part-0.parquet' ipart; do
	add rates --in "$l" --outcome eos --where "$E" --format csv
	add rates --in "$l" --outcome eos --where 'episode_id > "E3"' --by model --format csv
	add rates --in "$l" --outcome eos --by condition,instance --where 'instance == 0 && condition != "guard"' --format csv
done
for l in sim.parquet sim.jsonl; do
	add prereg check "$root/analysis/prereg/testdata/study.yaml" --in "$l"
	add hypotheses --prereg "$root/analysis/prereg/testdata/study.yaml" --in "$l"
	add hypotheses --prereg "$root/analysis/prereg/testdata/study.yaml" --in "$l" --format csv
done
for l in s.csv x.parquet h.jsonl hpart; do
	add view "$l" --out @OUT
done
add view x.parquet s.csv h.jsonl --out @OUT # several ledgers: a "file" dimension
add tables --in no-such-file.csv
add tables --in 'nomatch*.parquet'
add tables --in s.csv --icc bogus
add rates --in x.csv --outcome duplicated --where 'no_such_col == "a"'

# --- run --------------------------------------------------------------------
run() { # bin side index args...
	local bin=$1 side=$2 i=$3; shift 3
	local d="$work/$side/$i" args=() a
	mkdir -p "$d"
	for a in "$@"; do args+=("${a//@OUT/$d/out}"); done
	printf '%q ' "$@" > "$d/cmd"
	(cd "$in" && "$bin" "${args[@]}" > "$d/stdout" 2> "$d/stderr"; echo $? > "$d/rc")
	# Outputs name their own directory and the binary's toolkit and Go
	# versions: replace exactly those strings, nothing else.
	local tv gv
	read -r tv gv < <("$bin" version | sed -n 's/^limbo-analyze \([^ ]*\) .*\(go[0-9][0-9.]*\).*/\1 \2/p')
	find "$d" -type f -exec sed -i -e "s#$d#OUT#g" -e "s#${tv:-@@}#VERSION#g" -e "s#${gv:-@@}#GOVERSION#g" {} +
}
i=0
for c in "${cases[@]}"; do
	i=$((i + 1))
	eval "set -- $c"
	run "$old" old $i "$@"
	run "$new" new $i "$@"
done
# Every file is compared, PNG, PDF and HTML included (same seed, same bytes).
if diff -r "$work/old" "$work/new" > "$work/diff.txt"; then
	echo "before-after: $i cases, no difference ($work)"
	exit 0
fi
echo "before-after: $i cases, differences in $(grep -c '^diff\|^Only' "$work/diff.txt") files ($work/diff.txt)"
exit 1
