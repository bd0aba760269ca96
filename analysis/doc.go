// Package analysis is the toolkit's statistics engine: it turns episode
// ledgers into plain result structs (numbers, intervals, counts and
// warnings). It knows no study: the LIMBO paper's tables, figures and
// hypotheses are package analysis/paper, built on this package's exported
// API; a user's own analysis is built the same way. It does no rendering
// (package report does) and no plotting (package plots).
//
// # Queries and analyses
//
// A Query is a source of episodes (a table.Source: one or more ledgers
// read as one, episodes or rows in memory, the rows of a table.Data, or a
// frame the caller built), a --where filter and a weight column. Rates,
// Paired, TOST, Means, Model (logit, GEE, GLMM), Contrast (average
// contrasts of a model on the response scale), Shapley and Repeats
// (pass^k over repeated runs) each take a Query and their own spec and
// return a result that carries its warnings; they never print. Rates,
// Paired, Contrast and Shapley take a BootstrapSpec for cluster (or, for
// a GLMM, parametric) bootstrap intervals, percentile and BCa, the same
// bytes for any number of workers. A mistake in the query or the spec is a *SpecError;
// anything else depends on the data. Every analysis reads through one
// scan of its source, which streams: memory follows groups, covariate
// patterns or pairs, not rows.
//
//	q := analysis.Query{Source: &table.Files{Paths: []string{"runs.parquet"}}, Where: "fault_fired"}
//	r, err := analysis.Rates(q, analysis.RatesSpec{Outcome: "duplicated", By: []string{"contract"}})
//
// # Held episodes
//
// table.Read and table.NewData hold episodes as columns (table.Data). A
// query reads a Data by its columns, a subset of its rows or all of them
// (table.Held); WithBools adds derived boolean columns; Keep and Levels
// evaluate a --where expression and list a column's levels on codes. An
// analysis of one's own reads a Data's columns through typed views
// (Strings, Bools, Ints, Floats) and, when it derives the rows an
// estimator reads (an episode counted under several headings, a recoded
// group), builds a frame with package analysis/frame and passes it as
// the query's source (Built).
//
// # Conventions
//
// Rates are proportions in [0, 1] (RateRow.P); a rate with a cluster
// column has a Wilson interval (Wilson 1927) on the clustered effective
// sample size
//
//	n_eff = n_Kish / (1 + (m̄ − 1) ρ̂),   m̄ = n / (number of clusters in the group)
//
// where ρ̂ is the one-way ANOVA intraclass correlation of the 0/1 outcome
// over the clusters, estimated over every row of the query (or within
// RatesSpec.ICCBy strata and pooled) and truncated at 0, and n_Kish is
// Kish's weighting n (docs/methods.md, "Intervals on rates"). An undefined
// ρ̂ (a constant outcome, one cluster, singleton clusters) is NaN with a
// warning and n_eff falls back to Kish's. A p-value too small for float64
// is never 0: results carry it as the bound stats.PFloor, marked, with its
// log₁₀.
package analysis
