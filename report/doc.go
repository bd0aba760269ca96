// Package report renders results for people and machines: aligned text
// for a terminal, Markdown, LaTeX (booktabs), CSV and JSON at full
// precision (NaN as empty and null), a paper-versus-run comparison, and
// the one-command report (report.md, a self-contained report.html and
// every table in every format), written atomically. The packages whose
// results it renders print nothing themselves.
//
// One table model, Grid, lays out every table: a header, rows of typed
// cells, each column's alignment (Align) and spanning group. The paper's
// tables (paper.Table) map onto a Grid inside their own frame (Text,
// Markdown, LaTeX; CSV in long form, one line per cell; JSON); so do the
// analysis commands' results (analysis.RatesResult, MeansResult,
// PairedResult, TOSTResult, ModelResult, ShapleyDecomposition, laid out
// by Rates, Means, Paired, TOST, Model and Shapley as an Output), a
// preregistration's verdicts (Prereg), a power analysis (Power), the
// propositions' proof (Proof), the ledger schema (Schema) and a ledger
// file's summary (Summary).
//
// They share the number formats: a p-value prints as PValue (or, from
// its logarithm, FormatLog10P) and a difference in percentage points with
// a sign and one decimal wherever it appears. Per column, the commands
// keep proportions (rates' p, tost's diff) with 4 significant digits and
// the tables print percent, as the paper does; CSV and JSON keep full
// precision.
package report
