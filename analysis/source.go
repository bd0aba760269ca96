package analysis

import (
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/analysis/table"
)

// The engine's layers, each calling only those below it: sources (package
// table: files, held episodes and Data, batches, Where), the scan of a
// query's source through its Where (query.go), the consumers that
// collapse batches into frames and pairings (colscan.go, pairing.go), and
// the estimators.

// source returns the query's source (handing out rows only for a test
// that compares the two paths).
func (q *Query) source() (table.Source, error) {
	switch s := q.Source.(type) {
	case nil:
		return nil, specf("no input: a query needs at least one ledger")
	case *table.Files:
		if len(s.Paths) == 0 {
			return nil, specf("no input: a query needs at least one ledger")
		}
	}
	if q.rowPath {
		return table.ByRows(q.Source), nil
	}
	return q.Source, nil
}

// Built is a Source that is a frame itself, built by the caller with
// frame.Builder from rows it derived (an episode counted under several
// columns of a table, a recoded group, an outcome of its own): the query
// reads nothing and its Where must be empty. It is read by the analyses
// that read covariate patterns (Rates, TOST on independent arms, the
// logit Model, Shapley), which find their columns, outcome and weight in
// it: build it with Spec.Collapse and, weighted, with the Spec.Weight
// that Query.Weight names. An analysis that reads episodes or rows
// (Paired, paired TOST, GEE, GLMM) rejects it with a *SpecError.
func Built(fr *frame.Frame) table.Source { return &builtSource{fr} }

// builtSource is a frame built by the caller (Built).
type builtSource struct{ fr *frame.Frame }

// errBuilt is the error of an analysis that reads episodes from a frame.
func errBuilt() error { return specf("this analysis reads episodes, not a built frame (Built)") }

func (s *builtSource) Name() string                                            { return "the built frame" }
func (s *builtSource) Scan([]string, []string, func(*table.Batch) error) error { return errBuilt() }
func (s *builtSource) IDs(func(int64) bool, func([]byte)) (int64, error)       { return 0, errBuilt() }
func (s *builtSource) HasColumn(col string) (bool, error)                      { return s.fr.Col(col) != nil, nil }

// isBuilt reports whether src is a frame built by the caller.
func isBuilt(src table.Source) bool {
	_, ok := src.(*builtSource)
	return ok
}
