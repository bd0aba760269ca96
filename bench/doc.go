// Command bench runs the Go benchmarks of every stage of the limbo-analyze
// pipeline (simulate, grade, export, read, rates, paired, Shapley, logit,
// GEE, GLMM, tables, figures) and writes a Markdown summary: ns/op, rows/s
// or MB/s where the benchmark reports them, CPU ms/op where it reports
// them (on a shared machine wall time mostly measures waiting for a
// core), B/op and allocs/op, with the date, machine, Go version and load.
//
// Run from the repository root:
//
//	go run ./bench                          # ~5 minutes on 2 loaded cores
//	go run ./bench -benchtime 2s -out /tmp/bench.md
//	go run ./bench -stages rates,paired     # a subset
//
// It first simulates the paper design once (25,930 episodes) and points
// the CLI and analysis benchmarks at that ledger through
// $LIMBO_BENCH_EPISODES and $LIMBO_BENCH_LEDGER. The summary goes to
// stdout and to -out (bench/RESULTS.md by default, written atomically).
//
// Related scripts: bench/scale.sh times the commands on 26k, 1M and 10M
// rows (docs/scale.md); bench/compare.sh times statsmodels, lme4 and
// geepack on the same exported files; bench/gen writes the synthetic big
// ledgers; bench/scaleplot draws docs/scale.png.
package main
