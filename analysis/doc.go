// Package analysis is the toolkit's analysis engine: it turns episode
// ledgers into plain result structs (numbers, intervals, counts and
// warnings) — the analyses of the command line and the LIMBO paper's
// Tables 3–13 and hypotheses H1–H6. It does no rendering (package report
// does) and no plotting (package plots draws from these structs).
//
// # The engine
//
// A Query names the episodes (one or more ledgers read as one, or episodes
// in memory), a --where filter and a weight column. Rates, Paired, TOST,
// Model (logit, GEE, GLMM) and Shapley each take a Query and their own
// spec and return a result that carries its warnings; they never print.
// A mistake in the query or the spec is a *SpecError; anything else
// depends on the data. Every analysis reads through one scan, which
// streams: memory follows groups, covariate patterns or pairs, not rows.
//
//	q := analysis.Query{Inputs: []string{"runs.parquet"}, Where: "fault_fired"}
//	r, err := analysis.Rates(q, analysis.RatesSpec{Outcome: "duplicated", By: []string{"contract"}})
//
// # The paper's tables
//
// # Conventions
//
// Rates are stored in percent, differences in percentage points, times in
// minutes, exactly as the paper prints them; CSV and JSON renderings keep
// full precision. A cell that cannot be computed holds NaN and the table
// carries a warning saying why; no single cell aborts a table and no table
// aborts a report.
//
// Intervals on rates are Wilson intervals on a clustered effective sample
// size (paper-design §2.4):
//
//	n_eff = n / (1 + (m̄ − 1) ρ̂),   m̄ = n / (number of task templates in the cell)
//
// where ρ̂ is the one-way ANOVA intraclass correlation of the 0/1 outcome
// over task-template clusters, estimated once per experiment and column
// (pooled over models, harnesses and conditions) and truncated at 0, and
// n is Kish's weighting n. The tables compute these rates with the
// engine's Rates, so an undefined ρ̂ (a constant outcome, one template,
// singleton templates) is NaN with a warning and n_eff falls back to
// Kish's, exactly as the rates command does.
//
// Figures 2, 3 and 6 get their data as Tables too (BuildFigures; Figures 4
// and 5 draw Tables 6 and 7).
//
// The paper's published numbers live only in paper.json (embedded); Compare
// puts them beside a run's numbers.
package analysis
