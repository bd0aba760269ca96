// Package analysis turns an episode table into the LIMBO paper's Tables 3–13
// and the verdicts of its preregistered hypotheses H1–H6, as plain result
// structs: numbers, intervals, counts and warnings. It does no rendering
// (package report does) and no plotting (package plots draws from these
// structs).
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
// (pooled over models, harnesses and conditions) and truncated at 0.
//
// Figures 2, 3 and 6 get their data as Tables too (BuildFigures; Figures 4
// and 5 draw Tables 6 and 7).
//
// The paper's published numbers live only in paper.json (embedded); Compare
// puts them beside a run's numbers.
package analysis
