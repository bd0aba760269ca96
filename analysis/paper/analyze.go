package paper

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/analysis/table"
)

// TableNumbers are the paper's tables this package computes (Tables 1
// and 2 describe the design and are not computed).
var TableNumbers = []int{3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}

// Options carries what the analysis needs beyond the episodes.
type Options struct {
	// Tools is the sandbox's tool catalogue (native contract) for Table 11.
	Tools []Tool
	// ICC is how Table 3 estimates the template ICC of its intervals
	// (Table3With); the zero ICC is the paper's default.
	ICC ICC
	// Bootstrap, with Replicates, gives Tables 3 and 4 cluster-bootstrap
	// intervals: Table 3's rates get them instead of Wilson's, Table 4's
	// shares (which otherwise have none) get them. Each replicate draws
	// the clusters of Bootstrap.Cluster (default template, the tables'
	// cluster); Bootstrap.Interval picks BCa or percentile.
	Bootstrap analysis.BootstrapSpec
}

// Results is everything a report shows.
type Results struct {
	Tables     []*Table
	Hypotheses []*Hypothesis
	// Figures holds the data of Figures 2, 3 and 6 (Figure 4 is Table 6,
	// Figure 5 is Table 7); nil when the ledger lacks their columns.
	Figures  *Figures
	Episodes int
	Warnings []string // tables that could not be built at all
}

// Table returns table n (nil if absent).
func (r *Results) Table(n int) *Table {
	for _, t := range r.Tables {
		if t.Number == n {
			return t
		}
	}
	return nil
}

// BuildTable computes table n alone. A MissingColumnsError names the
// columns the data lacks.
func BuildTable(d *table.Data, n int, opt Options) (*Table, error) {
	switch n {
	case 3:
		return table3(d, opt)
	case 4:
		t, _, err := table4(d, opt.Bootstrap)
		return t, err
	case 5:
		return Table5(d)
	case 6:
		return Table6(d)
	case 7:
		return Table7(d)
	case 8:
		return Table8(d)
	case 9:
		return Table9(d)
	case 10:
		return Table10(d)
	case 11:
		return Table11(opt.Tools), nil
	case 12:
		hs, err := Hypotheses(d)
		if err != nil {
			return nil, err
		}
		return Table12(hs), nil
	case 13:
		return Table13(d)
	}
	return nil, fmt.Errorf("no table %d (the paper's computed tables are 3–13)", n)
}

// Analyze computes every table, the hypotheses and the figure data. A
// table the data cannot support (missing columns) becomes a warning, never
// an abort.
//
// The tables only read d, so they are built concurrently, on up to
// GOMAXPROCS goroutines; each result has its own slot and the results are
// assembled in table order, so the Results do not depend on the schedule.
func Analyze(d *table.Data, opt Options) *Results { return analyze(d, opt, true) }

// AnalyzeTables is Analyze without the figure data (Results.Figures is
// nil): what `tables` needs, with no warning about a figure's columns.
func AnalyzeTables(d *table.Data, opt Options) *Results { return analyze(d, opt, false) }

func analyze(d *table.Data, opt Options, figures bool) *Results {
	r := &Results{Episodes: d.Len()}
	type slot struct {
		t   *Table
		hs  []*Hypothesis
		err error
	}
	tables := make([]slot, len(TableNumbers))
	var figs *Figures
	var figErr error
	jobs := make([]func(), 0, len(TableNumbers)+1)
	// The figures first, then the tables from the longest (the
	// hypotheses, Tables 10 and 7 on a large ledger) to the shortest, so
	// that no long job starts last while the other workers idle.
	if figures {
		jobs = append(jobs, func() { figs, figErr = BuildFigures(d) })
	}
	for _, k := range byCost() {
		n := TableNumbers[k]
		jobs = append(jobs, func() {
			s := &tables[k]
			switch n {
			case 12:
				if s.hs, s.err = Hypotheses(d); s.err == nil {
					s.t = Table12(s.hs)
				}
			default:
				s.t, s.err = BuildTable(d, n, opt)
			}
		})
	}
	run(jobs, runtime.GOMAXPROCS(0))
	for k, n := range TableNumbers {
		s := tables[k]
		if n == 12 {
			r.Hypotheses = s.hs
		}
		if err := s.err; err != nil {
			var mc *MissingColumnsError
			if !errors.As(err, &mc) {
				err = fmt.Errorf("Table %d: %w", n, err)
			}
			r.Warnings = append(r.Warnings, err.Error())
			continue
		}
		r.Tables = append(r.Tables, s.t)
	}
	r.Figures = figs
	if figErr != nil {
		r.Warnings = append(r.Warnings, figErr.Error())
	}
	return r
}

// tableCost orders the tables by their time on bench/gen's 10M rows,
// longest first (unlisted tables last, in order).
var tableCost = []int{12, 10, 7, 4, 3, 6, 8, 13, 9, 5}

// byCost returns the indices of TableNumbers in tableCost's order.
func byCost() []int {
	idx := make([]int, 0, len(TableNumbers))
	for _, n := range tableCost {
		if k := slices.Index(TableNumbers, n); k >= 0 {
			idx = append(idx, k)
		}
	}
	for k, n := range TableNumbers {
		if !slices.Contains(tableCost, n) {
			idx = append(idx, k)
		}
	}
	return idx
}

// run calls every job, on at most workers goroutines at once, and returns
// when all have returned. Jobs are started in order.
func run(jobs []func(), workers int) {
	if workers <= 1 {
		for _, job := range jobs {
			job()
		}
		return
	}
	next := make(chan func())
	var wg sync.WaitGroup
	for range min(workers, len(jobs)) {
		wg.Go(func() {
			for job := range next {
				job()
			}
		})
	}
	for _, job := range jobs {
		next <- job
	}
	close(next)
	wg.Wait()
}
