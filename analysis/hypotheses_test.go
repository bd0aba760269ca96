package analysis

// PaperHypotheses is the paper's H1–H6 for this package's tests:
// prereg.PaperHypotheses, set by paper_hypotheses_test.go (package
// analysis_test, which may import analysis/prereg; this package may not,
// since prereg imports it). Exported only in the test binary.
var PaperHypotheses HypothesesFunc

// paperOptions are Options with the paper's hypotheses, so that Analyze
// builds every table including Table 12.
func paperOptions() Options { return Options{Hypotheses: PaperHypotheses} }
