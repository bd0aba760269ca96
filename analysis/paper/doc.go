// Package paper is the LIMBO study built on the analysis engine: the
// paper's Tables 3–13, the data of Figures 2, 3 and 6, its hypotheses
// H1–H6 and its published numbers. It computes only with the engine's
// exported API (package analysis: Rates, Paired, Shapley and a built
// frame as a source; package analysis/table: held Data and its column
// views) and the paper's preregistration (package
// analysis/prereg, whose embedded file is H1–H6), the way a study of
// one's own would; it does no rendering (package report) and no plotting
// (package plots).
//
// # Tables
//
// Analyze computes every table, the hypotheses and the figure data of an
// episode table (ReadData, or table.NewData for episodes in memory);
// BuildTable computes one. Each Table is cells with what they rest on
// (Cell: value, 95% interval, n and n_eff, digits), keyed by stable row
// and column keys. A table whose columns the ledger lacks is a
// MissingColumnsError, which Analyze turns into a warning; a cell that
// cannot be computed holds NaN and the table carries a warning saying
// why. Columns (and TableColumns) name the columns the tables read, so a
// reader decodes only those.
//
// Rates are stored in percent, differences in percentage points, times in
// minutes, exactly as the paper prints them; CSV and JSON renderings keep
// full precision.
//
// # Intervals and the ICC
//
// A rate's interval is Wilson's on the clustered effective sample size of
// the engine's Rates (docs/methods.md, "Intervals on rates"), the ICC
// estimated over task templates once per experiment and column (pooled
// over models, harnesses and conditions). Table 3 offers two conventions
// (ICC): one ICC per column, or one for the whole table (the mean of the
// columns' ICCs, weighted by template count), which is what the paper's
// intervals imply (docs/simulation.md, pass 6); Options.ICC chooses, and
// the caption says which.
//
// # Hypotheses
//
// Hypotheses evaluates the primary hypotheses of the paper's
// preregistration (prereg.Paper) with package analysis/prereg and lays
// them out as Table 12 (Layout): the paper's wording of each rule and
// result, and the verdicts (prereg.Verdict) and statistics (prereg.Stat)
// the evaluation gives.
//
// # The paper's numbers
//
// The published numbers live only in paper.json (embedded; Paper,
// PaperVerdicts); Compare puts them beside a run's.
package paper
