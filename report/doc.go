// Package report renders analysis results for people and machines: aligned
// text for a terminal, Markdown, LaTeX (booktabs), CSV and JSON at full
// precision (NaN as empty and null), a paper-versus-run comparison, and
// the one-command report (report.md, a self-contained report.html and
// every table in every format), written atomically.
package report
