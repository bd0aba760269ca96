// Package frame owns the engine's coded columns. Dict is its one
// dictionary (distinct texts numbered in order of first appearance,
// found through an open-addressing index) and Coded its one
// dictionary-coded column (a Dict and a code per row, a byte while it has
// at most 256 texts): table.Data holds its text columns as Coded columns,
// and the pairings of package analysis number their arms and keys in
// Dicts, so that no package codes text a second way.
//
// A frame holds the columns of an episode table that an analysis needs,
// compactly: every Column is dictionary-coded (one int32 per frame row and
// the distinct values, sorted, with their numeric values), and the
// outcome and weight are kept as per-row (or per-pattern) sufficient
// statistics. A Builder interns each column's values in a Dict as rows
// come and sorts them when the frame is finished (Column.Sort maps the
// first-seen codes to sorted ones). A column scan of a held Data hands
// the Builder the Data's dictionary and codes (Builder.Share): they are
// the column's own until the frame is finished, which keeps the levels
// the rows used and sorts them, so nothing is interned again.
//
// A Builder streams rows from a ledger reader. With Spec.Collapse set,
// identical rows (same values in every column of the Spec) are merged into
// one covariate pattern carrying its row count, event count and weight
// sums, so memory grows with the number of distinct patterns, not rows:
// this is the path of the rates and factor-only logistic analyses.
package frame
