package report

import (
	"fmt"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/analysis/table"
)

// SelectTables computes the tables the tables command prints: Table
// number of d (0 for all of Tables 3–13) and, with compare, each one's
// comparison with the paper's published numbers instead (see
// CompareTable). Notes go to warn: the warnings of a whole analysis, and a
// single table the paper publishes no numbers of.
func SelectTables(d *table.Data, number int, compare bool, opt paper.Options, warn func(string)) ([]*paper.Table, error) {
	var tables []*paper.Table
	if number != 0 {
		t, err := paper.BuildTable(d, number, opt)
		if err != nil {
			return nil, err
		}
		tables = []*paper.Table{t}
	} else {
		res := paper.AnalyzeTables(d, opt)
		for _, w := range res.Warnings {
			warn("warning: " + w)
		}
		tables = res.Tables
	}
	if !compare {
		return tables, nil
	}
	var cts []*paper.Table
	for _, t := range tables {
		if ct := CompareTable(t); ct != nil {
			cts = append(cts, ct)
		} else if number != 0 {
			warn(fmt.Sprintf("the paper publishes no numbers of Table %d", t.Number))
		}
	}
	return cts, nil
}
