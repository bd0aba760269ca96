// Package frame holds the columns of an episode table that an analysis
// needs, in memory and compactly: every column is dictionary-coded (one
// int32 per row and a sorted list of distinct values), and the outcome and
// weight are kept as per-row (or per-pattern) sufficient statistics.
//
// A Builder streams rows from a ledger reader. With Spec.Collapse set,
// identical rows (same values in every column of the Spec) are merged into
// one covariate pattern carrying its row count, event count and weight
// sums, so memory grows with the number of distinct patterns, not rows:
// this is the path of the rates and factor-only logistic analyses.
package frame
