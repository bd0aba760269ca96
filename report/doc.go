// Package report renders analysis results for people and machines: aligned
// text for a terminal, Markdown, LaTeX (booktabs), CSV and JSON at full
// precision (NaN as empty and null), a paper-versus-run comparison, and
// the one-command report (report.md, a self-contained report.html and
// every table in every format), written atomically.
//
// The paper's tables (paper.Table) and the analysis commands' results
// (analysis.RatesResult, PairedResult, TOSTResult, ModelResult,
// ShapleyDecomposition, laid out by Rates, Paired, TOST, Model and
// Shapley as an Output) share the number formats: a p-value prints as
// PValue and a difference in percentage points with a sign and one
// decimal wherever it appears. Per column, the commands keep proportions
// (rates' p, tost's diff) with 4 significant digits and the tables print
// percent, as the paper does; CSV and JSON keep full precision.
package report
